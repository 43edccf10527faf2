"""KernelBench level 3, problem 19_MobileNetV1: MobileNet v1 (width 1.0) on x 10 x 3 x 224 x 224,
1000 classes.

Model(1000, 3, 1.0), in forward order:

    model[0]       conv_bn(3, 32, 2):  Conv2d 3x3 stride 2 padding 1 (no bias), BatchNorm2d, ReLU
    model[1..13]   conv_dw(inp, oup, s): depthwise Conv2d 3x3 stride s padding 1 groups=inp (no bias),
                   BatchNorm2d, ReLU, pointwise Conv2d 1x1 inp->oup (no bias), BatchNorm2d, ReLU
                   (32->64 s1, 64->128 s2, 128->128, 128->256 s2, 256->256, 256->512 s2,
                   5 x 512->512, 512->1024 s2, 1024->1024)
    model[14]      AvgPool2d(7): the 7 x 7 plane (224 / 32) -> 1 x 1
    fc             x.view(N, -1) (a view), Linear(1024, 1000)

The harness never calls .eval(), so all 27 BatchNorm2d layers run in training mode: each normalises
with its batch statistics per channel (mean and biased variance over N, H, W; eps 1e-5), then applies
its affine weight (ones) and bias (zeros). Every layer has its own kernel, 83 in pipeline order:

    mobilenetv1_stem_conv_kernel, mobilenetv1_stem_bn_stats_kernel, mobilenetv1_stem_bn_relu_kernel
    per block i = 1..13, mobilenetv1_block<i>_...:
        dw_conv_kernel, dw_bn_stats_kernel, dw_bn_relu_kernel,
        pw_conv_kernel, pw_bn_stats_kernel, pw_bn_relu_kernel
    mobilenetv1_avgpool_kernel, mobilenetv1_fc_kernel

Each BatchNorm is two kernels: a statistics kernel writes [mean; biased variance] into one packed
[2, C] buffer (a step writes only its last tensor), and a normalise kernel applies it with the ReLU
fused. The kernel definitions are generated below from one template string per kind of layer, but
each is a distinct, fully written-out __global__ with its own name, so a mutation belongs to exactly
one layer.

Convolutions and the pool run one thread per output element on a 3D grid: x covers the output pixels
of one plane (flat index oh * OW + ow, 256-thread blocks), y the channel and z the image, so planes of
112x112, 56x56, 28x28, 14x14 and 7x7 end in a partial block. The stem conv loops over its 3 input
channels and the 3x3 window, a depthwise conv over its own channel's 3x3 window, a pointwise conv
over the input channels, all with explicit zero-padding guards and fp32 accumulation. The statistics
kernels run one 256-thread block per channel: a strided sum through a shared-memory tree gives the
mean, then a strided sum of squared deviations through a second tree gives the biased variance. The
normalise kernels run over a flat 64-bit index; fc is a 16 x 16 shared-memory tiled GEMM as in
L3p1_mlp.

Cost: 5.7 G multiply-adds (11.4 GFLOP) for the official batch of 10, 95% of it in the pointwise
convolutions; at the 1-3 TFLOP/s a naive direct convolution reaches on an H200 that is 4-12 ms, plus
83 launches and 27 latency-bound statistics kernels (at most 125k values per channel, in the
32-channel layers at 112 x 112): about 10-20 ms per forward.
"""

_CONV_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh * stride - pad + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow * stride - pad + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }
    out[((long long)n * C_out + co) * OH * OW + p] = acc;
}
"""

_STATS_TEMPLATE = r"""
// @DESC@: per-channel batch mean and biased variance over (N, H, W)
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, HW]  (@INPUT@)
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;                 // one block per channel
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
"""

_BN_RELU_TEMPLATE = r"""
// @DESC@: relu((x - mean) / sqrt(var + eps) * gamma + beta)
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,        // [N, C, HW]  (@INPUT@)
    const float* __restrict__ stats,    // [2, C]: mean, biased variance
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
"""

_FC_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [M, K]  (@INPUT@)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (image)
    int col = blockIdx.x * TILE + tx;   // output column (class)
    int w_row = blockIdx.x * TILE + ty; // the W row this thread loads into the tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = x[(long long)row * K + k];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        out[(long long)row * N + col] = acc + b[col];
    }
}
"""

_DW_CONV_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, H, W]  (@INPUT@)
    const float* __restrict__ w,    // [C, 1, KH, KW]  (groups = C: one 3x3 filter per channel)
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int KH, int KW, int OH, int OW, int stride, int pad)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel (input channel = output channel)
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
"""

_PW_CONV_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
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
"""

_AVGPOOL7_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, H, W]  (@INPUT@)
    float* __restrict__ out,        // [N, C, OH, OW]  (1 x 1 at every admitted size: fc reads [N, C])
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 7;                               // kernel_size=7, stride=7 (the default), no padding

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int c = (int)((i / ((long long)OW * OH)) % C);
    int n = (int)(i / ((long long)OW * OH * C));

    // Floor mode: OH = (H - POOL_K) / POOL_K + 1, so the window lies inside the input; rows and
    // columns past the last whole window are dropped.
    const float* plane = x + ((long long)n * C + c) * H * W;
    float acc = 0.0f;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            acc += plane[(long long)(oh * POOL_K + kh) * W + (ow * POOL_K + kw)];
        }
    }
    out[i] = acc / (float)(POOL_K * POOL_K);
}
"""

_PRELUDE = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernels (one block per channel)
const int TILE = 16;            // fc: blocks are TILE x TILE threads, K is consumed TILE at a time
"""

BLOCK = 256             # conv, pool and normalise kernels: threads per block
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
TILE = 16               # must equal TILE in the CUDA source
IN_CHANNELS = 3         # get_init_inputs() = [1000, 3, 1.0]
ALPHA = 1.0
NUM_CLASSES = 1000
PAD = 1                 # every 3x3 conv: padding=1
POOL_K = 7              # AvgPool2d(7)
BN_EPS = 1e-5
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the conv and pool kernels
MIN_SIDE = 193          # the 5 stride-2 layers give ceil(side / 32); AvgPool2d(7) then fc(1024) need 7..13
MAX_SIDE = 416
SMALL_SCALE = 0.02      # T2: x = U[0, 0.02)
SPIKE_FRACTION = 0.02   # T3: about 2% of the input values are spikes
STEM = (int(32 * ALPHA), 2)
# conv_dw blocks model[1..13]: (inp, oup, stride)
BLOCKS = [
    (32, 64, 1),
    (64, 128, 2),
    (128, 128, 1),
    (128, 256, 2),
    (256, 256, 1),
    (256, 512, 2),
    (512, 512, 1),
    (512, 512, 1),
    (512, 512, 1),
    (512, 512, 1),
    (512, 512, 1),
    (512, 1024, 2),
    (1024, 1024, 1),
]


def _layers():
    """(template, kernel name, description, input description) in pipeline order."""
    out = [
        (_CONV_TEMPLATE, "mobilenetv1_stem_conv_kernel",
         "model[0][0]: Conv2d(3, 32, 3, stride=2, padding=1, bias=False)", "x"),
        (_STATS_TEMPLATE, "mobilenetv1_stem_bn_stats_kernel", "model[0][1] BatchNorm2d(32) statistics", "stem conv output"),
        (_BN_RELU_TEMPLATE, "mobilenetv1_stem_bn_relu_kernel", "model[0][1..2] BatchNorm2d(32) + ReLU", "stem conv output"),
    ]
    prev = "stem output"
    for i, (inp, oup, stride) in enumerate(BLOCKS, start=1):
        pre = f"mobilenetv1_block{i}_"
        out += [
            (_DW_CONV_TEMPLATE, pre + "dw_conv_kernel",
             f"model[{i}][0]: Conv2d({inp}, {inp}, 3, stride={stride}, padding=1, groups={inp}, bias=False)", prev),
            (_STATS_TEMPLATE, pre + "dw_bn_stats_kernel", f"model[{i}][1] BatchNorm2d({inp}) statistics",
             f"block{i} depthwise conv output"),
            (_BN_RELU_TEMPLATE, pre + "dw_bn_relu_kernel", f"model[{i}][1..2] BatchNorm2d({inp}) + ReLU",
             f"block{i} depthwise conv output"),
            (_PW_CONV_TEMPLATE, pre + "pw_conv_kernel", f"model[{i}][3]: Conv2d({inp}, {oup}, 1, bias=False)",
             f"block{i} depthwise output"),
            (_STATS_TEMPLATE, pre + "pw_bn_stats_kernel", f"model[{i}][4] BatchNorm2d({oup}) statistics",
             f"block{i} pointwise conv output"),
            (_BN_RELU_TEMPLATE, pre + "pw_bn_relu_kernel", f"model[{i}][4..5] BatchNorm2d({oup}) + ReLU",
             f"block{i} pointwise conv output"),
        ]
        prev = f"block{i} output"
    out += [
        (_AVGPOOL7_TEMPLATE, "mobilenetv1_avgpool_kernel", "model[14]: AvgPool2d(7)", prev),
        (_FC_TEMPLATE, "mobilenetv1_fc_kernel", "fc: Linear(1024, 1000)", "avgpool output, viewed as [N, 1024]"),
    ]
    return out


CUDA = _PRELUDE + "".join(
    t.replace("@NAME@", n).replace("@DESC@", d).replace("@INPUT@", i) for t, n, d, i in _layers()
)
KERNELS = [n for _, n, _, _ in _layers()]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1000, 3, 1.0): conv_bn (Conv2d, BatchNorm2d), then each conv_dw (depthwise
        # Conv2d, BatchNorm2d, pointwise Conv2d, BatchNorm2d), then fc. ReLU and AvgPool2d draw
        # nothing; BatchNorm2d draws nothing either (ones, zeros), but every module is built in order.
        nn = torch.nn
        conv = nn.Conv2d(IN_CHANNELS, STEM[0], 3, STEM[1], PAD, bias=False)
        bn = nn.BatchNorm2d(STEM[0])
        params = {"stem_w": conv.weight, "stem_bn_w": bn.weight, "stem_bn_b": bn.bias, "blocks": []}
        for inp, oup, stride in BLOCKS:
            dw = nn.Conv2d(inp, inp, 3, stride, PAD, groups=inp, bias=False)
            dw_bn = nn.BatchNorm2d(inp)
            pw = nn.Conv2d(inp, oup, 1, 1, 0, bias=False)
            pw_bn = nn.BatchNorm2d(oup)
            params["blocks"].append({
                "dw_w": dw.weight, "dw_bn_w": dw_bn.weight, "dw_bn_b": dw_bn.bias,
                "pw_w": pw.weight, "pw_bn_w": pw_bn.weight, "pw_bn_b": pw_bn.bias,
            })
        fc = nn.Linear(int(1024 * ALPHA), NUM_CLASSES)
        params["fc_w"] = fc.weight
        params["fc_b"] = fc.bias
        return params

    W = K.weights(build)

    def conv_step(name, x, w, stride, pad):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = (H + 2 * pad - KH) // stride + 1
        OW = (W_in + 2 * pad - KW) // stride + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C_out, N),
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

    def dw_step(name, x, w, stride, pad):
        N, C, H, W_in = x.shape
        _, _, KH, KW = w.shape
        OH = (H + 2 * pad - KH) // stride + 1
        OW = (W_in + 2 * pad - KW) // stride + 1
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C, N),
            (BLOCK, 1, 1),
            [x, w, out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, stride),
                (ctypes.c_int, pad),
            ],
        )
        return step, out

    def pw_step(name, x, w):
        N, C_in, H, W_in = x.shape
        C_out = w.shape[0]
        out = torch.empty((N, C_out, H, W_in), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(H * W_in, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, out],
            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H * W_in), (ctypes.c_int, C_out)],
        )
        return step, out

    def stats_step(name, x):
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

    def norm_step(name, x, stats, gamma, beta):
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        step = (
            name,
            (K.cdiv(N * C * H * W_in, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, stats, gamma, beta, out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )
        return step, out

    def avgpool_step(name, x):
        N, C, H, W_in = x.shape
        OH = (H - POOL_K) // POOL_K + 1
        OW = (W_in - POOL_K) // POOL_K + 1
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(N * C * OH * OW, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
            ],
        )
        return step, out

    def fc_step(name, x, w, b):
        # x is the contiguous [N, 1024, 1, 1] pool output, read as [N, 1024] (x.view(N, -1)).
        M = x.shape[0]
        N_out, K_in = w.shape
        out = torch.empty((M, N_out), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(N_out, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w, b, out],
            [(ctypes.c_int, M), (ctypes.c_int, N_out), (ctypes.c_int, K_in)],
        )
        return step, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        seq = []

        def add(step_and_out):
            step, out = step_and_out
            seq.append(step)
            return out

        c = add(conv_step("mobilenetv1_stem_conv_kernel", x, w["stem_w"], STEM[1], PAD))
        st = add(stats_step("mobilenetv1_stem_bn_stats_kernel", c))
        h = add(norm_step("mobilenetv1_stem_bn_relu_kernel", c, st, w["stem_bn_w"], w["stem_bn_b"]))
        for i, ((_inp, _oup, stride), p) in enumerate(zip(BLOCKS, w["blocks"]), start=1):
            pre = f"mobilenetv1_block{i}_"
            d = add(dw_step(pre + "dw_conv_kernel", h, p["dw_w"], stride, PAD))
            st = add(stats_step(pre + "dw_bn_stats_kernel", d))
            h = add(norm_step(pre + "dw_bn_relu_kernel", d, st, p["dw_bn_w"], p["dw_bn_b"]))
            c = add(pw_step(pre + "pw_conv_kernel", h, p["pw_w"]))
            st = add(stats_step(pre + "pw_bn_stats_kernel", c))
            h = add(norm_step(pre + "pw_bn_relu_kernel", c, st, p["pw_bn_w"], p["pw_bn_b"]))
        pooled = add(avgpool_step("mobilenetv1_avgpool_kernel", h))
        out = add(fc_step("mobilenetv1_fc_kernel", pooled, w["fc_w"], w["fc_b"]))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: every BatchNorm uses the batch statistics.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def bn_relu(t, g, b):
            return F.relu(F.batch_norm(t, None, None, g, b, training=True, eps=BN_EPS))

        x = bn_relu(F.conv2d(x, w["stem_w"], None, STEM[1], PAD), w["stem_bn_w"], w["stem_bn_b"])
        for (inp, _oup, stride), p in zip(BLOCKS, w["blocks"]):
            x = bn_relu(F.conv2d(x, p["dw_w"], None, stride, PAD, 1, inp), p["dw_bn_w"], p["dw_bn_b"])
            x = bn_relu(F.conv2d(x, p["pw_w"], None, 1, 0), p["pw_bn_w"], p["pw_bn_b"])
        x = F.avg_pool2d(x, POOL_K)
        x = x.view(x.size(0), -1)
        return F.linear(x, w["fc_w"], w["fc_b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def small_inputs(torch, s):
        # U[0, 0.02): see T2_eps_scale.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * SMALL_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the values set to U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p19_mobilenetv1",
        level=3,
        problem="19_MobileNetV1",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10, max=MAX_GRID_Z),
            "height": K.dim(224, min=MIN_SIDE, max=MAX_SIDE),
            "width": K.dim(224, min=MIN_SIDE, max=MAX_SIDE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 1, "height": 193, "width": 230},
                small=True,
                purpose="one 193 x 230 image, the smallest height the fixed AvgPool2d(7) + fc(1024) admit: the "
                "stride-2 layers round up (193 -> 97 -> 49 -> 25 -> 13 -> 7 rows, 230 -> 115 -> 58 -> 29 -> 15 -> 8 "
                "columns), so the last row or column of every strided conv reads the zero padding, and the "
                "pool's single 7 x 7 window drops the 8th column (floor mode), which a pool over the whole "
                "plane would not; H != W catches swapped extents; every plane (11155, 2842, 725, 195, 56 "
                "pixels) ends in a partial 256-thread block; batch 1 means the BatchNorm statistics come from "
                "one image (56 values per channel in the last layers) and fc's row tile holds one live row. "
                "Emulated TF32 tau* against fp64 5.9e-3 (see notes)",
            ),
            K.suite(
                "T2_eps_scale",
                small_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "height": 224, "width": 200},
                purpose="x = U[0,0.02): training-mode BatchNorm is scale-invariant, so a same-sign large input "
                "would change nothing downstream; scaling down instead puts the per-channel variance of the "
                "stem conv (8e-6 to 1.4e-5) at the size of eps = 1e-5, so the eps term, the variance (not the "
                "std) under the square root and the biased divisor of the stem BatchNorm move the outputs "
                "(its outputs shrink to about 0.7 of unit scale); batch 3, a 224 x 200 image (7 x 7 at the "
                "pool, 200 -> 100 -> 50 -> 25 -> 13 -> 7). Emulated TF32 tau* 1.3e-2 to 1.75e-2, as for T0 "
                "(see notes)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 257, "width": 224},
                purpose="about 2% isolated U[0,1) spikes on exact zeros: 58% of the stem conv outputs (those "
                "whose 3x3x3 window holds no spike) are exactly zero, so after BatchNorm they share one value "
                "and the others sit exactly where a window meets a spike: kh/kw swaps, transposed weights, "
                "wrong padding offsets and wrong strides in the stem move them visibly, and the stem "
                "statistics see a skewed, heavy-tailed distribution; 257 rows -> 9 at the pool, whose window "
                "drops the last 2 rows. Emulated TF32 tau* 1.0e-2 (see notes)",
            ),
        ],
        notes="Training-mode BatchNorm (the harness never calls .eval()): batch mean and biased variance per "
        "channel, eps 1e-5, affine weight 1 and bias 0 at init (kept as kernel inputs, so gamma/beta mutants "
        "that swap or drop them are equivalent). The reference convolutions run through cuDNN with TF32 "
        "(torch's default). This network amplifies early perturbations strongly: the fp32 CPU reference "
        "misses fp64 by 6.6e-6 on T0 (about 50x fp32 rounding), and a CPU emulation of TF32 operand rounding "
        "(round-to-nearest or truncation, fp64 accumulation) gave tau* 1.6e-2 on T0 (batch 10), over the "
        "tolerance, with 9.4e-3 coming from the stem conv alone and about 7e-3 from the first depthwise "
        "conv. The facts file measured the real H200 reference within 1e-2 of fp64 on T0 (missing only "
        "1e-4), so the emulation is pessimistic here (cuDNN may run the 3-channel stem or the depthwise "
        "convs without tensor cores); the targeted suites are no worse than T0 in the same emulation (T1 "
        "5.9e-3, T2 1.3-1.75e-2, T3 1.0e-2), but the margin to the ceiling is uncertain until the GPU "
        "gate's fp64 check measures it. With a BatchNorm after every convolution the output is invariant to "
        "a positive rescaling of any convolution's output, so mutants that only scale a conv are caught "
        "only through the eps term (T2_eps_scale). Height and width are declared 193..416: the five "
        "stride-2 layers give ceil(side / 32), and AvgPool2d(7) must leave exactly 1 x 1 for fc's 1024 "
        "inputs (7..13). ReLU (v > 0 ? v : 0) drops NaN where torch propagates it; finite inputs are "
        "unaffected.",
    )
