"""KernelBench level 2, problem 77_ConvTranspose3d_Scale_BatchNorm_GlobalAvgPool: gap(bn(conv_t(x) * 2.0)).

x is 16 x 64 x 16 x 32 x 32; nn.ConvTranspose3d(64, 128, 5) with bias, stride 1, no padding, so each
output size is S + 4 and the transposed convolution gives 16 x 128 x 20 x 36 x 36 (53 M elements),
multiplied by scale_factor = 2.0. nn.BatchNorm3d(128, eps=1e-5, momentum=0.1) runs in training mode
(the harness never calls .eval()): every channel is normalised with its batch mean and biased batch
variance over (N, D, H, W), then the module's affine weight (ones) and bias (zeros) apply; finally
nn.AdaptiveAvgPool3d((1, 1, 1)) averages every (n, c) volume, so the output is 16 x 128 x 1 x 1 x 1.

A pipeline of three kernels, because a channel's statistics need the whole transposed-convolution
output before any element can be normalised, and one launch has no grid-wide barrier:

    convtranspose3d_scale_kernel        x [N,64,D,H,W], w, b -> y [N,128,OD,OH,OW] = conv_t(x) * 2
    convtranspose3d_bn_stats_kernel     y -> stats [2,128]  (row 0 the channel means, row 1 the biased variances)
    convtranspose3d_bn_avgpool_kernel   y, stats, gamma, beta -> out [N,128,1,1,1]

The transposed convolution is one thread per output element (n, co, od, oh, ow) with ow fastest, in
gather form: it visits every tap (kd, kh, kw), keeps it only where od + pad - kd (likewise for h and
w) is a non-negative multiple of the stride whose quotient lies inside the input, and sums
x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw] over the input channels (the ConvTranspose3d weight is
[C_in, C_out, KD, KH, KW]) in fp32, plus the bias, times the scale. The statistics kernel runs one
1024-thread block per channel, walking the channel's N volumes (threads stride over each volume, so
loads are coalesced): a per-thread fp32 sum reduced through a shared-memory tree gives the mean; a
second pass of squared deviations from it, through a second tree, gives the biased variance (two
passes, as a careful first draft computes a variance). The last kernel runs one 256-thread block per
(n, c) volume: every thread sums its strided normalised elements, a tree reduction adds them up, and
thread 0 stores the sum divided by the volume size. Flat indices and volume offsets are 64-bit.

Cost: 53 M outputs; about 4 x 4.4 x 4.4 = 79 of the 125 taps hit on average, times 64 input channels:
about 268 G multiply-adds (536 GFLOP), about 0.2-0.3 s at the 2-2.6 TFLOP/s of the accepted naive
convolutions on an H200; the statistics (128 blocks, 1.7 MB per channel, read twice) and the pooling
(2048 blocks) take well under 1 ms each. One official forward: about 0.2-0.3 s (reference 5.09 ms).
"""

CUDA = r"""
const int STATS_BLOCK = 1024;   // threads per block of the statistics kernel (one block per channel)
const int POOL_BLOCK = 256;     // threads per block of the pooling kernel (one block per (n, c) volume)

extern "C" __global__ void convtranspose3d_scale_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ y,              // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad)
{
    const float SCALE_FACTOR = 2.0f;    // scale_factor
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OD * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int od = (int)((i / ((long long)OW * OH)) % OD);
    int co = (int)((i / ((long long)OW * OH * OD)) % C_out);
    int n = (int)(i / ((long long)OW * OH * OD * C_out));

    float acc = 0.0f;
    for (int kd = 0; kd < KD; ++kd) {
        int td = od + pad - kd;                     // = id * stride when the tap hits
        if (td < 0 || td % stride != 0) continue;
        int id = td / stride;
        if (id >= D) continue;
        for (int kh = 0; kh < KH; ++kh) {
            int th = oh + pad - kh;
            if (th < 0 || th % stride != 0) continue;
            int ih = th / stride;
            if (ih >= H) continue;
            for (int kw = 0; kw < KW; ++kw) {
                int tw = ow + pad - kw;
                if (tw < 0 || tw % stride != 0) continue;
                int iw = tw / stride;
                if (iw >= W) continue;
                for (int ci = 0; ci < C_in; ++ci) {
                    float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                    float wv = w[((((long long)ci * C_out + co) * KD + kd) * KH + kh) * KW + kw];
                    acc += xv * wv;
                }
            }
        }
    }
    y[i] = (acc + conv_b[co]) * SCALE_FACTOR;
}

extern "C" __global__ void convtranspose3d_bn_stats_kernel(
    const float* __restrict__ y,    // [N, C, S]  (S = OD * OH * OW)
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int S)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * S;

    // Pass 1: the channel sum over every (n, p), then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* vol = y + ((long long)n * C + c) * S;
        for (int p = tid; p < S; p += blockDim.x) {
            thread_sum += vol[p];
        }
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)count;
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* vol = y + ((long long)n * C + c) * S;
        for (int p = tid; p < S; p += blockDim.x) {
            float d = vol[p] - mean;
            thread_sq += d * d;
        }
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        stats[c] = mean;
        stats[C + c] = red[0] / (float)count;   // biased: divide by the count, as training-mode BN does
    }
}

extern "C" __global__ void convtranspose3d_bn_avgpool_kernel(
    const float* __restrict__ y,        // [N, C, S]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]  (BatchNorm3d weight)
    const float* __restrict__ beta,     // [C]  (BatchNorm3d bias)
    float* __restrict__ out,            // [N, C]  (viewed as [N, C, 1, 1, 1])
    int N, int C, int S)
{
    const float BN_EPS = 1e-5f;         // eps = 1e-5
    __shared__ float red[POOL_BLOCK];
    int vol = blockIdx.x;               // (n, c) volume
    if (vol >= N * C) return;
    int tid = threadIdx.x;
    int c = vol % C;
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float g = gamma[c];
    float b = beta[c];
    const float* y_vol = y + (long long)vol * S;

    // The sum of the volume's normalised values, strided over the block, then a tree reduction.
    float thread_sum = 0.0f;
    for (int p = tid; p < S; p += blockDim.x) {
        thread_sum += (y_vol[p] - mean) * inv_std * g + b;
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[vol] = red[0] / (float)S;   // global average pool
    }
}
"""

KERNELS = ["convtranspose3d_scale_kernel", "convtranspose3d_bn_stats_kernel", "convtranspose3d_bn_avgpool_kernel"]

BLOCK = 256               # transposed convolution: 1D blocks over the flat output index
STATS_BLOCK = 1024        # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
POOL_BLOCK = 256          # must equal POOL_BLOCK in the CUDA source, a power of two
CHANNELS_PER_BLOCK = 1    # one statistics block per channel
VOLUMES_PER_BLOCK = 1     # one pooling block per (n, c) volume
IN_CHANNELS = 64          # fixed by the weight [64, 128, 5, 5, 5]
OUT_CHANNELS = 128
KERNEL_SIZE = 5
STRIDE = 1                # ConvTranspose3d defaults: stride 1, padding 0
PADDING = 0
SCALE_FACTOR = 2.0
BN_EPS = 1e-5
BN_MOMENTUM = 0.1         # only affects the running statistics, never the output
OFFSET_RANGE = 2.0        # T2/T3: one U[0, 2) offset per (sample, input channel)
SMALL_SCALE = 0.01        # T3: the offset inputs scaled down to eps


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 128, 5, 2.0): conv_transpose (with bias), batch_norm (draws nothing),
        # global_avg_pool (no parameters)
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE)
        bn = nn.BatchNorm3d(OUT_CHANNELS, eps=BN_EPS, momentum=BN_MOMENTUM)
        return {"w": conv_t.weight, "b": conv_t.bias, "bn_w": bn.weight, "bn_b": bn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD
        OH = (H - 1) * STRIDE - 2 * PADDING + KH
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW
        y = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OD * OH * OW
        conv = (
            "convtranspose3d_scale_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], y],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, D),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KD),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OD),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
            ],
        )
        S = OD * OH * OW
        stats = torch.empty((2, C_out), device=x.device, dtype=x.dtype)
        stats_step = (
            "convtranspose3d_bn_stats_kernel",
            (K.cdiv(C_out, CHANNELS_PER_BLOCK), 1, 1),
            (STATS_BLOCK, 1, 1),
            [y, stats],
            [(ctypes.c_int, N), (ctypes.c_int, C_out), (ctypes.c_int, S)],
        )
        out = torch.empty((N, C_out, 1, 1, 1), device=x.device, dtype=x.dtype)
        pool = (
            "convtranspose3d_bn_avgpool_kernel",
            (K.cdiv(N * C_out, VOLUMES_PER_BLOCK), 1, 1),
            (POOL_BLOCK, 1, 1),
            [y, stats, w["bn_w"], w["bn_b"], out],
            [(ctypes.c_int, N), (ctypes.c_int, C_out), (ctypes.c_int, S)],
        )
        return {"seq": [conv, stats_step, pool], "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: batch statistics (the running buffers never reach the output).
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose3d(x, w["w"], w["b"])
        y = y * SCALE_FACTOR
        y = torch.nn.functional.batch_norm(
            y, None, None, w["bn_w"], w["bn_b"], training=True, momentum=BN_MOMENTUM, eps=BN_EPS
        )
        return torch.nn.functional.adaptive_avg_pool3d(y, (1, 1, 1))

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def offset_inputs(scale):
        # scale * (offset + U[0,1)) with one U[0,2) offset per (sample, input channel).
        def gen(torch, s):
            offset = torch.rand(s["batch"], IN_CHANNELS, 1, 1, 1) * OFFSET_RANGE
            x = torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
            return [(offset + x) * scale]

        return gen

    return K.substrate(
        name="L2p77_convtranspose3d_scale_batchnorm_globalavgpool",
        level=2,
        problem="77_ConvTranspose3d_Scale_BatchNorm_GlobalAvgPool",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16, min=2),
            "depth": K.dim(16),
            "height": K.dim(32),
            "width": K.dim(32),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds (outputs small: see notes)"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "depth": 1, "height": 3, "width": 5},
                small=True,
                purpose="transposed-convolution output 3 x 128 x 5 x 7 x 9 = 120960 elements, not a multiple of "
                "the 256-thread block (with an even batch or any even output size every count is one), so the "
                "tail guard matters; OD, OH, OW all differ and every output sees a different subset of the "
                "5 x 5 x 5 taps (one input plane in depth), so swapped strides, a wrong tap range or a misplaced "
                "input bound show; each volume has 315 values, so the 256-thread pooling blocks run one full "
                "and one partial pass",
            ),
            K.suite(
                "T2_sample_offsets",
                offset_inputs(1.0),
                seeds=[3, 4],
                sizes={"batch": 4, "depth": 4, "height": 8, "width": 6},
                purpose="x = offset + U[0,1) with one U[0,2) offset per sample and input channel: the samples' "
                "volumes differ in level, so the pooled outputs (a sample's mean against the batch mean, in "
                "channel std) reach ~0.5 (mean |out| ~0.12) instead of ~0.02 on U[0,1) inputs (the border "
                "taps' profile, which scales with the level too, bounds them), and a block that pools another "
                "sample or channel, a sample or channel stride error in any kernel, or statistics over the wrong "
                "samples shows",
            ),
            K.suite(
                "T3_sample_offsets_small_scale",
                offset_inputs(SMALL_SCALE),
                seeds=[5, 6],
                sizes={"batch": 5, "depth": 3, "height": 7, "width": 9},
                purpose="T2's per-sample offsets scaled by 0.01: training-mode BN is scale-invariant, so the scale "
                "only brings the channel variances of the scaled transposed convolution down to the size of "
                "eps = 1e-5, and a dropped or perturbed eps, eps outside the square root, a std used as a "
                "variance, a variance over the wrong count or a lost scale factor (4x the variance) change the "
                "outputs (mean |out| ~0.1; dropping eps moves them by up to 0.07); batch 5 and odd sizes leave remainders everywhere",
            ),
        ],
        notes="Nearly degenerate at the official inputs: each output is a sample's volume mean against the batch "
        "mean in units of the channel's spread, and the 16 iid U[0,1) samples have nearly equal means, so "
        "(measured on the CPU, two official seeds) |out| has mean 0.0033 and max 0.017-0.019, only 37-41 of "
        "the 2048 outputs exceed 1e-2, and an all-zero output misses the check only on those; the two seeds' "
        "outputs differ by 0.024 at most. T2/T3 give the samples different levels. Pipeline of three kernels (transposed convolution + scale, channel "
        "statistics, normalisation + global average pool): training-mode BatchNorm needs the whole output of "
        "a channel before it can normalise any element, which one launch cannot do without a grid-wide "
        "barrier. BatchNorm3d's affine is its init (weight ones, bias zeros), and no suite can change it, so "
        "mutants that drop or swap gamma/beta at a valid index are equivalent. Training-mode BN removes any "
        "per-channel constant and any common scale: the conv bias never reaches the output (mutants that "
        "drop or misindex it are equivalent up to rounding), and the scale factor 2.0 matters only through "
        "eps (T3). The reference runs ConvTranspose3d through cuDNN, possibly with TF32 (the facts file "
        "measured this problem's reference within 1e-4 of fp64 on T0); a CPU emulation of TF32 operand "
        "rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose distances of at most "
        "~1.3e-4 on the targeted suites (the pooling averages the error away). Stride 1 and padding 0 are passed as kernel arguments, so "
        "stride and padding mutants are equivalent. batch >= 2 keeps more than one sample per channel "
        "(the GAP outputs are deviations from the batch).",
    )
