"""KernelBench level 3, problem 1_MLP: Linear 16384->16384, ReLU, Linear 16384->16384, ReLU,
Linear 16384->8192 on x 128 x 16384.

A pipeline of three kernels, one per Linear layer; each ReLU is fused into the epilogue of the
Linear before it. Every kernel is a plain 16 x 16 shared-memory tiled GEMM (one thread per output
element, guarded and zero-filled tile loads, a barrier after the loads and another after the
multiply-accumulate) with the bias add in the epilogue. The three kernels are written out in full,
not shared through a helper, so that a mutation belongs to one layer.
"""

CUDA = r"""
const int TILE = 16;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

// Layer 0: h0 = relu(x @ W0^T + b0)
extern "C" __global__ void mlp_fc0_relu_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (batch index)
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
        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;
    }
}

// Layer 1: h1 = relu(h0 @ W1^T + b1)
extern "C" __global__ void mlp_fc1_relu_kernel(
    const float* __restrict__ x,    // [M, K]  (h0)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (batch index)
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
        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;
    }
}

// Layer 2 (output): y = h1 @ W2^T + b2, no activation
extern "C" __global__ void mlp_fc2_kernel(
    const float* __restrict__ x,    // [M, K]  (h1)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (batch index)
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
        out[(long long)row * N + col] = acc + b[col];
    }
}
"""

TILE = 16                       # must equal TILE in the CUDA source
INPUT_SIZE = 16384              # fixed by the weights
LAYER_SIZES = (16384, 16384)
OUTPUT_SIZE = 8192
MAX_GRID_Y = 65535              # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__: Linear, ReLU, Linear, ReLU, Linear inside an nn.Sequential. The ReLUs
        # draw nothing, so building the three Linears in order gives the same parameters.
        nn = torch.nn
        fc0 = nn.Linear(INPUT_SIZE, LAYER_SIZES[0])
        fc1 = nn.Linear(LAYER_SIZES[0], LAYER_SIZES[1])
        fc2 = nn.Linear(LAYER_SIZES[1], OUTPUT_SIZE)
        return {
            "w0": fc0.weight, "b0": fc0.bias,
            "w1": fc1.weight, "b1": fc1.bias,
            "w2": fc2.weight, "b2": fc2.bias,
        }

    W = K.weights(build)

    def gemm_step(kernel, a, w, b, out):
        M, Kd = a.shape
        N = w.shape[0]
        return (
            kernel,
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [a, w, b, out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M = x.shape[0]
        h0 = torch.empty(M, w["w0"].shape[0], device=x.device, dtype=x.dtype)
        h1 = torch.empty(M, w["w1"].shape[0], device=x.device, dtype=x.dtype)
        out = torch.empty(M, w["w2"].shape[0], device=x.device, dtype=x.dtype)
        seq = [
            gemm_step("mlp_fc0_relu_kernel", x, w["w0"], w["b0"], h0),
            gemm_step("mlp_fc1_relu_kernel", h0, w["w1"], w["b1"], h1),
            gemm_step("mlp_fc2_kernel", h1, w["w2"], w["b2"], out),
        ]
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        h = torch.relu(F.linear(x, w["w0"], w["b0"]))
        h = torch.relu(F.linear(h, w["w1"], w["b1"]))
        return F.linear(h, w["w2"], w["b2"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_size)]
        return [torch.rand(s["batch"], INPUT_SIZE)]

    def large_inputs(torch, s):
        # Same sign, 64 times the official range: every activation scales up with it.
        return [torch.rand(s["batch"], INPUT_SIZE) * 64.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large, the rest exact zeros.
        x = torch.zeros(s["batch"], INPUT_SIZE)
        mask = torch.rand(s["batch"], INPUT_SIZE) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 99.0
        return [x]

    return K.substrate(
        name="L3p1_mlp",
        level=3,
        problem="1_MLP",
        cuda=CUDA,
        kernel_name=["mlp_fc0_relu_kernel", "mlp_fc1_relu_kernel", "mlp_fc2_kernel"],
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(128, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2},
                small=True,
                purpose="batch 2: one row of blocks with 2 live rows and 14 dead ones in every layer, so the "
                "row guards on the stores (and on the activation-tile loads, which would read past the "
                "buffer) matter; official U[0,1) values; the weights fix every other size at 16384/8192, "
                "so 2 rows keep the CPU reference fast",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 40},
                purpose="x = U[0,64): same-sign large magnitudes scale every layer's activations by ~64 "
                "(outputs ~ +-3 instead of ~ +-0.05), lifting them well above the 1e-2 atol so that a "
                "dropped K-tile, a lost partial sum or a wrong ReLU in an early layer reaches the output; "
                "a correct fp32 pipeline stays far inside the tolerance; batch 40 = 2 x 16 + 8 is a "
                "remainder too",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 1% of x nonzero (values 1..100), the rest exact zeros: each layer-0 output is "
                "the bias plus about 160 large isolated terms instead of an average over 16384, so a single "
                "wrong k index or tile offset in the first layer is not averaged away before it propagates",
            ),
        ],
        notes="All feature sizes (16384, 16384, 8192) are fixed by the weights and are multiples of the "
        "16-wide tile, so the k < K and N guards never fire: mutants confined to them are equivalent "
        "here; only the batch has remainders (T1, T2). An activation-tile row beyond M only feeds a "
        "dead output row, so dropping its zero fill is equivalent too. With default nn.Linear init the official outputs "
        "are small (mean |y| ~0.05, max ~0.3, comparable to the 1e-2 atol). The biases are "
        "U(+-1/128): leaving out fc2's bias moves every output by at most 0.0078 < atol, so that mutant "
        "is equivalent on every input; fc0/fc1 bias mutants are diluted by the following layers. "
        "671M fp32 parameters (2.7 GB; 5.4 GB more for the fp64 reference copy).",
    )
