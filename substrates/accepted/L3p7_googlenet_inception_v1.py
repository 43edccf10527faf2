"""KernelBench level 3, problem 7_GoogleNetInceptionV1: GoogLeNet (Inception v1) on 10 x 3 x 224 x 224,
1000 classes.

A pipeline of 81 kernels, one per layer, in the order Model.forward runs them:

    stem      conv1 7x7 s2 p3 3->64 + ReLU, maxpool1 3x3 s2 p1,                 224 -> 112 -> 56
              conv2 1x1 64->64 + ReLU, conv3 3x3 p1 64->192 + ReLU, maxpool2   56 -> 28
    3a, 3b    inception modules at 28 x 28, then maxpool3                       28 -> 14
    4a .. 4e  inception modules at 14 x 14, then maxpool4                       14 -> 7
    5a, 5b    inception modules at 7 x 7
    head      global average pool (AdaptiveAvgPool2d((1, 1))) -> [N, 1024], fc 1024 -> 1000

Each inception module is eight kernels: branch1x1 (1x1 conv), branch3x3 reduce (1x1) and 3x3 conv
(padding 1), branch5x5 reduce (1x1) and 5x5 conv (padding 2), the branch pool's 3x3 stride-1 max-pool
(padding 1) and its 1x1 projection, and a cat kernel that copies the four branch outputs into their
channel slices of the module's output (torch.cat(dim=1)). Every branch writes its own buffer, so each
step's last tensor argument is that layer's activation alone. As in the model, there is no activation
inside the inception modules: only the three stem convolutions apply ReLU (fused in their epilogue).
Dropout(p=0.0) is the identity even in training mode (ATen returns the input for p == 0 and draws
nothing), and torch.flatten of the [N, 1024, 1, 1] pool output is a view, so neither has a kernel.

The CUDA source is generated in `register` from four templates (KxK convolution, 1x1 convolution,
max-pool, cat) plus the head's two kernels; each layer gets its own named `__global__` with its
kernel size, stride and padding as named constants, so a mutation lands in one layer. Convolutions
and pools run one thread per output element on a 3D grid: x covers the pixels of one output plane
(oh * OW + ow, 256-thread blocks), y the channel and z the image, so the 28x28, 14x14 and 7x7
planes leave a partial last block. Padding is an explicit bounds test on every tap; max-pool windows
skip the padded taps (PyTorch pads max-pools with -inf). Cat, pool and fc kernels use flat indices
(64-bit where the tensor can be large). Every accumulation is fp32.

Batch, height and width are resizable: the head's AdaptiveAvgPool2d((1, 1)) makes the fc's 1024
inputs independent of the spatial size. Every layer's output size is (H - 1) / 2 + 1 for the five
stride-2 layers, so any H, W >= 1 runs the whole network.

Cost on the official input: the convolutions are 1.58 G multiply-adds per image (conv3 0.35 G,
conv1 0.12 G, conv2 13 M, the nine inception modules 1.10 G), 15.8 G multiply-adds = 32 GFLOP for the
batch of 10; the fc is 10 M multiply-adds. The naive direct convolution of L3p11_vgg16 (same grid, same loop
order) is estimated at a few TFLOP/s on an H200, so one forward should take about 10-30 ms; the 81
launches add well under 1 ms.
"""

from string import Template

BLOCK = 256             # threads per block of every convolution, pool, cat and fc kernel
MAX_GRID_YZ = 65535     # convolutions and pools put channels on gridDim.y and the batch on gridDim.z
MAX_SPATIAL = 4096      # oh * OW + ow is a 32-bit int; 4096 x 4096 planes keep it far from 2^31
NUM_CLASSES = 1000      # get_init_inputs() = [1000]
IN_CHANNELS = 3
FC_IN = 1024            # inception5b's output channels: 384 + 384 + 128 + 128
T2_SCALE = 1.0e4        # T2: x = 1e4 * U[0, 1)
T3_SPIKE = 3.0e4        # T3: spikes U[0, 3e4) on 1% of the entries
T3_DENSITY = 0.01

# Inception modules in order: (name, in_channels, out_1x1, reduce_3x3, out_3x3, reduce_5x5, out_5x5,
# pool_proj), as Model.__init__ builds them; a maxpool (3x3, stride 2, padding 1) follows 3b and 4e.
INCEPTIONS = [
    ("3a", 192, 64, 96, 128, 16, 32, 32),
    ("3b", 256, 128, 128, 192, 32, 96, 64),
    ("4a", 480, 192, 96, 208, 16, 48, 64),
    ("4b", 512, 160, 112, 224, 24, 64, 64),
    ("4c", 512, 128, 128, 256, 24, 64, 64),
    ("4d", 512, 112, 144, 288, 32, 64, 64),
    ("4e", 528, 256, 160, 320, 32, 128, 128),
    ("5a", 832, 256, 160, 320, 32, 128, 128),
    ("5b", 832, 384, 192, 384, 48, 128, 128),
]
POOL_AFTER = {"3b": "maxpool3", "4e": "maxpool4"}

# --- CUDA templates: ${kernel} is the layer's own name, the rest are that layer's constants -----------

CONV_TEMPLATE = Template(r"""
// ${what}   [N,${cin},H,W] -> [N,${cout},OH,OW]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KSIZE, KSIZE]
    const float* __restrict__ b,    // [C_out]
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
${epilogue}
}
""")

CONV1X1_TEMPLATE = Template(r"""
// ${what}   [N,${cin},H,W] -> [N,${cout},H,W]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    const float* __restrict__ b,    // [C_out]
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
${epilogue}
}
""")

EPILOGUE_BIAS = {
    "kxk": "    out[((long long)n * C_out + co) * OH * OW + p] = acc + b[co];",
    "1x1": "    out[((long long)n * C_out + co) * HW + p] = acc + b[co];",
}
EPILOGUE_BIAS_RELU = {
    "kxk": "    float v = acc + b[co];\n"
           "    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;   // F.relu",
    "1x1": "    float v = acc + b[co];\n"
           "    out[((long long)n * C_out + co) * HW + p] = v > 0.0f ? v : 0.0f;        // F.relu",
}

MAXPOOL_TEMPLATE = Template(r"""
// ${what}: MaxPool2d(${k}, stride=${s}, padding=${p})   [N,C,H,W] -> [N,C,OH,OW]
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

CAT_TEMPLATE = Template(r"""
// ${what}: torch.cat([branch1x1, branch3x3, branch5x5, branch_pool], 1)   -> [N,${ctot},H,W]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ b1,   // [N, C1, HW]  branch1x1
    const float* __restrict__ b3,   // [N, C3, HW]  branch3x3
    const float* __restrict__ b5,   // [N, C5, HW]  branch5x5
    const float* __restrict__ bp,   // [N, CP, HW]  branch_pool
    float* __restrict__ out,        // [N, C1 + C3 + C5 + CP, HW]
    int N, int C1, int C3, int C5, int CP, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int C = C1 + C3 + C5 + CP;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int p = (int)(i % HW);
    int c = (int)((i / HW) % C);
    int n = (int)(i / ((long long)HW * C));

    float v;
    if (c < C1) {
        v = b1[((long long)n * C1 + c) * HW + p];
    } else if (c < C1 + C3) {
        v = b3[((long long)n * C3 + (c - C1)) * HW + p];
    } else if (c < C1 + C3 + C5) {
        v = b5[((long long)n * C5 + (c - C1 - C3)) * HW + p];
    } else {
        v = bp[((long long)n * CP + (c - C1 - C3 - C5)) * HW + p];
    }
    out[i] = v;
}
""")

HEAD_SOURCE = r"""
// avgpool: AdaptiveAvgPool2d((1, 1)), then torch.flatten(x, 1)   [N,C,H,W] -> [N,C]
extern "C" __global__ void googlenet_avgpool_kernel(
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

// fc: Linear(1024, num_classes) (after Dropout(p=0.0), the identity)   [N,1024] -> [N,1000]
extern "C" __global__ void googlenet_fc_kernel(
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
    """Every layer in pipeline order: (kernel, kind, info, src, dst). kind is conv / conv1x1 / maxpool /
    cat / avgpool / fc; src names the activation(s) the layer reads, dst the one it writes; info holds
    the weight key and the layer's constants."""
    plan = [
        ("googlenet_conv1_relu_kernel", "conv",
         dict(w="conv1", k=7, s=2, p=3, relu=True, what="conv1: Conv2d(3, 64, 7, stride=2, padding=3) + ReLU"),
         "input", "conv1"),
        ("googlenet_maxpool1_kernel", "maxpool", dict(k=3, s=2, p=1, what="maxpool1"), "conv1", "maxpool1"),
        ("googlenet_conv2_relu_kernel", "conv1x1", dict(w="conv2", relu=True, what="conv2: Conv2d(64, 64, 1) + ReLU"),
         "maxpool1", "conv2"),
        ("googlenet_conv3_relu_kernel", "conv",
         dict(w="conv3", k=3, s=1, p=1, relu=True, what="conv3: Conv2d(64, 192, 3, padding=1) + ReLU"),
         "conv2", "conv3"),
        ("googlenet_maxpool2_kernel", "maxpool", dict(k=3, s=2, p=1, what="maxpool2"), "conv3", "maxpool2"),
    ]
    prev = "maxpool2"
    for name, cin, o1, r3, o3, r5, o5, pp in INCEPTIONS:
        m = f"inception{name}"
        pre = f"googlenet_{m}"
        plan += [
            (f"{pre}_branch1x1_kernel", "conv1x1",
             dict(w=f"{m}.b1", relu=False, what=f"{m}.branch1x1: Conv2d({cin}, {o1}, 1)"), prev, f"{m}.b1"),
            (f"{pre}_branch3x3_reduce_kernel", "conv1x1",
             dict(w=f"{m}.b3r", relu=False, what=f"{m}.branch3x3[0]: Conv2d({cin}, {r3}, 1)"), prev, f"{m}.b3r"),
            (f"{pre}_branch3x3_kernel", "conv",
             dict(w=f"{m}.b3", k=3, s=1, p=1, relu=False, what=f"{m}.branch3x3[1]: Conv2d({r3}, {o3}, 3, padding=1)"),
             f"{m}.b3r", f"{m}.b3"),
            (f"{pre}_branch5x5_reduce_kernel", "conv1x1",
             dict(w=f"{m}.b5r", relu=False, what=f"{m}.branch5x5[0]: Conv2d({cin}, {r5}, 1)"), prev, f"{m}.b5r"),
            (f"{pre}_branch5x5_kernel", "conv",
             dict(w=f"{m}.b5", k=5, s=1, p=2, relu=False, what=f"{m}.branch5x5[1]: Conv2d({r5}, {o5}, 5, padding=2)"),
             f"{m}.b5r", f"{m}.b5"),
            (f"{pre}_pool_kernel", "maxpool", dict(k=3, s=1, p=1, what=f"{m}.branch_pool[0]"), prev, f"{m}.pool"),
            (f"{pre}_pool_proj_kernel", "conv1x1",
             dict(w=f"{m}.bp", relu=False, what=f"{m}.branch_pool[1]: Conv2d({cin}, {pp}, 1)"), f"{m}.pool", f"{m}.bp"),
            (f"{pre}_cat_kernel", "cat", dict(ctot=o1 + o3 + o5 + pp, what=f"{m} output"),
             [f"{m}.b1", f"{m}.b3", f"{m}.b5", f"{m}.bp"], m),
        ]
        prev = m
        if name in POOL_AFTER:
            pool = POOL_AFTER[name]
            plan.append((f"googlenet_{pool}_kernel", "maxpool", dict(k=3, s=2, p=1, what=pool), prev, pool))
            prev = pool
    plan += [
        ("googlenet_avgpool_kernel", "avgpool", {}, prev, "avgpool"),
        ("googlenet_fc_kernel", "fc", dict(w="fc"), "avgpool", "fc"),
    ]
    return plan


def register(K, torch, ctypes):
    plan = layer_plan()

    def build(torch):
        # Model.__init__(1000), in order: conv1, (maxpool1), conv2, conv3, (maxpool2), inception3a, 3b,
        # (maxpool3), 4a-4e, (maxpool4), 5a, 5b, (avgpool, dropout), fc. Each InceptionModule builds
        # branch1x1, branch3x3 = [1x1, 3x3], branch5x5 = [1x1, 5x5], branch_pool = [MaxPool, 1x1].
        # Pools and dropout draw nothing; every Conv2d and the Linear draw weight then bias.
        nn = torch.nn
        params = {}

        def conv(key, cin, cout, k, **kw):
            c = nn.Conv2d(cin, cout, kernel_size=k, **kw)
            params[key + ".w"] = c.weight
            params[key + ".b"] = c.bias

        conv("conv1", 3, 64, 7, stride=2, padding=3)
        conv("conv2", 64, 64, 1)
        conv("conv3", 64, 192, 3, padding=1)
        for name, cin, o1, r3, o3, r5, o5, pp in INCEPTIONS:
            m = f"inception{name}"
            conv(f"{m}.b1", cin, o1, 1)
            conv(f"{m}.b3r", cin, r3, 1)
            conv(f"{m}.b3", r3, o3, 3, padding=1)
            conv(f"{m}.b5r", cin, r5, 1)
            conv(f"{m}.b5", r5, o5, 5, padding=2)
            conv(f"{m}.bp", cin, pp, 1)
        fc = nn.Linear(FC_IN, NUM_CLASSES)
        params["fc.w"] = fc.weight
        params["fc.b"] = fc.bias
        return params

    W = K.weights(build)

    def cuda_source():
        parts = []
        for kernel, kind, info, _, _ in plan:
            if kind in ("conv", "conv1x1"):
                cout, cin = W_SHAPES[info["w"]]
                form = "kxk" if kind == "conv" else "1x1"
                epilogue = (EPILOGUE_BIAS_RELU if info["relu"] else EPILOGUE_BIAS)[form]
                tmpl = CONV_TEMPLATE if kind == "conv" else CONV1X1_TEMPLATE
                parts.append(tmpl.substitute(kernel=kernel, what=info["what"], cin=cin, cout=cout, k=info.get("k", 1),
                                             s=info.get("s", 1), p=info.get("p", 0), epilogue=epilogue))
            elif kind == "maxpool":
                parts.append(MAXPOOL_TEMPLATE.substitute(kernel=kernel, what=info["what"], k=info["k"], s=info["s"],
                                                         p=info["p"]))
            elif kind == "cat":
                parts.append(CAT_TEMPLATE.substitute(kernel=kernel, what=info["what"], ctot=info["ctot"]))
        parts.append(HEAD_SOURCE)
        return "".join(parts)

    # Weight shapes (C_out, C_in) of every convolution, for the source comments (no tensors needed).
    W_SHAPES = {"conv1": (64, 3), "conv2": (64, 64), "conv3": (192, 64)}
    for name, cin, o1, r3, o3, r5, o5, pp in INCEPTIONS:
        m = f"inception{name}"
        W_SHAPES.update({f"{m}.b1": (o1, cin), f"{m}.b3r": (r3, cin), f"{m}.b3": (o3, r3),
                         f"{m}.b5r": (r5, cin), f"{m}.b5": (o5, r5), f"{m}.bp": (pp, cin)})

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N = x.shape[0]

        def buf(*shape):
            return torch.empty(*shape, device=x.device, dtype=x.dtype)

        seq = []
        acts = {"input": x}     # every activation by name; each layer writes a new one
        for kernel, kind, info, src, dst in plan:
            if kind in ("conv", "conv1x1"):
                a = acts[src]
                wt, bt = w[info["w"] + ".w"], w[info["w"] + ".b"]
                C_out, C_in = wt.shape[0], wt.shape[1]
                _, _, H, Wd = a.shape
                if kind == "conv":
                    k, s, p = info["k"], info["s"], info["p"]
                    OH = (H + 2 * p - k) // s + 1
                    OW = (Wd + 2 * p - k) // s + 1
                    out = buf(N, C_out, OH, OW)
                    seq.append((kernel, (K.cdiv(OH * OW, BLOCK), C_out, N), (BLOCK, 1, 1), [a, wt, bt, out],
                                [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H), (ctypes.c_int, Wd),
                                 (ctypes.c_int, C_out), (ctypes.c_int, OH), (ctypes.c_int, OW)]))
                else:
                    out = buf(N, C_out, H, Wd)
                    seq.append((kernel, (K.cdiv(H * Wd, BLOCK), C_out, N), (BLOCK, 1, 1), [a, wt, bt, out],
                                [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H * Wd), (ctypes.c_int, C_out)]))
            elif kind == "maxpool":
                a = acts[src]
                _, C, H, Wd = a.shape
                k, s, p = info["k"], info["s"], info["p"]
                OH = (H + 2 * p - k) // s + 1
                OW = (Wd + 2 * p - k) // s + 1
                out = buf(N, C, OH, OW)
                seq.append((kernel, (K.cdiv(OH * OW, BLOCK), C, N), (BLOCK, 1, 1), [a, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H), (ctypes.c_int, Wd),
                             (ctypes.c_int, OH), (ctypes.c_int, OW)]))
            elif kind == "cat":
                b1, b3, b5, bp = (acts[name] for name in src)
                _, _, H, Wd = b1.shape
                C = b1.shape[1] + b3.shape[1] + b5.shape[1] + bp.shape[1]
                out = buf(N, C, H, Wd)
                seq.append((kernel, (K.cdiv(N * C * H * Wd, BLOCK), 1, 1), (BLOCK, 1, 1), [b1, b3, b5, bp, out],
                            [(ctypes.c_int, N), (ctypes.c_int, b1.shape[1]), (ctypes.c_int, b3.shape[1]),
                             (ctypes.c_int, b5.shape[1]), (ctypes.c_int, bp.shape[1]), (ctypes.c_int, H * Wd)]))
            elif kind == "avgpool":
                a = acts[src]
                _, C, H, Wd = a.shape
                out = buf(N, C)
                seq.append((kernel, (K.cdiv(N * C, BLOCK), 1, 1), (BLOCK, 1, 1), [a, out],
                            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * Wd)]))
            else:  # fc
                a = acts[src]
                wt, bt = w["fc.w"], w["fc.b"]
                out = buf(N, wt.shape[0])
                seq.append((kernel, (K.cdiv(wt.shape[0], BLOCK), N, 1), (BLOCK, 1, 1), [a, wt, bt, out],
                            [(ctypes.c_int, N), (ctypes.c_int, wt.shape[0]), (ctypes.c_int, wt.shape[1])]))
            acts[dst] = out
        return {"seq": seq, "out": acts["fc"]}

    def ref(inputs, torch):
        # Model.forward, op for op, on the same parameters.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def conv(key, t, **kw):
            return F.conv2d(t, w[key + ".w"], w[key + ".b"], **kw)

        def inception(m, t):
            b1 = conv(f"{m}.b1", t)
            b3 = conv(f"{m}.b3", conv(f"{m}.b3r", t), padding=1)
            b5 = conv(f"{m}.b5", conv(f"{m}.b5r", t), padding=2)
            bp = conv(f"{m}.bp", F.max_pool2d(t, 3, stride=1, padding=1))
            return torch.cat([b1, b3, b5, bp], 1)

        x = F.max_pool2d(F.relu(conv("conv1", x, stride=2, padding=3)), 3, stride=2, padding=1)
        x = F.relu(conv("conv2", x))
        x = F.max_pool2d(F.relu(conv("conv3", x, padding=1)), 3, stride=2, padding=1)
        for name, *_ in INCEPTIONS:
            x = inception(f"inception{name}", x)
            if name in POOL_AFTER:
                x = F.max_pool2d(x, 3, stride=2, padding=1)
        x = F.adaptive_avg_pool2d(x, (1, 1))
        x = torch.flatten(x, 1)
        x = F.dropout(x, p=0.0, training=True)
        return F.linear(x, w["fc.w"], w["fc.b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def scaled_inputs(torch, s):
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * T2_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros except about 1% of the entries, which are U[0, 3e4).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < T3_DENSITY
        spikes = torch.rand(shape) * T3_SPIKE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p7_googlenet_inception_v1",
        level=3,
        problem="7_GoogleNetInceptionV1",
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
                scaled_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 35, "width": 29},
                small=True,
                purpose="2 x 3 x 35 x 29: every plane is non-square and leaves a partial 256-thread block or is "
                "smaller than one (conv1 18 x 15 = 270 = 256 + 14 pixels, conv3 9 x 8, inception3 at 5 x 4, "
                "inception4 at 3 x 2, inception5 at 2 x 1, where most taps of the 3x3 and 5x5 windows and of "
                "the pools are padding; the cat grids end in partial blocks), so every guard, padding test, "
                "ceil-division and H/W swap matters; x = 1e4 * U[0,1), as in T2_large_same_sign (see there), so "
                "the two seeds' outputs differ by 7.5x the tolerance (at U[0,1) they would not differ visibly)",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 4},
                purpose="same-sign large magnitude x = 1e4 * U[0,1) at the official 224 x 224 (batch 4): the "
                "convolutions are linear and the pools and ReLUs positively homogeneous, so the input-dependent "
                "part of the output grows with the input scale while the bias-driven part stays; |out| reaches "
                "~1 instead of 0.064 and two seeds' outputs differ by 2.9x the tolerance. TF32 in the "
                "reference's 57 convolutions costs tau* 7.4e-4 (CPU emulation: inputs and weights rounded to "
                "TF32 before each convolution; fp32 alone 3.5e-7); a scale of 1e5 would reach 5.7e-3",
            ),
            K.suite(
                "T3_sparse_spikes",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 96, "width": 80},
                purpose="sparse spikes: exact zeros except 1% of the entries U[0, 3e4), on 4 x 3 x 96 x 80 "
                "(conv1 48 x 40, inception5 at 3 x 3): isolated spikes make max-pool windows won by one tap among "
                "ties at zero and convolution windows in which the spike's position relative to the zero padding "
                "matters, so window offsets, padding bounds and pool strides show; two seeds' outputs differ by "
                "7x the tolerance; TF32 emulated tau* 4.2e-4, fp32 3.3e-7",
            ),
        ],
        notes="Degenerate at the official input (facts section 4: INPUT-INSENSITIVE at 1e-4): there is no activation "
        "inside the inception modules and the default init shrinks the input-dependent part through about 20 "
        "convolution stages, so at x = U[0,1) the output is set by the biases: the five official trial outputs "
        "differ pairwise by at most 3.9e-6 (|out| <= 0.064), 4e-4 of the 1e-2 tolerance (CPU, fp32), and on "
        "T0_original any mutant that keeps the bias path and the shapes intact passes. The targeted suites scale "
        "the input (1e4 or sparse 3e4 spikes) so the input path shows. The reference runs its 57 convolutions in "
        "TF32 on a GPU (emulated on the CPU: tau* 6.6e-6 on T0, up to 7.4e-4 on T2); the kernels are plain fp32. "
        "All Conv2d and Linear layers keep the default init. ReLU (v > 0 ? v : 0) maps NaN to 0 where torch "
        "propagates it, and the max-pools skip NaN; finite inputs are unaffected. Batch, height and width are free "
        "(any H, W >= 1 runs the whole network thanks to the adaptive average pool); tensor offsets and the "
        "cat kernels' flat indices are 64-bit, plane indices (oh * OW + ow, at most 2048 x 2048 with the declared "
        "4096 limit) 32-bit.",
    )
