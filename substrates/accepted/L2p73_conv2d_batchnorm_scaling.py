"""KernelBench level 2, problem 73_Conv2d_BatchNorm_Scaling: bn(conv2d(x)) * 2.0.

x is 128 x 8 x 128 x 128; nn.Conv2d(8, 64, 3) with bias, stride 1, no padding, so the convolution
output is 128 x 64 x 126 x 126. nn.BatchNorm2d(64) runs in training mode (the harness never calls
.eval()): every channel is normalised with its batch mean and biased batch variance over
(N, H, W), eps 1e-5, then the module's affine weight (ones) and bias (zeros) apply; the result is
multiplied by scaling_factor = 2.0.

A pipeline of three kernels, because a channel's statistics need the whole convolution output
before any element can be normalised, and one launch has no grid-wide barrier:

    conv2d_kernel             x [N,8,H,W], w, b -> y [N,64,OH,OW]
    conv2d_bn_stats_kernel    y -> stats [2,64]  (row 0 the channel means, row 1 the biased variances)
    conv2d_bn_scale_kernel    y, stats, gamma, beta -> out [N,64,OH,OW]

The convolution is one thread per output element (n, co, oh, ow) with ow fastest, looping over the
input channels and the 3x3 window (sizes from the weight's shape) in fp32, plus the conv bias. The
statistics kernel runs one 1024-thread block per channel, walking the channel's N planes (for each
n the threads stride over the plane, so loads are coalesced): a per-thread fp32 sum reduced through
a shared-memory tree gives the mean; a second pass of squared deviations from it, through a second
tree, gives the biased variance (two passes, as a careful first draft computes a variance). The
last kernel is one thread per element: normalise, affine, scale. Flat indices and plane offsets are
64-bit (the output has 130 M elements).

Cost: the convolution is 130 M outputs x 72 multiply-adds = 19 GFLOP, about 10 ms at the 2-2.6
TFLOP/s of the accepted L2p1's naive convolution on an H200; the statistics run 64 blocks, each
reading its 8 MB channel twice, latency bound at roughly 6-25 GB/s per SM: about 1-3 ms; the last
kernel streams 1 GB: under 1 ms. One official forward: about 12-15 ms (reference 2.49 ms).
"""

CUDA = r"""
const int STATS_BLOCK = 1024;   // threads per block of the statistics kernel (one block per channel)

extern "C" __global__ void conv2d_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ y,              // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            for (int kw = 0; kw < KW; ++kw) {
                int ih = oh + kh;
                int iw = ow + kw;
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }
    y[i] = acc + conv_b[co];
}

extern "C" __global__ void conv2d_bn_stats_kernel(
    const float* __restrict__ y,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum over every (n, p), then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = y + ((long long)n * C + c) * HW;
        for (int p = tid; p < HW; p += blockDim.x) {
            thread_sum += plane[p];
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
        const float* plane = y + ((long long)n * C + c) * HW;
        for (int p = tid; p < HW; p += blockDim.x) {
            float d = plane[p] - mean;
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

extern "C" __global__ void conv2d_bn_scale_kernel(
    const float* __restrict__ y,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]  (BatchNorm2d weight)
    const float* __restrict__ beta,     // [C]  (BatchNorm2d bias)
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;             // nn.BatchNorm2d default eps
    const float SCALING_FACTOR = 2.0f;      // scaling_factor
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (y[i] - mean) * inv_std * gamma[c] + beta[c];
    out[i] = v * SCALING_FACTOR;
}
"""

KERNELS = ["conv2d_kernel", "conv2d_bn_stats_kernel", "conv2d_bn_scale_kernel"]

BLOCK = 256               # convolution and normalisation: 1D blocks over the flat output index
STATS_BLOCK = 1024        # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
CHANNELS_PER_BLOCK = 1    # one statistics block per channel
IN_CHANNELS = 8           # fixed by the conv weight [64, 8, 3, 3]
OUT_CHANNELS = 64
KERNEL_SIZE = 3
SCALING_FACTOR = 2.0
BN_EPS = 1e-5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8, 64, 3, 2.0): conv, then bn (draws nothing: weight ones, bias zeros)
        nn = torch.nn
        conv = nn.Conv2d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE)
        bn = nn.BatchNorm2d(OUT_CHANNELS)
        return {"conv_w": conv.weight, "conv_b": conv.bias, "bn_w": bn.weight, "bn_b": bn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w["conv_w"].shape
        OH = H - KH + 1
        OW = W_in - KW + 1
        y = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OH * OW
        conv = (
            "conv2d_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], y],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
            ],
        )
        stats = torch.empty((2, C_out), device=x.device, dtype=x.dtype)
        stats_step = (
            "conv2d_bn_stats_kernel",
            (K.cdiv(C_out, CHANNELS_PER_BLOCK), 1, 1),
            (STATS_BLOCK, 1, 1),
            [y, stats],
            [(ctypes.c_int, N), (ctypes.c_int, C_out), (ctypes.c_int, OH * OW)],
        )
        out = torch.empty_like(y)
        norm = (
            "conv2d_bn_scale_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [y, stats, w["bn_w"], w["bn_b"], out],
            [(ctypes.c_int, N), (ctypes.c_int, C_out), (ctypes.c_int, OH * OW)],
        )
        return {"seq": [conv, stats_step, norm], "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: batch statistics (the running buffers never reach the output).
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        y = torch.nn.functional.batch_norm(y, None, None, w["bn_w"], w["bn_b"], training=True, eps=BN_EPS)
        return y * SCALING_FACTOR

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def small_var_inputs(torch, s):
        # U[0, 0.02): the channel variances of the convolution (~1e-5) are the size of eps.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 0.02]

    def spiky_inputs(torch, s):
        # Exact zeros with about 5% of the pixels set to U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.05
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p73_conv2d_batchnorm_scaling",
        level=2,
        problem="73_Conv2d_BatchNorm_Scaling",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128, min=2),
            "height": K.dim(128, min=3),
            "width": K.dim(128, min=3),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 9, "width": 11},
                small=True,
                purpose="output 3 x 64 x 7 x 9 = 12096 elements, not a multiple of the 256-thread block, so the "
                "tail guards of the convolution and the normalisation matter; OH = 7 != OW = 9, so swapped H/W "
                "strides or a wrong output-width divisor show; each statistics block reduces only 189 values, "
                "so 835 of its 1024 threads hold nothing and the reduction identity and tree bounds matter",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 40, "width": 36},
                purpose="x = U[0,0.02): training-mode BN is scale-invariant, so a same-sign large input would "
                "change nothing; scaled down, the channel variances of the convolution (about 1e-5) are the "
                "size of eps = 1e-5, so a dropped or perturbed eps, eps outside the square root, a std used as "
                "a variance or a variance over the wrong count change outputs by tens of percent (on U[0,1) "
                "eps is invisible); planes of 38 x 34 = 1292 values end every strided pass with a partial one",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "height": 33, "width": 47},
                purpose="about 5% isolated U[0,1) spikes on exact zeros (about 3.6 of the 72 taps of a window): "
                "each output depends on a few specific taps instead of the large common mean of U[0,1) inputs, "
                "so kh/kw swaps, transposed weights or wrong channel strides move it visibly; about 2.5% of the "
                "windows hold no spike and give exactly the conv bias (after BN all equal to -mean/std); the "
                "statistics see a skewed, heavy-tailed distribution",
            ),
        ],
        notes="Pipeline of three kernels (convolution, channel statistics, normalisation + scale): "
        "training-mode BatchNorm needs the whole convolution output of a channel before it can normalise "
        "any element, which one launch cannot do without a grid-wide barrier. BatchNorm2d's affine is its "
        "init (weight ones, bias zeros), and no suite can change it, so mutants that drop or swap gamma/beta "
        "at a valid index are equivalent. Training-mode BN removes any per-channel constant: the conv bias "
        "never reaches the output (mutants that drop or misindex it are equivalent up to rounding), and "
        "mutants that only rescale the convolution are caught only through eps (T2_small_variance). The "
        "reference convolution may run through cuDNN with TF32 (the facts file measured this problem's "
        "reference within 1e-4 of fp64, so probably not); should it, a CPU emulation of TF32 operand "
        "rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose distances of at most "
        "~3.4e-3 on the targeted suites (BN makes the error relative to each channel's spread, and the x2 "
        "scale doubles it). batch >= 2 keeps more than one value per channel, as training-mode batch_norm "
        "requires.",
    )
