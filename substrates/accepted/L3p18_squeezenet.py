"""KernelBench level 3, problem 18_SqueezeNet: SqueezeNet 1.0 on x 64 x 3 x 512 x 512, 1000 classes.

Model(1000), in forward order (names as in the SqueezeNet paper; features[i] in brackets):

    conv1     Conv2d(3, 96, 7, stride=2) + ReLU                    [0, 1]    512 -> 253
    maxpool1  MaxPool2d(3, stride=2, ceil_mode=True)                [2]       253 -> 126
    fire2     Fire(96, 16, 64, 64)                                   [3]
    fire3     Fire(128, 16, 64, 64)                                  [4]
    fire4     Fire(128, 32, 128, 128)                                [5]
    maxpool2  MaxPool2d(3, stride=2, ceil_mode=True)                [6]       126 -> 63
    fire5     Fire(256, 32, 128, 128)                                [7]
    fire6     Fire(256, 48, 192, 192)                                [8]
    fire7     Fire(384, 48, 192, 192)                                [9]
    fire8     Fire(384, 64, 256, 256)                                [10]
    maxpool3  MaxPool2d(3, stride=2, ceil_mode=True)                [11]      63 -> 31
    fire9     Fire(512, 64, 256, 256)                                [12]
    conv10    classifier: Dropout(p=0.0) (the identity), Conv2d(512, 1000, 1) + ReLU
    avgpool   AdaptiveAvgPool2d((1, 1)), then torch.flatten (a view)   -> [N, 1000]

    Fire(in, s, e1, e3): sq = relu(squeeze 1x1 in->s); cat([relu(expand1x1 s->e1), relu(expand3x3 s->e3, padding 1)], 1)

A pipeline of 38 kernels, one per layer; every ReLU is fused into its convolution's epilogue. Each
Fire module is four kernels (squeeze, expand1x1, expand3x3, concat): the two expand convolutions
write their own buffers and the concat kernel copies both into the concatenated output, so every
step writes all of its output. The kernel definitions are generated below from one template string
per kind of layer, but each is a distinct, fully written-out __global__ with its own name, so a
mutation belongs to exactly one layer.

Convolutions and pools run one thread per output element on a 3D grid: x covers the output pixels of
one plane (flat index oh * OW + ow, 256-thread blocks), y the channel and z the image. Each conv
thread loops over the input channels (and the window, with explicit zero-padding guards for the 3x3
expands) and accumulates in fp32. The ceil-mode max-pools clip their last window at the bottom and
right edge when the input size is even (126 -> 63: the last window covers rows 124..126, and row 126
does not exist), so the window guard is live. The concat kernel and the average pool run over flat
indices (64-bit for the concat: the official fire outputs have up to 130M elements).

Cost: 286.6 G multiply-adds (573 GFLOP) for the official batch of 64, three quarters of it in the 3x3
expands (154 G) and conv1 (58 G), plus a few GB of activation traffic (each fire's expand outputs
are written, then read and written again as the concatenation; conv1's output alone is 1.57 GB), a
few milliseconds at H200 bandwidth. At the 1-3 TFLOP/s a naive direct convolution reaches on an
H200, about 0.2-0.6 s per forward.
"""

_CONV_RELU_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
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

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}
"""

_CONV1X1_RELU_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
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
        acc += x[((long long)n * C_in + ci) * HW + p] * w[(long long)co * C_in + ci];
    }
    float v = acc + b[co];
    out[((long long)n * C_out + co) * HW + p] = v > 0.0f ? v : 0.0f;
}
"""

_CONCAT_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ e1,   // [N, C1, H, W]  (@INPUT@ expand1x1 output)
    const float* __restrict__ e3,   // [N, C2, H, W]  (@INPUT@ expand3x3 output)
    float* __restrict__ out,        // [N, C1 + C2, H, W]
    int N, int C1, int C2, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int C = C1 + C2;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int p = (int)(i % HW);
    int c = (int)((i / HW) % C);
    int n = (int)(i / ((long long)HW * C));

    float v;
    if (c < C1) {
        v = e1[((long long)n * C1 + c) * HW + p];
    } else {
        v = e3[((long long)n * C2 + (c - C1)) * HW + p];
    }
    out[i] = v;
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
    const int POOL_S = 2;                               // stride=2, no padding
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // ceil_mode=True: the last window may run past the bottom or right edge; it is clipped.
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        int ih = oh * POOL_S + kh;
        if (ih >= H) continue;
        for (int kw = 0; kw < POOL_K; ++kw) {
            int iw = ow * POOL_S + kw;
            if (iw >= W) continue;
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
    float* __restrict__ out,        // [N, C]  (the network output after torch.flatten)
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

BLOCK = 256             # threads per block in every kernel
IN_CHANNELS = 3
CONV1 = (96, 7, 2)      # conv1: out channels, kernel_size, stride (no padding)
PAD3 = 1                # expand3x3: padding=1, stride 1
POOL_K, POOL_S = 3, 2   # every MaxPool2d(kernel_size=3, stride=2, ceil_mode=True); must equal the CUDA constants
NUM_CLASSES = 1000      # get_init_inputs() = [1000]
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the conv and pool kernels
LARGE_SCALE = 5.0e5     # T1/T2: x = U[0, 5e5)
SPIKE_FRACTION = 0.01   # T3: about 1% of the input values are spikes
SPIKE_SCALE = 2.5e6     # T3: spikes are U[0, 2.5e6)

# features in forward order: ("conv1",), ("pool", name), ("fire", name, in, squeeze, e1, e3)
FEATURES = [
    ("conv1",),
    ("pool", "maxpool1"),
    ("fire", "fire2", 96, 16, 64, 64),
    ("fire", "fire3", 128, 16, 64, 64),
    ("fire", "fire4", 128, 32, 128, 128),
    ("pool", "maxpool2"),
    ("fire", "fire5", 256, 32, 128, 128),
    ("fire", "fire6", 256, 48, 192, 192),
    ("fire", "fire7", 384, 48, 192, 192),
    ("fire", "fire8", 384, 64, 256, 256),
    ("pool", "maxpool3"),
    ("fire", "fire9", 512, 64, 256, 256),
]


def _layers():
    """(template, kernel name, description, input description) in pipeline order."""
    out = []
    prev = "x"
    for f in FEATURES:
        if f[0] == "conv1":
            out.append((_CONV_RELU_TEMPLATE, "squeezenet_conv1_relu_kernel",
                        "conv1 (features[0..1]): Conv2d(3, 96, kernel_size=7, stride=2) + ReLU", prev))
            prev = "conv1 output"
        elif f[0] == "pool":
            out.append((_MAXPOOL_TEMPLATE, f"squeezenet_{f[1]}_kernel",
                        f"{f[1]}: MaxPool2d(kernel_size=3, stride=2, ceil_mode=True)", prev))
            prev = f"{f[1]} output"
        else:
            _, name, cin, sq, e1, e3 = f
            pre = f"squeezenet_{name}_"
            out += [
                (_CONV1X1_RELU_TEMPLATE, pre + "squeeze_relu_kernel",
                 f"{name}.squeeze: Conv2d({cin}, {sq}, kernel_size=1) + ReLU", prev),
                (_CONV1X1_RELU_TEMPLATE, pre + "expand1x1_relu_kernel",
                 f"{name}.expand1x1: Conv2d({sq}, {e1}, kernel_size=1) + ReLU", f"{name} squeeze output"),
                (_CONV_RELU_TEMPLATE, pre + "expand3x3_relu_kernel",
                 f"{name}.expand3x3: Conv2d({sq}, {e3}, kernel_size=3, padding=1) + ReLU", f"{name} squeeze output"),
                (_CONCAT_TEMPLATE, pre + "concat_kernel",
                 f"{name}: torch.cat([expand1x1, expand3x3], 1) -> {e1 + e3} channels", name),
            ]
            prev = f"{name} output"
    out += [
        (_CONV1X1_RELU_TEMPLATE, "squeezenet_conv10_relu_kernel",
         "conv10 (classifier[1..2], after the identity Dropout(p=0.0)): Conv2d(512, 1000, kernel_size=1) + ReLU",
         prev),
        (_AVGPOOL_TEMPLATE, "squeezenet_avgpool_kernel", "classifier[3]: AdaptiveAvgPool2d((1, 1))", "conv10 output"),
    ]
    return out


CUDA = "".join(
    t.replace("@NAME@", n).replace("@DESC@", d).replace("@INPUT@", i) for t, n, d, i in _layers()
)
KERNELS = [n for _, n, _, _ in _layers()]


def _pool_out(h):
    # PyTorch's ceil-mode output size without padding: ceil((h - k) / s) + 1, minus one if the last
    # window would start at or past the end of the input.
    o = (h - POOL_K + POOL_S - 1) // POOL_S + 1
    if (o - 1) * POOL_S >= h:
        o -= 1
    return o


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1000): conv1, then each FireModule's squeeze, expand1x1, expand3x3, then the
        # classifier's Conv2d(512, 1000, 1). ReLU, MaxPool2d, Dropout and the pool draw nothing.
        nn = torch.nn
        conv1 = nn.Conv2d(IN_CHANNELS, CONV1[0], kernel_size=CONV1[1], stride=CONV1[2])
        params = {"conv1_w": conv1.weight, "conv1_b": conv1.bias}
        for f in FEATURES:
            if f[0] != "fire":
                continue
            _, name, cin, sq, e1, e3 = f
            squeeze = nn.Conv2d(cin, sq, kernel_size=1)
            expand1x1 = nn.Conv2d(sq, e1, kernel_size=1)
            expand3x3 = nn.Conv2d(sq, e3, kernel_size=3, padding=PAD3)
            params[name] = {
                "sq_w": squeeze.weight, "sq_b": squeeze.bias,
                "e1_w": expand1x1.weight, "e1_b": expand1x1.bias,
                "e3_w": expand3x3.weight, "e3_b": expand3x3.bias,
            }
        conv10 = nn.Conv2d(512, NUM_CLASSES, kernel_size=1)
        params["conv10_w"] = conv10.weight
        params["conv10_b"] = conv10.bias
        return params

    W = K.weights(build)

    def conv_step(name, x, w, b, stride, pad):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = (H + 2 * pad - KH) // stride + 1
        OW = (W_in + 2 * pad - KW) // stride + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, b, out],
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

    def conv1x1_step(name, x, w, b):
        N, C_in, H, W_in = x.shape
        C_out = w.shape[0]
        HW = H * W_in
        out = torch.empty((N, C_out, H, W_in), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(HW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, b, out],
            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, HW), (ctypes.c_int, C_out)],
        )
        return step, out

    def concat_step(name, e1, e3):
        N, C1, H, W_in = e1.shape
        C2 = e3.shape[1]
        out = torch.empty((N, C1 + C2, H, W_in), device=e1.device, dtype=e1.dtype)
        step = (
            name,
            (K.cdiv(N * (C1 + C2) * H * W_in, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [e1, e3, out],
            [(ctypes.c_int, N), (ctypes.c_int, C1), (ctypes.c_int, C2), (ctypes.c_int, H * W_in)],
        )
        return step, out

    def pool_step(name, x):
        N, C, H, W_in = x.shape
        OH = _pool_out(H)
        OW = _pool_out(W_in)
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

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        seq = []

        def add(step_and_out):
            step, out = step_and_out
            seq.append(step)
            return out

        h = x
        for f in FEATURES:
            if f[0] == "conv1":
                h = add(conv_step("squeezenet_conv1_relu_kernel", h, w["conv1_w"], w["conv1_b"], CONV1[2], 0))
            elif f[0] == "pool":
                h = add(pool_step(f"squeezenet_{f[1]}_kernel", h))
            else:
                name = f[1]
                p = w[name]
                pre = f"squeezenet_{name}_"
                sq = add(conv1x1_step(pre + "squeeze_relu_kernel", h, p["sq_w"], p["sq_b"]))
                e1 = add(conv1x1_step(pre + "expand1x1_relu_kernel", sq, p["e1_w"], p["e1_b"]))
                e3 = add(conv_step(pre + "expand3x3_relu_kernel", sq, p["e3_w"], p["e3_b"], 1, PAD3))
                h = add(concat_step(pre + "concat_kernel", e1, e3))
        h = add(conv1x1_step("squeezenet_conv10_relu_kernel", h, w["conv10_w"], w["conv10_b"]))
        out = add(avgpool_step("squeezenet_avgpool_kernel", h))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        for f in FEATURES:
            if f[0] == "conv1":
                x = F.relu(F.conv2d(x, w["conv1_w"], w["conv1_b"], stride=CONV1[2]))
            elif f[0] == "pool":
                x = F.max_pool2d(x, kernel_size=POOL_K, stride=POOL_S, ceil_mode=True)
            else:
                p = w[f[1]]
                s = F.relu(F.conv2d(x, p["sq_w"], p["sq_b"]))
                x = torch.cat([
                    F.relu(F.conv2d(s, p["e1_w"], p["e1_b"])),
                    F.relu(F.conv2d(s, p["e3_w"], p["e3_b"], padding=PAD3)),
                ], 1)
        x = F.dropout(x, p=0.0, training=True)
        x = F.relu(F.conv2d(x, w["conv10_w"], w["conv10_b"]))
        x = F.adaptive_avg_pool2d(x, (1, 1))
        return torch.flatten(x, 1)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same sign, U[0, 5e5): see T2_large_same_sign.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * LARGE_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the values set to U[0, 2.5e6).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p18_squeezenet",
        level=3,
        problem="18_SqueezeNet",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(64, max=MAX_GRID_Z),
            "height": K.dim(512, min=29),
            "width": K.dim(512, min=29),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                large_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 40, "width": 45},
                small=True,
                purpose="2 x 3 x 40 x 45 at U[0,5e5) (the scale of T2_large_same_sign, see there): rows 40 -> 17 -> 8 "
                "-> 4 -> 2 and columns 45 -> 20 -> 10 -> 5 -> 2, so the ceil-mode pools clip their last window "
                "on the even inputs (8, 4, 20, 10: the window 6..8 of an 8-row input has no row 8) and the "
                "window guards matter, H != W catches swapped extents, every plane (340, 80, 20, 4 pixels) "
                "ends in a partial 256-thread block and the concat's flat index a partial block; the logits of "
                "the 2 images differ by up to 2.1e-2 (|out| up to 0.36); emulated TF32 tau* against fp64 "
                "2.5e-4 (round-to-nearest) and 3.0e-3 (truncation)",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 29, "width": 33},
                purpose="same-sign U[0,5e5) inputs on the smallest images the three pools admit (29 x 33 -> fire9 "
                "at 1 x 1). With the default init every conv/ReLU layer shrinks the input-dependent part of the "
                "activations, so at the official U[0,1) scale the logits of different images differ by about "
                "2.5e-9 (CPU, 2 images at 512 x 512) and T0 checks only the input-independent part; the "
                "input-dependent part grows about linearly with the scale and shrinks with the image (the "
                "final average pool smooths it), so x5e5 on 29 x 33 images makes the logits of 4 images "
                "differ by up to 2.7e-2 (|out| up to 0.31) and faults in the feature layers reach the output. "
                "A CPU emulation of the reference's TF32 convolutions (operands rounded to 10 mantissa bits at "
                "every conv, fp64 accumulation) gave tau* against the exact result of 2.9e-4 (round-to-nearest) "
                "and 2.6e-3 (truncation, whose downward bias compounds over 26 convolutions of positive "
                "activations; x1e6 gave 4.8e-3, x1e7 1.2e-2), so a correct fp32 pipeline and the fp32 "
                "reference stay inside 1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "height": 48, "width": 41},
                purpose="about 1% of the input values are U[0,2.5e6) spikes on exact zeros: about 23% of the conv1 "
                "outputs (those whose 7x7x3 window holds no spike) are exactly relu(bias), so their max-pool "
                "windows hold exact ties, and each non-trivial conv1 output depends on a few specific taps "
                "(kh/kw swaps, transposed weights, stride faults show); 48 x 41 -> 21 x 18 -> 10 x 9 -> 5 x 4 "
                "-> 2 x 2; the logits of 3 images differ by up to 2.6e-2 (|out| up to 0.28) at an emulated "
                "TF32 tau* of 1.3e-4 (round-to-nearest) and 2.4e-3 (truncation)",
            ),
        ],
        notes="Degenerate at the official inputs (facts: INPUT-INSENSITIVE at 1e-4): with the default "
        "(kaiming-uniform, a=sqrt(5)) init the 26 convolutions attenuate the input-dependent signal so much "
        "that the logits of two U[0,1) 512 x 512 images differ by about 2.5e-9 (|out| <= 0.1); a CPU emulation "
        "puts the reference's own TF32 error (2e-5 round-to-nearest, 5e-5 truncation) four orders of "
        "magnitude above that, so T0_original tests only the input-independent part (biases through the "
        "network) and faults that blow up or produce NaN; the targeted suites use large same-sign or spiky "
        "inputs on small images so that the feature layers' values reach the logits, and even there a "
        "fault must move the input-dependent part by a good fraction to cross the tolerance. The reference's "
        "convolutions run through cuDNN with TF32 (torch's default). Dropout(p=0.0) is the identity and "
        "flatten a view, so neither has a kernel. Height and width are declared >= 29 so that every ceil-mode "
        "pool sees at least its 3-wide window (29 -> 12 -> 6 -> 3 -> 1). ReLU (v > 0 ? v : 0) and the "
        "max-pool comparison (v > m) drop NaN where torch propagates it; finite inputs are unaffected. "
        "Memory: the largest official activation is the conv1 output, 64 x 96 x 253 x 253 (1.57 GB).",
    )
