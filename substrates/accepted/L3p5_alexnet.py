"""KernelBench level 3, problem 5_AlexNet: AlexNet (single-tower, 96/256/384/384/256 channels) on a
1024 x 3 x 224 x 224 batch, 1000 classes.

A pipeline of 11 kernels, one per layer, in forward order:

    conv1 Conv2d(3, 96, 11, stride 4, padding 2) + ReLU       224 -> 55
    maxpool1 MaxPool2d(3, stride 2)                           55 -> 27
    conv2 Conv2d(96, 256, 5, padding 2) + ReLU                27
    maxpool2 MaxPool2d(3, stride 2)                           27 -> 13
    conv3 Conv2d(256, 384, 3, padding 1) + ReLU               13
    conv4 Conv2d(384, 384, 3, padding 1) + ReLU               13
    conv5 Conv2d(384, 256, 3, padding 1) + ReLU               13
    maxpool3 MaxPool2d(3, stride 2)                           13 -> 6
    (torch.flatten(x, 1) is a view: fc1 reads the contiguous [N,256,6,6] buffer as [N,9216])
    fc1 Linear(9216, 4096) + ReLU, fc2 Linear(4096, 4096) + ReLU, fc3 Linear(4096, 1000)

Dropout(p=0.0) after fc1 and fc2 is the identity even in training mode (ATen returns its input
unchanged for p == 0 and draws no random numbers), so it has no kernel. Every ReLU is fused into the
epilogue of the layer before it. The kernel definitions are generated below from one template string
per kind of layer, but each is a distinct, fully written-out __global__ with its own name, so a
mutation belongs to exactly one layer.

The official batch makes this the heaviest network of level 3 (2.2 TFLOP of convolutions), so the
convolutions are tiled: each is an implicit GEMM, out[m, co] = sum_k patch[m, k] * w[co, k] with
m = (n, oh, ow) over the output pixels and k = (ci, kh, kw) over the window, computed by 256-thread
blocks that each own a 64-pixel x 64-channel output tile. For every 16-wide slice of k the block
gathers the 16 x 64 input patch values (zero where the window leaves the image, the explicit padding
guard) and the 16 x 64 weight values into shared memory, synchronises, lets each thread accumulate
its 4 pixels x 4 channels in fp32 registers, and synchronises again before the next slice. The
epilogue adds the bias, applies the ReLU and scatters the tile back to NCHW, guarding the partial
pixel and channel tiles (conv1's 96 channels fill one and a half channel tiles; conv1's k = 363 ends
in a partial slice of 11). Max-pools run one thread per output element on a 3D grid (pixels of one
plane, channel, image); the three classifier layers are plain 16 x 16 shared-memory tiled GEMMs as in
L3p1_mlp.

Cost on the official input: 1.10 T multiply-adds in the convolutions (conv2 0.46 T, conv4 0.23 T,
conv3 and conv5 0.15 T each, conv1 0.11 T) and 60 G in the classifier, 2.3 TFLOP in all, plus about
2.5 GB of activations (conv1's output alone is 1.19 GB). A 4 x 4 register-tiled fp32 implicit GEMM of
this kind runs at roughly 5-10 TFLOP/s on an H200, the 16 x 16 classifier GEMMs at 3-6 TFLOP/s, so
one forward should take about 0.25-0.5 s.
"""
_CONV_RELU_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW], read as [C_out, C_in * KH * KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
{
    // Implicit GEMM: out[m, co] = sum_k patch[m, k] * w[co, k], m = (n, oh, ow), k = (ci, kh, kw).
    __shared__ float patch_tile[CONV_TK][CONV_TM];      // patch_tile[kk][mm] = patch[m0 + mm, k0 + kk]
    __shared__ float w_tile[CONV_TK][CONV_TN + 1];      // w_tile[kk][cc] = w[c0 + cc, k0 + kk] (+1: no bank conflicts)

    int tx = threadIdx.x;                   // pixel lane: this thread's pixels are tx, tx + 16, tx + 32, tx + 48
    int ty = threadIdx.y;                   // channel lane: its channels are ty, ty + 16, ty + 32, ty + 48
    int tid = ty * CONV_LANES + tx;         // 0 .. CONV_THREADS - 1
    int m0 = blockIdx.x * CONV_TM;          // first output pixel of the tile
    int c0 = blockIdx.y * CONV_TN;          // first output channel of the tile
    int plane = OH * OW;
    int M = N * plane;                      // output pixels over the whole batch
    int window = KH * KW;
    int Kdim = C_in * window;               // reduction length

    // The patch values this thread loads always belong to the same pixel (CONV_THREADS is a multiple
    // of CONV_TM), so its coordinates are decoded once: pixel load_mm of the tile, rows kk = load_k0,
    // load_k0 + CONV_K_STEP, ... of each slice.
    int load_mm = tid % CONV_TM;
    int load_k0 = tid / CONV_TM;
    int load_m = m0 + load_mm;
    bool load_live = load_m < M;
    int load_n = load_live ? load_m / plane : 0;
    int load_p = load_live ? load_m % plane : 0;
    int ih0 = (load_p / OW) * stride - pad;     // top-left input tap of this pixel's window
    int iw0 = (load_p % OW) * stride - pad;
    const float* x_img = x + (long long)load_n * C_in * H * W;

    // The weight values this thread loads: column w_kk of each slice, channels w_c0, w_c0 + CONV_C_STEP, ...
    int w_kk = tid % CONV_TK;
    int w_c0 = tid / CONV_TK;

    float acc[CONV_RM][CONV_RN];
    for (int i = 0; i < CONV_RM; ++i) {
        for (int j = 0; j < CONV_RN; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    int num_tiles = (Kdim + CONV_TK - 1) / CONV_TK;
    for (int t = 0; t < num_tiles; ++t) {
        int k0 = t * CONV_TK;
        for (int kk = load_k0; kk < CONV_TK; kk += CONV_K_STEP) {
            int k = k0 + kk;
            float v = 0.0f;
            if (load_live && k < Kdim) {
                int ci = k / window;
                int r = k % window;
                int ih = ih0 + r / KW;
                int iw = iw0 + r % KW;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W) {   // zero padding outside the image
                    v = x_img[((long long)ci * H + ih) * W + iw];
                }
            }
            patch_tile[kk][load_mm] = v;
        }
        for (int cc = w_c0; cc < CONV_TN; cc += CONV_C_STEP) {
            int co = c0 + cc;
            int k = k0 + w_kk;
            float v = 0.0f;
            if (co < C_out && k < Kdim) {
                v = w[(long long)co * Kdim + k];
            }
            w_tile[w_kk][cc] = v;
        }
        __syncthreads();    // both tiles are complete

        for (int kk = 0; kk < CONV_TK; ++kk) {
            float a[CONV_RM];
            float wv[CONV_RN];
            for (int i = 0; i < CONV_RM; ++i) {
                a[i] = patch_tile[kk][tx + i * CONV_LANES];
            }
            for (int j = 0; j < CONV_RN; ++j) {
                wv[j] = w_tile[kk][ty + j * CONV_LANES];
            }
            for (int i = 0; i < CONV_RM; ++i) {
                for (int j = 0; j < CONV_RN; ++j) {
                    acc[i][j] += a[i] * wv[j];
                }
            }
        }
        __syncthreads();    // every thread is done reading before the next slice is loaded
    }

    // Epilogue: bias and ReLU, back to NCHW.
    for (int i = 0; i < CONV_RM; ++i) {
        int m = m0 + tx + i * CONV_LANES;
        if (m >= M) continue;
        int n = m / plane;
        int p = m % plane;
        for (int j = 0; j < CONV_RN; ++j) {
            int co = c0 + ty + j * CONV_LANES;
            if (co >= C_out) continue;
            float v = acc[i][j] + b[co];
            out[((long long)n * C_out + co) * plane + p] = v > 0.0f ? v : 0.0f;
        }
    }
}
"""

_POOL_TEMPLATE = r"""
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
const int CONV_TM = 64;                         // output pixels per conv block tile
const int CONV_TN = 64;                         // output channels per conv block tile
const int CONV_TK = 16;                         // reduction slice: k values staged per phase
const int CONV_LANES = 16;                      // conv blocks are CONV_LANES x CONV_LANES threads
const int CONV_THREADS = CONV_LANES * CONV_LANES;
const int CONV_RM = CONV_TM / CONV_LANES;       // pixels per thread (4)
const int CONV_RN = CONV_TN / CONV_LANES;       // channels per thread (4)
const int CONV_K_STEP = CONV_THREADS / CONV_TM; // patch rows one pass of the block loads (4)
const int CONV_C_STEP = CONV_THREADS / CONV_TK; // weight rows one pass of the block loads (16)
const int TILE = 16;                            // classifier GEMMs: TILE x TILE threads, K consumed TILE at a time
"""

# layers in forward order: ("conv", name, C_in, C_out, k, stride, pad) / ("pool", name) / ("fc", name, in, out, relu)
LAYERS = [
    ("conv", "conv1", 3, 96, 11, 4, 2),
    ("pool", "maxpool1"),
    ("conv", "conv2", 96, 256, 5, 1, 2),
    ("pool", "maxpool2"),
    ("conv", "conv3", 256, 384, 3, 1, 1),
    ("conv", "conv4", 384, 384, 3, 1, 1),
    ("conv", "conv5", 384, 256, 3, 1, 1),
    ("pool", "maxpool3"),
    ("fc", "fc1", 256 * 6 * 6, 4096, True),
    ("fc", "fc2", 4096, 4096, True),
    ("fc", "fc3", 4096, 1000, False),
]

BLOCK = 256            # pool kernels: threads per block along the output pixels of a plane
CONV_TM = 64           # must equal the constants of the CUDA source
CONV_TN = 64
CONV_LANES = 16
TILE = 16
POOL_K, POOL_S = 3, 2  # every MaxPool2d(kernel_size=3, stride=2)
IN_CHANNELS = 3
NUM_CLASSES = 1000     # get_init_inputs() = [1000]
MIN_SIDE = 223         # conv1 -> maxpool1 -> maxpool2 -> maxpool3 reach 6 x 6 (fc1's 9216 inputs) for sides 223..238
MAX_SIDE = 238
MAX_GRID_YZ = 65535    # the batch runs along gridDim.z of the pool kernels
LARGE_SCALE = 2.0e2    # T1/T2: x = U[0, LARGE_SCALE)
SPIKE_FRACTION = 0.01  # T3: about 1% of the input values are spikes
SPIKE_SCALE = 1.0e3    # T3: spikes are U[0, SPIKE_SCALE)


def _kernel_name(layer):
    if layer[0] == "conv" or (layer[0] == "fc" and layer[4]):
        return f"alexnet_{layer[1]}_relu_kernel"
    return f"alexnet_{layer[1]}_kernel"


def _make_cuda():
    parts = [_PRELUDE]
    prev = "x"
    for layer in LAYERS:
        name = _kernel_name(layer)
        if layer[0] == "conv":
            _, lname, cin, cout, k, s, p = layer
            desc = f"{lname}: Conv2d({cin}, {cout}, kernel_size={k}, stride={s}, padding={p}) + ReLU"
            text = _CONV_RELU_TEMPLATE
        elif layer[0] == "pool":
            desc = f"{layer[1]}: MaxPool2d(kernel_size=3, stride=2)"
            text = _POOL_TEMPLATE
        else:
            _, lname, fin, fout, relu = layer
            desc = f"{lname}: Linear({fin}, {fout})" + (
                " + ReLU (the Dropout(p=0.0) after it is the identity)" if relu else ", no activation")
            text = _FC_TEMPLATE.replace("@EPILOGUE@", _RELU_EPILOGUE if relu else _LINEAR_EPILOGUE)
        parts.append(text.replace("@NAME@", name).replace("@DESC@", desc).replace("@INPUT@", prev))
        prev = f"{layer[1]} output" + (", flattened" if layer[1] == "maxpool3" else "")
    return "".join(parts)


CUDA = _make_cuda()
KERNELS = [_kernel_name(layer) for layer in LAYERS]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1000): conv1..conv5, then fc1..fc3, in this order; ReLU, MaxPool2d and
        # Dropout draw nothing.
        nn = torch.nn
        params = {}
        for layer in LAYERS:
            if layer[0] == "conv":
                _, lname, cin, cout, k, s, p = layer
                m = nn.Conv2d(in_channels=cin, out_channels=cout, kernel_size=k, stride=s, padding=p)
            elif layer[0] == "fc":
                _, lname, fin, fout, _relu = layer
                m = nn.Linear(in_features=fin, out_features=fout)
            else:
                continue
            params[lname] = {"w": m.weight, "b": m.bias}
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
            (K.cdiv(N * OH * OW, CONV_TM), K.cdiv(C_out, CONV_TN), 1),
            (CONV_LANES, CONV_LANES, 1),
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
        # x is [M, K] or the contiguous [M, 256, 6, 6] maxpool3 buffer, read as [M, 9216].
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
        for layer in LAYERS:
            name = _kernel_name(layer)
            if layer[0] == "conv":
                p = w[layer[1]]
                step, h = conv_step(name, h, p["w"], p["b"], layer[5], layer[6])
            elif layer[0] == "pool":
                step, h = pool_step(name, h)
            else:
                p = w[layer[1]]
                step, h = fc_step(name, h, p["w"], p["b"])
            seq.append(step)
        return {"seq": seq, "out": h}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        for layer in LAYERS:
            if layer[0] == "conv":
                p = w[layer[1]]
                x = F.relu(F.conv2d(x, p["w"], p["b"], stride=layer[5], padding=layer[6]))
            elif layer[0] == "pool":
                x = F.max_pool2d(x, kernel_size=POOL_K, stride=POOL_S)
                if layer[1] == "maxpool3":
                    x = torch.flatten(x, 1)
            else:
                p = w[layer[1]]
                x = F.linear(x, p["w"], p["b"])
                if layer[4]:
                    x = F.dropout(F.relu(x), p=0.0, training=True)
        return x

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, 224, 224)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same sign, U[0, LARGE_SCALE): see T2_large_same_sign.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * LARGE_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the values set to U[0, SPIKE_SCALE).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p5_alexnet",
        level=3,
        problem="5_AlexNet",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(1024, max=MAX_GRID_YZ),
            "height": K.dim(224, min=MIN_SIDE, max=MAX_SIDE),
            "width": K.dim(224, min=MIN_SIDE, max=MAX_SIDE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                large_inputs,
                seeds=[1, 2],
                sizes={"batch": 1, "height": 231, "width": 238},
                small=True,
                purpose="one 231 x 238 image at U[0,200) (the scale of T2_large_same_sign, see there), so the "
                "CPU reference stays well under a second: rows 231 -> 57 -> 28 -> 13 -> 6, columns 238 -> 58 -> "
                "28 -> 13 -> 6, so conv1's last windows run into the bottom and right zero padding by different "
                "amounts, maxpool1 drops conv1's last column and maxpool2 conv2's last row, and swapped H/W "
                "extents show; the implicit GEMMs end in partial pixel tiles (3306 = 51 x 64 + 42, 784 = 12 x "
                "64 + 16, 169 = 2 x 64 + 41 pixels), so their pixel guards on the patch loads and the stores "
                "matter; the classifier's row tile holds one live row and 15 dead ones. Emulated TF32 tau* "
                "against fp64 4.1e-4 (round-to-nearest) and 1.8e-3 (truncation)",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 17, "height": 224, "width": 224},
                purpose="same-sign U[0,200) inputs. With the default init the conv/ReLU layers shrink the "
                "input-dependent part of the activations, so at the official U[0,1) scale the logits of "
                "different images differ by at most 3.6e-4 (CPU, 3 images; facts: input-insensitive at 1e-2) "
                "and T0 mostly checks the classifier; the input-dependent part grows about linearly with the "
                "scale, and x200 makes the logits of 3 images differ by up to 8.1e-2 (|out| up to 1.0), so "
                "faults in the feature layers reach the output. A CPU emulation of the reference's TF32 "
                "convolutions (operands rounded to 10 mantissa bits at every conv, fp64 accumulation) gave "
                "tau* against the exact result of 4.6e-4 (round-to-nearest) and 1.9e-3 (truncation; 2.3e-3 at "
                "x300), so a correct fp32 pipeline and the fp32 reference stay inside 1e-2; batch 17: 17 x "
                "3025 = 51425 conv1 pixels end in a partial 64-pixel tile, and the classifier gets a second "
                "row tile with one live row",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 5, "height": 227, "width": 225},
                purpose="about 1% of the input values are U[0,1000) spikes on exact zeros: a conv1 window of 363 "
                "taps holds 3.6 spikes on average (2.6% of the windows hold none and give exactly relu(bias)), "
                "so each conv1 output depends on a few specific taps (kh/kw swaps, transposed weights, stride "
                "and padding-offset faults show); 227 x 225 -> 56 x 55 at conv1; the "
                "logits of 3 images differ by up to 0.11 (|out| up to 1.1) at an emulated TF32 tau* of 5.3e-4 "
                "(round-to-nearest) and 1.8e-3 (truncation); spikes of 1e4 gave |out| up to 11 and 4.4e-3",
            ),
        ],
        notes="Degenerate at the official inputs (facts: input-insensitive at 1e-2): with the default "
        "(kaiming-uniform, a=sqrt(5)) init the five conv layers attenuate the input-dependent signal, so the "
        "logits of different U[0,1) images differ by at most 3.6e-4 (|out| <= 0.025): T0_original checks the "
        "classifier and faults that blow up, and the large and spiky suites test the feature layers' values. "
        "The reference's convolutions run through cuDNN with TF32 (torch's default); the classifier is full "
        "fp32. The convolutions are tiled (the naive one-thread-per-output form would take one to two seconds at batch 1024), so they carry "
        "tiling faults too: the two barriers, the shared-memory tile bounds and padding, the k < Kdim and "
        "pixel/channel guards, the register-tile strides. Height and width are resizable within 223..238, the "
        "sides whose conv1/pool chain still ends at fc1's 6 x 6. Flatten is a view and Dropout(p=0.0) is "
        "the identity, so neither has a kernel. ReLU (v > 0 ? v : 0) and the max-pool comparison (v > m) drop "
        "NaN where torch propagates it; finite inputs are unaffected. 62.4M parameters; the official conv1 "
        "output is 1.19 GB (2.4 GB in the gate's fp64 reference).",
    )
