"""KernelBench level 3, problem 20_MobileNetV2: MobileNet v2 on x 10 x 3 x 224 x 224, 1000 classes.

Model(1000), in forward order (features[i]):

    stem       Conv2d(3, 32, 3, stride 2, padding 1, no bias), BatchNorm2d, ReLU6      224 -> 112
    block1     t=1: depthwise 3x3 32 (+BN, ReLU6), project 1x1 32->16 (+BN)           112
    block2-17  t=6: expand 1x1 inp->6*inp (+BN, ReLU6), depthwise 3x3 stride s (+BN, ReLU6),
               project 1x1 6*inp->oup (+BN, no activation)
               (c, n, s) = (24, 2, 2), (32, 3, 2), (64, 4, 2), (96, 3, 1), (160, 3, 2), (320, 1, 1)
    head       Conv2d(320, 1280, 1, no bias), BatchNorm2d, ReLU6, AdaptiveAvgPool2d((1, 1))
    classifier x.view(N, -1) (a view), Dropout(0.0) (the identity), Linear(1280, 1000)

No residual adds: `_inverted_residual_block` returns (Sequential, use_res_connect) and Model.__init__
appends only the Sequential ([0]), so forward is a plain chain of the 52 convolutions even where
stride 1 and inp == oup would call for a shortcut (facts section 1a). The weights come from the
model's own init loop over self.modules(): kaiming_normal_(mode='fan_out') for every Conv2d, ones
and zeros for every BatchNorm2d, normal_(0, 0.01) and zeros for the Linear (drawn after the default
initialisation of each module, which also consumes the generator).

The harness never calls .eval(), so all 52 BatchNorm2d layers run in training mode: each normalises
with its batch statistics per channel (mean and biased variance over N, H, W; eps 1e-5), then applies
its affine weight (ones) and bias (zeros). Every layer has its own kernel, 158 in pipeline order:

    mobilenetv2_stem_{conv, bn_stats, bn_relu6}_kernel
    mobilenetv2_block1_{dw_conv, dw_bn_stats, dw_bn_relu6, project_conv, project_bn_stats, project_bn}_kernel
    per block i = 2..17, mobilenetv2_block<i>_...:
        expand_conv, expand_bn_stats, expand_bn_relu6, dw_conv, dw_bn_stats, dw_bn_relu6,
        project_conv, project_bn_stats, project_bn (each + _kernel)
    mobilenetv2_head_{conv, bn_stats, bn_relu6}_kernel, mobilenetv2_avgpool_kernel, mobilenetv2_fc_kernel

Each BatchNorm is two kernels: a statistics kernel writes [mean; biased variance] into one packed
[2, C] buffer (a step writes only its last tensor), and a normalise kernel applies it with the
layer's epilogue (ReLU6, or nothing after a projection). The kernel definitions are generated below
from one template string per kind of layer, but each is a distinct, fully written-out __global__
with its own name, so a mutation belongs to exactly one layer.

Convolutions run one thread per output element on a 3D grid: x covers the output pixels of one plane
(flat index oh * OW + ow, 256-thread blocks), y the channel and z the image, so planes of 112x112,
56x56, 28x28, 14x14 and 7x7 end in a partial block. The stem conv loops over its 3 input channels and
the 3x3 window, a depthwise conv over its own channel's 3x3 window, a pointwise conv over the input
channels, all with explicit zero-padding guards and fp32 accumulation. The statistics kernels run one
256-thread block per channel: a strided sum through a shared-memory tree gives the mean, then a
strided sum of squared deviations through a second tree gives the biased variance. The normalise
kernels run over a flat 64-bit index; the average pool is one thread per (image, channel); fc is a
16 x 16 shared-memory tiled GEMM as in L3p1_mlp.

Cost: 3.0 G multiply-adds (6.0 GFLOP) for the official batch of 10, nearly all in the pointwise
convolutions; at the 1-3 TFLOP/s a naive direct convolution reaches on an H200 that is 2-6 ms, plus
158 launches and 52 latency-bound statistics kernels (at most 125k values per channel, in the
expand layer of block 2 at 112 x 112): about 15-30 ms per forward.
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

_BN_RELU6_TEMPLATE = r"""
// @DESC@: min(max((x - mean) / sqrt(var + eps) * gamma + beta, 0), 6)
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,        // [N, C, HW]  (@INPUT@)
    const float* __restrict__ stats,    // [2, C]: mean, biased variance
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;         // nn.BatchNorm2d default eps
    const float RELU6_MAX = 6.0f;       // ReLU6 upper clamp
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c];
    if (v < 0.0f) v = 0.0f;
    if (v > RELU6_MAX) v = RELU6_MAX;
    out[i] = v;
}
"""

_PRELUDE = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernels (one block per channel)
const int TILE = 16;            // fc: blocks are TILE x TILE threads, K is consumed TILE at a time
"""

BLOCK = 256             # conv, pool and normalise kernels: threads per block
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
TILE = 16               # must equal TILE in the CUDA source
IN_CHANNELS = 3
STEM_CHANNELS = 32      # input_channel = 32
LAST_CHANNELS = 1280    # last_channel = 1280
NUM_CLASSES = 1000      # get_init_inputs() = [1000]
PAD = 1                 # every 3x3 conv: padding=1
BN_EPS = 1e-5
LINEAR_STD = 0.01       # nn.init.normal_(Linear.weight, 0, 0.01)
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the conv kernels
SMALL_SCALE = 0.02      # T2: x = U[0, 0.02)
SPIKE_FRACTION = 0.02   # T3: about 2% of the input values are spikes
# inverted_residual_setting: t, c, n, s (every c is already a multiple of 8, so _make_divisible keeps it)
SETTING = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]


def _make_divisible(v, divisor, min_value=None):
    # As Model.__init__: round to the nearest multiple of divisor, never down by more than 10%.
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _blocks():
    """(inp, hidden, oup, stride, expand) per inverted-residual block, in order."""
    out = []
    inp = STEM_CHANNELS
    for t, c, n, s in SETTING:
        oup = _make_divisible(c, 8)
        for i in range(n):
            out.append((inp, int(inp * t), oup, s if i == 0 else 1, t != 1))
            inp = oup
    return out


BLOCKS = _blocks()      # 17 blocks


def _layers():
    """(template, kernel name, description, input description) in pipeline order."""
    out = [
        (_CONV_TEMPLATE, "mobilenetv2_stem_conv_kernel",
         "features[0]: Conv2d(3, 32, 3, stride=2, padding=1, bias=False)", "x"),
        (_STATS_TEMPLATE, "mobilenetv2_stem_bn_stats_kernel", "features[1] BatchNorm2d(32) statistics", "stem conv output"),
        (_BN_RELU6_TEMPLATE, "mobilenetv2_stem_bn_relu6_kernel", "features[1..2] BatchNorm2d(32) + ReLU6",
         "stem conv output"),
    ]
    prev = "stem output"
    for i, (inp, hidden, oup, stride, expand) in enumerate(BLOCKS, start=1):
        pre = f"mobilenetv2_block{i}_"
        tag = f"features[{i + 2}]"
        if expand:
            out += [
                (_PW_CONV_TEMPLATE, pre + "expand_conv_kernel",
                 f"{tag}[0] expand: Conv2d({inp}, {hidden}, 1, bias=False)", prev),
                (_STATS_TEMPLATE, pre + "expand_bn_stats_kernel", f"{tag}[1] BatchNorm2d({hidden}) statistics",
                 f"block{i} expand conv output"),
                (_BN_RELU6_TEMPLATE, pre + "expand_bn_relu6_kernel", f"{tag}[1..2] BatchNorm2d({hidden}) + ReLU6",
                 f"block{i} expand conv output"),
            ]
            prev = f"block{i} expand output"
        j = 3 if expand else 0
        out += [
            (_DW_CONV_TEMPLATE, pre + "dw_conv_kernel",
             f"{tag}[{j}] depthwise: Conv2d({hidden}, {hidden}, 3, stride={stride}, padding=1, groups={hidden}, "
             f"bias=False)", prev),
            (_STATS_TEMPLATE, pre + "dw_bn_stats_kernel", f"{tag}[{j + 1}] BatchNorm2d({hidden}) statistics",
             f"block{i} depthwise conv output"),
            (_BN_RELU6_TEMPLATE, pre + "dw_bn_relu6_kernel", f"{tag}[{j + 1}..{j + 2}] BatchNorm2d({hidden}) + ReLU6",
             f"block{i} depthwise conv output"),
            (_PW_CONV_TEMPLATE, pre + "project_conv_kernel",
             f"{tag}[{j + 3}] project: Conv2d({hidden}, {oup}, 1, bias=False)", f"block{i} depthwise output"),
            (_STATS_TEMPLATE, pre + "project_bn_stats_kernel", f"{tag}[{j + 4}] BatchNorm2d({oup}) statistics",
             f"block{i} project conv output"),
            (_BN_TEMPLATE, pre + "project_bn_kernel", f"{tag}[{j + 4}] BatchNorm2d({oup}) (linear bottleneck)",
             f"block{i} project conv output"),
        ]
        prev = f"block{i} output"
    out += [
        (_PW_CONV_TEMPLATE, "mobilenetv2_head_conv_kernel", "features[20]: Conv2d(320, 1280, 1, bias=False)", prev),
        (_STATS_TEMPLATE, "mobilenetv2_head_bn_stats_kernel", "features[21] BatchNorm2d(1280) statistics",
         "head conv output"),
        (_BN_RELU6_TEMPLATE, "mobilenetv2_head_bn_relu6_kernel", "features[21..22] BatchNorm2d(1280) + ReLU6",
         "head conv output"),
        (_AVGPOOL_TEMPLATE, "mobilenetv2_avgpool_kernel", "features[23]: AdaptiveAvgPool2d((1, 1))", "head output"),
        (_FC_TEMPLATE, "mobilenetv2_fc_kernel",
         "classifier[1]: Linear(1280, 1000) (classifier[0] is Dropout(0.0): the identity)",
         "avgpool output, viewed as [N, 1280]"),
    ]
    return out


CUDA = _PRELUDE + "".join(
    t.replace("@NAME@", n).replace("@DESC@", d).replace("@INPUT@", i) for t, n, d, i in _layers()
)
KERNELS = [n for _, n, _, _ in _layers()]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1000): every module in the order it is created (which is also the order of
        # self.modules()): each draws its default initialisation, then the init loop redraws.
        nn = torch.nn
        stem = nn.Conv2d(IN_CHANNELS, STEM_CHANNELS, 3, 2, PAD, bias=False)
        stem_bn = nn.BatchNorm2d(STEM_CHANNELS)
        modules = [stem, stem_bn]
        blocks = []
        for inp, hidden, oup, stride, expand in BLOCKS:
            b = {}
            if expand:
                b["expand"] = nn.Conv2d(inp, hidden, 1, 1, 0, bias=False)
                b["expand_bn"] = nn.BatchNorm2d(hidden)
                modules += [b["expand"], b["expand_bn"]]
            b["dw"] = nn.Conv2d(hidden, hidden, 3, stride, PAD, groups=hidden, bias=False)
            b["dw_bn"] = nn.BatchNorm2d(hidden)
            b["project"] = nn.Conv2d(hidden, oup, 1, 1, 0, bias=False)
            b["project_bn"] = nn.BatchNorm2d(oup)
            modules += [b["dw"], b["dw_bn"], b["project"], b["project_bn"]]
            blocks.append(b)
        head = nn.Conv2d(BLOCKS[-1][2], LAST_CHANNELS, 1, 1, 0, bias=False)
        head_bn = nn.BatchNorm2d(LAST_CHANNELS)
        fc = nn.Linear(LAST_CHANNELS, NUM_CLASSES)
        modules += [head, head_bn, fc]
        # The init loop of Model.__init__, over the same modules in the same order.
        for m in modules:
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out")
                if m.bias is not None:
                    nn.init.zeros_(m.bias)
            elif isinstance(m, nn.BatchNorm2d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)
            elif isinstance(m, nn.Linear):
                nn.init.normal_(m.weight, 0, LINEAR_STD)
                nn.init.zeros_(m.bias)

        def bn(m):
            return {"w": m.weight, "b": m.bias}

        return {
            "stem_w": stem.weight, "stem_bn": bn(stem_bn),
            "blocks": [
                {k: (bn(v) if isinstance(v, nn.BatchNorm2d) else v.weight) for k, v in b.items()} for b in blocks
            ],
            "head_w": head.weight, "head_bn": bn(head_bn),
            "fc_w": fc.weight, "fc_b": fc.bias,
        }

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

    def norm_step(name, x, stats, bn):
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        step = (
            name,
            (K.cdiv(N * C * H * W_in, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, stats, bn["w"], bn["b"], out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
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

        c = add(conv_step("mobilenetv2_stem_conv_kernel", x, w["stem_w"], 2, PAD))
        st = add(stats_step("mobilenetv2_stem_bn_stats_kernel", c))
        h = add(norm_step("mobilenetv2_stem_bn_relu6_kernel", c, st, w["stem_bn"]))
        for i, ((_inp, _hidden, _oup, stride, expand), p) in enumerate(zip(BLOCKS, w["blocks"]), start=1):
            pre = f"mobilenetv2_block{i}_"
            if expand:
                c = add(pw_step(pre + "expand_conv_kernel", h, p["expand"]))
                st = add(stats_step(pre + "expand_bn_stats_kernel", c))
                h = add(norm_step(pre + "expand_bn_relu6_kernel", c, st, p["expand_bn"]))
            d = add(dw_step(pre + "dw_conv_kernel", h, p["dw"], stride, PAD))
            st = add(stats_step(pre + "dw_bn_stats_kernel", d))
            h = add(norm_step(pre + "dw_bn_relu6_kernel", d, st, p["dw_bn"]))
            c = add(pw_step(pre + "project_conv_kernel", h, p["project"]))
            st = add(stats_step(pre + "project_bn_stats_kernel", c))
            h = add(norm_step(pre + "project_bn_kernel", c, st, p["project_bn"]))
        c = add(pw_step("mobilenetv2_head_conv_kernel", h, w["head_w"]))
        st = add(stats_step("mobilenetv2_head_bn_stats_kernel", c))
        h = add(norm_step("mobilenetv2_head_bn_relu6_kernel", c, st, w["head_bn"]))
        pooled = add(avgpool_step("mobilenetv2_avgpool_kernel", h))
        out = add(fc_step("mobilenetv2_fc_kernel", pooled, w["fc_w"], w["fc_b"]))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: every BatchNorm uses the batch statistics; no residual adds.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def bn(t, p):
            return F.batch_norm(t, None, None, p["w"], p["b"], training=True, eps=BN_EPS)

        x = F.relu6(bn(F.conv2d(x, w["stem_w"], None, 2, PAD), w["stem_bn"]))
        for (_inp, hidden, _oup, stride, expand), p in zip(BLOCKS, w["blocks"]):
            if expand:
                x = F.relu6(bn(F.conv2d(x, p["expand"], None, 1, 0), p["expand_bn"]))
            x = F.relu6(bn(F.conv2d(x, p["dw"], None, stride, PAD, 1, hidden), p["dw_bn"]))
            x = bn(F.conv2d(x, p["project"], None, 1, 0), p["project_bn"])
        x = F.relu6(bn(F.conv2d(x, w["head_w"], None, 1, 0), w["head_bn"]))
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = x.view(x.size(0), -1)
        x = F.dropout(x, p=0.0, training=True)
        return F.linear(x, w["fc_w"], w["fc_b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, 224, 224)]
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
        name="L3p20_mobilenetv2",
        level=3,
        problem="20_MobileNetV2",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10, min=2, max=MAX_GRID_Z),
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
                "-> 7 -> 4 rows, 105 -> 53 -> 27 -> 14 -> 7 -> 4 columns), so the last row or column of every "
                "strided conv reads the zero padding or the odd edge, and swapped H/W extents or strides show; "
                "every plane (2597, 675, 182, 49, 16 pixels) ends in a partial 256-thread block; the last "
                "BatchNorms see 32 values per channel (a count - 1 divisor is a 3% change of the variance) and "
                "their statistics blocks hold 224 idle threads; fc's 2 rows fill one row tile with 14 dead rows",
            ),
            K.suite(
                "T2_eps_scale",
                small_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "height": 128, "width": 160},
                purpose="x = U[0,0.02): training-mode BatchNorm is scale-invariant, so a same-sign large input "
                "would change nothing downstream; scaling down instead puts the per-channel variance of the "
                "stem conv (4e-6 to 1e-5 with the kaiming_normal fan_out init) at or below eps = 1e-5, so the "
                "eps term, the variance (not the std) under the square root and the biased divisor of the stem "
                "BatchNorm move the outputs; batch 3, a 128 x 160 image (4 x 5 at the head)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 160, "width": 144},
                purpose="about 2% isolated U[0,1) spikes on exact zeros: 58% of the stem conv outputs (those whose "
                "3x3x3 window holds no spike) are exactly zero, so after BatchNorm they share one value and the "
                "others sit exactly where a window meets a spike: kh/kw swaps, transposed weights, wrong "
                "padding offsets and wrong strides in the stem move them visibly, and the stem statistics see a "
                "skewed, heavy-tailed distribution; 160 x 144 -> 5 x 5 at the head",
            ),
        ],
        notes="UNREFEREEABLE at the official tolerance (facts: the default TF32 reference misses fp64 at "
        "1e-2 on T0; IEEE fp32 would not): the reference's convolutions run through cuDNN with TF32, and this "
        "network (52 convolutions, each followed by a training-mode BatchNorm, no residual path) amplifies "
        "their rounding. A CPU emulation of TF32 operand rounding (round-to-nearest or truncation, fp64 "
        "accumulation) gave tau* against fp64 of 3.4-3.7e-2 on T0 (batch 10), 4.9-5.8e-2 on T1, 4.7-5.1e-2 on "
        "T2 and 3.1-3.4e-2 on T3 (about the same with the depthwise convs left exact), while the fp32 CPU "
        "reference stays within 2.6e-5 of fp64 everywhere. So this exact fp32 pipeline is expected to FAIL "
        "allclose(ref, out, 1e-2, 1e-2) against the GPU reference on every suite, and the gate's fp64 check to "
        "report T0 unrefereeable; the substrate is written as the brief asks, but acceptance needs a decision "
        "by the lead (a wider tolerance, about 1e-1, or a TF32-off reference). Weights: the custom init loop "
        "(kaiming_normal_ fan_out for convs, BN ones/zeros, Linear N(0, 0.01) and zero bias) runs after the "
        "default initialisation of every module, in module order, and is reproduced exactly. The residual "
        "adds are dropped by the official Model (use_res_connect is computed and discarded), so there are none "
        "here either. With a BatchNorm after every convolution the output is invariant to a positive "
        "rescaling of any convolution's output, so mutants that only scale a conv are caught only through "
        "the eps term (T2_eps_scale). The batch is declared >= 2 so that the head BatchNorm always sees more "
        "than one value per channel (height and width may be as small as 1). ReLU6 (clamps through v < 0 "
        "and v > 6) drops NaN where torch propagates it; finite inputs are unaffected.",
    )
