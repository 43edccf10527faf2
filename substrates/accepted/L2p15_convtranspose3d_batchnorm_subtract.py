"""KernelBench level 2, problem 15_ConvTranspose3d_BatchNorm_Subtract: z = bn(conv_t(x)); z - mean_dhw(z).

x is 16 x 16 x 16 x 32 x 32; nn.ConvTranspose3d(16, 32, 3, stride=2, padding=1) with bias, so each
output size is (S - 1) * 2 - 2 * 1 + 3 = 2S - 1 and the output is 16 x 32 x 31 x 63 x 63 (63 M
elements). nn.BatchNorm3d(32) runs in training mode (the harness never calls .eval()): every channel
is normalised with its batch mean and biased batch variance over (N, D, H, W), eps 1e-5, then the
module's affine weight (ones) and bias (zeros) apply. Finally each (n, c) volume has its own spatial
mean (over D, H, W) subtracted.

A pipeline of three kernels, because a channel's statistics need the whole transposed-convolution
output before any element can be normalised, and one launch has no grid-wide barrier:

    convtranspose3d_kernel          x [N,16,D,H,W], w, b -> y [N,32,OD,OH,OW]
    convtranspose3d_bn_stats_kernel y -> stats [2,32]  (row 0 the channel means, row 1 the biased variances)
    convtranspose3d_bn_sub_kernel   y, stats, gamma, beta -> out [N,32,OD,OH,OW]

The transposed convolution is one thread per output element (n, co, od, oh, ow) with ow fastest, in
gather form: it visits every tap (kd, kh, kw), keeps it only where od + pad - kd (likewise for h and
w) is a non-negative multiple of the stride whose quotient lies inside the input, and sums
x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw] over the input channels (the ConvTranspose3d weight is
[C_in, C_out, KD, KH, KW]) in fp32, plus the bias. The statistics kernel runs one 1024-thread block per
channel, walking the channel's N volumes (threads stride over each volume, so loads are coalesced): a
per-thread fp32 sum reduced through a shared-memory tree gives the mean; a second pass of squared
deviations from it, through a second tree, gives the biased variance (two passes, as a careful first
draft computes a variance). The last kernel runs one 1024-thread block per (n, c) volume: every
thread normalises its strided elements, parks them in the output and sums them; a tree reduction
gives the volume's mean, and every thread subtracts it from the elements it wrote. Flat indices and
volume offsets are 64-bit.

Cost: 63 M outputs; about 3.4 of the 27 taps hit per output (54 multiply-adds), but a warp steps
through the taps of both kw parities: about 6 G multiply-add slots, a few ms on an H200; the
statistics run 32 blocks, each reading its 7.9 MB channel twice, latency bound at roughly 6-25 GB/s
per SM: about 1-3 ms; the last kernel reads y once and its own output twice over 512 blocks (0.75 GB):
about 1 ms. One official forward: about 5-10 ms (reference 1.85 ms).
"""

CUDA = r"""
const int STATS_BLOCK = 1024;   // threads per block of the statistics kernel (one block per channel)
const int VOLUME_BLOCK = 1024;  // threads per block of the last kernel (one block per (n, c) volume)

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

extern "C" __global__ void convtranspose3d_bn_sub_kernel(
    const float* __restrict__ y,        // [N, C, S]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]  (BatchNorm3d weight)
    const float* __restrict__ beta,     // [C]  (BatchNorm3d bias)
    float* __restrict__ out,            // [N, C, S]  (holds bn(y) between the two passes)
    int N, int C, int S)
{
    const float BN_EPS = 1e-5f;         // nn.BatchNorm3d default eps
    __shared__ float red[VOLUME_BLOCK];
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
    float* out_vol = out + (long long)vol * S;

    // Pass 1: normalise into the output, and the volume's sum.
    float thread_sum = 0.0f;
    for (int p = tid; p < S; p += blockDim.x) {
        float v = (y_vol[p] - mean) * inv_std * g + b;
        out_vol[p] = v;
        thread_sum += v;
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float vol_mean = red[0] / (float)S;

    // Pass 2: subtract the spatial mean from every element this thread wrote.
    for (int p = tid; p < S; p += blockDim.x) {
        out_vol[p] = out_vol[p] - vol_mean;
    }
}
"""

KERNELS = ["convtranspose3d_kernel", "convtranspose3d_bn_stats_kernel", "convtranspose3d_bn_sub_kernel"]

BLOCK = 256               # transposed convolution: 1D blocks over the flat output index
STATS_BLOCK = 1024        # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
VOLUME_BLOCK = 1024       # must equal VOLUME_BLOCK in the CUDA source, a power of two
CHANNELS_PER_BLOCK = 1    # one statistics block per channel
VOLUMES_PER_BLOCK = 1     # one last-kernel block per (n, c) volume
IN_CHANNELS = 16          # fixed by the weight [16, 32, 3, 3, 3]
OUT_CHANNELS = 32
KERNEL_SIZE = 3
STRIDE = 2                # ConvTranspose3d(stride=2, padding=1), no output padding
PADDING = 1
BN_EPS = 1e-5
SMALL_SCALE = 0.05        # T2: x = U[0, 0.05)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(16, 32, 3, 2, 1): conv_transpose (with bias), then batch_norm (draws nothing)
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING, bias=True)
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
        out = torch.empty_like(y)
        sub = (
            "convtranspose3d_bn_sub_kernel",
            (K.cdiv(N * C_out, VOLUMES_PER_BLOCK), 1, 1),
            (VOLUME_BLOCK, 1, 1),
            [y, stats, w["bn_w"], w["bn_b"], out],
            [(ctypes.c_int, N), (ctypes.c_int, C_out), (ctypes.c_int, S)],
        )
        return {"seq": [conv, stats_step, sub], "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: batch statistics (the running buffers never reach the output).
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose3d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING)
        y = torch.nn.functional.batch_norm(y, None, None, w["bn_w"], w["bn_b"], training=True, eps=BN_EPS)
        return y - torch.mean(y, dim=(2, 3, 4), keepdim=True)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def small_var_inputs(torch, s):
        # U[0, SMALL_SCALE): the channel variances of the transposed convolution are the size of eps.
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * SMALL_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 5% of the voxels set to U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.05
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p15_convtranspose3d_batchnorm_subtract",
        level=2,
        problem="15_ConvTranspose3d_BatchNorm_Subtract",
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
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 3, "height": 4, "width": 5},
                small=True,
                purpose="output 2 x 32 x 5 x 7 x 9 = 20160 elements, not a multiple of the 256-thread block (at "
                "the official batch 16 every output count is one), so the tail guard matters; OD, OH, OW all "
                "differ and are odd, so swapped strides, wrong divisors or a misplaced input bound show, and the "
                "border taps that fall outside the input are exercised on every face; each volume has 315 "
                "elements and each channel 630, so most threads of the 1024-thread blocks hold nothing and the "
                "reduction identities and tree bounds matter",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "depth": 6, "height": 12, "width": 10},
                purpose="x = U[0,0.05): training-mode BN is scale-invariant, so a same-sign large input would change "
                "nothing; scaled down, the channel variances of the transposed convolution are the size of "
                "eps = 1e-5, so a dropped or perturbed eps, eps outside the square root, a std used as a variance "
                "or a variance over the wrong count change outputs by tens of percent (on U[0,1) eps is "
                "invisible); volumes of 11 x 23 x 19 = 4807 values end every strided pass with a partial one",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "depth": 5, "height": 14, "width": 17},
                purpose="about 5% isolated U[0,1) spikes on exact zeros: an output sees 16 to 128 input values "
                "(1 to 8 voxels of 16 channels, by the parity of its coordinates), about 2.7 spikes on average, "
                "so it depends on a few specific taps and a wrong parity test, a transposed weight index, a "
                "swapped tap or a wrong channel stride moves it visibly; outputs of the sparsest parity class "
                "see no spike 44% of the time and are exactly the bias (after BN all equal); the statistics "
                "and the volume means see a skewed, heavy-tailed distribution",
            ),
        ],
        notes="Pipeline of three kernels (transposed convolution, channel statistics, normalisation + "
        "subtraction of each volume's mean): training-mode BatchNorm needs the whole output of a channel "
        "before it can normalise any element, which one launch cannot do without a grid-wide barrier. "
        "BatchNorm3d's affine is its init (weight ones, bias zeros), and no suite can change it, so mutants "
        "that drop or swap gamma/beta at a valid index are equivalent (beta is also removed by the volume "
        "mean). Training-mode BN removes any per-channel constant: the conv bias never reaches the output "
        "(mutants that drop or misindex it are equivalent up to rounding), and mutants that only rescale "
        "the transposed convolution are caught only through eps (T2_small_variance). The reference runs "
        "ConvTranspose3d through cuDNN with TF32 (the facts file measured this problem's reference beyond "
        "1e-4 of fp64, within 1e-2); BN makes that error relative to each channel's spread: a CPU emulation "
        "of TF32 operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose distances "
        "of at most ~2.3e-3 on the targeted suites. Stride 2 and padding 1 are model constants passed as "
        "kernel arguments. At the official batch 16 every output count is a multiple of 256, so the "
        "convolution's tail guard fires only on T1. batch >= 2 keeps more than one value per channel, as training-mode batch_norm requires.",
    )
