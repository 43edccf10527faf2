"""KernelBench level 2, problem 72_ConvTranspose3d_BatchNorm_AvgPool_AvgPool: avgpool2(avgpool2(bn(conv_t(x)))).

x is 64 x 3 x 32 x 32 x 32; nn.ConvTranspose3d(3, 16, 3, stride=2, padding=1) with bias, so each output
size is (S - 1) * 2 - 2 * 1 + 3 = 2S - 1 and the transposed convolution gives 64 x 16 x 63 x 63 x 63
(256 M elements). nn.BatchNorm3d(16) runs in training mode (the harness never calls .eval()): every
channel is normalised with its batch mean and biased batch variance over (N, D, H, W), eps 1e-5, then
the module's affine weight (ones) and bias (zeros) apply. Two nn.AvgPool3d(kernel_size=2) follow
(stride 2, no padding, floor mode): 63 -> 31 -> 15, so the output is 64 x 16 x 15 x 15 x 15 and the
last three planes of every axis of the transposed convolution never reach it (they still count in
the BN statistics). Model.__init__ takes a bias_shape argument but creates no parameter from it.

A pipeline of three kernels, because a channel's statistics need the whole transposed-convolution
output before any element can be normalised, and one launch has no grid-wide barrier:

    convtranspose3d_kernel              x [N,3,D,H,W], w, b -> y [N,16,OD,OH,OW]
    convtranspose3d_bn_stats_kernel     y -> stats [2,16]  (row 0 the channel means, row 1 the biased variances)
    convtranspose3d_bn_avgpool_kernel   y, stats, gamma, beta -> out [N,16,PD,PH,PW]

The transposed convolution is one thread per output element (n, co, od, oh, ow) with ow fastest, in
gather form: it visits every tap (kd, kh, kw), keeps it only where od + pad - kd (likewise for h and
w) is a non-negative multiple of the stride whose quotient lies inside the input, and sums
x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw] over the input channels (the ConvTranspose3d weight is
[C_in, C_out, KD, KH, KW]) in fp32, plus the bias. The statistics kernel runs one 1024-thread block per
channel, walking the channel's N volumes (threads stride over each volume, so loads are coalesced): a
per-thread fp32 sum reduced through a shared-memory tree gives the mean; a second pass of squared
deviations from it, through a second tree, gives the biased variance (two passes, as a careful first
draft computes a variance). The last kernel is one thread per pooled output: for each of the 2x2x2
cells of the second pool it averages the 2x2x2 normalised values of the first pool's window, then
averages the eight first-pool values. Flat indices and volume offsets are 64-bit.

Cost: 256 M transposed-convolution outputs of about 10 multiply-adds each (3.4 of 27 taps hit, 3
channels) plus 1 GB written: about 5-10 ms on an H200; the statistics run only 16 blocks, each
reading its 64 MB channel twice, latency bound at roughly 6-25 GB/s per SM: about 5-21 ms; the pooling
reads the 1 GB once: about 1-2 ms. One official forward: about 12-35 ms (reference 12.1 ms).
"""

CUDA = r"""
const int STATS_BLOCK = 1024;   // threads per block of the statistics kernel (one block per channel)

extern "C" __global__ void convtranspose3d_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ y,              // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad)
{
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
    y[i] = acc + conv_b[co];
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
    const float* __restrict__ y,        // [N, C, OD, OH, OW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]  (BatchNorm3d weight)
    const float* __restrict__ beta,     // [C]  (BatchNorm3d bias)
    float* __restrict__ out,            // [N, C, PD, PH, PW]  (PD = (OD / 2) / 2, floor)
    int N, int C, int OD, int OH, int OW, int PD, int PH, int PW)
{
    const float BN_EPS = 1e-5f;         // nn.BatchNorm3d default eps
    const int POOL = 2;                 // both AvgPool3d: kernel 2, stride 2
    const float POOL_VOLUME = 8.0f;     // 2 x 2 x 2 values per window

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * PD * PH * PW;
    if (i >= total) return;

    int pw = (int)(i % PW);
    int ph = (int)((i / PW) % PH);
    int pd = (int)((i / ((long long)PW * PH)) % PD);
    int c = (int)((i / ((long long)PW * PH * PD)) % C);
    int n = (int)(i / ((long long)PW * PH * PD * C));

    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float g = gamma[c];
    float b = beta[c];
    const float* y_vol = y + ((long long)n * C + c) * OD * OH * OW;

    float acc2 = 0.0f;                  // sum of the first pool's outputs in the second pool's window
    for (int a = 0; a < POOL; ++a) {
        for (int e = 0; e < POOL; ++e) {
            for (int f = 0; f < POOL; ++f) {
                int d1 = pd * POOL + a;     // first-pool output feeding this cell
                int h1 = ph * POOL + e;
                int w1 = pw * POOL + f;
                float acc1 = 0.0f;          // sum of normalised values in the first pool's window
                for (int kd = 0; kd < POOL; ++kd) {
                    for (int kh = 0; kh < POOL; ++kh) {
                        for (int kw = 0; kw < POOL; ++kw) {
                            int od = d1 * POOL + kd;
                            int oh = h1 * POOL + kh;
                            int ow = w1 * POOL + kw;
                            float v = y_vol[((long long)od * OH + oh) * OW + ow];
                            acc1 += (v - mean) * inv_std * g + b;
                        }
                    }
                }
                acc2 += acc1 / POOL_VOLUME;
            }
        }
    }
    out[i] = acc2 / POOL_VOLUME;
}
"""

KERNELS = ["convtranspose3d_kernel", "convtranspose3d_bn_stats_kernel", "convtranspose3d_bn_avgpool_kernel"]

BLOCK = 256               # transposed convolution and pooling: 1D blocks over the flat output index
STATS_BLOCK = 1024        # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
CHANNELS_PER_BLOCK = 1    # one statistics block per channel
POOL = 2                  # both AvgPool3d(kernel_size=2): stride 2, floor mode
IN_CHANNELS = 3           # fixed by the weight [3, 16, 3, 3, 3]
OUT_CHANNELS = 16
KERNEL_SIZE = 3
STRIDE = 2                # ConvTranspose3d(stride=2, padding=1), no output padding
PADDING = 1
BN_EPS = 1e-5
SMALL_SCALE = 0.02        # T2: x = 0.02 * (offset[n, ci] + U[0, 1)), offset ~ U[0, 4)
OFFSET_RANGE = 4.0


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 16, 3, 2, 1, (16, 1, 1, 1)): conv_transpose (with bias), batch_norm (draws
        # nothing), two AvgPool3d (no parameters); bias_shape creates nothing
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING)
        bn = nn.BatchNorm3d(OUT_CHANNELS)
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
            "convtranspose3d_kernel",
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
        PD = (OD // POOL) // POOL
        PH = (OH // POOL) // POOL
        PW = (OW // POOL) // POOL
        out = torch.empty((N, C_out, PD, PH, PW), device=x.device, dtype=x.dtype)
        pooled = N * C_out * PD * PH * PW
        pool = (
            "convtranspose3d_bn_avgpool_kernel",
            (K.cdiv(pooled, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [y, stats, w["bn_w"], w["bn_b"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_out),
                (ctypes.c_int, OD),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, PD),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
            ],
        )
        return {"seq": [conv, stats_step, pool], "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: batch statistics (the running buffers never reach the output).
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose3d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING)
        y = torch.nn.functional.batch_norm(y, None, None, w["bn_w"], w["bn_b"], training=True, eps=BN_EPS)
        y = torch.nn.functional.avg_pool3d(y, kernel_size=POOL)
        return torch.nn.functional.avg_pool3d(y, kernel_size=POOL)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def offset_small_inputs(torch, s):
        # 0.02 * (offset + U[0,1)) with one U[0,4) offset per (sample, input channel): the samples differ
        # in level, and the channel variances of the transposed convolution (~1.7e-5) are the size of eps.
        offset = torch.rand(s["batch"], IN_CHANNELS, 1, 1, 1) * OFFSET_RANGE
        x = torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        return [(offset + x) * SMALL_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 5% of the voxels set to U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.05
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p72_convtranspose3d_batchnorm_avgpool_avgpool",
        level=2,
        problem="72_ConvTranspose3d_BatchNorm_AvgPool_AvgPool",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(64),
            "depth": K.dim(32, min=3),
            "height": K.dim(32, min=3),
            "width": K.dim(32, min=3),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 5, "height": 6, "width": 7},
                small=True,
                purpose="transposed-convolution output 2 x 16 x 9 x 11 x 13 = 41184 elements and pooled output "
                "2 x 16 x 2 x 2 x 3 = 384, neither a multiple of the 256-thread block, so both tail guards "
                "matter; every axis is odd at both pooling stages (9 -> 4 -> 2, 11 -> 5 -> 2, 13 -> 6 -> 3), so "
                "the floor of each pool drops a plane and an off-by-one window or a ceil size reads it; OD, OH, "
                "OW all differ, so swapped strides or divisors show; each channel has 2574 values, so the "
                "strided statistics loops end in a partial pass",
            ),
            K.suite(
                "T2_sample_offsets_small_scale",
                offset_small_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "depth": 8, "height": 10, "width": 12},
                purpose="x = 0.02 * (offset + U[0,1)) with a U[0,4) offset per sample and input channel: every "
                "sample has its own level, so the pooled outputs (averages of 64 normalised values) carry a "
                "per-sample offset and are larger (mean |out| ~0.1-0.13 against ~0.05 on U[0,1)), and a block that "
                "reads another sample's volume, a sample stride error or statistics over the wrong samples "
                "shows; training-mode BN is scale-invariant, so the 0.02 scale puts the channel variances "
                "(about 1.7e-5) at the size of eps = 1e-5 instead, and a dropped or perturbed eps, eps outside "
                "the square root, a std used as a variance or a variance over the wrong count change outputs by "
                "tens of percent (on U[0,1) eps is invisible)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "depth": 7, "height": 14, "width": 17},
                purpose="about 5% isolated U[0,1) spikes on exact zeros: a transposed-convolution output sees 3 to "
                "24 input values (1 to 8 voxels of 3 channels, by the parity of its coordinates), so most see "
                "no spike and are exactly the bias, and the rest depend on one or two specific taps: a wrong "
                "parity test, a transposed weight index, a swapped tap or a wrong channel stride moves them, and "
                "a pooled output averages only a handful of such values instead of 64 near-identical ones; the "
                "statistics see a skewed, heavy-tailed distribution",
            ),
        ],
        notes="Pipeline of three kernels (transposed convolution, channel statistics, normalisation + both "
        "average pools): training-mode BatchNorm needs the whole output of a channel before it can normalise "
        "any element, which one launch cannot do without a grid-wide barrier. BatchNorm3d's affine is its init "
        "(weight ones, bias zeros), and no suite can change it, so mutants that drop or swap gamma/beta at a "
        "valid index are equivalent. Training-mode BN removes any per-channel constant: the conv bias never "
        "reaches the output (mutants that drop or misindex it are equivalent up to rounding), and mutants "
        "that only rescale the transposed convolution are caught only through eps (T2_small_variance). "
        "The outputs are small: each averages 64 normalised values whose largest component (a pattern of "
        "the transposed convolution's output parities) cancels in the average, so on T0_original (measured "
        "on the CPU, two official seeds) |out| has mean 0.053 and max ~0.5, and the absolute tolerance 1e-2 "
        "is about 20% of a typical output: faults that move outputs by less than that pass. Not degenerate "
        "otherwise: an all-zero or constant output fails, and two official seeds' outputs differ by up to "
        "0.69. The reference runs ConvTranspose3d through cuDNN with TF32 (the facts file measured "
        "this problem's reference beyond 1e-4 of fp64, within 1e-2); BN makes that error relative to each "
        "channel's spread: a CPU emulation of TF32 operand rounding (round-to-nearest and truncation) gave "
        "fp32-vs-fp64 allclose distances of at most ~2e-4 on the targeted suites (the pooling averages the error away). Stride 2 and padding 1 "
        "are model constants passed as kernel arguments. depth, height and width >= 3 keep the pooled output "
        "non-empty.",
    )
