"""KernelBench level 3, problem 9_ResNet18: ResNet-18 (BasicBlock stages [2, 2, 2, 2], widths
64/128/256/512), 1000 classes, on x 2 x 3 x 224 x 224.

Model(1000), in forward order:

    stem     conv1 7x7 s2 p3 3->64 (no bias), bn1, ReLU, maxpool 3x3 s2 p1      224 -> 112 -> 56
    layer1   2 BasicBlocks 64->64, stride 1                                        56
    layer2   2 BasicBlocks 64->128, the first with stride 2 and a 1x1 downsample   56 -> 28
    layer3   2 BasicBlocks 128->256, likewise                                      28 -> 14
    layer4   2 BasicBlocks 256->512, likewise                                      14 -> 7
    head     AdaptiveAvgPool2d((1, 1)), flatten (a view), fc 512->1000

    BasicBlock: out = relu(bn1(conv1(x)))                conv1 3x3, stride s, padding 1, no bias
                out = bn2(conv2(out))                    conv2 3x3, stride 1, padding 1, no bias
                identity = x, or bn_d(conv_d(x))         conv_d 1x1, stride s, no bias
                return relu(out + identity)

The harness never calls .eval(), so all 20 BatchNorm2d layers run in training mode: each normalises
with its batch statistics per channel (mean and biased variance over N, H, W; eps 1e-5), then applies
its affine weight (ones) and bias (zeros). Every layer has its own kernel, 63 in pipeline order:

    resnet18_conv1_kernel, resnet18_bn1_stats_kernel, resnet18_bn1_relu_kernel, resnet18_maxpool_kernel
    per block resnet18_layer<L>_<B>_...:
        conv1_kernel, bn1_stats_kernel, bn1_relu_kernel, conv2_kernel, bn2_stats_kernel,
        [downsample_conv_kernel, downsample_bn_stats_kernel, downsample_bn_kernel]   (layer2_0, 3_0, 4_0)
        bn2_add_relu_kernel          relu(bn2(c2) + identity): the block's output
    resnet18_avgpool_kernel, resnet18_fc_kernel

Each BatchNorm is two kernels: a statistics kernel writes [mean; biased variance] into one packed
[2, C] buffer (a step writes only its last tensor), and a normalise kernel applies it with the
layer's epilogue (ReLU, nothing, or the residual add and ReLU). The kernel definitions are generated
below from one template string per kind of layer, but each is a distinct, fully written-out
__global__ with its own name, so a mutation belongs to exactly one layer.

Convolutions and pools run one thread per output element on a 3D grid: x covers the output pixels of
one plane (flat index oh * OW + ow, 256-thread blocks), y the channel and z the image, so planes of
112x112, 56x56, 28x28, 14x14 and 7x7 end in a partial block. Each conv thread loops over the input
channels and the window with explicit zero-padding guards, accumulating in fp32. The statistics
kernels run one 256-thread block per channel: a strided sum through a shared-memory tree gives the
mean, then a strided sum of squared deviations through a second tree gives the biased variance. The
normalise kernels run over a flat 64-bit index. The average pool is one thread per (image, channel);
fc is a 16 x 16 shared-memory tiled GEMM as in L3p1_mlp.

Cost: 3.6 G multiply-adds (7.3 GFLOP) for the official batch of 2, spread over 20 convolutions, the
largest 0.46 GFLOP; at the 1-3 TFLOP/s a naive direct convolution reaches on an H200 that is 3-7 ms,
plus 63 launches and 20 latency-bound statistics kernels (64-512 blocks, at most 25088 values per
channel): about 5-15 ms per forward.
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

_DOWNSAMPLE_CONV_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int OH, int OW, int stride)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;
    int ih = oh * stride;       // OH = (H - 1) / stride + 1, so the single tap is inside the input
    int iw = ow * stride;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
        float wv = w[(long long)co * C_in + ci];
        acc += xv * wv;
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

_BN_TEMPLATE = r"""
// @DESC@: (x - mean) / sqrt(var + eps) * gamma + beta, no activation
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
    out[i] = (x[i] - mean) * inv_std * gamma[c] + beta[c];
}
"""

_BN_ADD_RELU_TEMPLATE = r"""
// @DESC@: relu((x - mean) / sqrt(var + eps) * gamma + beta + identity)
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,            // [N, C, HW]  (@INPUT@)
    const float* __restrict__ stats,        // [2, C]: mean, biased variance
    const float* __restrict__ gamma,        // [C]
    const float* __restrict__ beta,         // [C]
    const float* __restrict__ identity,     // [N, C, HW]  (@IDENTITY@)
    float* __restrict__ out,                // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;             // nn.BatchNorm2d default eps
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c] + identity[i];
    out[i] = v > 0.0f ? v : 0.0f;
}
"""

_MAXPOOL_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, H, W]  (@INPUT@)
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 3;                               // kernel_size=3
    const int POOL_S = 2;                               // stride=2
    const int POOL_PAD = 1;                             // padding=1 (padded taps never win)
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        int ih = oh * POOL_S - POOL_PAD + kh;
        if (ih < 0 || ih >= H) continue;
        for (int kw = 0; kw < POOL_K; ++kw) {
            int iw = ow * POOL_S - POOL_PAD + kw;
            if (iw < 0 || iw >= W) continue;
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = m;
}
"""

_AVGPOOL_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, HW]  (@INPUT@)
    float* __restrict__ out,        // [N, C]  (read by fc as [N, C] after torch.flatten)
    int N, int C, int HW)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;      // flat (n, c) index
    if (i >= N * C) return;

    const float* plane = x + (long long)i * HW;
    float acc = 0.0f;
    for (int p = 0; p < HW; ++p) {
        acc += plane[p];
    }
    out[i] = acc / (float)HW;
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

_PRELUDE = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernels (one block per channel)
const int TILE = 16;            // fc: blocks are TILE x TILE threads, K is consumed TILE at a time
"""

BLOCK = 256             # conv, pool, normalise and avgpool kernels: threads per block
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
TILE = 16               # must equal TILE in the CUDA source
IN_CHANNELS = 3
STEM_CHANNELS = 64
STEM_K, STEM_S, STEM_PAD = 7, 2, 3      # conv1: kernel_size=7, stride=2, padding=3
POOL_K, POOL_S, POOL_PAD = 3, 2, 1      # maxpool: must equal the constants in the CUDA source
PAD = 1                 # every 3x3 conv in the blocks has padding=1
NUM_CLASSES = 1000      # get_init_inputs() = [1000]
BN_EPS = 1e-5
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the conv and pool kernels
# (name, in_channels, out_channels, stride, has_downsample), in forward order
BLOCKS = [
    ("layer1_0", 64, 64, 1, False),
    ("layer1_1", 64, 64, 1, False),
    ("layer2_0", 64, 128, 2, True),
    ("layer2_1", 128, 128, 1, False),
    ("layer3_0", 128, 256, 2, True),
    ("layer3_1", 256, 256, 1, False),
    ("layer4_0", 256, 512, 2, True),
    ("layer4_1", 512, 512, 1, False),
]


def _kernel(template, name, desc, inp, identity=""):
    return (
        template.replace("@NAME@", name)
        .replace("@DESC@", desc)
        .replace("@INPUT@", inp)
        .replace("@IDENTITY@", identity)
    )


def _layers():
    """(template, kernel name, description, input description, identity description) in pipeline order."""
    out = [
        (_CONV_TEMPLATE, "resnet18_conv1_kernel", "conv1: Conv2d(3, 64, 7, stride=2, padding=3, bias=False)", "x", ""),
        (_STATS_TEMPLATE, "resnet18_bn1_stats_kernel", "bn1 statistics", "conv1 output", ""),
        (_BN_RELU_TEMPLATE, "resnet18_bn1_relu_kernel", "bn1 + ReLU", "conv1 output", ""),
        (_MAXPOOL_TEMPLATE, "resnet18_maxpool_kernel", "maxpool: MaxPool2d(3, stride=2, padding=1)", "bn1 output", ""),
    ]
    prev = "maxpool output"
    for blk, cin, cout, stride, down in BLOCKS:
        pre = f"resnet18_{blk}_"
        out += [
            (_CONV_TEMPLATE, pre + "conv1_kernel",
             f"{blk}.conv1: Conv2d({cin}, {cout}, 3, stride={stride}, padding=1, bias=False)", prev, ""),
            (_STATS_TEMPLATE, pre + "bn1_stats_kernel", f"{blk}.bn1 statistics", f"{blk}.conv1 output", ""),
            (_BN_RELU_TEMPLATE, pre + "bn1_relu_kernel", f"{blk}.bn1 + ReLU", f"{blk}.conv1 output", ""),
            (_CONV_TEMPLATE, pre + "conv2_kernel",
             f"{blk}.conv2: Conv2d({cout}, {cout}, 3, stride=1, padding=1, bias=False)", f"{blk}.bn1 output", ""),
            (_STATS_TEMPLATE, pre + "bn2_stats_kernel", f"{blk}.bn2 statistics", f"{blk}.conv2 output", ""),
        ]
        if down:
            out += [
                (_DOWNSAMPLE_CONV_TEMPLATE, pre + "downsample_conv_kernel",
                 f"{blk}.downsample[0]: Conv2d({cin}, {cout}, 1, stride={stride}, bias=False)", prev, ""),
                (_STATS_TEMPLATE, pre + "downsample_bn_stats_kernel", f"{blk}.downsample[1] statistics",
                 f"{blk}.downsample conv output", ""),
                (_BN_TEMPLATE, pre + "downsample_bn_kernel", f"{blk}.downsample[1] (BatchNorm2d)",
                 f"{blk}.downsample conv output", ""),
            ]
        identity = f"{blk}.downsample output" if down else f"{blk} input ({prev})"
        out.append(
            (_BN_ADD_RELU_TEMPLATE, pre + "bn2_add_relu_kernel", f"{blk}: bn2, out += identity, ReLU",
             f"{blk}.conv2 output", identity)
        )
        prev = f"{blk} output"
    out += [
        (_AVGPOOL_TEMPLATE, "resnet18_avgpool_kernel", "avgpool: AdaptiveAvgPool2d((1, 1))", "layer4_1 output", ""),
        (_FC_TEMPLATE, "resnet18_fc_kernel", "fc: Linear(512, 1000)", "avgpool output, flattened", ""),
    ]
    return out


CUDA = _PRELUDE + "".join(_kernel(t, n, d, i, ident) for t, n, d, i, ident in _layers())
KERNELS = [n for _, n, _, _, _ in _layers()]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1000): conv1, bn1, then each _make_layer builds its downsample Sequential
        # (Conv2d 1x1, BatchNorm2d) BEFORE the first block, then the blocks (conv1, bn1, conv2, bn2),
        # then fc. BatchNorm2d draws nothing (ones, zeros), but every module is built in order.
        nn = torch.nn
        conv1 = nn.Conv2d(IN_CHANNELS, STEM_CHANNELS, kernel_size=STEM_K, stride=STEM_S, padding=STEM_PAD, bias=False)
        bn1 = nn.BatchNorm2d(STEM_CHANNELS)
        params = {"conv1_w": conv1.weight, "bn1_w": bn1.weight, "bn1_b": bn1.bias}
        for blk, cin, cout, stride, down in BLOCKS:
            p = {}
            if down:
                dconv = nn.Conv2d(cin, cout, kernel_size=1, stride=stride, bias=False)
                dbn = nn.BatchNorm2d(cout)
                p.update({"down_w": dconv.weight, "down_bn_w": dbn.weight, "down_bn_b": dbn.bias})
            c1 = nn.Conv2d(cin, cout, kernel_size=3, stride=stride, padding=PAD, bias=False)
            b1 = nn.BatchNorm2d(cout)
            c2 = nn.Conv2d(cout, cout, kernel_size=3, stride=1, padding=PAD, bias=False)
            b2 = nn.BatchNorm2d(cout)
            p.update({"conv1_w": c1.weight, "bn1_w": b1.weight, "bn1_b": b1.bias,
                      "conv2_w": c2.weight, "bn2_w": b2.weight, "bn2_b": b2.bias})
            params[blk] = p
        fc = nn.Linear(512, NUM_CLASSES)
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

    def down_conv_step(name, x, w, stride):
        N, C_in, H, W_in = x.shape
        C_out = w.shape[0]
        OH = (H - 1) // stride + 1
        OW = (W_in - 1) // stride + 1
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
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, stride),
            ],
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

    def norm_step(name, x, stats, gamma, beta, identity=None):
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        total = N * C * H * W_in
        tensors = [x, stats, gamma, beta] + ([identity] if identity is not None else []) + [out]
        step = (
            name,
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            tensors,
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )
        return step, out

    def maxpool_step(name, x):
        N, C, H, W_in = x.shape
        OH = (H + 2 * POOL_PAD - POOL_K) // POOL_S + 1
        OW = (W_in + 2 * POOL_PAD - POOL_K) // POOL_S + 1
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C, N),
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

    def avgpool_step(name, x):
        N, C, H, W_in = x.shape
        out = torch.empty((N, C), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(N * C, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )
        return step, out

    def fc_step(name, x, w, b):
        M, K_in = x.shape
        N_out = w.shape[0]
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

        c = add(conv_step("resnet18_conv1_kernel", x, w["conv1_w"], STEM_S, STEM_PAD))
        st = add(stats_step("resnet18_bn1_stats_kernel", c))
        h = add(norm_step("resnet18_bn1_relu_kernel", c, st, w["bn1_w"], w["bn1_b"]))
        h = add(maxpool_step("resnet18_maxpool_kernel", h))
        for blk, _cin, _cout, stride, down in BLOCKS:
            p = w[blk]
            pre = f"resnet18_{blk}_"
            c1 = add(conv_step(pre + "conv1_kernel", h, p["conv1_w"], stride, PAD))
            st1 = add(stats_step(pre + "bn1_stats_kernel", c1))
            a1 = add(norm_step(pre + "bn1_relu_kernel", c1, st1, p["bn1_w"], p["bn1_b"]))
            c2 = add(conv_step(pre + "conv2_kernel", a1, p["conv2_w"], 1, PAD))
            st2 = add(stats_step(pre + "bn2_stats_kernel", c2))
            if down:
                d = add(down_conv_step(pre + "downsample_conv_kernel", h, p["down_w"], stride))
                std_ = add(stats_step(pre + "downsample_bn_stats_kernel", d))
                identity = add(norm_step(pre + "downsample_bn_kernel", d, std_, p["down_bn_w"], p["down_bn_b"]))
            else:
                identity = h
            h = add(norm_step(pre + "bn2_add_relu_kernel", c2, st2, p["bn2_w"], p["bn2_b"], identity))
        pooled = add(avgpool_step("resnet18_avgpool_kernel", h))
        out = add(fc_step("resnet18_fc_kernel", pooled, w["fc_w"], w["fc_b"]))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: every BatchNorm uses the batch statistics (the running
        # buffers it would update do not affect the output).
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def bn(t, g, b):
            return F.batch_norm(t, None, None, g, b, training=True, eps=BN_EPS)

        x = F.conv2d(x, w["conv1_w"], None, stride=STEM_S, padding=STEM_PAD)
        x = F.relu(bn(x, w["bn1_w"], w["bn1_b"]))
        x = F.max_pool2d(x, kernel_size=POOL_K, stride=POOL_S, padding=POOL_PAD)
        for blk, _cin, _cout, stride, down in BLOCKS:
            p = w[blk]
            identity = x
            out = F.relu(bn(F.conv2d(x, p["conv1_w"], None, stride=stride, padding=PAD), p["bn1_w"], p["bn1_b"]))
            out = bn(F.conv2d(out, p["conv2_w"], None, stride=1, padding=PAD), p["bn2_w"], p["bn2_b"])
            if down:
                identity = bn(F.conv2d(x, p["down_w"], None, stride=stride), p["down_bn_w"], p["down_bn_b"])
            x = F.relu(out + identity)
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return F.linear(x, w["fc_w"], w["fc_b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(input_shape)], input_shape = (batch_size, 3, 224, 224)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def scaled_inputs(scale):
        def gen(torch, s):
            return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the values set to U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p9_resnet18",
        level=3,
        problem="9_ResNet18",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(2, min=2, max=MAX_GRID_Z),
            "height": K.dim(224),
            "width": K.dim(224),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 97, "width": 105},
                small=True,
                purpose="2 x 3 x 97 x 105, odd and unequal sides: the stride-2 layers round up (97 -> 49 -> 25 -> 13 "
                "-> 7 -> 4 rows, 105 -> 53 -> 27 -> 14 -> 7 -> 4 columns), so the last row or column of the "
                "strided convs, the maxpool and the downsample taps read the zero padding or the odd edge, and "
                "swapped H/W extents or strides show; every plane (2597, 675, 182, 49, 16 pixels) ends in a "
                "partial 256-thread block; layer4's BatchNorms see 32 values per channel (a count - 1 divisor "
                "is a 3% change of the variance) and their statistics blocks hold 224 idle threads; fc's 2 rows "
                "fill one row tile with 14 dead rows and its 1000 columns a partial column tile. The image is "
                "not smaller because the reference's TF32 convolution error reaches the logits less averaged "
                "on small planes: a CPU emulation of TF32 operand rounding gave tau* 2.3e-3 against fp64 here, "
                "5e-3 at 37 x 45",
            ),
            K.suite(
                "T2_eps_scale",
                scaled_inputs(0.02),
                seeds=[3, 4],
                sizes={"batch": 2, "height": 160, "width": 128},
                purpose="x = U[0,0.02): training-mode BatchNorm is scale-invariant, so a same-sign large input "
                "would change nothing downstream; scaling down instead puts the per-channel variance of the "
                "stem conv (about 1e-5) at the size of eps = 1e-5, so the eps term, the variance (not the std) "
                "under the square root and the biased divisor of bn1 move the outputs; even sides that halve "
                "exactly (160 x 128 -> 5 x 4 at layer4); emulated TF32 tau* against fp64 2.5e-3 (4.4e-3 at "
                "3 x 64 x 80, hence the larger image)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 96, "width": 72},
                purpose="about 2% isolated U[0,1) spikes on exact zeros: most stem conv outputs are exactly zero, "
                "so the nonzero ones sit where a 7x7 window meets a spike and kh/kw swaps, transposed weights, "
                "wrong padding offsets and wrong strides in the stem move them visibly; spikes on the border "
                "rows and columns test the padding guards; bn1 sees a skewed, heavy-tailed distribution "
                "(2 x 48 x 36 = 3456 values per channel, 13.5 passes of the strided loops)",
            ),
        ],
        notes="Training-mode BatchNorm (the harness never calls .eval()): batch mean and biased variance per "
        "channel, eps 1e-5, affine weight 1 and bias 0 at init (kept as kernel inputs, so gamma/beta mutants "
        "that swap or drop them are equivalent). The reference convolutions run through cuDNN with TF32 "
        "(torch's default), so this exact fp32 pipeline differs from the reference beyond 1e-4 "
        "(facts: the official reference misses fp64 at 1e-4) but stays inside 1e-2. With a BatchNorm after "
        "every convolution the network is invariant to a positive rescaling of any convolution's output, so "
        "mutants that only scale a conv are caught only through the eps term; the input's scale matters only "
        "through bn1's eps (T2_eps_scale). The batch is declared >= 2 so that layer4's BatchNorms always see "
        "more than one value per channel (training-mode batch_norm raises otherwise; height and width "
        "may be as small as 1). The residual add happens before the final ReLU of each block, fused with bn2 "
        "into one kernel (bn2_add_relu). AdaptiveAvgPool2d((1, 1)) averages the whole layer4 plane (7 x 7 at "
        "224); flatten is a view. ReLU (v > 0 ? v : 0) and the max-pool comparison (v > m) drop NaN where "
        "torch propagates it; finite inputs are unaffected.",
    )
