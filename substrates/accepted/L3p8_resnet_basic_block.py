"""KernelBench level 3, problem 8_ResNetBasicBlock: a ResNet basic block with a 1x1 downsample shortcut,
3 -> 64 channels, stride 1, on x 10 x 3 x 224 x 224.

Model(3, 64, 1):
    out = relu(bn1(conv1(x)))          conv1: 3x3, stride 1, padding 1, bias=False, 3 -> 64
    out = bn2(conv2(out))              conv2: 3x3, stride 1, padding 1, bias=False, 64 -> 64
    identity = bn_d(conv_d(x))         downsample: 1x1, stride 1, no padding, bias=False, 3 -> 64
    return relu(out + identity)

The harness never calls .eval(), so every BatchNorm2d runs in training mode: it normalises with the
batch statistics of each channel (mean and biased variance over N, H, W; eps 1e-5) and then applies
its affine weight (ones) and bias (zeros). The pipeline has one kernel per layer, ten in all:

    resblock_conv1_kernel          x [N,3,H,W]      -> c1 [N,64,H,W]
    resblock_bn1_stats_kernel      c1               -> stats1 [2,64]  (row 0 mean, row 1 biased variance)
    resblock_bn1_relu_kernel       c1, stats1       -> a1 [N,64,H,W]
    resblock_conv2_kernel          a1               -> c2 [N,64,H,W]
    resblock_bn2_stats_kernel      c2               -> stats2 [2,64]
    resblock_bn2_kernel            c2, stats2       -> b2 [N,64,H,W]
    resblock_down_conv_kernel      x                -> d [N,64,H,W]
    resblock_down_bn_stats_kernel  d                -> stats_d [2,64]
    resblock_down_bn_kernel        d, stats_d       -> identity [N,64,H,W]
    resblock_add_relu_kernel       b2, identity     -> y [N,64,H,W]

Convolutions, normalisations and the add run one thread per output element over a 64-bit flat index
(ow fastest) and accumulate in fp32; padding is an explicit bounds test on every tap. Each statistics
kernel is one 256-thread block per channel: a strided sum reduced through a shared-memory tree gives
the mean, then a strided sum of squared deviations through a second tree gives the biased variance
(two passes, as a careful first draft computes a variance). Stride and padding are kernel arguments
(the official stride is 1). Batch, height and width are resizable; the channels are fixed by the
weights.

Cost: conv2 is 10 x 64 x 224 x 224 x 64 x 9 x 2 = 37 GFLOP, conv1 1.7 GFLOP, the rest is memory bound
(about 1.5 GB moved). The same naive convolution in 1_Conv2D_ReLU_BiasAdd ran 300 GFLOP in about 117 ms on
an H200 (2.6 TFLOP/s), so conv2 should take about 15 ms; the three statistics kernels run only 64 blocks
each and are latency bound (a few ms each); one official forward should take about 30-50 ms.
"""

CUDA = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernels (one block per channel)

// conv1: 3x3, padding 1, no bias: c1 = conv(x, w1)
extern "C" __global__ void resblock_conv1_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
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
            int ih = oh * stride - pad + kh;
            if (ih < 0 || ih >= H) continue;        // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow * stride - pad + kw;
                if (iw < 0 || iw >= W) continue;    // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }
    out[i] = acc;
}

// bn1 statistics: per-channel mean and biased variance of c1 over (N, H, W)
extern "C" __global__ void resblock_bn1_stats_kernel(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (long long j = tid; j < count; j += blockDim.x) {
        int n = (int)(j / HW);
        int p = (int)(j % HW);
        thread_sum += x[((long long)n * C + c) * HW + p];
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
    for (long long j = tid; j < count; j += blockDim.x) {
        int n = (int)(j / HW);
        int p = (int)(j % HW);
        float d = x[((long long)n * C + c) * HW + p] - mean;
        thread_sq += d * d;
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

// bn1 normalise + ReLU: a1 = relu((c1 - mean) / sqrt(var + eps) * gamma + beta)
extern "C" __global__ void resblock_bn1_relu_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;         // nn.BatchNorm2d default eps
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c];
    out[i] = v > 0.0f ? v : 0.0f;
}

// conv2: 3x3, padding 1, no bias: c2 = conv(a1, w2)
extern "C" __global__ void resblock_conv2_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]  (a1)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
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
            int ih = oh * stride - pad + kh;
            if (ih < 0 || ih >= H) continue;        // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow * stride - pad + kw;
                if (iw < 0 || iw >= W) continue;    // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }
    out[i] = acc;
}

// bn2 statistics: per-channel mean and biased variance of c2 over (N, H, W)
extern "C" __global__ void resblock_bn2_stats_kernel(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (long long j = tid; j < count; j += blockDim.x) {
        int n = (int)(j / HW);
        int p = (int)(j % HW);
        thread_sum += x[((long long)n * C + c) * HW + p];
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
    for (long long j = tid; j < count; j += blockDim.x) {
        int n = (int)(j / HW);
        int p = (int)(j % HW);
        float d = x[((long long)n * C + c) * HW + p] - mean;
        thread_sq += d * d;
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

// bn2 normalise (no activation): b2 = (c2 - mean) / sqrt(var + eps) * gamma + beta
extern "C" __global__ void resblock_bn2_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;         // nn.BatchNorm2d default eps
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    out[i] = (x[i] - mean) * inv_std * gamma[c] + beta[c];
}

// downsample conv: 1x1, no padding, no bias: d = conv(x, w_d)
extern "C" __global__ void resblock_down_conv_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int OH, int OW, int stride)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    int ih = oh * stride;   // OH = (H - 1) / stride + 1, so the tap is always inside the input
    int iw = ow * stride;
    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
        float wv = w[(long long)co * C_in + ci];
        acc += xv * wv;
    }
    out[i] = acc;
}

// downsample BN statistics: per-channel mean and biased variance of d over (N, H, W)
extern "C" __global__ void resblock_down_bn_stats_kernel(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (long long j = tid; j < count; j += blockDim.x) {
        int n = (int)(j / HW);
        int p = (int)(j % HW);
        thread_sum += x[((long long)n * C + c) * HW + p];
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
    for (long long j = tid; j < count; j += blockDim.x) {
        int n = (int)(j / HW);
        int p = (int)(j % HW);
        float d = x[((long long)n * C + c) * HW + p] - mean;
        thread_sq += d * d;
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

// downsample BN normalise (no activation): identity = (d - mean) / sqrt(var + eps) * gamma + beta
extern "C" __global__ void resblock_down_bn_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;         // nn.BatchNorm2d default eps
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    out[i] = (x[i] - mean) * inv_std * gamma[c] + beta[c];
}

// residual add + ReLU: y = relu(b2 + identity)
extern "C" __global__ void resblock_add_relu_kernel(
    const float* __restrict__ main_path,    // [N, C, H, W]  (bn2 output)
    const float* __restrict__ identity,     // [N, C, H, W]  (downsample output)
    float* __restrict__ out,                // [N, C, H, W]
    long long total)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    float v = main_path[i] + identity[i];
    out[i] = v > 0.0f ? v : 0.0f;
}
"""

KERNELS = [
    "resblock_conv1_kernel",
    "resblock_bn1_stats_kernel",
    "resblock_bn1_relu_kernel",
    "resblock_conv2_kernel",
    "resblock_bn2_stats_kernel",
    "resblock_bn2_kernel",
    "resblock_down_conv_kernel",
    "resblock_down_bn_stats_kernel",
    "resblock_down_bn_kernel",
    "resblock_add_relu_kernel",
]

BLOCK = 256             # elementwise and convolution kernels: 1D blocks over the flat output index
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
IN_CHANNELS = 3         # get_init_inputs(): [in_channels=3, out_channels=64, stride=1]
OUT_CHANNELS = 64
STRIDE = 1
PAD = 1                 # conv1 and conv2 use padding=1; the 1x1 downsample none
BN_EPS = 1e-5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 64, 1), in order: conv1, bn1, (ReLU), conv2, bn2, downsample = Sequential(
        # Conv2d 1x1, BatchNorm2d). The convolutions have bias=False; BatchNorm2d draws nothing
        # (weight ones, bias zeros), but building every module in order keeps the stream identical.
        nn = torch.nn
        conv1 = nn.Conv2d(IN_CHANNELS, OUT_CHANNELS, kernel_size=3, stride=STRIDE, padding=1, bias=False)
        bn1 = nn.BatchNorm2d(OUT_CHANNELS)
        conv2 = nn.Conv2d(OUT_CHANNELS, OUT_CHANNELS, kernel_size=3, stride=1, padding=1, bias=False)
        bn2 = nn.BatchNorm2d(OUT_CHANNELS)
        down_conv = nn.Conv2d(IN_CHANNELS, OUT_CHANNELS, kernel_size=1, stride=STRIDE, bias=False)
        down_bn = nn.BatchNorm2d(OUT_CHANNELS)
        return {
            "conv1_w": conv1.weight, "bn1_w": bn1.weight, "bn1_b": bn1.bias,
            "conv2_w": conv2.weight, "bn2_w": bn2.weight, "bn2_b": bn2.bias,
            "down_w": down_conv.weight, "down_bn_w": down_bn.weight, "down_bn_b": down_bn.bias,
        }

    W = K.weights(build)

    def conv_step(name, x, w, stride, pad, torch):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = (H + 2 * pad - KH) // stride + 1
        OW = (W_in + 2 * pad - KW) // stride + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OH * OW
        step = (
            name,
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w, out],
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
                (ctypes.c_int, stride),
                (ctypes.c_int, pad),
            ],
        )
        return step, out

    def down_conv_step(x, w, stride, torch):
        N, C_in, H, W_in = x.shape
        C_out = w.shape[0]
        OH = (H - 1) // stride + 1
        OW = (W_in - 1) // stride + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OH * OW
        step = (
            "resblock_down_conv_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w, out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, stride),
            ],
        )
        return step, out

    def stats_step(name, x, torch):
        N, C, H, W_in = x.shape
        stats = torch.empty((2, C), device=x.device, dtype=x.dtype)
        step = (
            name,
            (C, 1, 1),                  # one block per channel
            (STATS_BLOCK, 1, 1),
            [x, stats],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )
        return step, stats

    def norm_step(name, x, stats, gamma, beta, torch):
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        total = N * C * H * W_in
        step = (
            name,
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, stats, gamma, beta, out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )
        return step, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        s1, c1 = conv_step("resblock_conv1_kernel", x, w["conv1_w"], STRIDE, PAD, torch)
        s2, st1 = stats_step("resblock_bn1_stats_kernel", c1, torch)
        s3, a1 = norm_step("resblock_bn1_relu_kernel", c1, st1, w["bn1_w"], w["bn1_b"], torch)
        s4, c2 = conv_step("resblock_conv2_kernel", a1, w["conv2_w"], 1, PAD, torch)
        s5, st2 = stats_step("resblock_bn2_stats_kernel", c2, torch)
        s6, b2 = norm_step("resblock_bn2_kernel", c2, st2, w["bn2_w"], w["bn2_b"], torch)
        s7, d = down_conv_step(x, w["down_w"], STRIDE, torch)
        s8, std_ = stats_step("resblock_down_bn_stats_kernel", d, torch)
        s9, ident = norm_step("resblock_down_bn_kernel", d, std_, w["down_bn_w"], w["down_bn_b"], torch)
        out = torch.empty_like(b2)
        total = out.numel()
        s10 = (
            "resblock_add_relu_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [b2, ident, out],
            [(ctypes.c_longlong, total)],
        )
        return {"seq": [s1, s2, s3, s4, s5, s6, s7, s8, s9, s10], "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: BatchNorm uses the batch statistics (the running buffers it
        # would update do not affect the output).
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        out = F.conv2d(x, w["conv1_w"], None, stride=STRIDE, padding=PAD)
        out = F.batch_norm(out, None, None, w["bn1_w"], w["bn1_b"], training=True, eps=BN_EPS)
        out = F.relu(out)
        out = F.conv2d(out, w["conv2_w"], None, stride=1, padding=PAD)
        out = F.batch_norm(out, None, None, w["bn2_w"], w["bn2_b"], training=True, eps=BN_EPS)
        identity = F.conv2d(x, w["down_w"], None, stride=STRIDE)
        identity = F.batch_norm(identity, None, None, w["down_bn_w"], w["down_bn_b"], training=True, eps=BN_EPS)
        return F.relu(out + identity)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, 224, 224)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def scaled_inputs(scale):
        def gen(torch, s):
            return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the pixels set to U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p8_resnet_basic_block",
        level=3,
        problem="8_ResNetBasicBlock",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10),
            "height": K.dim(224, min=2),
            "width": K.dim(224),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 5, "width": 3},
                small=True,
                purpose="2 x 3 x 5 x 3: every layer's 1920 outputs end in a half-filled 256-thread block; each "
                "statistics block reduces only 30 values per channel, so 226 of its 256 threads hold nothing "
                "and the reduction's initial values and tree bounds matter, and the biased divisor differs from "
                "the unbiased one by 3.4% (a count - 1 variance moves outputs by about 3e-2); H != W, both odd, "
                "and 12 of the 15 output positions touch the zero padding, so swapped H/W strides, wrong "
                "padding bounds or a shifted window show (strided loops longer than one block are covered by "
                "T2, T3 and T0)",
            ),
            K.suite(
                "T2_eps_scale",
                scaled_inputs(0.02),
                seeds=[3, 4],
                sizes={"batch": 4, "height": 64, "width": 48},
                purpose="x = U[0,0.02): every training-mode BatchNorm is scale-invariant, so a same-sign LARGE "
                "input (which the tolerance ceiling would allow) changes nothing downstream and would add no "
                "test; scaling DOWN instead puts the per-channel variances of conv1 and of the downsample conv "
                "(about 1e-5) at the size of eps = 1e-5, so the eps term, the variance (not the std) under the "
                "square root and the biased divisor all move the outputs (bn1 and the shortcut branch shrink "
                "to about 0.7 of unit scale); the reference convolutions' TF32 error is relative, so the suite "
                "stays as far inside the ceiling as T0",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "height": 40, "width": 33},
                purpose="about 2% isolated U[0,1) spikes on exact zeros: most conv1 and downsample outputs are "
                "exactly zero (after BN all equal to -mean/std), so the nonzero outputs sit exactly where a "
                "3x3 window or the 1x1 tap meets a spike, and kh/kw swaps, transposed weights, wrong padding "
                "offsets and wrong channel strides move them visibly; spikes on the border rows and columns "
                "test the padding guards; the statistics see a skewed, heavy-tailed distribution, and their "
                "3960 values per channel (15 x 256 + 120) end the strided loops in a partial pass",
            ),
        ],
        notes="Training-mode BatchNorm (the harness never calls .eval()): batch mean and biased variance per "
        "channel, eps 1e-5, affine weight 1 and bias 0 at init (kept as kernel inputs, so gamma/beta mutants "
        "that swap or drop them are equivalent: multiplying by 1 or adding 0). The reference convolutions run "
        "through cuDNN with TF32 (torch's default), so this exact fp32 pipeline differs from the reference "
        "beyond 1e-4 but stays inside 1e-2: a CPU emulation of TF32 operand rounding (round-to-nearest and "
        "truncation) gave allclose distances to the exact result of 3.5e-3 to 3.9e-3 on T0 (batch 10) and at "
        "most 4e-3 on every suite, about 2.5x inside the tolerance (KernelBench also measured the official "
        "reference against fp64 to pass at 1e-2); because BN renormalises, that error does not grow with the "
        "input scale. "
        "Stride is 1 (get_init_inputs), so stride mutants (oh * stride -> oh) are equivalent, and the "
        "downsample branch is a 1x1 convolution. With BN after every convolution the output is invariant to a "
        "positive rescaling of any convolution's output, so mutants that only scale a conv (e.g. a lost "
        "constant factor) are caught only through the eps term (T2_eps_scale). height >= 2 keeps at least two "
        "values per channel, which training-mode batch_norm requires. ReLU written as v > 0 ? v : 0 maps NaN "
        "to 0 where torch propagates it (finite inputs are unaffected).",
    )
