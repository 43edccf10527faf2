"""KernelBench level 3, problem 10_ResNet101: ResNet-101 (Bottleneck blocks, stages [3, 4, 23, 3], expansion 4)
on 10 x 3 x 224 x 224, 1000 classes.

A pipeline of 315 kernels, one per layer, in the order Model.forward runs them:

    stem      conv1 7x7 s2 p3 3->64, bn1 statistics, bn1 normalise + ReLU, maxpool 3x3 s2 p1   224 -> 112 -> 56
    layer1..4 3, 4, 23 and 3 Bottleneck blocks of width 64, 128, 256, 512 (output 4x the width), at
              56, 28, 14 and 7 pixels; the first block of each stage has a downsample shortcut
              (1x1 conv, stride 1 in layer1 and 2 in layers 2-4, then BN) and puts its stride on conv2.
              Each block is nine kernels, twelve with the downsample:
                conv1 1x1 (in -> width), bn1 statistics, bn1 normalise + ReLU,
                conv2 3x3 stride s padding 1 (width -> width), bn2 statistics, bn2 normalise + ReLU,
                conv3 1x1 (width -> 4 width), bn3 statistics,
                [downsample conv 1x1 stride s, its BN statistics, its BN normalise],
                bn3 normalise + identity (the block input or the downsample output) + ReLU
    head      global average pool (AdaptiveAvgPool2d((1, 1)), flatten) -> [N, 2048], fc 2048 -> 1000

Every convolution has bias=False; every BatchNorm2d runs in training mode (the harness never calls
.eval()): its statistics kernel is one 256-thread block per channel writing the batch mean and biased
variance over N, H, W into one packed buffer [2, C] (two passes, each a strided sum and a shared-memory
tree), and its normalise kernel applies (x - mean) / sqrt(var + eps) * gamma + beta with the layer's
epilogue (ReLU, none, or the residual add and ReLU of `out += identity; relu(out)`). The running-
statistics update changes no output and has no kernel.

The CUDA source is generated in `register` from templates (KxK convolution, 1x1 convolution, BN
statistics, BN normalise with each epilogue, max-pool, average pool, fc): each of the 315 layers gets
its own named `__global__` (e.g. resnet101_layer3_block17_conv2_kernel) with its kernel size, stride and
padding as named constants, so a mutation lands in one layer. Convolutions, normalisations and pools
run one thread per output element over a 64-bit flat index (ow fastest), as in L3p8_resnet_basic_block,
so the 7 x 7 planes of layer4 waste no threads; padding is an explicit bounds test on every tap. Every
accumulation is fp32.

Batch, height and width are resizable: the adaptive average pool makes the fc's 2048 inputs independent
of the spatial size, and each of the five stride-2 layers maps H to (H - 1) / 2 + 1, so any H, W >= 1
runs (training-mode BN needs more than one value per channel at 1/32 resolution).

Cost on the official input: 7.8 G multiply-adds per image (layer3's 23 blocks 5.2 G of it), 78 G = 156
GFLOP for the batch of 10; at the 2-4 TFLOP/s of L3p8's naive convolution that is 40-80 ms, and the 104 BN
statistics kernels (64-2048 blocks over at most 10 x 112 x 112 values per channel, read twice) and the
normalise kernels add about 20-50 ms: one forward should take about 60-150 ms on an H200.
"""

from string import Template

BLOCK = 256             # threads per block of the convolution, normalise, pool and fc kernels
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
MAX_GRID_Y = 65535      # the fc puts the batch on gridDim.y
MAX_SPATIAL = 4096
NUM_CLASSES = 1000      # get_init_inputs() = [[3, 4, 23, 3], 1000]
LAYERS = [3, 4, 23, 3]
WIDTHS = [64, 128, 256, 512]
EXPANSION = 4
IN_CHANNELS = 3
STEM_CHANNELS = 64
BN_EPS = 1e-5           # nn.BatchNorm2d default (must equal BN_EPS in the CUDA source)
BN_MOMENTUM = 0.1
T2_OFFSET = 2.0         # T2: x = 2 + U[0, 1)
T3_DENSITY = 0.01       # T3: 1% of the entries U[0, 1), the rest exactly 0

PRELUDE = r"""
const int STATS_BLOCK = 256;    // threads per block of every BN statistics kernel (one block per channel)
"""

CONV_TEMPLATE = Template(r"""
// ${what}   [N,${cin},H,W] -> [N,${cout},OH,OW]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KSIZE, KSIZE]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int OH, int OW)
{
    const int KSIZE = ${k};                                // kernel_size=${k}
    const int STRIDE = ${s};                               // stride=${s}
    const int PAD = ${p};                                  // padding=${p} on every side

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KSIZE; ++kh) {
            int ih = oh * STRIDE - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KSIZE; ++kw) {
                int iw = ow * STRIDE - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KSIZE + kh) * KSIZE + kw];
                acc += xv * wv;
            }
        }
    }
    out[i] = acc;                                       // bias=False
}
""")

CONV1X1_TEMPLATE = Template(r"""
// ${what}   [N,${cin},H,W] -> [N,${cout},OH,OW]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int OH, int OW)
{
    const int STRIDE = ${s};                               // stride=${s}, no padding

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    int ih = oh * STRIDE;                               // OH = (H - 1) / STRIDE + 1: always inside
    int iw = ow * STRIDE;
    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
        float wv = w[(long long)co * C_in + ci];
        acc += xv * wv;
    }
    out[i] = acc;                                       // bias=False
}
""")

BN_STATS_TEMPLATE = Template(r"""
// ${what}: BatchNorm2d(${c}) training-mode statistics, mean and biased variance over (N, H, W)
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;                                 // one block per channel
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;                // values per channel

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
    __syncthreads();                                    // every thread has read red[0] before pass 2

    // Pass 2: the sum of squared deviations from the mean, same slices, same tree.
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
        stats[C + c] = red[0] / (float)count;           // biased: divided by N*H*W, as BN normalises
    }
}
""")

BN_APPLY_TEMPLATE = Template(r"""
// ${what}
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]: mean, biased variance
    const float* __restrict__ gamma,    // [C]  BatchNorm weight
    const float* __restrict__ beta,     // [C]  BatchNorm bias
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;                         // nn.BatchNorm2d default eps

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c];
${act}
}
""")

BN_ADD_RELU_TEMPLATE = Template(r"""
// ${what}
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,        // [N, C, HW]  conv3 output
    const float* __restrict__ stats,    // [2, C]: mean, biased variance of x
    const float* __restrict__ gamma,    // [C]  bn3 weight
    const float* __restrict__ beta,     // [C]  bn3 bias
    const float* __restrict__ identity, // [N, C, HW]  ${identity}
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;                         // nn.BatchNorm2d default eps

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c] + identity[i];    // out += identity
    out[i] = v > 0.0f ? v : 0.0f;                       // relu(out)
}
""")

ACTIVATIONS = {
    "relu": "    out[i] = v > 0.0f ? v : 0.0f;                       // ReLU",
    "none": "    out[i] = v;",
}

MAXPOOL_SOURCE = r"""
// maxpool: MaxPool2d(kernel_size=3, stride=2, padding=1)   [N,64,H,W] -> [N,64,OH,OW]
extern "C" __global__ void resnet101_maxpool_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 3;                               // kernel_size=3
    const int POOL_S = 2;                               // stride=2
    const int POOL_PAD = 1;                             // padding=1: padded taps never win (-inf)
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int c = (int)((i / ((long long)OW * OH)) % C);
    int n = (int)(i / ((long long)OW * OH * C));

    // Floor mode with POOL_PAD < POOL_K: every window holds at least one real tap.
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        int ih = oh * POOL_S - POOL_PAD + kh;
        if (ih < 0 || ih >= H) continue;                // padded row
        for (int kw = 0; kw < POOL_K; ++kw) {
            int iw = ow * POOL_S - POOL_PAD + kw;
            if (iw < 0 || iw >= W) continue;            // padded column
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[i] = m;
}
"""

HEAD_SOURCE = r"""
// avgpool: AdaptiveAvgPool2d((1, 1)), then torch.flatten(x, 1)   [N,2048,H,W] -> [N,2048]
extern "C" __global__ void resnet101_avgpool_kernel(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ out,        // [N, C]
    int N, int C, int HW)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;      // n * C + c
    if (i >= N * C) return;

    const float* plane = x + (long long)i * HW;
    float sum = 0.0f;
    for (int p = 0; p < HW; ++p) {
        sum += plane[p];
    }
    out[i] = sum / (float)HW;
}

// fc: Linear(2048, num_classes)   [N,2048] -> [N,1000]
extern "C" __global__ void resnet101_fc_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N_out, K]
    const float* __restrict__ b,    // [N_out]
    float* __restrict__ out,        // [M, N_out]
    int M, int N_out, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;    // class
    int row = blockIdx.y;                               // image
    if (row >= M || col >= N_out) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += x[(long long)row * K + k] * w[(long long)col * K + k];
    }
    out[(long long)row * N_out + col] = acc + b[col];
}
"""


def block_specs():
    """(stage, block, in_channels, width, stride, has_downsample) for every Bottleneck, in order."""
    specs = []
    cin = STEM_CHANNELS
    for stage, (count, width) in enumerate(zip(LAYERS, WIDTHS)):
        stride = 1 if stage == 0 else 2
        for b in range(count):
            s = stride if b == 0 else 1
            down = b == 0 and (s != 1 or cin != width * EXPANSION)
            specs.append((stage + 1, b + 1, cin, width, s, down))
            cin = width * EXPANSION
    return specs


def layer_plan():
    """Every layer in pipeline order: (kernel, kind, info, src, dst). src names the activation the layer
    reads (normalise kernels also read their statistics, the add its identity), dst the one it writes."""
    pre = "resnet101"
    plan = [
        (f"{pre}_conv1_kernel", "conv",
         dict(w="conv1", k=7, s=2, p=3, cin=3, cout=64, what="conv1: Conv2d(3, 64, 7, stride=2, padding=3, bias=False)"),
         "input", "conv1"),
        (f"{pre}_bn1_stats_kernel", "bn_stats", dict(c=64, what="bn1"), "conv1", "bn1.stats"),
        (f"{pre}_bn1_relu_kernel", "bn_apply", dict(bn="bn1", act="relu", what="bn1 normalise + relu"), "conv1", "stem"),
        (f"{pre}_maxpool_kernel", "maxpool", {}, "stem", "pool"),
    ]
    x = "pool"
    for stage, b, cin, width, s, down in block_specs():
        B = f"layer{stage}_block{b}"
        where = f"layer{stage}[{b - 1}]"
        cout = width * EXPANSION
        plan += [
            (f"{pre}_{B}_conv1_kernel", "conv1x1",
             dict(w=f"{B}.conv1", s=1, cin=cin, cout=width, what=f"{where}.conv1: Conv2d({cin}, {width}, 1, bias=False)"),
             x, f"{B}.c1"),
            (f"{pre}_{B}_bn1_stats_kernel", "bn_stats", dict(c=width, what=f"{where}.bn1"), f"{B}.c1", f"{B}.bn1.stats"),
            (f"{pre}_{B}_bn1_relu_kernel", "bn_apply",
             dict(bn=f"{B}.bn1", act="relu", what=f"{where}.bn1 normalise + relu"), f"{B}.c1", f"{B}.a1"),
            (f"{pre}_{B}_conv2_kernel", "conv",
             dict(w=f"{B}.conv2", k=3, s=s, p=1, cin=width, cout=width,
                  what=f"{where}.conv2: Conv2d({width}, {width}, 3, stride={s}, padding=1, bias=False)"),
             f"{B}.a1", f"{B}.c2"),
            (f"{pre}_{B}_bn2_stats_kernel", "bn_stats", dict(c=width, what=f"{where}.bn2"), f"{B}.c2", f"{B}.bn2.stats"),
            (f"{pre}_{B}_bn2_relu_kernel", "bn_apply",
             dict(bn=f"{B}.bn2", act="relu", what=f"{where}.bn2 normalise + relu"), f"{B}.c2", f"{B}.a2"),
            (f"{pre}_{B}_conv3_kernel", "conv1x1",
             dict(w=f"{B}.conv3", s=1, cin=width, cout=cout, what=f"{where}.conv3: Conv2d({width}, {cout}, 1, bias=False)"),
             f"{B}.a2", f"{B}.c3"),
            (f"{pre}_{B}_bn3_stats_kernel", "bn_stats", dict(c=cout, what=f"{where}.bn3"), f"{B}.c3", f"{B}.bn3.stats"),
        ]
        identity = x
        if down:
            plan += [
                (f"{pre}_{B}_downsample_conv_kernel", "conv1x1",
                 dict(w=f"{B}.down", s=s, cin=cin, cout=cout,
                      what=f"{where}.downsample[0]: Conv2d({cin}, {cout}, 1, stride={s}, bias=False)"),
                 x, f"{B}.d"),
                (f"{pre}_{B}_downsample_bn_stats_kernel", "bn_stats", dict(c=cout, what=f"{where}.downsample[1]"),
                 f"{B}.d", f"{B}.down_bn.stats"),
                (f"{pre}_{B}_downsample_bn_kernel", "bn_apply",
                 dict(bn=f"{B}.down_bn", act="none", what=f"{where}.downsample[1] normalise (no activation)"),
                 f"{B}.d", f"{B}.identity"),
            ]
            identity = f"{B}.identity"
        plan.append((f"{pre}_{B}_bn3_add_relu_kernel", "bn_add_relu",
                     dict(bn=f"{B}.bn3", identity=identity,
                          what=f"{where}: bn3 normalise, out += identity, relu(out)",
                          identity_what="the downsample output" if down else "the block input"),
                     f"{B}.c3", B))
        x = B
    plan += [
        (f"{pre}_avgpool_kernel", "avgpool", {}, x, "avgpool"),
        (f"{pre}_fc_kernel", "fc", {}, "avgpool", "out"),
    ]
    return plan


def cuda_source(plan):
    parts = [PRELUDE]
    for kernel, kind, info, _, _ in plan:
        if kind == "conv":
            parts.append(CONV_TEMPLATE.substitute(kernel=kernel, **info))
        elif kind == "conv1x1":
            parts.append(CONV1X1_TEMPLATE.substitute(kernel=kernel, **info))
        elif kind == "bn_stats":
            parts.append(BN_STATS_TEMPLATE.substitute(kernel=kernel, **info))
        elif kind == "bn_apply":
            parts.append(BN_APPLY_TEMPLATE.substitute(kernel=kernel, what=info["what"], act=ACTIVATIONS[info["act"]]))
        elif kind == "bn_add_relu":
            parts.append(BN_ADD_RELU_TEMPLATE.substitute(kernel=kernel, what=info["what"], identity=info["identity_what"]))
        elif kind == "maxpool":
            parts.append(MAXPOOL_SOURCE)
    parts.append(HEAD_SOURCE)
    return "".join(parts)


def register(K, torch, ctypes):
    plan = layer_plan()

    def build(torch):
        # Model.__init__([3, 4, 23, 3], 1000), in construction order (the RNG order): conv1, bn1, then for
        # each stage _make_layer builds the downsample Sequential(Conv2d 1x1, BatchNorm2d) FIRST (when
        # stride != 1 or the channels change), then the blocks (each: conv1, bn1, conv2, bn2, conv3, bn3);
        # then fc. Convolutions have bias=False; BatchNorm2d draws nothing (weight ones, bias zeros).
        nn = torch.nn
        params = {}

        def conv(key, cin, cout, k, **kw):
            params[key + ".w"] = nn.Conv2d(cin, cout, kernel_size=k, bias=False, **kw).weight

        def bn(key, c):
            m = nn.BatchNorm2d(c)
            params[key + ".g"], params[key + ".b"] = m.weight, m.bias

        conv("conv1", IN_CHANNELS, STEM_CHANNELS, 7, stride=2, padding=3)
        bn("bn1", STEM_CHANNELS)
        for stage, b, cin, width, s, down in block_specs():
            B = f"layer{stage}_block{b}"
            if down:
                conv(f"{B}.down", cin, width * EXPANSION, 1, stride=s)
                bn(f"{B}.down_bn", width * EXPANSION)
            conv(f"{B}.conv1", cin, width, 1)
            bn(f"{B}.bn1", width)
            conv(f"{B}.conv2", width, width, 3, stride=s, padding=1)
            bn(f"{B}.bn2", width)
            conv(f"{B}.conv3", width, width * EXPANSION, 1)
            bn(f"{B}.bn3", width * EXPANSION)
        fc = nn.Linear(WIDTHS[-1] * EXPANSION, NUM_CLASSES)
        params["fc.w"], params["fc.b"] = fc.weight, fc.bias
        return params

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N = x.shape[0]

        def buf(*shape):
            return torch.empty(*shape, device=x.device, dtype=x.dtype)

        def flat(total):
            return (K.cdiv(total, BLOCK), 1, 1)

        seq = []
        acts = {"input": x}     # every activation (and BN statistics buffer) by name
        for kernel, kind, info, src, dst in plan:
            a = acts[src]
            if kind in ("conv", "conv1x1"):
                wt = w[info["w"] + ".w"]
                C_out, C_in = wt.shape[0], wt.shape[1]
                _, _, H, Wd = a.shape
                k, s, p = info.get("k", 1), info["s"], info.get("p", 0)
                OH = (H + 2 * p - k) // s + 1
                OW = (Wd + 2 * p - k) // s + 1
                out = buf(N, C_out, OH, OW)
                seq.append((kernel, flat(N * C_out * OH * OW), (BLOCK, 1, 1), [a, wt, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H), (ctypes.c_int, Wd),
                             (ctypes.c_int, C_out), (ctypes.c_int, OH), (ctypes.c_int, OW)]))
            elif kind == "bn_stats":
                _, C, H, Wd = a.shape
                out = buf(2, C)
                seq.append((kernel, (C, 1, 1), (STATS_BLOCK, 1, 1), [a, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * Wd)]))
            elif kind in ("bn_apply", "bn_add_relu"):
                _, C, H, Wd = a.shape
                stats = acts[info["bn"] + ".stats"]
                gamma, beta = w[info["bn"] + ".g"], w[info["bn"] + ".b"]
                out = buf(N, C, H, Wd)
                tensors = [a, stats, gamma, beta, out] if kind == "bn_apply" else \
                    [a, stats, gamma, beta, acts[info["identity"]], out]
                seq.append((kernel, flat(N * C * H * Wd), (BLOCK, 1, 1), tensors,
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * Wd)]))
            elif kind == "maxpool":
                _, C, H, Wd = a.shape
                OH = (H + 2 - 3) // 2 + 1
                OW = (Wd + 2 - 3) // 2 + 1
                out = buf(N, C, OH, OW)
                seq.append((kernel, flat(N * C * OH * OW), (BLOCK, 1, 1), [a, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H), (ctypes.c_int, Wd),
                             (ctypes.c_int, OH), (ctypes.c_int, OW)]))
            elif kind == "avgpool":
                _, C, H, Wd = a.shape
                out = buf(N, C)
                seq.append((kernel, flat(N * C), (BLOCK, 1, 1), [a, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * Wd)]))
            else:  # fc
                wt, bt = w["fc.w"], w["fc.b"]
                out = buf(N, wt.shape[0])
                seq.append((kernel, (K.cdiv(wt.shape[0], BLOCK), N, 1), (BLOCK, 1, 1), [a, wt, bt, out],
                            [(ctypes.c_int, N), (ctypes.c_int, wt.shape[0]), (ctypes.c_int, wt.shape[1])]))
            acts[dst] = out
        return {"seq": seq, "out": acts["out"]}

    def ref(inputs, torch):
        # Model.forward, op for op, on the same parameters; BatchNorm in training mode.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def bn(key, t):
            return F.batch_norm(t, None, None, w[key + ".g"], w[key + ".b"], training=True,
                                momentum=BN_MOMENTUM, eps=BN_EPS)

        x = F.relu(bn("bn1", F.conv2d(x, w["conv1.w"], stride=2, padding=3)))
        x = F.max_pool2d(x, kernel_size=3, stride=2, padding=1)
        for stage, b, cin, width, s, down in block_specs():
            B = f"layer{stage}_block{b}"
            identity = x
            out = F.relu(bn(f"{B}.bn1", F.conv2d(x, w[f"{B}.conv1.w"])))
            out = F.relu(bn(f"{B}.bn2", F.conv2d(out, w[f"{B}.conv2.w"], stride=s, padding=1)))
            out = bn(f"{B}.bn3", F.conv2d(out, w[f"{B}.conv3.w"]))
            if down:
                identity = bn(f"{B}.down_bn", F.conv2d(x, w[f"{B}.down.w"], stride=s))
            out += identity
            x = F.relu(out)
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        return F.linear(x, w["fc.w"], w["fc.b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def offset_inputs(torch, s):
        return [T2_OFFSET + torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def spiky_inputs(torch, s):
        # Exact zeros except about 1% of the entries, which are U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < T3_DENSITY
        return [torch.where(mask, torch.rand(shape), torch.zeros(shape))]

    return K.substrate(
        name="L3p10_resnet101",
        level=3,
        problem="10_ResNet101",
        cuda=cuda_source(plan),
        kernel_name=[step[0] for step in plan],
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10, max=MAX_GRID_Y),
            "height": K.dim(224, max=MAX_SPATIAL),
            "width": K.dim(224, max=MAX_SPATIAL),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 67, "width": 61},
                small=True,
                purpose="2 x 3 x 67 x 61, U[0,1): odd, non-square planes at every stage (34 x 31, 17 x 16, 9 x 8, "
                "5 x 4, 3 x 2), so each stride-2 layer (conv1, the maxpool, the three stride-2 conv2s and "
                "downsample convs) has a last row and column whose window reaches into the bottom/right padding "
                "or skips the last input row, H/W swaps change shapes, and flat indices end in partial 256-thread "
                "blocks; layer4's BNs see 12 values per channel. The smallest affordable whole network on the "
                "CPU (1.3 G multiply-adds); fp32 vs fp64 already 6.8e-4 here (CPU; see notes for TF32)",
            ),
            K.suite(
                "T2_large_offset",
                offset_inputs,
                seeds=[3, 4],
                sizes={"batch": 2},
                purpose="same sign, x = 2 + U[0,1) at 224 x 224 (batch 2): conv1 has no bias, so bn1's channel means "
                "sit 4.3 standard deviations from zero (median over the 64 channels, up to 10.9) instead of 1.2 "
                "(up to 3.7) at U[0,1), and a mean that drops a partial "
                "sum, an image or a tree level, or a variance taken without subtracting the mean, is off by many "
                "standard deviations; conv1's zero padding now differs sharply from the interior, so its border "
                "guards show",
            ),
            K.suite(
                "T3_sparse_spikes",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2},
                purpose="sparse spikes at 224 x 224 (batch 2): exact zeros except 1% of the entries U[0,1), so bn1 "
                "sees heavy-tailed channels (mostly one level, rare outliers many standard deviations out) and the "
                "maxpool's 3x3 windows are mostly ties, with conv1 windows holding zero, one or two spikes",
            ),
        ],
notes="UNREFEREEABLE on a GPU (facts: ref != fp64 at 1e-2, fp32-ill-conditioned, TF32). 104 training-mode "
        "BatchNorms renormalise every layer and the residual stream carries every earlier error forward, so "
        "rounding noise grows through the 101 layers instead of being damped: even the plain fp32 reference "
        "misses fp64 by 1-9e-4 (CPU, tau*: 1.0-1.2e-4 at 1 x 225 x 193, 2.5e-4 at 1 x 128 x 128, 6.8e-4 on "
        "T1), and with the GPU reference's TF32 convolutions a CPU emulation (TF32-rounded inputs and weights "
        "before each of the 104 convolutions) gives 5-7e-2 at batch 1 x 224, 0.11-0.12 at batch 2 x 224 and "
        "0.19 at 1 x 96 x 80, so T0_original and every targeted suite are expected to cross the 1e-2 "
        "legitimate-variance ceiling on the GPU gate; no input size or distribution tried stays under it. On "
        "the CPU backend (no TF32) the substrate passes its small suite. The substrate is written in full for "
        "the depth study anyway; BatchNorm weights are ones and biases zeros (default init), so mutants that "
        "drop gamma or beta are equivalent, and the running-statistics update has no kernel. ReLU (v > 0 ? v : "
        "0) maps NaN to 0 where torch propagates it; finite inputs are unaffected. Tensor offsets and flat "
        "indices are 64-bit.",
    )
