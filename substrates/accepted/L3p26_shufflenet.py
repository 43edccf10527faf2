"""KernelBench level 3, problem 26_ShuffleNet: ShuffleNet (groups 3, stages [3, 7, 3] of units with
240/480/960 channels, every unit stride 1) on x 10 x 3 x 224 x 224, 1000 classes.

Model(1000), in forward order:

    stem     conv1 Conv2d(3, 24, 3, stride 2, padding 1, no bias), bn1, ReLU,
             maxpool MaxPool2d(3, stride 2, padding 1)                         224 -> 112 -> 56
    stage2   ShuffleNetUnit(24, 240), 2 x ShuffleNetUnit(240, 240)            56
    stage3   ShuffleNetUnit(240, 480), 6 x ShuffleNetUnit(480, 480)           56
    stage4   ShuffleNetUnit(480, 960), 2 x ShuffleNetUnit(960, 960)           56
    head     conv5 Conv2d(960, 1024, 1, no bias), bn5, ReLU, adaptive_avg_pool2d((1, 1)),
             view (a view), fc Linear(1024, 1000)

    ShuffleNetUnit(in, out), mid = out / 4, every conv without bias:
        h = relu(bn1(conv1(x)))         conv1: 1x1, groups 3, in -> mid
        h = bn2(conv2(h))               conv2: depthwise 3x3, padding 1, mid channels
        h = shuffle(h)                  ChannelShuffle(3): view [N, 3, mid/3, H, W], transpose(1, 2), flatten
        h = relu(bn3(conv3(h)))         conv3: 1x1, groups 3, mid -> out
        return h + shortcut(x)          shortcut: identity if in == out, else 1x1 conv in -> out + BatchNorm2d

The harness never calls .eval(), so all 44 BatchNorm2d layers run in training mode: each normalises
with its batch statistics per channel (mean and biased variance over N, H, W; eps 1e-5), then applies
its affine weight (ones) and bias (zeros). Every layer has its own kernel, 148 in pipeline order:

    shufflenet_conv1_kernel, shufflenet_bn1_stats_kernel, shufflenet_bn1_relu_kernel, shufflenet_maxpool_kernel
    per unit shufflenet_stage<S>_<U>_...:
        conv1_kernel, bn1_stats_kernel, bn1_relu_kernel, conv2_kernel, bn2_stats_kernel, bn2_kernel,
        shuffle_kernel, conv3_kernel, bn3_stats_kernel,
        [shortcut_conv_kernel, shortcut_bn_stats_kernel, shortcut_bn_kernel]   (the first unit of a stage)
        bn3_relu_add_kernel          relu(bn3(c3)) + shortcut: the unit's output
    shufflenet_conv5_kernel, shufflenet_bn5_stats_kernel, shufflenet_bn5_relu_kernel,
    shufflenet_avgpool_kernel, shufflenet_fc_kernel

Each BatchNorm is two kernels: a statistics kernel writes [mean; biased variance] into one packed
[2, C] buffer (a step writes only its last tensor), and a normalise kernel applies it with the
layer's epilogue (ReLU, nothing, or ReLU then the shortcut add). The kernel definitions are generated
below from one template string per kind of layer, but each is a distinct, fully written-out
__global__ with its own name, so a mutation belongs to exactly one layer.

Convolutions and pools run one thread per output element on a 3D grid: x covers the output pixels of
one plane (flat index oh * OW + ow, 256-thread blocks), y the channel and z the image, so the 112x112
and 56x56 planes end in a partial block. A grouped 1x1 conv thread finds its output channel's group
and loops over that group's input channels; the depthwise conv loops over its channel's 3x3 window,
the stem conv over 3 channels and a 3x3 window, all with explicit zero-padding guards and fp32
accumulation. The channel shuffle is a gather over a flat 64-bit index (output channel j * 3 + i
reads input channel i * C/3 + j). The statistics kernels run one 256-thread block per channel: a
strided sum through a shared-memory tree gives the mean, then a strided sum of squared deviations
through a second tree gives the biased variance. The normalise kernels run over a flat 64-bit index;
the average pool is one thread per (image, channel); fc is a 16 x 16 shared-memory tiled GEMM as in
L3p1_mlp.

Cost: 71.8 G multiply-adds (143.6 GFLOP) for the official batch of 10, nearly all in 1x1 convolutions
at 56 x 56 (conv5 960 -> 1024 alone 30.8 G, the three shortcut projections 18.2 G, the grouped conv1
and conv3 of the units 22.2 G, the depthwise convs 0.5 G); at the 1-3 TFLOP/s a naive direct
convolution reaches on an H200 that is 50-150 ms, plus 148 launches, 44 statistics kernels (31360
values per channel at 56 x 56, 24-1024 blocks each) and a few GB of activation traffic: about
60-170 ms per forward.
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

_GROUP_CONV_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
    const float* __restrict__ w,    // [C_out, C_in / groups, 1, 1]
    float* __restrict__ out,        // [N, C_out, H, W]
    int N, int C_in, int HW, int C_out, int groups)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // pixel: h * W + w
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= HW || co >= C_out || n >= N) return;

    int cin_g = C_in / groups;                          // input channels per group
    int cout_g = C_out / groups;                        // output channels per group
    int g = co / cout_g;                                // the group of this output channel

    float acc = 0.0f;
    for (int j = 0; j < cin_g; ++j) {
        int ci = g * cin_g + j;                         // the group's j-th input channel
        acc += x[((long long)n * C_in + ci) * HW + p] * w[(long long)co * cin_g + j];
    }
    out[((long long)n * C_out + co) * HW + p] = acc;
}
"""

_SHUFFLE_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, HW]  (@INPUT@)
    float* __restrict__ out,        // [N, C, HW]: x.view(N, groups, C / groups, H, W).transpose(1, 2) flattened
    int N, int C, int HW, int groups)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int p = (int)(i % HW);
    int c = (int)((i / HW) % C);                        // output channel = j * groups + g
    int n = (int)(i / ((long long)HW * C));
    int per_group = C / groups;                         // channels_per_group
    int g = c % groups;
    int j = c / groups;
    out[i] = x[((long long)n * C + (g * per_group + j)) * HW + p];
}
"""

_BN_RELU_ADD_TEMPLATE = r"""
// @DESC@: relu((x - mean) / sqrt(var + eps) * gamma + beta) + shortcut
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,            // [N, C, HW]  (@INPUT@)
    const float* __restrict__ stats,        // [2, C]: mean, biased variance
    const float* __restrict__ gamma,        // [C]
    const float* __restrict__ beta,         // [C]
    const float* __restrict__ shortcut,     // [N, C, HW]  (@IDENTITY@)
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
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c];
    float r = v > 0.0f ? v : 0.0f;          // F.relu(bn3(conv3(out))) ...
    out[i] = r + shortcut[i];               // ... then out += shortcut(x)
}
"""

_PRELUDE = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernels (one block per channel)
const int TILE = 16;            // fc: blocks are TILE x TILE threads, K is consumed TILE at a time
"""

BLOCK = 256             # conv, pool, shuffle, normalise and avgpool kernels: threads per block
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
TILE = 16               # must equal TILE in the CUDA source
IN_CHANNELS = 3
GROUPS = 3              # Model(num_classes=1000, groups=3, ...)
STAGES_REPEATS = (3, 7, 3)
STAGES_OUT = (24, 240, 480, 960)
CONV5_CHANNELS = 1024
NUM_CLASSES = 1000
STEM_S, STEM_PAD = 2, 1             # conv1: kernel_size=3, stride=2, padding=1
POOL_K, POOL_S, POOL_PAD = 3, 2, 1  # maxpool: must equal the constants in the CUDA source
PAD = 1                 # depthwise conv2: padding=1, stride 1
BN_EPS = 1e-5
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the conv and pool kernels
SMALL_SCALE = 0.02      # T2: x = U[0, 0.02)
SPIKE_FRACTION = 0.02   # T3: about 2% of the input values are spikes


def _units():
    """(name, in_channels, out_channels) per ShuffleNetUnit, in order."""
    out = []
    cin = STAGES_OUT[0]
    for s, (repeats, cout) in enumerate(zip(STAGES_REPEATS, STAGES_OUT[1:]), start=2):
        for u in range(repeats):
            out.append((f"stage{s}_{u}", cin, cout))
            cin = cout
    return out


UNITS = _units()        # 13 units


def _layers():
    """(template, kernel name, description, input description, shortcut description) in pipeline order."""
    out = [
        (_CONV_TEMPLATE, "shufflenet_conv1_kernel", "conv1: Conv2d(3, 24, 3, stride=2, padding=1, bias=False)", "x", ""),
        (_STATS_TEMPLATE, "shufflenet_bn1_stats_kernel", "bn1 statistics", "conv1 output", ""),
        (_BN_RELU_TEMPLATE, "shufflenet_bn1_relu_kernel", "bn1 + ReLU", "conv1 output", ""),
        (_MAXPOOL_TEMPLATE, "shufflenet_maxpool_kernel", "maxpool: MaxPool2d(3, stride=2, padding=1)", "bn1 output", ""),
    ]
    prev = "maxpool output"
    for name, cin, cout in UNITS:
        mid = cout // 4
        pre = f"shufflenet_{name}_"
        out += [
            (_GROUP_CONV_TEMPLATE, pre + "conv1_kernel",
             f"{name}.conv1: Conv2d({cin}, {mid}, 1, groups=3, bias=False)", prev, ""),
            (_STATS_TEMPLATE, pre + "bn1_stats_kernel", f"{name}.bn1 statistics", f"{name}.conv1 output", ""),
            (_BN_RELU_TEMPLATE, pre + "bn1_relu_kernel", f"{name}.bn1 + ReLU", f"{name}.conv1 output", ""),
            (_DW_CONV_TEMPLATE, pre + "conv2_kernel",
             f"{name}.conv2: Conv2d({mid}, {mid}, 3, padding=1, groups={mid}, bias=False)", f"{name}.bn1 output", ""),
            (_STATS_TEMPLATE, pre + "bn2_stats_kernel", f"{name}.bn2 statistics", f"{name}.conv2 output", ""),
            (_BN_TEMPLATE, pre + "bn2_kernel", f"{name}.bn2 (no activation)", f"{name}.conv2 output", ""),
            (_SHUFFLE_TEMPLATE, pre + "shuffle_kernel", f"{name}.shuffle: ChannelShuffle(3) over {mid} channels",
             f"{name}.bn2 output", ""),
            (_GROUP_CONV_TEMPLATE, pre + "conv3_kernel",
             f"{name}.conv3: Conv2d({mid}, {cout}, 1, groups=3, bias=False)", f"{name} shuffled output", ""),
            (_STATS_TEMPLATE, pre + "bn3_stats_kernel", f"{name}.bn3 statistics", f"{name}.conv3 output", ""),
        ]
        if cin != cout:
            out += [
                (_PW_CONV_TEMPLATE, pre + "shortcut_conv_kernel",
                 f"{name}.shortcut[0]: Conv2d({cin}, {cout}, 1, bias=False)", prev, ""),
                (_STATS_TEMPLATE, pre + "shortcut_bn_stats_kernel", f"{name}.shortcut[1] statistics",
                 f"{name} shortcut conv output", ""),
                (_BN_TEMPLATE, pre + "shortcut_bn_kernel", f"{name}.shortcut[1] (BatchNorm2d)",
                 f"{name} shortcut conv output", ""),
            ]
        shortcut = f"{name} shortcut output" if cin != cout else f"{name} input ({prev})"
        out.append((_BN_RELU_ADD_TEMPLATE, pre + "bn3_relu_add_kernel", f"{name}: relu(bn3), out += shortcut(x)",
                    f"{name}.conv3 output", shortcut))
        prev = f"{name} output"
    out += [
        (_PW_CONV_TEMPLATE, "shufflenet_conv5_kernel", "conv5: Conv2d(960, 1024, 1, bias=False)", prev, ""),
        (_STATS_TEMPLATE, "shufflenet_bn5_stats_kernel", "bn5 statistics", "conv5 output", ""),
        (_BN_RELU_TEMPLATE, "shufflenet_bn5_relu_kernel", "bn5 + ReLU", "conv5 output", ""),
        (_AVGPOOL_TEMPLATE, "shufflenet_avgpool_kernel", "F.adaptive_avg_pool2d(x, (1, 1))", "bn5 output", ""),
        (_FC_TEMPLATE, "shufflenet_fc_kernel", "fc: Linear(1024, 1000)", "avgpool output, viewed as [N, 1024]", ""),
    ]
    return out


CUDA = _PRELUDE + "".join(
    t.replace("@NAME@", n).replace("@DESC@", d).replace("@INPUT@", i).replace("@IDENTITY@", sc)
    for t, n, d, i, sc in _layers()
)
KERNELS = [n for _, n, _, _, _ in _layers()]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1000): conv1, bn1, then each ShuffleNetUnit builds conv1, bn1, conv2, bn2,
        # conv3, bn3 (ChannelShuffle has no parameters), then its shortcut (an empty Sequential, or
        # Conv2d 1x1 + BatchNorm2d); then conv5, bn5, fc. BatchNorm2d draws nothing (ones, zeros), but
        # every module is built in order.
        nn = torch.nn

        def bn(m):
            return {"w": m.weight, "b": m.bias}

        conv1 = nn.Conv2d(IN_CHANNELS, STAGES_OUT[0], kernel_size=3, stride=STEM_S, padding=STEM_PAD, bias=False)
        bn1 = nn.BatchNorm2d(STAGES_OUT[0])
        params = {"conv1_w": conv1.weight, "bn1": bn(bn1), "units": []}
        for _name, cin, cout in UNITS:
            mid = cout // 4
            u_conv1 = nn.Conv2d(cin, mid, kernel_size=1, stride=1, padding=0, groups=GROUPS, bias=False)
            u_bn1 = nn.BatchNorm2d(mid)
            u_conv2 = nn.Conv2d(mid, mid, kernel_size=3, stride=1, padding=PAD, groups=mid, bias=False)
            u_bn2 = nn.BatchNorm2d(mid)
            u_conv3 = nn.Conv2d(mid, cout, kernel_size=1, stride=1, padding=0, groups=GROUPS, bias=False)
            u_bn3 = nn.BatchNorm2d(cout)
            p = {"conv1_w": u_conv1.weight, "bn1": bn(u_bn1), "conv2_w": u_conv2.weight, "bn2": bn(u_bn2),
                 "conv3_w": u_conv3.weight, "bn3": bn(u_bn3)}
            if cin != cout:
                sc_conv = nn.Conv2d(cin, cout, kernel_size=1, stride=1, padding=0, bias=False)
                sc_bn = nn.BatchNorm2d(cout)
                p.update({"sc_w": sc_conv.weight, "sc_bn": bn(sc_bn)})
            params["units"].append(p)
        conv5 = nn.Conv2d(STAGES_OUT[-1], CONV5_CHANNELS, kernel_size=1, stride=1, padding=0, bias=False)
        bn5 = nn.BatchNorm2d(CONV5_CHANNELS)
        fc = nn.Linear(CONV5_CHANNELS, NUM_CLASSES)
        params.update({"conv5_w": conv5.weight, "bn5": bn(bn5), "fc_w": fc.weight, "fc_b": fc.bias})
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

    def group_conv_step(name, x, w, groups):
        N, C_in, H, W_in = x.shape
        C_out = w.shape[0]
        out = torch.empty((N, C_out, H, W_in), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(H * W_in, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, out],
            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H * W_in), (ctypes.c_int, C_out),
             (ctypes.c_int, groups)],
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

    def shuffle_step(name, x, groups):
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        step = (
            name,
            (K.cdiv(N * C * H * W_in, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in), (ctypes.c_int, groups)],
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

    def norm_step(name, x, stats, bn, shortcut=None):
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        tensors = [x, stats, bn["w"], bn["b"]] + ([shortcut] if shortcut is not None else []) + [out]
        step = (
            name,
            (K.cdiv(N * C * H * W_in, BLOCK), 1, 1),
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

        c = add(conv_step("shufflenet_conv1_kernel", x, w["conv1_w"], STEM_S, STEM_PAD))
        st = add(stats_step("shufflenet_bn1_stats_kernel", c))
        h = add(norm_step("shufflenet_bn1_relu_kernel", c, st, w["bn1"]))
        h = add(maxpool_step("shufflenet_maxpool_kernel", h))
        for (name, cin, cout), p in zip(UNITS, w["units"]):
            pre = f"shufflenet_{name}_"
            c1 = add(group_conv_step(pre + "conv1_kernel", h, p["conv1_w"], GROUPS))
            st1 = add(stats_step(pre + "bn1_stats_kernel", c1))
            a1 = add(norm_step(pre + "bn1_relu_kernel", c1, st1, p["bn1"]))
            c2 = add(dw_step(pre + "conv2_kernel", a1, p["conv2_w"], 1, PAD))
            st2 = add(stats_step(pre + "bn2_stats_kernel", c2))
            b2 = add(norm_step(pre + "bn2_kernel", c2, st2, p["bn2"]))
            sh = add(shuffle_step(pre + "shuffle_kernel", b2, GROUPS))
            c3 = add(group_conv_step(pre + "conv3_kernel", sh, p["conv3_w"], GROUPS))
            st3 = add(stats_step(pre + "bn3_stats_kernel", c3))
            if cin != cout:
                d = add(pw_step(pre + "shortcut_conv_kernel", h, p["sc_w"]))
                std_ = add(stats_step(pre + "shortcut_bn_stats_kernel", d))
                shortcut = add(norm_step(pre + "shortcut_bn_kernel", d, std_, p["sc_bn"]))
            else:
                shortcut = h
            h = add(norm_step(pre + "bn3_relu_add_kernel", c3, st3, p["bn3"], shortcut))
        c = add(pw_step("shufflenet_conv5_kernel", h, w["conv5_w"]))
        st = add(stats_step("shufflenet_bn5_stats_kernel", c))
        h = add(norm_step("shufflenet_bn5_relu_kernel", c, st, w["bn5"]))
        pooled = add(avgpool_step("shufflenet_avgpool_kernel", h))
        out = add(fc_step("shufflenet_fc_kernel", pooled, w["fc_w"], w["fc_b"]))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: every BatchNorm uses the batch statistics.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def bn(t, p):
            return F.batch_norm(t, None, None, p["w"], p["b"], training=True, eps=BN_EPS)

        def shuffle(t, groups):
            n, c, hh, ww = t.size()
            t = t.view(n, groups, c // groups, hh, ww).transpose(1, 2).contiguous()
            return t.view(n, -1, hh, ww)

        x = F.relu(bn(F.conv2d(x, w["conv1_w"], None, STEM_S, STEM_PAD), w["bn1"]))
        x = F.max_pool2d(x, kernel_size=POOL_K, stride=POOL_S, padding=POOL_PAD)
        for (_name, cin, cout), p in zip(UNITS, w["units"]):
            mid = cout // 4
            out = F.relu(bn(F.conv2d(x, p["conv1_w"], None, 1, 0, 1, GROUPS), p["bn1"]))
            out = bn(F.conv2d(out, p["conv2_w"], None, 1, PAD, 1, mid), p["bn2"])
            out = shuffle(out, GROUPS)
            out = F.relu(bn(F.conv2d(out, p["conv3_w"], None, 1, 0, 1, GROUPS), p["bn3"]))
            sc = bn(F.conv2d(x, p["sc_w"], None, 1, 0), p["sc_bn"]) if cin != cout else x
            x = out + sc
        x = F.relu(bn(F.conv2d(x, w["conv5_w"], None, 1, 0), w["bn5"]))
        x = F.adaptive_avg_pool2d(x, (1, 1))
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
        name="L3p26_shufflenet",
        level=3,
        problem="26_ShuffleNet",
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
                sizes={"batch": 2, "height": 37, "width": 45},
                small=True,
                purpose="2 x 3 x 37 x 45, odd and unequal sides: the stride-2 stem conv and maxpool round up (37 -> "
                "19 -> 10 rows, 45 -> 23 -> 12 columns), so their last row and column read the padding, and "
                "swapped H/W extents or strides show; the stem plane (437 pixels) and the 10 x 12 unit planes "
                "(120 pixels) end in partial 256-thread blocks; the unit BatchNorms see 240 values per channel, "
                "fewer than the 256 statistics threads, so 16 threads hold nothing and the strided loops stop "
                "inside their first pass; fc's 2 rows fill one row tile with 14 dead rows. Emulated TF32 tau* "
                "against fp64 3.8e-4",
            ),
            K.suite(
                "T2_eps_scale",
                small_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "height": 64, "width": 80},
                purpose="x = U[0,0.02): training-mode BatchNorm is scale-invariant, so a same-sign large input "
                "would change nothing downstream; scaling down instead puts the per-channel variance of the "
                "stem conv (about 1e-5) at the size of eps = 1e-5, so the eps term, the variance (not the std) "
                "under the square root and the biased divisor of bn1 move the outputs; batch 3, 64 x 80 (16 x "
                "20 unit planes). Emulated TF32 tau* 3.0e-4",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 96, "width": 72},
                purpose="about 2% isolated U[0,1) spikes on exact zeros: 58% of the stem conv outputs (those whose "
                "3x3x3 window holds no spike) are exactly zero, so after bn1 they share one value, the max-pool "
                "windows hold exact ties, and the other outputs sit exactly where a window meets a spike: kh/kw "
                "swaps, transposed weights, wrong padding offsets and wrong strides in the stem move them "
                "visibly; bn1 sees a skewed, heavy-tailed distribution; 96 x 72 (24 x 18 unit planes). "
                "Emulated TF32 tau* 1.6e-4",
            ),
        ],
        notes="Training-mode BatchNorm (the harness never calls .eval()): batch mean and biased variance per "
        "channel, eps 1e-5, affine weight 1 and bias 0 at init (kept as kernel inputs, so gamma/beta mutants "
        "that swap or drop them are equivalent). Every unit keeps the 56 x 56 resolution (stride 1 "
        "everywhere, as the problem file builds it); the ReLU of bn3 comes before the shortcut add "
        "(relu(bn3(conv3)) + shortcut), both fused into the unit's last kernel, and bn2 has no activation. "
        "The channel shuffle is its own kernel: a mutation that drops it or swaps its group/per-group roles "
        "permutes conv3's input channels, which the grouped conv3 then mixes with the wrong weights. The "
        "reference convolutions run through cuDNN with TF32 (torch's default); a CPU emulation of TF32 "
        "operand rounding puts the TF32 reference within 1.0e-4 of fp64 on T0 (the fp32 CPU reference "
        "within 2.8e-7). Weakly input-sensitive at the official inputs: the logits of the 10 T0 images "
        "differ by at most 3.4e-2 (|out| up to 0.81), about twice the tolerance there. With a BatchNorm "
        "after every convolution the output is invariant to a positive rescaling of any convolution's "
        "output, so mutants that only scale a conv are caught only through the eps term (T2_eps_scale). "
        "The batch is declared >= 2 so that every BatchNorm sees more than one value per channel (height "
        "and width may be as small as 1). ReLU (v > 0 ? v : 0) and the max-pool comparison (v > m) drop "
        "NaN where torch propagates it; finite inputs are unaffected.",
    )
