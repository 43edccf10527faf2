"""KernelBench level 3, problem 4_LeNet5: LeNet-5 on a 4096 x 1 x 32 x 32 batch, 20 classes.

A pipeline of seven kernels, one per layer:

    conv1 5x5 1->6 + ReLU   [N,1,32,32] -> [N,6,28,28]
    max-pool 2x2 stride 2    -> [N,6,14,14]
    conv2 5x5 6->16 + ReLU   -> [N,16,10,10]
    max-pool 2x2 stride 2    -> [N,16,5,5]
    (x.view(-1, 400) is a view: the pooled buffer goes to fc1 as [N,400])
    fc1 400->120 + ReLU, fc2 120->84 + ReLU, fc3 84->20

Convolutions and pools run one thread per output element over a flat 64-bit index (ow fastest);
the fully connected layers use a 2D grid, x over output features and y over batch rows. Every
kernel accumulates in fp32. Only the batch is resizable: the 32x32 input is fixed by fc1's 400
inputs (16 x 5 x 5).
"""

CUDA = r"""
extern "C" __global__ void lenet_conv1_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            for (int kw = 0; kw < KW; ++kw) {
                int ih = oh + kh;
                int iw = ow + kw;
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[i] = v > 0.0f ? v : 0.0f;
}

extern "C" __global__ void lenet_pool1_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;           // kernel_size=2
    const int POOL_S = 2;           // stride=2
    const float LOWEST = -3.402823466e+38f;

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int c = (int)((i / ((long long)OW * OH)) % C);
    int n = (int)(i / ((long long)OW * OH * C));

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
    out[i] = m;
}

extern "C" __global__ void lenet_conv2_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            for (int kw = 0; kw < KW; ++kw) {
                int ih = oh + kh;
                int iw = ow + kw;
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[i] = v > 0.0f ? v : 0.0f;
}

extern "C" __global__ void lenet_pool2_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;           // kernel_size=2
    const int POOL_S = 2;           // stride=2
    const float LOWEST = -3.402823466e+38f;

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int c = (int)((i / ((long long)OW * OH)) % C);
    int n = (int)(i / ((long long)OW * OH * C));

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
    out[i] = m;
}

extern "C" __global__ void lenet_fc1_relu_kernel(
    const float* __restrict__ x,    // [M, K]  (the pooled [N, 16, 5, 5] buffer viewed as [N, 400])
    const float* __restrict__ w,    // [N_out, K]
    const float* __restrict__ b,    // [N_out]
    float* __restrict__ out,        // [M, N_out]
    int M, int N_out, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N_out) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += x[(long long)row * K + k] * w[(long long)col * K + k];
    }
    float v = acc + b[col];
    out[(long long)row * N_out + col] = v > 0.0f ? v : 0.0f;
}

extern "C" __global__ void lenet_fc2_relu_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N_out, K]
    const float* __restrict__ b,    // [N_out]
    float* __restrict__ out,        // [M, N_out]
    int M, int N_out, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N_out) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += x[(long long)row * K + k] * w[(long long)col * K + k];
    }
    float v = acc + b[col];
    out[(long long)row * N_out + col] = v > 0.0f ? v : 0.0f;
}

extern "C" __global__ void lenet_fc3_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N_out, K]
    const float* __restrict__ b,    // [N_out]
    float* __restrict__ out,        // [M, N_out]
    int M, int N_out, int K)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N_out) return;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += x[(long long)row * K + k] * w[(long long)col * K + k];
    }
    out[(long long)row * N_out + col] = acc + b[col];
}
"""

KERNELS = [
    "lenet_conv1_relu_kernel",
    "lenet_pool1_kernel",
    "lenet_conv2_relu_kernel",
    "lenet_pool2_kernel",
    "lenet_fc1_relu_kernel",
    "lenet_fc2_relu_kernel",
    "lenet_fc3_kernel",
]

BLOCK = 256            # conv and pool kernels: 1D blocks over the flat output index
FC_BLOCK_X = 32        # fc kernels: output features
FC_BLOCK_Y = 8         # fc kernels: batch rows
POOL_K = 2             # F.max_pool2d(kernel_size=2, stride=2)
POOL_S = 2
IN_CHANNELS = 1
IMAGE = 32             # fixed: fc1 takes 16 * 5 * 5 = 400 features
NUM_CLASSES = 20       # get_init_inputs() = [20]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(num_classes=20): the same five layers in the same order.
        nn = torch.nn
        conv1 = nn.Conv2d(in_channels=1, out_channels=6, kernel_size=5, stride=1)
        conv2 = nn.Conv2d(in_channels=6, out_channels=16, kernel_size=5, stride=1)
        fc1 = nn.Linear(in_features=16 * 5 * 5, out_features=120)
        fc2 = nn.Linear(in_features=120, out_features=84)
        fc3 = nn.Linear(in_features=84, out_features=NUM_CLASSES)
        return {
            "conv1_w": conv1.weight, "conv1_b": conv1.bias,
            "conv2_w": conv2.weight, "conv2_b": conv2.bias,
            "fc1_w": fc1.weight, "fc1_b": fc1.bias,
            "fc2_w": fc2.weight, "fc2_b": fc2.bias,
            "fc3_w": fc3.weight, "fc3_b": fc3.bias,
        }

    W = K.weights(build)

    def conv_step(name, x, w, b, torch):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = H - KH + 1
        OW = W_in - KW + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OH * OW
        step = (
            name,
            (K.cdiv(total, BLOCK), 1, 1),
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

    def pool_step(name, x, torch):
        N, C, H, W_in = x.shape
        OH = (H - POOL_K) // POOL_S + 1
        OW = (W_in - POOL_K) // POOL_S + 1
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C * OH * OW
        step = (
            name,
            (K.cdiv(total, BLOCK), 1, 1),
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

    def fc_step(name, x, w, b, torch):
        # x is [M, K] or a contiguous [M, ...] buffer whose trailing dims flatten to K (the view).
        M = x.shape[0]
        N_out, K_in = w.shape
        out = torch.empty((M, N_out), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(N_out, FC_BLOCK_X), K.cdiv(M, FC_BLOCK_Y), 1),
            (FC_BLOCK_X, FC_BLOCK_Y, 1),
            [x, w, b, out],
            [(ctypes.c_int, M), (ctypes.c_int, N_out), (ctypes.c_int, K_in)],
        )
        return step, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        s1, c1 = conv_step("lenet_conv1_relu_kernel", x, w["conv1_w"], w["conv1_b"], torch)
        s2, p1 = pool_step("lenet_pool1_kernel", c1, torch)
        s3, c2 = conv_step("lenet_conv2_relu_kernel", p1, w["conv2_w"], w["conv2_b"], torch)
        s4, p2 = pool_step("lenet_pool2_kernel", c2, torch)
        # x.view(-1, 16 * 5 * 5): no kernel, the contiguous pooled buffer is read as [N, 400].
        s5, f1 = fc_step("lenet_fc1_relu_kernel", p2, w["fc1_w"], w["fc1_b"], torch)
        s6, f2 = fc_step("lenet_fc2_relu_kernel", f1, w["fc2_w"], w["fc2_b"], torch)
        s7, out = fc_step("lenet_fc3_kernel", f2, w["fc3_w"], w["fc3_b"], torch)
        return {"seq": [s1, s2, s3, s4, s5, s6, s7], "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        x = F.relu(F.conv2d(x, w["conv1_w"], w["conv1_b"]))
        x = F.max_pool2d(x, kernel_size=2, stride=2)
        x = F.relu(F.conv2d(x, w["conv2_w"], w["conv2_b"]))
        x = F.max_pool2d(x, kernel_size=2, stride=2)
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(F.linear(x, w["fc1_w"], w["fc1_b"]))
        x = F.relu(F.linear(x, w["fc2_w"], w["fc2_b"]))
        return F.linear(x, w["fc3_w"], w["fc3_b"])

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, 1, 32, 32)
        return [torch.rand(s["batch"], IN_CHANNELS, IMAGE, IMAGE)]

    def large_inputs(torch, s):
        # Same-sign U[0, 10): activations grow about 10x through both convolutions.
        return [torch.rand(s["batch"], IN_CHANNELS, IMAGE, IMAGE) * 10.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 3% of the pixels set to U[0, 10).
        shape = (s["batch"], IN_CHANNELS, IMAGE, IMAGE)
        mask = torch.rand(shape) < 0.03
        spikes = torch.rand(shape) * 10.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p4_lenet5",
        level=3,
        problem="4_LeNet5",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                large_inputs,
                seeds=[1, 2],
                sizes={"batch": 3},
                small=True,
                purpose="batch 3: every layer's output count misses the 256-thread block (conv1 14112, pool1 3528, "
                "conv2 4800, pool2 1200 elements), fc rows (3) miss the 8-row block and fc3's 20 features the "
                "32-wide block, so every tail guard and every ceil-division matters; inputs are U[0,10) as in "
                "T2_large_same_sign (see there) so that this cheap CPU suite also sees value faults, which the "
                "nearly constant logits of U[0,1) inputs hide",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 1000},
                purpose="same-sign U[0,10) inputs: at the official U[0,1) scale the 20 logits vary across the batch by "
                "a standard deviation of only about 0.003 (below the 1e-2 tolerance, so many layer faults are "
                "invisible); x10 raises it to about 0.03. It stays under the legitimate-variance ceiling: only the "
                "two small convolutions (25 and 150 taps) run in TF32, and a CPU emulation of TF32 rounding "
                "(round-to-nearest and truncation) gave allclose distances to the exact result of at most 6e-4 "
                "at x10 (1e-3 even at x30), over 15x inside 1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 257},
                purpose="about 3% isolated U[0,10) spikes on exact zeros: empty windows make conv1 output exactly its "
                "bias (after ReLU) over wide areas, so max-pool windows hold ties and exact zeros, and each "
                "non-trivial conv output depends on a few specific taps (kh/kw swaps, transposed weights and wrong "
                "pool offsets show); 257 rows is one past a multiple of the 8-row fc block",
            ),
        ],
        notes="Flatten (x.view(-1, 400)) is a view, so it has no kernel: fc1 reads the contiguous pool2 buffer "
        "[N, 16, 5, 5] as [N, 400]. The reference's two convolutions run through cuDNN with TF32 (torch's "
        "default); the fully connected layers are full fp32. At the official U[0,1) scale the logits are nearly "
        "input-independent (batch standard deviation about 0.003, |out| below 0.09), so T0_original alone is a "
        "weak check; T2_large_same_sign is the discriminating suite. ReLU (v > 0 ? v : 0) and the max-pool "
        "comparison (v > m) drop NaN where torch propagates it; finite inputs are unaffected.",
    )
