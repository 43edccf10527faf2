"""KernelBench level 3, problem 15_DenseNet121: DenseNet-121 as KernelBench writes it (each dense layer is
BN + ReLU + a 3x3 convolution straight to 32 channels, no 1x1 bottleneck) on 10 x 3 x 224 x 224,
10 classes.

A pipeline of 252 kernels, one per layer, in the order Model.forward runs them:

    stem          conv0 7x7 s2 p3 3->64 (no bias), bn0 statistics, bn0 normalise + ReLU,
                  pool0 3x3 s2 p1 max-pool                                        224 -> 112 -> 56
    block1..4     6, 12, 24 and 16 dense layers (growth rate 32), each four kernels:
                    BN statistics of the layer's input x (all channels so far),
                    BN normalise + ReLU, conv 3x3 p1 C -> 32 (no bias; Dropout(0.0) is the identity),
                    cat: x = torch.cat([x, new_feature], 1)                       C -> C + 32
    transition1..3 after blocks 1-3: BN statistics, BN normalise + ReLU, conv 1x1 C -> C/2 (no bias),
                  2x2 average pool stride 2        256->128 @ 56->28, 512->256 @ 28->14, 1024->512 @ 14->7
    head          final BN statistics, final BN normalise + ReLU, adaptive average pool to 1x1 (view),
                  classifier Linear(1024, 10)

The model rebuilds x = torch.cat(features, 1) after every dense layer, and the next layer normalises
all of it with its own BatchNorm; the pipeline does the same: each dense layer's cat kernel copies
the previous x and the new 32 channels into a fresh buffer, so every step's last tensor argument is
that layer's own output. Every BatchNorm2d runs in training mode (the harness never calls .eval()):
its statistics kernel is one 256-thread block per channel writing the batch mean and biased variance
over N, H, W into one packed buffer [2, C] (two passes, each a strided sum and a shared-memory tree);
the normalise kernel applies (x - mean) / sqrt(var + eps) * gamma + beta and the ReLU. The running-
statistics update changes no output and has no kernel.

The CUDA source is generated in `register` from templates (KxK convolution, 1x1 convolution, BN
statistics, BN normalise + ReLU, max-pool, average pool, cat) plus the head's two kernels: every layer
gets its own named `__global__` (e.g. densenet121_block2_layer3_conv_kernel) with its constants named,
so a mutation lands in one layer. Convolutions and pools run one thread per output element on a 3D
grid (pixels of one plane on x with 256-thread blocks, channel on y, image on z), so the 56x56 ... 7x7
planes leave partial last blocks; padding is an explicit bounds test on every tap; normalise and cat
kernels use 64-bit flat indices. Every accumulation is fp32.

Batch, height and width are resizable: the adaptive average pool makes the classifier's 1024 inputs
independent of the spatial size. The stem maps H to ((H - 1) / 2) / 2 + 1 and each transition halves
it (floor), so H, W >= 29 keep at least one pixel at the end (the declared minimum is 32).

Cost on the official input: 3.05 G multiply-adds per image (conv0 0.12 G, the 58 dense 3x3
convolutions 2.6 G, transitions 0.31 G), 30 G multiply-adds = 61 GFLOP for the batch of 10; at the
few TFLOP/s of a naive direct convolution that is 20-40 ms. The 63 BN statistics kernels read their
input twice with one block per channel (64-1024 blocks over at most 10 x 112 x 112 values per
channel) and the cat copies move about 0.8 GB in all: one forward should take about 50-100 ms on an
H200.
"""

from string import Template

BLOCK = 256             # threads per block of the convolution, normalise, pool, cat and classifier kernels
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
MAX_GRID_YZ = 65535     # convolutions and pools put channels on gridDim.y and the batch on gridDim.z
MIN_SPATIAL = 32        # at least one pixel after the stem's /4 and the transitions' three halvings
MAX_SPATIAL = 4096      # plane indices oh * OW + ow are 32-bit ints
GROWTH = 32             # get_init_inputs() = [32, 10]
NUM_CLASSES = 10
IN_CHANNELS = 3
STEM_CHANNELS = 64
BLOCK_LAYERS = [6, 12, 24, 16]
BN_EPS = 1e-5           # nn.BatchNorm2d default (must equal BN_EPS in the CUDA source)
BN_MOMENTUM = 0.1
T2_DENSITY = 0.01       # T2: 1% of the entries U[0, 1), the rest exactly 0
T3_OFFSET = 2.0         # T3: x = 2 + U[0, 1)

# --- CUDA templates: ${kernel} is the layer's own name, the rest are that layer's constants -----------

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

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

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
    out[((long long)n * C_out + co) * OH * OW + p] = acc;  // bias=False
}
""")

CONV1X1_TEMPLATE = Template(r"""
// ${what}   [N,${cin},H,W] -> [N,${cout},H,W]
extern "C" __global__ void ${kernel}(
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
        float xv = x[((long long)n * C_in + ci) * HW + p];
        float wv = w[(long long)co * C_in + ci];
        acc += xv * wv;
    }
    out[((long long)n * C_out + co) * HW + p] = acc;    // bias=False
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

BN_RELU_TEMPLATE = Template(r"""
// ${what}: BatchNorm2d(${c}) normalise with the batch statistics, then ReLU
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
    out[i] = v > 0.0f ? v : 0.0f;                       // ReLU
}
""")

CAT_TEMPLATE = Template(r"""
// ${what}: x = torch.cat([x, new_feature], 1)   [N,${cold},H,W] + [N,${cnew},H,W] -> [N,${ctot},H,W]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C_old, HW]  the features so far
    const float* __restrict__ f,    // [N, C_new, HW]  this layer's new feature
    float* __restrict__ out,        // [N, C_old + C_new, HW]
    int N, int C_old, int C_new, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int C = C_old + C_new;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int p = (int)(i % HW);
    int c = (int)((i / HW) % C);
    int n = (int)(i / ((long long)HW * C));

    if (c < C_old) {
        out[i] = x[((long long)n * C_old + c) * HW + p];
    } else {
        out[i] = f[((long long)n * C_new + (c - C_old)) * HW + p];
    }
}
""")

MAXPOOL_TEMPLATE = Template(r"""
// ${what}: MaxPool2d(kernel_size=${k}, stride=${s}, padding=${p})   [N,C,H,W] -> [N,C,OH,OW]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = ${k};                               // kernel_size=${k}
    const int POOL_S = ${s};                               // stride=${s}
    const int POOL_PAD = ${p};                             // padding=${p}: padded taps never win (-inf)
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

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
    out[((long long)n * C + c) * OH * OW + p] = m;
}
""")

AVGPOOL_TEMPLATE = Template(r"""
// ${what}: AvgPool2d(kernel_size=${k}, stride=${s})   [N,C,H,W] -> [N,C,OH,OW]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = ${k};                               // kernel_size=${k}
    const int POOL_S = ${s};                               // stride=${s}, no padding

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // Floor mode: OH = (H - POOL_K) / POOL_S + 1, so every window lies inside the input.
    float sum = 0.0f;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            sum += x[(((long long)n * C + c) * H + ih) * W + iw];
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = sum / (float)(POOL_K * POOL_K);
}
""")

HEAD_SOURCE = r"""
// head: F.adaptive_avg_pool2d(x, (1, 1)).view(N, -1)   [N,1024,H,W] -> [N,1024]
extern "C" __global__ void densenet121_avgpool_kernel(
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

// head: classifier = Linear(1024, num_classes)   [N,1024] -> [N,10]
extern "C" __global__ void densenet121_classifier_kernel(
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


def layer_plan():
    """Every layer in pipeline order: (kernel, kind, info, src, dst). src names the activation the
    layer reads (a list for cat; BN normalise also reads its statistics), dst the one it writes."""
    pre = "densenet121"
    plan = [
        (f"{pre}_conv0_kernel", "conv",
         dict(w="conv0", k=7, s=2, p=3, cin=3, cout=64, what="features[0]: Conv2d(3, 64, 7, stride=2, padding=3, bias=False)"),
         "input", "conv0"),
        (f"{pre}_bn0_stats_kernel", "bn_stats", dict(c=64, what="features[1]"), "conv0", "bn0.stats"),
        (f"{pre}_bn0_relu_kernel", "bn_relu", dict(bn="bn0", c=64, what="features[1, 2]"), "conv0", "bn0"),
        (f"{pre}_pool0_kernel", "maxpool", dict(k=3, s=2, p=1, what="features[3]"), "bn0", "pool0"),
    ]
    x, c = "pool0", STEM_CHANNELS
    for b, layers in enumerate(BLOCK_LAYERS):
        for j in range(layers):
            L = f"block{b + 1}_layer{j + 1}"
            where = f"dense_blocks[{b}].layers[{j}]"
            plan += [
                (f"{pre}_{L}_bn_stats_kernel", "bn_stats", dict(c=c, what=f"{where}[0]"), x, f"{L}.bn.stats"),
                (f"{pre}_{L}_bn_relu_kernel", "bn_relu", dict(bn=f"{L}.bn", c=c, what=f"{where}[0, 1]"), x, f"{L}.act"),
                (f"{pre}_{L}_conv_kernel", "conv",
                 dict(w=f"{L}.conv", k=3, s=1, p=1, cin=c, cout=GROWTH,
                      what=f"{where}[2]: Conv2d({c}, {GROWTH}, 3, padding=1, bias=False)"), f"{L}.act", f"{L}.new"),
                (f"{pre}_{L}_cat_kernel", "cat", dict(cold=c, cnew=GROWTH, ctot=c + GROWTH, what=f"dense_blocks[{b}]"),
                 [x, f"{L}.new"], f"{L}.x"),
            ]
            x, c = f"{L}.x", c + GROWTH
        if b != len(BLOCK_LAYERS) - 1:
            T = f"transition{b + 1}"
            where = f"transition_layers[{b}].transition"
            plan += [
                (f"{pre}_{T}_bn_stats_kernel", "bn_stats", dict(c=c, what=f"{where}[0]"), x, f"{T}.bn.stats"),
                (f"{pre}_{T}_bn_relu_kernel", "bn_relu", dict(bn=f"{T}.bn", c=c, what=f"{where}[0, 1]"), x, f"{T}.act"),
                (f"{pre}_{T}_conv_kernel", "conv1x1",
                 dict(w=f"{T}.conv", cin=c, cout=c // 2, what=f"{where}[2]: Conv2d({c}, {c // 2}, 1, bias=False)"),
                 f"{T}.act", f"{T}.conv"),
                (f"{pre}_{T}_avgpool_kernel", "avgpool", dict(k=2, s=2, what=f"{where}[3]"), f"{T}.conv", T),
            ]
            x, c = T, c // 2
    plan += [
        (f"{pre}_final_bn_stats_kernel", "bn_stats", dict(c=c, what="final_bn"), x, "final_bn.stats"),
        (f"{pre}_final_bn_relu_kernel", "bn_relu", dict(bn="final_bn", c=c, what="final_bn + F.relu"), x, "final"),
        (f"{pre}_avgpool_kernel", "gap", {}, "final", "gap"),
        (f"{pre}_classifier_kernel", "fc", {}, "gap", "out"),
    ]
    return plan


def register(K, torch, ctypes):
    plan = layer_plan()

    def build(torch):
        # Model.__init__(32, 10), in construction order (which is the RNG order): features = [Conv2d 7x7,
        # BatchNorm2d, ReLU, MaxPool2d]; then for each block its DenseBlock (per layer: BatchNorm2d, ReLU,
        # Conv2d 3x3, Dropout) followed by its TransitionLayer (BatchNorm2d, ReLU, Conv2d 1x1, AvgPool2d),
        # except after the last block; then final_bn and the classifier Linear. Convolutions have
        # bias=False; BatchNorm2d draws nothing (weight ones, bias zeros); the Linear draws weight then bias.
        nn = torch.nn
        params = {}

        def conv(key, cin, cout, k, **kw):
            params[key + ".w"] = nn.Conv2d(cin, cout, kernel_size=k, bias=False, **kw).weight

        def bn(key, c):
            m = nn.BatchNorm2d(c)
            params[key + ".g"] = m.weight
            params[key + ".b"] = m.bias

        conv("conv0", IN_CHANNELS, STEM_CHANNELS, 7, stride=2, padding=3)
        bn("bn0", STEM_CHANNELS)
        c = STEM_CHANNELS
        for b, layers in enumerate(BLOCK_LAYERS):
            for j in range(layers):
                L = f"block{b + 1}_layer{j + 1}"
                bn(f"{L}.bn", c + j * GROWTH)
                conv(f"{L}.conv", c + j * GROWTH, GROWTH, 3, padding=1)
            c = c + layers * GROWTH
            if b != len(BLOCK_LAYERS) - 1:
                T = f"transition{b + 1}"
                bn(f"{T}.bn", c)
                conv(f"{T}.conv", c, c // 2, 1)
                c = c // 2
        bn("final_bn", c)
        fc = nn.Linear(c, NUM_CLASSES)
        params["fc.w"] = fc.weight
        params["fc.b"] = fc.bias
        return params

    W = K.weights(build)

    def cuda_source():
        parts = [PRELUDE]
        templates = {"conv": CONV_TEMPLATE, "conv1x1": CONV1X1_TEMPLATE, "bn_stats": BN_STATS_TEMPLATE,
                     "bn_relu": BN_RELU_TEMPLATE, "cat": CAT_TEMPLATE, "maxpool": MAXPOOL_TEMPLATE,
                     "avgpool": AVGPOOL_TEMPLATE}
        for kernel, kind, info, _, _ in plan:
            if kind in templates:
                parts.append(templates[kind].substitute(kernel=kernel, **info))
        parts.append(HEAD_SOURCE)
        return "".join(parts)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N = x.shape[0]

        def buf(*shape):
            return torch.empty(*shape, device=x.device, dtype=x.dtype)

        seq = []
        acts = {"input": x}     # every activation (and BN statistics buffer) by name
        for kernel, kind, info, src, dst in plan:
            if kind == "cat":
                a, f = acts[src[0]], acts[src[1]]
                _, C_old, H, Wd = a.shape
                C_new = f.shape[1]
                out = buf(N, C_old + C_new, H, Wd)
                seq.append((kernel, (K.cdiv(N * (C_old + C_new) * H * Wd, BLOCK), 1, 1), (BLOCK, 1, 1), [a, f, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C_old), (ctypes.c_int, C_new), (ctypes.c_int, H * Wd)]))
                acts[dst] = out
                continue
            a = acts[src]
            if kind == "conv":
                wt = w[info["w"] + ".w"]
                C_out, C_in = wt.shape[0], wt.shape[1]
                _, _, H, Wd = a.shape
                k, s, p = info["k"], info["s"], info["p"]
                OH = (H + 2 * p - k) // s + 1
                OW = (Wd + 2 * p - k) // s + 1
                out = buf(N, C_out, OH, OW)
                seq.append((kernel, (K.cdiv(OH * OW, BLOCK), C_out, N), (BLOCK, 1, 1), [a, wt, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H), (ctypes.c_int, Wd),
                             (ctypes.c_int, C_out), (ctypes.c_int, OH), (ctypes.c_int, OW)]))
            elif kind == "conv1x1":
                wt = w[info["w"] + ".w"]
                C_out, C_in = wt.shape[0], wt.shape[1]
                _, _, H, Wd = a.shape
                out = buf(N, C_out, H, Wd)
                seq.append((kernel, (K.cdiv(H * Wd, BLOCK), C_out, N), (BLOCK, 1, 1), [a, wt, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H * Wd), (ctypes.c_int, C_out)]))
            elif kind == "bn_stats":
                _, C, H, Wd = a.shape
                out = buf(2, C)
                seq.append((kernel, (C, 1, 1), (STATS_BLOCK, 1, 1), [a, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * Wd)]))
            elif kind == "bn_relu":
                _, C, H, Wd = a.shape
                stats = acts[info["bn"] + ".stats"]
                gamma, beta = w[info["bn"] + ".g"], w[info["bn"] + ".b"]
                out = buf(N, C, H, Wd)
                seq.append((kernel, (K.cdiv(N * C * H * Wd, BLOCK), 1, 1), (BLOCK, 1, 1), [a, stats, gamma, beta, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * Wd)]))
            elif kind in ("maxpool", "avgpool"):
                _, C, H, Wd = a.shape
                k, s, p = info["k"], info["s"], info.get("p", 0)
                OH = (H + 2 * p - k) // s + 1
                OW = (Wd + 2 * p - k) // s + 1
                out = buf(N, C, OH, OW)
                seq.append((kernel, (K.cdiv(OH * OW, BLOCK), C, N), (BLOCK, 1, 1), [a, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H), (ctypes.c_int, Wd),
                             (ctypes.c_int, OH), (ctypes.c_int, OW)]))
            elif kind == "gap":
                _, C, H, Wd = a.shape
                out = buf(N, C)
                seq.append((kernel, (K.cdiv(N * C, BLOCK), 1, 1), (BLOCK, 1, 1), [a, out],
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

        def bn_relu(key, t):
            return F.relu(F.batch_norm(t, None, None, w[key + ".g"], w[key + ".b"], training=True,
                                       momentum=BN_MOMENTUM, eps=BN_EPS))

        x = bn_relu("bn0", F.conv2d(x, w["conv0.w"], stride=2, padding=3))
        x = F.max_pool2d(x, kernel_size=3, stride=2, padding=1)
        for b, layers in enumerate(BLOCK_LAYERS):
            features = [x]
            for j in range(layers):
                L = f"block{b + 1}_layer{j + 1}"
                new_feature = F.conv2d(bn_relu(f"{L}.bn", x), w[f"{L}.conv.w"], padding=1)
                new_feature = F.dropout(new_feature, p=0.0, training=True)
                features.append(new_feature)
                x = torch.cat(features, 1)
            if b != len(BLOCK_LAYERS) - 1:
                T = f"transition{b + 1}"
                x = F.conv2d(bn_relu(f"{T}.bn", x), w[f"{T}.conv.w"])
                x = F.avg_pool2d(x, kernel_size=2, stride=2)
        x = bn_relu("final_bn", x)
        x = F.adaptive_avg_pool2d(x, (1, 1)).view(x.size(0), -1)
        return F.linear(x, w["fc.w"], w["fc.b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def spiky_inputs(torch, s):
        # Exact zeros except about 1% of the entries, which are U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < T2_DENSITY
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    def offset_inputs(torch, s):
        return [T3_OFFSET + torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    return K.substrate(
        name="L3p15_densenet121",
        level=3,
        problem="15_DenseNet121",
        cuda=cuda_source(),
        kernel_name=[step[0] for step in plan],
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10, max=MAX_GRID_YZ),
            "height": K.dim(224, min=MIN_SPATIAL, max=MAX_SPATIAL),
            "width": K.dim(224, min=MIN_SPATIAL, max=MAX_SPATIAL),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 67, "width": 61},
                small=True,
                purpose="2 x 3 x 67 x 61, U[0,1): odd, non-square planes (34 x 31 after conv0, 17 x 16 in block1, "
                "8 x 8, 4 x 4, 2 x 2 after the floor-mode transitions, which drop block1's last row), so padding "
                "tests, the pools' floor division, the partial 256-thread blocks (17 x 16 = 272 = 256 + 16) and "
                "H/W swaps matter; the last BatchNorms see only 8 values per channel, so the biased variance "
                "matters: an unbiased (Bessel) variance in every BN moves the output by 1.95x the tolerance here, "
                "0.66x at 2 x 128 x 96 (CPU emulation); TF32 emulated gap 1.3e-3 (fp32 alone 9e-7); at 2 x 35 x 33 "
                "(1 x 1 final planes) it would be 0.06",
            ),
            K.suite(
                "T2_sparse_spikes",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 4},
                purpose="sparse spikes, 4 x 3 x 224 x 224: exact zeros except 1% of the entries U[0,1), so every "
                "BN channel is one level with rare outliers many standard deviations out (heavy-tailed variance "
                "sums), conv0 windows hold zero, one or two spikes, and pool0's 3x3 windows are mostly ties; "
                "TF32 emulated gap at most 3e-4 over four seeds (fp32 alone 3e-7)",
            ),
            K.suite(
                "T3_large_offset",
                offset_inputs,
                seeds=[5, 6],
                sizes={"batch": 4},
                purpose="same sign, x = 2 + U[0,1) on 4 x 3 x 224 x 224: conv0 has no bias, so bn0's channel means "
                "sit 4.3 standard deviations from zero (median over the 64 channels, up to 10.9) instead of 1.2 "
                "(up to 3.7) at U[0,1), and a mean that drops a partial sum, "
                "an image or a tree level, or a variance taken without subtracting the mean, is off by many "
                "standard deviations; the zero padding of conv0 now differs sharply from the interior, so its "
                "border guards show. Offset 2 rather than 8: TF32 noise grows with the mean-to-spread ratio "
                "(emulated gap at most 1.2e-3 over four seeds here, 2.6e-3 at 8 + U[0,1))",
            ),
        ],
notes="Training-mode BatchNorm everywhere (63 of them, each with its own statistics kernel). Every "
        "BatchNorm2d has its default init (weight ones, bias zeros), so mutants that drop gamma or beta are "
        "equivalent; the running-statistics update has no kernel (it changes no output). Because every layer "
        "renormalises its input, the input scale reaches the output only through bn0's eps (x = 1e-3 U[0,1) moves "
        "the output by just 0.13x the tolerance when bn0's eps is dropped), so no eps suite is offered. The "
        "reference runs its 62 convolutions in TF32 on a GPU: CPU emulation (TF32-rounded inputs and weights) "
        "puts T0_original's fp64 gap at 4.8e-4 (fp32 alone 6e-7). pool0 reads post-ReLU values, so a max-pool "
        "that pads with 0 instead of -inf is equivalent. ReLU (v > 0 ? v : 0) maps NaN to 0 where torch "
        "propagates it; finite inputs are unaffected. A batch of 1 with 32 x 32 inputs leaves one value per "
        "channel in the final BN (normalised to beta = 0), legal but degenerate. Tensor offsets and cat/normalise "
        "indices are 64-bit, plane indices 32-bit.",
    )
