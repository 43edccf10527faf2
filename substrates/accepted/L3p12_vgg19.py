"""KernelBench level 3, problem 12_VGG19: VGG-19 on a 10 x 3 x 224 x 224 batch, 1000 classes.

A pipeline of 24 kernels, one per layer:

    block 1: conv1_1 3->64, conv1_2 64->64 (3x3, padding 1, + ReLU), pool1            224 -> 112
    block 2: conv2_1 64->128, conv2_2 128->128, pool2                                 112 -> 56
    block 3: conv3_1 128->256, conv3_2, conv3_3, conv3_4 256->256, pool3              56 -> 28
    block 4: conv4_1 256->512, conv4_2, conv4_3, conv4_4 512->512, pool4              28 -> 14
    block 5: conv5_1, conv5_2, conv5_3, conv5_4 512->512, pool5                       14 -> 7
    (torch.flatten(x, 1) is a view: fc1 reads the contiguous pool5 buffer [N,512,7,7] as [N,25088])
    fc1 25088->4096 + ReLU, fc2 4096->4096 + ReLU, fc3 4096->1000

Dropout(p=0.0) after fc1 and fc2 is the identity even in training mode (ATen returns its input
unchanged for p == 0 and draws no random numbers), so it has no kernel. Every ReLU is fused into the
epilogue of the layer before it, every max-pool (2x2, stride 2) is its own kernel. The kernel
definitions are generated below from one template string per kind of layer, but each is a distinct,
fully written-out __global__ with its own name, so a mutation belongs to exactly one layer.

Convolutions and pools run one thread per output element on a 3D grid: x covers the output pixels
of one plane (flat index oh * OW + ow, 256-thread blocks), y the channel and z the image, so the
planes of 56x56, 28x28, 14x14 and 7x7 leave a partial last block. Each conv thread loops over the
input channels and the 3x3 window with explicit zero-padding guards, accumulating in fp32. The three
classifier layers are plain 16 x 16 shared-memory tiled GEMMs as in L3p1_mlp (guarded, zero-filled
tile loads, a barrier after the loads and another after the multiply-accumulate); a batch of 10
fills 10 of the 16 rows of the only row tile, and fc3's 1000 outputs leave a partial column tile.

Only the batch is resizable: the 224 x 224 input size is fixed by fc1's 25088 = 512 x 7 x 7 inputs.

Cost: the convolutions are 19.5 G multiply-adds per image (39.0 GFLOP), 390 GFLOP for the official
batch of 10; the classifier is 0.12 G multiply-adds per image plus a single pass over its 411 MB of
fc1 weights. The same naive direct convolution as in L3p11_vgg16 (307 GFLOP) sustains a few fp32
TFLOP/s on an H200, so the expected forward is about 0.15-0.4 s, the classifier a few ms of it.
"""

_CONV_RELU_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
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

_POOL_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, H, W]  (@INPUT@)
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;                               // kernel_size=2
    const int POOL_S = 2;                               // stride=2
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // Floor mode: OH = (H - POOL_K) / POOL_S + 1, so every window lies inside the input.
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = m;
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
    int col = blockIdx.x * TILE + tx;   // output column (out feature)
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
@EPILOGUE@
    }
}
"""

_RELU_EPILOGUE = """        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;"""

_LINEAR_EPILOGUE = """        out[(long long)row * N + col] = acc + b[col];"""

_PRELUDE = r"""
const int TILE = 16;    // classifier GEMMs: blocks are TILE x TILE threads, K is consumed TILE at a time
"""

# features, in order: ("conv", name, C_in, C_out) or ("pool", name); index = position in features
FEATURES = [
    ("conv", "conv1_1", 3, 64),
    ("conv", "conv1_2", 64, 64),
    ("pool", "pool1"),
    ("conv", "conv2_1", 64, 128),
    ("conv", "conv2_2", 128, 128),
    ("pool", "pool2"),
    ("conv", "conv3_1", 128, 256),
    ("conv", "conv3_2", 256, 256),
    ("conv", "conv3_3", 256, 256),
    ("conv", "conv3_4", 256, 256),
    ("pool", "pool3"),
    ("conv", "conv4_1", 256, 512),
    ("conv", "conv4_2", 512, 512),
    ("conv", "conv4_3", 512, 512),
    ("conv", "conv4_4", 512, 512),
    ("pool", "pool4"),
    ("conv", "conv5_1", 512, 512),
    ("conv", "conv5_2", 512, 512),
    ("conv", "conv5_3", 512, 512),
    ("conv", "conv5_4", 512, 512),
    ("pool", "pool5"),
]
# classifier: (name, in, out, relu)
CLASSIFIER = [
    ("fc1", 512 * 7 * 7, 4096, True),
    ("fc2", 4096, 4096, True),
    ("fc3", 4096, 1000, False),
]

BLOCK = 256            # conv and pool kernels: threads per block along the output pixels of a plane
TILE = 16              # classifier GEMMs: must equal TILE in the CUDA source
PAD = 1                # every conv: kernel_size=3, padding=1, stride 1 (must equal PAD in the kernels)
POOL_K = 2             # every MaxPool2d(kernel_size=2, stride=2)
POOL_S = 2
IN_CHANNELS = 3
IMAGE = 224            # fixed: fc1 takes 512 * 7 * 7 = 25088 features
NUM_CLASSES = 1000     # get_init_inputs() = [1000]
MAX_GRID_YZ = 65535    # the batch runs along gridDim.z of the conv and pool kernels
LARGE_SCALE = 2.0e6    # T1/T2: x = U[0, 2e6)
SPIKE_FRACTION = 0.01  # T3: about 1% of the input values are spikes
SPIKE_SCALE = 5.0e6    # T3: spikes are U[0, 5e6)


def _kernel_name(layer):
    if layer[0] == "conv":
        return f"vgg19_{layer[1]}_relu_kernel"
    if layer[0] == "pool":
        return f"vgg19_{layer[1]}_kernel"
    return f"vgg19_{layer[0]}_relu_kernel" if layer[3] else f"vgg19_{layer[0]}_kernel"


def _make_cuda():
    parts = [_PRELUDE]
    prev = "x"
    for idx, layer in enumerate(FEATURES):
        if layer[0] == "conv":
            desc = (f"features[{idx}..{idx + 1}] {layer[1]}: Conv2d({layer[2]}, {layer[3]}, kernel_size=3, "
                    f"padding=1) + ReLU")
            template = _CONV_RELU_TEMPLATE
        else:
            desc = f"features[{idx}] {layer[1]}: MaxPool2d(kernel_size=2, stride=2)"
            template = _POOL_TEMPLATE
        parts.append(template.replace("@NAME@", _kernel_name(layer)).replace("@DESC@", desc).replace("@INPUT@", prev))
        prev = f"{layer[1]} output"
    prev = "pool5 output, flattened"
    for j, (name, fin, fout, relu) in enumerate(CLASSIFIER):
        desc = f"classifier[{3 * j}] {name}: Linear({fin}, {fout})" + (
            " + ReLU (the Dropout(p=0.0) after it is the identity)" if relu else ", no activation")
        parts.append(
            _FC_TEMPLATE.replace("@NAME@", _kernel_name((name, fin, fout, relu)))
            .replace("@DESC@", desc)
            .replace("@INPUT@", prev)
            .replace("@EPILOGUE@", _RELU_EPILOGUE if relu else _LINEAR_EPILOGUE)
        )
        prev = f"{name} output"
    return "".join(parts)


CUDA = _make_cuda()
KERNELS = [_kernel_name(layer) for layer in FEATURES] + [_kernel_name(layer) for layer in CLASSIFIER]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(num_classes=1000): 16 Conv2d(k=3, padding=1) in `features`, then three
        # Linear in `classifier`. ReLU, MaxPool2d and Dropout draw nothing, so building the
        # parameterised layers in the same order gives the same parameters.
        nn = torch.nn
        convs = [nn.Conv2d(layer[2], layer[3], kernel_size=3, padding=PAD) for layer in FEATURES if layer[0] == "conv"]
        fcs = [nn.Linear(fin, fout) for _, fin, fout, _ in CLASSIFIER]
        return {
            "conv_w": [c.weight for c in convs],
            "conv_b": [c.bias for c in convs],
            "fc_w": [l.weight for l in fcs],
            "fc_b": [l.bias for l in fcs],
        }

    W = K.weights(build)

    def conv_step(name, x, w, b):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = H + 2 * PAD - KH + 1
        OW = W_in + 2 * PAD - KW + 1
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
            ],
        )
        return step, out

    def pool_step(name, x):
        N, C, H, W_in = x.shape
        OH = (H - POOL_K) // POOL_S + 1
        OW = (W_in - POOL_K) // POOL_S + 1
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

    def fc_step(name, x, w, b):
        # x is [M, K] or the contiguous [M, 512, 7, 7] pool5 buffer, read as [M, 25088].
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
        h = x
        i = 0
        for layer in FEATURES:
            if layer[0] == "conv":
                step, h = conv_step(_kernel_name(layer), h, w["conv_w"][i], w["conv_b"][i])
                i += 1
            else:
                step, h = pool_step(_kernel_name(layer), h)
            seq.append(step)
        # torch.flatten(x, 1): no kernel, fc1 reads the pool5 buffer as [N, 25088].
        for j, layer in enumerate(CLASSIFIER):
            step, h = fc_step(_kernel_name(layer), h, w["fc_w"][j], w["fc_b"][j])
            seq.append(step)
        return {"seq": seq, "out": h}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        i = 0
        for layer in FEATURES:
            if layer[0] == "conv":
                x = F.relu(F.conv2d(x, w["conv_w"][i], w["conv_b"][i], padding=PAD))
                i += 1
            else:
                x = F.max_pool2d(x, kernel_size=POOL_K, stride=POOL_S)
        x = torch.flatten(x, 1)
        x = F.relu(F.linear(x, w["fc_w"][0], w["fc_b"][0]))
        x = F.dropout(x, p=0.0, training=True)
        x = F.relu(F.linear(x, w["fc_w"][1], w["fc_b"][1]))
        x = F.dropout(x, p=0.0, training=True)
        return F.linear(x, w["fc_w"][2], w["fc_b"][2])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, 224, 224)]
        return [torch.rand(s["batch"], IN_CHANNELS, IMAGE, IMAGE)]

    def large_inputs(torch, s):
        # Same sign, U[0, 2e6): see T2_large_same_sign.
        return [torch.rand(s["batch"], IN_CHANNELS, IMAGE, IMAGE) * LARGE_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the values set to U[0, 5e6).
        shape = (s["batch"], IN_CHANNELS, IMAGE, IMAGE)
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p12_vgg19",
        level=3,
        problem="12_VGG19",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(10, max=MAX_GRID_YZ)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                large_inputs,
                seeds=[1, 2],
                sizes={"batch": 1},
                small=True,
                purpose="batch 1, the smallest possible (the 224 x 224 image is fixed by fc1), so the CPU "
                "reference stays near a second: the classifier's row tile holds one live row and 15 dead "
                "ones, so the row guards on the GEMM loads and stores matter; the 56x56, 28x28, 14x14 and "
                "7x7 planes leave partial last blocks (3136 = 12 x 256 + 64, 784 = 3 x 256 + 16, 196 and "
                "49 < 256) in the conv and pool kernels; inputs are U[0,2e6) as in T2_large_same_sign (see "
                "there) so that this CPU suite also sees value faults in the feature layers, which the "
                "input-independent logits of U[0,1) inputs hide",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 17},
                purpose="same-sign U[0,2e6) inputs. With the default init every conv/ReLU layer shrinks the "
                "input-dependent part of the activations, so at the official U[0,1) scale the logits of "
                "different images differ by at most 1.3e-8 (CPU, 3 images) and T0 mostly checks the "
                "classifier; the input-dependent part grows about linearly with the scale (8.8e-4 at x1e5, "
                "7.6e-3 at x1e6), and x2e6 makes the logits of 2 images differ by up to 1.6e-2 (|out| up to "
                "0.35), so faults in the feature layers reach the output. x1e5, enough for VGG16, is not "
                "enough here. A CPU emulation of the reference's TF32 convolutions (operands rounded to 10 "
                "mantissa bits at every conv, fp64 accumulation) gave tau* against the exact result of 4.1e-4 "
                "(round-to-nearest) and 2.8e-3 (truncation) at x2e6 (2 images), so a correct fp32 pipeline and "
                "the fp32 reference stay inside 1e-2; batch 17 = 16 + 1 gives the classifier a second row "
                "tile with one live row",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 5},
                purpose="about 1% of the input values are U[0,5e6) spikes on exact zeros: conv1_1 outputs are "
                "relu(bias) wherever the 3x3x3 window holds no spike (about 76% of them), so max-pool windows "
                "hold exact ties, and each non-trivial conv1_1 output depends on one or two specific taps "
                "(kh/kw swaps, transposed weights, padding-offset faults show); spikes of U[0,5e6) make the logits of "
                "2 images differ by up to 1.7e-2 at an emulated TF32 tau* of 1.9e-4 (round-to-nearest) and "
                "1.8e-3 (truncation); batch 5",
            ),
        ],
        small_limit_s=3.0,
        notes="The small suite cannot be small: the classifier fixes the input at 3x224x224, so one image "
        "(batch 1) is the least a forward pass can do, about 19.6 G multiply-adds, about a second on a 2-core "
        "CPU. Degenerate at the official inputs (facts: INPUT-INSENSITIVE at 1e-4): with the default "
        "(kaiming-uniform, a=sqrt(5)) init the 16 conv layers attenuate the input-dependent signal so much "
        "that the logits of different U[0,1) images differ by about 1e-8 (|out| <= 0.03), far inside the tolerance: T0_original "
        "is input-insensitive, a fault in the feature layers reaches its output only if it produces huge "
        "values or NaN, and only the large and spiky suites test the feature layers' values. The reference's "
        "convolutions run through cuDNN with TF32 (torch's default); the classifier is full fp32. Flatten "
        "is a view and Dropout(p=0.0) is the identity, so neither has a kernel. ReLU (v > 0 ? v : 0) and the "
        "max-pool comparison (v > m) drop NaN where torch propagates it; finite inputs are unaffected. Every "
        "feature size is fixed; the classifier's K (25088, 4096) is a multiple of the 16-wide tile, so its "
        "k < K guards never fire, while fc3's 1000 columns leave a partial column tile. 143.7M fp32 "
        "parameters (575 MB; 1.15 GB more for the fp64 reference copy).",
    )
