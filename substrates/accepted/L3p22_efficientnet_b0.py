"""KernelBench level 3, problem 22_EfficientNetB0: EfficientNet-B0 (as KernelBench writes it: MBConv blocks
without squeeze-excitation, ReLU6 activations) on 10 x 3 x 224 x 224, 1000 classes.

A pipeline of 122 kernels, one per layer, in the order Model.forward runs them:

    stem     conv1 3x3 s2 p1 3->32 (no bias), bn1 statistics, bn1 normalise + ReLU      224 -> 112
    blocks   13 MBConv blocks (in -> out, depthwise kernel, stride, expand ratio):
              0: 32->16 k3 s1 e1     1: 16->24 k3 s2 e6    2: 24->24 k3 s1 e6 (+res)   112 -> 56
              3: 24->40 k5 s2 e6     4: 40->40 k5 s1 e6 (+res)                         56 -> 28
              5: 40->80 k3 s2 e6     6: 80->80 k3 s1 e6 (+res)                         28 -> 14
              7: 80->112 k5 s1 e6    8: 112->112 k5 s1 e6 (+res)
              9: 112->192 k5 s2 e6  10, 11: 192->192 k5 s1 e6 (+res)  12: 192->320 k3 s1 e6  14 -> 7
             each: [expand 1x1 conv, its BN statistics, BN + ReLU6] (only when expand ratio != 1),
                   depthwise KxK conv (groups = channels, padding (K-1)/2), BN statistics, BN + ReLU6,
                   project 1x1 conv, BN statistics, BN (+ the block input where stride 1 and in == out)
    head     conv2 1x1 320->1280 (no bias), bn2 statistics, bn2 normalise + ReLU,
             global average pool (adaptive_avg_pool2d to 1x1, view) -> [N, 1280], fc 1280 -> 1000

Every BatchNorm2d runs in training mode (the harness never calls .eval()): its statistics kernel
runs one 256-thread block per channel and writes the batch mean and biased variance over N, H, W
into one packed buffer [2, C] (a strided sum and a shared-memory tree give the mean, a second pass and
a second tree the squared deviations, two-pass as a careful first draft computes a variance); the
normalise kernel then applies (x - mean) / sqrt(var + eps) * gamma + beta with its activation fused:
ReLU (stem, head), ReLU6 = min(max(v, 0), 6) (expand and depthwise), none (project), or the residual
add `x += identity` of blocks 2, 4, 6, 8, 10 and 11. The running-statistics update changes no output
and has no kernel.

The CUDA source is generated in `register` from templates (KxK convolution, 1x1 convolution,
depthwise convolution, BN statistics, BN normalise with each epilogue, average pool, fc): every layer
gets its own named `__global__` with its kernel size, stride and padding as named constants, so a
mutation lands in one layer. Convolutions run one thread per output element on a 3D grid (pixels of
one plane on x with 256-thread blocks, channel on y, image on z), so the 112x112 ... 7x7 planes leave
partial last blocks; padding is an explicit bounds test on every tap; BN normalise, pool and fc use
flat indices (64-bit where a tensor can be large). Every accumulation is fp32.

Batch, height and width are resizable: the adaptive average pool makes the fc's 1280 inputs
independent of the spatial size, and every stride-2 layer maps H to (H - 1) / 2 + 1, so any H, W >= 1
runs the whole network (BatchNorm needs more than one value per channel: N x H' x W' >= 2 at 1/32
resolution, which the suites keep).

Cost on the official input: 0.31 G multiply-adds per image (stem 11 M, blocks 0.28 G, head conv 20 M),
3.1 G for the batch of 10, so the convolutions take a few ms at naive-kernel rates; the 40 BN
statistics kernels read their inputs twice with one block per channel (16-1280 blocks over up to
10 x 112 x 112 = 125 k values per channel), about 0.1-1 ms each, and the normalise kernels are memory
bound: one forward should take about 10-40 ms on an H200.
"""

from string import Template

BLOCK = 256             # threads per block of the convolution, normalise, pool and fc kernels
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
MAX_GRID_YZ = 65535     # convolutions put channels on gridDim.y and the batch on gridDim.z
MAX_SPATIAL = 4096      # plane indices oh * OW + ow are 32-bit ints
NUM_CLASSES = 1000      # get_init_inputs() = [1000]
IN_CHANNELS = 3
STEM_CHANNELS = 32
HEAD_CHANNELS = 1280
BN_EPS = 1e-5           # nn.BatchNorm2d default (must equal BN_EPS in the CUDA source)
BN_MOMENTUM = 0.1
T2_DENSITY = 0.01       # T2: 1% of the entries U[0, 1), the rest exactly 0
T3_SCALE = 1e-3         # T3: x = 1e-3 * U[0, 1)

# MBConv blocks in order: (in_channels, out_channels, kernel_size, stride, expand_ratio).
BLOCKS = [
    (32, 16, 3, 1, 1),
    (16, 24, 3, 2, 6),
    (24, 24, 3, 1, 6),
    (24, 40, 5, 2, 6),
    (40, 40, 5, 1, 6),
    (40, 80, 3, 2, 6),
    (80, 80, 3, 1, 6),
    (80, 112, 5, 1, 6),
    (112, 112, 5, 1, 6),
    (112, 192, 5, 2, 6),
    (192, 192, 5, 1, 6),
    (192, 192, 5, 1, 6),
    (192, 320, 3, 1, 6),
]

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

DWCONV_TEMPLATE = Template(r"""
// ${what}   [N,${c},H,W] -> [N,${c},OH,OW]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C, H, W]
    const float* __restrict__ w,    // [C, 1, KSIZE, KSIZE]  (groups = C: one filter per channel)
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int KSIZE = ${k};                                // kernel_size=${k}
    const int STRIDE = ${s};                               // stride=${s}
    const int PAD = ${p};                                  // padding=(kernel_size - 1) / 2 = ${p}

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel (its own group)
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    const float* plane = x + ((long long)n * C + c) * H * W;
    float acc = 0.0f;
    for (int kh = 0; kh < KSIZE; ++kh) {
        int ih = oh * STRIDE - PAD + kh;
        if (ih < 0 || ih >= H) continue;                // zero padding above and below
        for (int kw = 0; kw < KSIZE; ++kw) {
            int iw = ow * STRIDE - PAD + kw;
            if (iw < 0 || iw >= W) continue;            // zero padding left and right
            acc += plane[(long long)ih * W + iw] * w[((long long)c * KSIZE + kh) * KSIZE + kw];
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = acc;    // bias=False
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
${act_const}
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

BN_APPLY_RESIDUAL_TEMPLATE = Template(r"""
// ${what}
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,        // [N, C, HW]  project conv output
    const float* __restrict__ stats,    // [2, C]: mean, biased variance
    const float* __restrict__ gamma,    // [C]  BatchNorm weight
    const float* __restrict__ beta,     // [C]  BatchNorm bias
    const float* __restrict__ identity, // [N, C, HW]  the block's input
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
    out[i] = v + identity[i];                           // x += identity
}
""")

ACTIVATIONS = {
    "relu": ("", "    out[i] = v > 0.0f ? v : 0.0f;                      // ReLU"),
    "relu6": ("    const float RELU6_MAX = 6.0f;                       // ReLU6: min(max(v, 0), 6)\n",
              "    v = v > 0.0f ? v : 0.0f;\n"
              "    out[i] = v < RELU6_MAX ? v : RELU6_MAX;"),
    "none": ("", "    out[i] = v;"),
}

HEAD_SOURCE = r"""
// head: F.adaptive_avg_pool2d(x, (1, 1)).view(N, -1)   [N,1280,H,W] -> [N,1280]
extern "C" __global__ void effnet_avgpool_kernel(
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

// head: fc = Linear(1280, num_classes)   [N,1280] -> [N,1000]
extern "C" __global__ void effnet_fc_kernel(
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
    layer reads (BN normalise also reads its statistics), dst the one it writes."""
    plan = [
        ("effnet_conv1_kernel", "conv", dict(w="conv1", k=3, s=2, p=1, cin=3, cout=32,
                                            what="conv1: Conv2d(3, 32, 3, stride=2, padding=1, bias=False)"),
         "input", "conv1"),
        ("effnet_bn1_stats_kernel", "bn_stats", dict(c=32, what="bn1"), "conv1", "bn1.stats"),
        ("effnet_bn1_relu_kernel", "bn_apply", dict(bn="bn1", act="relu", what="bn1 normalise + F.relu"),
         "conv1", "stem"),
    ]
    prev = "stem"
    for i, (cin, cout, k, s, e) in enumerate(BLOCKS):
        blk = f"block{i}"
        pre = f"effnet_{blk}"
        hidden = cin * e
        x_in = prev
        if e != 1:
            plan += [
                (f"{pre}_expand_conv_kernel", "conv1x1",
                 dict(w=f"{blk}.expand", cin=cin, cout=hidden,
                      what=f"blocks[{i}].expand_conv[0]: Conv2d({cin}, {hidden}, 1, bias=False)"), prev, f"{blk}.expand"),
                (f"{pre}_expand_bn_stats_kernel", "bn_stats", dict(c=hidden, what=f"blocks[{i}].expand_conv[1]"),
                 f"{blk}.expand", f"{blk}.expand_bn.stats"),
                (f"{pre}_expand_bn_relu6_kernel", "bn_apply",
                 dict(bn=f"{blk}.expand_bn", act="relu6",
                      what=f"blocks[{i}].expand_conv[1, 2]: BatchNorm2d({hidden}) normalise + ReLU6"),
                 f"{blk}.expand", f"{blk}.expanded"),
            ]
            prev = f"{blk}.expanded"
        pad = (k - 1) // 2
        plan += [
            (f"{pre}_dw_conv_kernel", "dwconv",
             dict(w=f"{blk}.dw", k=k, s=s, p=pad, c=hidden,
                  what=f"blocks[{i}].depthwise_conv[0]: Conv2d({hidden}, {hidden}, {k}, stride={s}, padding={pad}, "
                       f"groups={hidden}, bias=False)"), prev, f"{blk}.dw"),
            (f"{pre}_dw_bn_stats_kernel", "bn_stats", dict(c=hidden, what=f"blocks[{i}].depthwise_conv[1]"),
             f"{blk}.dw", f"{blk}.dw_bn.stats"),
            (f"{pre}_dw_bn_relu6_kernel", "bn_apply",
             dict(bn=f"{blk}.dw_bn", act="relu6",
                  what=f"blocks[{i}].depthwise_conv[1, 2]: BatchNorm2d({hidden}) normalise + ReLU6"),
             f"{blk}.dw", f"{blk}.dwact"),
            (f"{pre}_project_conv_kernel", "conv1x1",
             dict(w=f"{blk}.project", cin=hidden, cout=cout,
                  what=f"blocks[{i}].project_conv[0]: Conv2d({hidden}, {cout}, 1, bias=False)"),
             f"{blk}.dwact", f"{blk}.project"),
            (f"{pre}_project_bn_stats_kernel", "bn_stats", dict(c=cout, what=f"blocks[{i}].project_conv[1]"),
             f"{blk}.project", f"{blk}.project_bn.stats"),
        ]
        if s == 1 and cin == cout:
            plan.append((f"{pre}_project_bn_residual_kernel", "bn_residual",
                         dict(bn=f"{blk}.project_bn", identity=x_in,
                              what=f"blocks[{i}].project_conv[1]: BatchNorm2d({cout}) normalise, then x += identity"),
                         f"{blk}.project", blk))
        else:
            plan.append((f"{pre}_project_bn_kernel", "bn_apply",
                         dict(bn=f"{blk}.project_bn", act="none",
                              what=f"blocks[{i}].project_conv[1]: BatchNorm2d({cout}) normalise (no activation)"),
                         f"{blk}.project", blk))
        prev = blk
    plan += [
        ("effnet_conv2_kernel", "conv1x1",
         dict(w="conv2", cin=320, cout=HEAD_CHANNELS, what="conv2: Conv2d(320, 1280, 1, bias=False)"), prev, "conv2"),
        ("effnet_bn2_stats_kernel", "bn_stats", dict(c=HEAD_CHANNELS, what="bn2"), "conv2", "bn2.stats"),
        ("effnet_bn2_relu_kernel", "bn_apply", dict(bn="bn2", act="relu", what="bn2 normalise + F.relu"),
         "conv2", "head"),
        ("effnet_avgpool_kernel", "avgpool", {}, "head", "avgpool"),
        ("effnet_fc_kernel", "fc", {}, "avgpool", "fc"),
    ]
    return plan


def register(K, torch, ctypes):
    plan = layer_plan()

    def build(torch):
        # Model.__init__(1000), in order: conv1, bn1, blocks (each MBConv: expand_conv = [Conv2d 1x1,
        # BatchNorm2d, ReLU6] when expand_ratio != 1, depthwise_conv = [Conv2d groups=hidden, BN, ReLU6],
        # project_conv = [Conv2d 1x1, BN]), conv2, bn2, fc. Convolutions have bias=False; BatchNorm2d
        # draws nothing (weight ones, bias zeros); the Linear draws weight then bias.
        nn = torch.nn
        params = {}

        def conv(key, cin, cout, k, **kw):
            params[key + ".w"] = nn.Conv2d(cin, cout, kernel_size=k, bias=False, **kw).weight

        def bn(key, c):
            m = nn.BatchNorm2d(c)
            params[key + ".g"] = m.weight
            params[key + ".b"] = m.bias

        conv("conv1", IN_CHANNELS, STEM_CHANNELS, 3, stride=2, padding=1)
        bn("bn1", STEM_CHANNELS)
        for i, (cin, cout, k, s, e) in enumerate(BLOCKS):
            hidden = cin * e
            if e != 1:
                conv(f"block{i}.expand", cin, hidden, 1)
                bn(f"block{i}.expand_bn", hidden)
            conv(f"block{i}.dw", hidden, hidden, k, stride=s, padding=(k - 1) // 2, groups=hidden)
            bn(f"block{i}.dw_bn", hidden)
            conv(f"block{i}.project", hidden, cout, 1)
            bn(f"block{i}.project_bn", cout)
        conv("conv2", 320, HEAD_CHANNELS, 1)
        bn("bn2", HEAD_CHANNELS)
        fc = nn.Linear(HEAD_CHANNELS, NUM_CLASSES)
        params["fc.w"] = fc.weight
        params["fc.b"] = fc.bias
        return params

    W = K.weights(build)

    def cuda_source():
        parts = [PRELUDE]
        for kernel, kind, info, _, _ in plan:
            if kind == "conv":
                parts.append(CONV_TEMPLATE.substitute(kernel=kernel, **info))
            elif kind == "conv1x1":
                parts.append(CONV1X1_TEMPLATE.substitute(kernel=kernel, **info))
            elif kind == "dwconv":
                parts.append(DWCONV_TEMPLATE.substitute(kernel=kernel, **info))
            elif kind == "bn_stats":
                parts.append(BN_STATS_TEMPLATE.substitute(kernel=kernel, **info))
            elif kind == "bn_apply":
                act_const, act = ACTIVATIONS[info["act"]]
                parts.append(BN_APPLY_TEMPLATE.substitute(kernel=kernel, what=info["what"], act_const=act_const, act=act))
            elif kind == "bn_residual":
                parts.append(BN_APPLY_RESIDUAL_TEMPLATE.substitute(kernel=kernel, what=info["what"]))
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
            elif kind == "dwconv":
                wt = w[info["w"] + ".w"]
                _, C, H, Wd = a.shape
                k, s, p = info["k"], info["s"], info["p"]
                OH = (H + 2 * p - k) // s + 1
                OW = (Wd + 2 * p - k) // s + 1
                out = buf(N, C, OH, OW)
                seq.append((kernel, (K.cdiv(OH * OW, BLOCK), C, N), (BLOCK, 1, 1), [a, wt, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H), (ctypes.c_int, Wd),
                             (ctypes.c_int, OH), (ctypes.c_int, OW)]))
            elif kind == "bn_stats":
                _, C, H, Wd = a.shape
                out = buf(2, C)
                seq.append((kernel, (C, 1, 1), (STATS_BLOCK, 1, 1), [a, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * Wd)]))
            elif kind in ("bn_apply", "bn_residual"):
                _, C, H, Wd = a.shape
                stats = acts[info["bn"] + ".stats"]
                gamma, beta = w[info["bn"] + ".g"], w[info["bn"] + ".b"]
                out = buf(N, C, H, Wd)
                tensors = [a, stats, gamma, beta, out] if kind == "bn_apply" else \
                    [a, stats, gamma, beta, acts[info["identity"]], out]
                seq.append((kernel, (K.cdiv(N * C * H * Wd, BLOCK), 1, 1), (BLOCK, 1, 1), tensors,
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * Wd)]))
            elif kind == "avgpool":
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
        return {"seq": seq, "out": acts["fc"]}

    def ref(inputs, torch):
        # Model.forward, op for op, on the same parameters; BatchNorm in training mode.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def bn(key, t):
            return F.batch_norm(t, None, None, w[key + ".g"], w[key + ".b"], training=True,
                                momentum=BN_MOMENTUM, eps=BN_EPS)

        x = F.relu(bn("bn1", F.conv2d(x, w["conv1.w"], stride=2, padding=1)))
        for i, (cin, cout, k, s, e) in enumerate(BLOCKS):
            identity = x
            if e != 1:
                x = F.relu6(bn(f"block{i}.expand_bn", F.conv2d(x, w[f"block{i}.expand.w"])))
            x = F.conv2d(x, w[f"block{i}.dw.w"], stride=s, padding=(k - 1) // 2, groups=cin * e)
            x = F.relu6(bn(f"block{i}.dw_bn", x))
            x = bn(f"block{i}.project_bn", F.conv2d(x, w[f"block{i}.project.w"]))
            if s == 1 and cin == cout:
                x = x + identity
        x = F.relu(bn("bn2", F.conv2d(x, w["conv2.w"])))
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = x.view(x.size(0), -1)
        return F.linear(x, w["fc.w"], w["fc.b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, 224, 224)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def spiky_inputs(torch, s):
        # Exact zeros except about 1% of the entries, which are U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < T2_DENSITY
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    def small_inputs(torch, s):
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * T3_SCALE]

    return K.substrate(
        name="L3p22_efficientnet_b0",
        level=3,
        problem="22_EfficientNetB0",
        cuda=cuda_source(),
        kernel_name=[step[0] for step in plan],
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10, max=MAX_GRID_YZ),
            "height": K.dim(224, max=MAX_SPATIAL),
            "width": K.dim(224, max=MAX_SPATIAL),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 1, "height": 225, "width": 193},
                small=True,
                purpose="1 x 3 x 225 x 193, U[0,1): odd, non-square planes at every stage (113 x 97, 57 x 49, "
                "29 x 25, 15 x 13, 8 x 7), so every stride-2 layer has a last row and column whose window "
                "reaches into the bottom/right padding, every plane leaves a partial 256-thread block (15 x 13 = "
                "195 and 8 x 7 = 56 are smaller than one), and H/W swaps change shapes; the BN statistics "
                "threads see strided slices that end mid-block. Batch 1 because TF32 noise grows with the number "
                "of outputs: the reference's fp64 gap is 2.2e-3 here (CPU emulation of TF32 convolutions; fp32 "
                "alone 1e-6) but 4-6e-3 at any batch 2 tried",
            ),
            K.suite(
                "T2_sparse_spikes",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 1},
                purpose="sparse spikes, 1 x 3 x 224 x 224: exact zeros except 1% of the entries U[0,1). Each "
                "channel's values are mostly one level with rare outliers, so after BatchNorm the outliers sit "
                "many standard deviations out and the ReLU6 upper clamp is active (6.7e-5 of the ReLU6 inputs "
                "exceed 6, 1.8e-6 at U[0,1)): replacing ReLU6 by ReLU moves the output by 3.1x the tolerance here "
                "and 0.5x on U[0,1) (CPU emulation); heavy-tailed channels also weigh the variance reduction's "
                "tails; emulated TF32 gap 1.9-2.2e-3 over four seeds",
            ),
            K.suite(
                "T3_small_variance",
                small_inputs,
                seeds=[5, 6],
                sizes={"batch": 1},
                purpose="x = 1e-3 * U[0,1), 1 x 3 x 224 x 224: conv1's per-channel output variance (2-3.5e-8) is "
                "far below bn1's eps = 1e-5, so bn1 scales its output by sqrt(var / (var + eps)) and dropping or moving "
                "the eps changes the output by 1.4x the tolerance (0.0001x on U[0,1); CPU emulation); later BNs "
                "renormalise, so the scale reaches the output only through bn1's eps; emulated TF32 gap 2.4-2.8e-3 "
                "over four seeds",
            ),
        ],
notes="Near the legitimate-variance ceiling by construction: the reference runs its 40 convolutions in TF32 on a "
        "GPU, and 40 training-mode BatchNorms renormalise every stage, so the TF32 rounding noise is not damped but "
        "grows by about 1.2x per stage (CPU emulation, TF32-rounded inputs and weights before each convolution: "
        "rms error 8e-4 after bn1, 7e-2 after bn2 at 2 x 64 x 64). On T0_original the emulated fp32-TF32 vs fp64 "
        "gap is 6.4e-3 (facts: measured ref != fp64 at 1e-4 but within 1e-2 on the H200); fp32 without TF32 is "
        "2.6e-6. tau* grows with the number of outputs and shrinks with larger planes (2 x 35 x 29 reaches 0.24), "
        "so the targeted suites use batch 1 at about 224 x 224 (emulated 2.0-2.8e-3). BatchNorm weights are ones "
        "and biases zeros (default init), so mutants that drop gamma or beta are equivalent; the running-statistics "
        "update has no kernel (it changes no output). Training-mode BN needs N x H' x W' >= 2 values per channel at "
        "1/32 resolution (a single value normalises to beta = 0). ReLU and ReLU6 (v > 0 ? v : 0) map NaN to 0 where "
        "torch propagates it; finite inputs are unaffected. Tensor offsets and normalise indices are 64-bit, plane "
        "indices 32-bit (at most 2048 x 2048 after the stem with the declared 4096 limit).",
    )
