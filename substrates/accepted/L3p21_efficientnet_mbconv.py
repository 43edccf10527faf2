"""KernelBench level 3, problem 21_EfficientNetMBConv: an MBConv block (112 -> 192 channels, expansion 6,
depthwise 5x5 stride 2, no residual) on x 10 x 112 x 224 x 224.

Model(112, 192, 5, 2, 6):
    expand_conv     Conv2d(112, 672, 1, bias=False), BatchNorm2d(672), ReLU6     [N,112,H,W] -> [N,672,H,W]
    depthwise_conv  Conv2d(672, 672, 5, stride=2, padding=2, groups=672, bias=False), BatchNorm2d(672), ReLU6
                                                                                  -> [N,672,OH,OW]
    project_conv    Conv2d(672, 192, 1, bias=False), BatchNorm2d(192)            -> [N,192,OH,OW]

use_residual is False (stride 2, 112 != 192), so nothing is added back. The harness never calls .eval(),
so every BatchNorm2d normalises with the batch statistics of each channel (mean and biased variance over
N, H, W; eps 1e-5) before its affine weight (ones) and bias (zeros). Nine kernels, one per layer:

    mbconv_expand_conv_kernel       x                -> e  [N,672,H,W]
    mbconv_expand_bn_stats_kernel   e                -> stats_e [2,672]  (row 0 mean, row 1 biased variance)
    mbconv_expand_bn_relu6_kernel   e, stats_e       -> a  [N,672,H,W]
    mbconv_dw_conv_kernel           a                -> d  [N,672,OH,OW]
    mbconv_dw_bn_stats_kernel       d                -> stats_d [2,672]
    mbconv_dw_bn_relu6_kernel       d, stats_d       -> b  [N,672,OH,OW]
    mbconv_project_conv_kernel      b                -> p  [N,192,OH,OW]
    mbconv_project_bn_stats_kernel  p                -> stats_p [2,192]
    mbconv_project_bn_kernel        p, stats_p       -> y  [N,192,OH,OW]

The convolutions run one thread per output element on a 3D grid (pixels of a plane along x in 256-thread
blocks, output channel along y, image along z) and accumulate in fp32; the depthwise convolution reads its
own channel only and tests every tap against the zero padding. Each statistics kernel is one 256-thread
block per channel: a strided sum through a shared-memory tree gives the mean, a second strided pass of
squared deviations through a second tree the biased variance. The normalise kernels are one thread per
element over a flat 64-bit index; ReLU6 is min(max(v, 0), 6).

Cost on the official input: expand 10 x 50176 x 672 x 112 = 37.8 G multiply-adds, depthwise 10 x 12544 x
672 x 25 = 2.1 G, project 10 x 12544 x 192 x 672 = 16.2 G: 56 G multiply-adds (112 GFLOP), about 45 ms at
the 2.6 TFLOP/s of the naive convolution in L2p1; the expand output is 1.35 GB, so the statistics (read
twice) and the normalise move about 7 GB (2-3 ms). About 50-80 ms per forward.
"""

CUDA = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernels (one block per channel)
const float BN_EPS = 1e-5f;     // nn.BatchNorm2d default eps
const float RELU6_MAX = 6.0f;   // ReLU6 upper clamp

// expand_conv[0]: Conv2d(112, 672, kernel_size=1, bias=False)
extern "C" __global__ void mbconv_expand_conv_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    float* __restrict__ out,        // [N, C_out, H, W]
    int N, int C_in, int HW, int C_out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // pixel: h * W + w
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= HW || co >= C_out || n >= N) return;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        acc += x[((long long)n * C_in + ci) * HW + p] * w[(long long)co * C_in + ci];
    }
    out[((long long)n * C_out + co) * HW + p] = acc;
}

// expand_conv[1]: BatchNorm2d(672) statistics of the expand output
extern "C" __global__ void mbconv_expand_bn_stats_kernel(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;             // one block per channel
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = x + ((long long)n * C + c) * HW;
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

    // Pass 2: the sum of squared deviations from the mean, same slices, same tree.
    float thread_sq = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = x + ((long long)n * C + c) * HW;
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

// expand_conv[1:3]: BatchNorm2d(672) normalise + ReLU6
extern "C" __global__ void mbconv_expand_bn_relu6_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]  BatchNorm weight
    const float* __restrict__ beta,     // [C]  BatchNorm bias
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c];
    v = v > 0.0f ? v : 0.0f;
    out[i] = v < RELU6_MAX ? v : RELU6_MAX;
}

// depthwise_conv[0]: Conv2d(672, 672, kernel_size=5, stride=2, padding=2, groups=672, bias=False)
extern "C" __global__ void mbconv_dw_conv_kernel(
    const float* __restrict__ x,    // [N, C, H, W]  (expand activations)
    const float* __restrict__ w,    // [C, 1, KH, KW]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int KH, int KW, int OH, int OW, int stride, int pad)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel (its own group)
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;
    const float* plane = x + ((long long)n * C + c) * H * W;

    float acc = 0.0f;
    for (int kh = 0; kh < KH; ++kh) {
        int ih = oh * stride - pad + kh;
        if (ih < 0 || ih >= H) continue;                // zero padding above and below
        for (int kw = 0; kw < KW; ++kw) {
            int iw = ow * stride - pad + kw;
            if (iw < 0 || iw >= W) continue;            // zero padding left and right
            acc += plane[(long long)ih * W + iw] * w[((long long)c * KH + kh) * KW + kw];
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = acc;
}

// depthwise_conv[1]: BatchNorm2d(672) statistics of the depthwise output
extern "C" __global__ void mbconv_dw_bn_stats_kernel(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;             // one block per channel
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = x + ((long long)n * C + c) * HW;
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

    // Pass 2: the sum of squared deviations from the mean, same slices, same tree.
    float thread_sq = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = x + ((long long)n * C + c) * HW;
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

// depthwise_conv[1:3]: BatchNorm2d(672) normalise + ReLU6
extern "C" __global__ void mbconv_dw_bn_relu6_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]  BatchNorm weight
    const float* __restrict__ beta,     // [C]  BatchNorm bias
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c];
    v = v > 0.0f ? v : 0.0f;
    out[i] = v < RELU6_MAX ? v : RELU6_MAX;
}

// project_conv[0]: Conv2d(672, 192, kernel_size=1, bias=False)
extern "C" __global__ void mbconv_project_conv_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]  (depthwise activations)
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    float* __restrict__ out,        // [N, C_out, H, W]
    int N, int C_in, int HW, int C_out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // pixel: h * W + w
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= HW || co >= C_out || n >= N) return;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        acc += x[((long long)n * C_in + ci) * HW + p] * w[(long long)co * C_in + ci];
    }
    out[((long long)n * C_out + co) * HW + p] = acc;
}

// project_conv[1]: BatchNorm2d(192) statistics of the projection
extern "C" __global__ void mbconv_project_bn_stats_kernel(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;             // one block per channel
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = x + ((long long)n * C + c) * HW;
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

    // Pass 2: the sum of squared deviations from the mean, same slices, same tree.
    float thread_sq = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = x + ((long long)n * C + c) * HW;
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

// project_conv[1]: BatchNorm2d(192) normalise (no activation)
extern "C" __global__ void mbconv_project_bn_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]  BatchNorm weight
    const float* __restrict__ beta,     // [C]  BatchNorm bias
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    out[i] = (x[i] - mean) * inv_std * gamma[c] + beta[c];
}
"""

KERNELS = [
    "mbconv_expand_conv_kernel",
    "mbconv_expand_bn_stats_kernel",
    "mbconv_expand_bn_relu6_kernel",
    "mbconv_dw_conv_kernel",
    "mbconv_dw_bn_stats_kernel",
    "mbconv_dw_bn_relu6_kernel",
    "mbconv_project_conv_kernel",
    "mbconv_project_bn_stats_kernel",
    "mbconv_project_bn_kernel",
]

STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
BLOCK = 256             # convolutions and normalise kernels
IN_CHANNELS = 112       # get_init_inputs() = [112, 192, 5, 2, 6]: fixed by the weights
OUT_CHANNELS = 192
KERNEL_SIZE = 5
STRIDE = 2
EXPAND_RATIO = 6
HIDDEN = IN_CHANNELS * EXPAND_RATIO     # 672
DW_PAD = (KERNEL_SIZE - 1) // 2         # 2
BN_EPS = 1e-5           # must equal BN_EPS in the CUDA source
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the convolutions
SMALL_SCALE = 0.02      # T3: x = U[0, 0.02): expand-output variance about 1.1e-5, comparable to eps


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(112, 192, 5, 2, 6): expand_conv (Conv2d, BatchNorm2d, ReLU6), depthwise_conv (Conv2d,
        # BatchNorm2d, ReLU6), project_conv (Conv2d, BatchNorm2d), in this order; only the conv weights draw.
        nn = torch.nn
        e_conv = nn.Conv2d(IN_CHANNELS, HIDDEN, kernel_size=1, stride=1, padding=0, bias=False)
        e_bn = nn.BatchNorm2d(HIDDEN)
        d_conv = nn.Conv2d(HIDDEN, HIDDEN, kernel_size=KERNEL_SIZE, stride=STRIDE, padding=DW_PAD,
                           groups=HIDDEN, bias=False)
        d_bn = nn.BatchNorm2d(HIDDEN)
        p_conv = nn.Conv2d(HIDDEN, OUT_CHANNELS, kernel_size=1, stride=1, padding=0, bias=False)
        p_bn = nn.BatchNorm2d(OUT_CHANNELS)
        return {
            "e_w": e_conv.weight, "e_bn_w": e_bn.weight, "e_bn_b": e_bn.bias,
            "d_w": d_conv.weight, "d_bn_w": d_bn.weight, "d_bn_b": d_bn.bias,
            "p_w": p_conv.weight, "p_bn_w": p_bn.weight, "p_bn_b": p_bn.bias,
        }

    W = K.weights(build)

    def conv1x1_step(name, x, w):
        N, C_in, H, W_in = x.shape
        C_out = w.shape[0]
        HW = H * W_in
        out = torch.empty((N, C_out, H, W_in), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(HW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, out],
            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, HW), (ctypes.c_int, C_out)],
        )
        return step, out

    def bn_steps(prefix, x, gamma, beta, act_suffix):
        N, C, H, W_in = x.shape
        HW = H * W_in
        stats = torch.empty((2, C), device=x.device, dtype=x.dtype)
        out = torch.empty_like(x)
        nch = [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, HW)]
        steps = [
            (f"{prefix}_bn_stats_kernel", (C, 1, 1), (STATS_BLOCK, 1, 1), [x, stats], nch),
            (f"{prefix}_bn{act_suffix}_kernel", (K.cdiv(N * C * HW, BLOCK), 1, 1), (BLOCK, 1, 1),
             [x, stats, gamma, beta, out], nch),
        ]
        return steps, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        s_e, e = conv1x1_step("mbconv_expand_conv_kernel", x, w["e_w"])
        s_ebn, a = bn_steps("mbconv_expand", e, w["e_bn_w"], w["e_bn_b"], "_relu6")
        N, C, H, W_in = a.shape
        _, _, KH, KW = w["d_w"].shape
        OH = (H + 2 * DW_PAD - KH) // STRIDE + 1
        OW = (W_in + 2 * DW_PAD - KW) // STRIDE + 1
        d = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        s_d = (
            "mbconv_dw_conv_kernel",
            (K.cdiv(OH * OW, BLOCK), C, N),
            (BLOCK, 1, 1),
            [a, w["d_w"], d],
            [
                (ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H), (ctypes.c_int, W_in),
                (ctypes.c_int, KH), (ctypes.c_int, KW), (ctypes.c_int, OH), (ctypes.c_int, OW),
                (ctypes.c_int, STRIDE), (ctypes.c_int, DW_PAD),
            ],
        )
        s_dbn, b = bn_steps("mbconv_dw", d, w["d_bn_w"], w["d_bn_b"], "_relu6")
        s_p, p = conv1x1_step("mbconv_project_conv_kernel", b, w["p_w"])
        s_pbn, y = bn_steps("mbconv_project", p, w["p_bn_w"], w["p_bn_b"], "")
        return {"seq": [s_e, *s_ebn, s_d, *s_dbn, s_p, *s_pbn], "out": y}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.conv2d(x, w["e_w"])
        y = F.relu6(F.batch_norm(y, None, None, w["e_bn_w"], w["e_bn_b"], training=True, eps=BN_EPS))
        y = F.conv2d(y, w["d_w"], stride=STRIDE, padding=DW_PAD, groups=HIDDEN)
        y = F.relu6(F.batch_norm(y, None, None, w["d_bn_w"], w["d_bn_b"], training=True, eps=BN_EPS))
        y = F.conv2d(y, w["p_w"])
        return F.batch_norm(y, None, None, w["p_bn_w"], w["p_bn_b"], training=True, eps=BN_EPS)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, 224, 224)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def small_inputs(torch, s):
        # U[0, 0.02): the expand convolution's output variance is about 1.1e-5, the order of eps.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * SMALL_SCALE]

    return K.substrate(
        name="L3p21_efficientnet_mbconv",
        level=3,
        problem="21_EfficientNetMBConv",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10, max=MAX_GRID_Z),
            "height": K.dim(224, min=2),
            "width": K.dim(224),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 1, "height": 15, "width": 19},
                small=True,
                purpose="1 x 112 x 15 x 19: odd sizes, so the stride-2 depthwise output is 8 x 10 and its last row "
                "and column read the bottom/right padding; the expand plane of 285 = 256 + 29 pixels and the "
                "depthwise plane of 80 pixels leave dead threads in every convolution block, and the normalise "
                "grids (672 x 285 = 191520 = 748.1 x 256, 672 x 80 = 210 x 256, 192 x 80 = 60 x 256 elements): "
                "the first ends in a partial block; H != W so swapped strides change the result; official "
                "U[0,1) values (kept small: the CPU reference must run well under a second)",
            ),
            K.suite(
                "T2_small_count",
                rand_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 5, "width": 6},
                purpose="2 x 112 x 5 x 6: the expand BatchNorm sees 60 values per channel and the depthwise and "
                "project BatchNorms 18 (a 3 x 3 output per image), so the biased variance they normalise with "
                "differs from the unbiased (Bessel) one by 6% (a 3% change of every output), and 238 of the 256 "
                "statistics threads of those two hold no value (their zero starts matter); the 5 x 6 plane "
                "exercises every depthwise tap pattern at the borders (most taps are padding)",
            ),
            K.suite(
                "T3_small_variance",
                small_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 20, "width": 19},
                purpose="x = U[0,0.02): the expand convolution's output variance (about 1.1e-5) is the order of "
                "eps = 1e-5, so the expand BatchNorm scales its outputs by about sqrt(var / (var + eps)) = 0.7; "
                "a dropped or misplaced eps there moves the activations by tens of percent (the later "
                "BatchNorms see normalised data again, where eps is invisible); 20 x 19 = 380 = 256 + 124 pixels",
            ),
        ],
        notes="BatchNorm runs in training mode with the batch's own statistics (the harness never calls "
        ".eval()); its weight is ones and its bias zeros (default init), so mutants that drop gamma or beta are "
        "equivalent. The three convolutions run in TF32 through cuDNN in the GPU reference (torch's default), "
        "so the official reference misses fp64 at 1e-4 (facts Appendix C) but passes at 1e-2. A CPU emulation "
        "(conv operands rounded to TF32, exact accumulation) puts the reference 4e-3 from fp64 on a 2 x 112 x 64 "
        "x 64 U[0,1) input and 2.9-3.6e-3 on the targeted suites: the error is TF32 noise in the 672-term "
        "project convolution, which its BatchNorm scales up to the unit spread of the output, so no input "
        "choice lowers it much (signed inputs gave 2.4e-3, hot-pixel inputs 6-30e-3, a 1 x 3 x 4 input "
        "6.8e-3 to 1.3e-2, which is why those are not suites). Offset inputs "
        "(8 + U[0,1)) are deliberately absent: the expand convolution comes before any BatchNorm, and TF32 "
        "rounding of offset operands would leave the reference's normalised output percent-level wrong. "
        "Stride 2 and padding 2 are kernel arguments fixed by get_init_inputs. The BatchNorm outputs are close "
        "to N(0, 1), so ReLU6's upper clamp at 6 almost never fires (at most a handful of the 337 M official "
        "expand activations): mutants of that clamp are near-equivalent. ReLU6 maps NaN to 0 where "
        "torch propagates it; finite inputs are unaffected. Memory: one official forward allocates about 3.5 "
        "GB (the expand output and its activations are 1.35 GB each).",
    )
