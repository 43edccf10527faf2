"""KernelBench level 3, problem 2_ShallowWideMLP: Linear 16384->32768, ReLU, Linear 32768->32768, ReLU,
Linear 32768->16384 on x 128 x 16384.

Model(16384, [32768, 32768], 16384) builds an nn.Sequential of three Linears with a ReLU after each of
the first two: 2.15 G fp32 parameters (8.6 GB). The pipeline has one kernel per Linear layer, the ReLU
fused into the epilogue of the Linear before it:

    swmlp_fc0_relu_kernel   [B,16384] -> [B,32768]
    swmlp_fc1_relu_kernel   [B,32768] -> [B,32768]
    swmlp_fc2_kernel        [B,32768] -> [B,16384]   (network output, no activation)

Each kernel is a plain 16 x 16 shared-memory tiled GEMM: one thread per output element, guarded tile
loads that zero-fill outside the matrices, a barrier after the loads and another after the
multiply-accumulate, fp32 accumulation and the bias (and ReLU) in the epilogue. The three kernels are
written out in full so that a mutation belongs to one layer. Weight offsets are 64-bit (the middle
weight has 2^30 elements).

Cost: 2 x 128 x 2.15e9 = 550 GFLOP per forward. The same 16 x 16 tiling ran 1_MLP (172 GFLOP) in
about 27 ms on an H200 (about 6.4 TFLOP/s), so one official forward should take about 90 ms (well
under 0.2 s).
"""

CUDA = r"""
const int TILE = 16;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

// Layer 0: h0 = relu(x @ W0^T + b0)      [B,16384] -> [B,32768]
extern "C" __global__ void swmlp_fc0_relu_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float a_tile[TILE][TILE];    // a_tile[r][k] = x[row0 + r, k0 + k]
    __shared__ float w_tile[TILE][TILE];    // w_tile[k][c] = w[col0 + c, k0 + k]  (transposed on load)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;       // batch row of this thread's output
    int col = blockIdx.x * TILE + tx;       // output feature of this thread's output
    int w_row = blockIdx.x * TILE + ty;     // weight row this thread loads into w_tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            a_tile[ty][tx] = x[(long long)row * K + k];
        } else {
            a_tile[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            w_tile[tx][ty] = w[(long long)w_row * K + k];
        } else {
            w_tile[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are complete
        for (int kk = 0; kk < TILE; ++kk) {
            acc += a_tile[ty][kk] * w_tile[kk][tx];
        }
        __syncthreads();    // every thread is done reading before the next tiles are loaded
    }

    if (row < M && col < N) {
        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;
    }
}

// Layer 1: h1 = relu(h0 @ W1^T + b1)     [B,32768] -> [B,32768]
extern "C" __global__ void swmlp_fc1_relu_kernel(
    const float* __restrict__ x,    // [M, K]  (h0)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float a_tile[TILE][TILE];    // a_tile[r][k] = x[row0 + r, k0 + k]
    __shared__ float w_tile[TILE][TILE];    // w_tile[k][c] = w[col0 + c, k0 + k]  (transposed on load)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;       // batch row of this thread's output
    int col = blockIdx.x * TILE + tx;       // output feature of this thread's output
    int w_row = blockIdx.x * TILE + ty;     // weight row this thread loads into w_tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            a_tile[ty][tx] = x[(long long)row * K + k];
        } else {
            a_tile[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            w_tile[tx][ty] = w[(long long)w_row * K + k];
        } else {
            w_tile[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are complete
        for (int kk = 0; kk < TILE; ++kk) {
            acc += a_tile[ty][kk] * w_tile[kk][tx];
        }
        __syncthreads();    // every thread is done reading before the next tiles are loaded
    }

    if (row < M && col < N) {
        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;
    }
}

// Layer 2 (output): y = h1 @ W2^T + b2, no activation     [B,32768] -> [B,16384]
extern "C" __global__ void swmlp_fc2_kernel(
    const float* __restrict__ x,    // [M, K]  (h1)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float a_tile[TILE][TILE];    // a_tile[r][k] = x[row0 + r, k0 + k]
    __shared__ float w_tile[TILE][TILE];    // w_tile[k][c] = w[col0 + c, k0 + k]  (transposed on load)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;       // batch row of this thread's output
    int col = blockIdx.x * TILE + tx;       // output feature of this thread's output
    int w_row = blockIdx.x * TILE + ty;     // weight row this thread loads into w_tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            a_tile[ty][tx] = x[(long long)row * K + k];
        } else {
            a_tile[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            w_tile[tx][ty] = w[(long long)w_row * K + k];
        } else {
            w_tile[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are complete
        for (int kk = 0; kk < TILE; ++kk) {
            acc += a_tile[ty][kk] * w_tile[kk][tx];
        }
        __syncthreads();    // every thread is done reading before the next tiles are loaded
    }

    if (row < M && col < N) {
        out[(long long)row * N + col] = acc + b[col];
    }
}
"""

KERNELS = ["swmlp_fc0_relu_kernel", "swmlp_fc1_relu_kernel", "swmlp_fc2_kernel"]

TILE = 16                       # must equal TILE in the CUDA source
INPUT_SIZE = 16384              # get_init_inputs(): [16384, [32768, 32768], 16384]; fixed by the weights
HIDDEN_SIZES = (32768, 32768)
OUTPUT_SIZE = 16384
MAX_GRID_Y = 65535              # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__ appends Linear, ReLU, Linear, ReLU, Linear to an nn.Sequential; the ReLUs
        # draw nothing, so the three Linears built in this order get the official parameters.
        # Plain on purpose: 2.15 G parameters take a while to initialise on the CPU.
        nn = torch.nn
        fc0 = nn.Linear(INPUT_SIZE, HIDDEN_SIZES[0])
        fc1 = nn.Linear(HIDDEN_SIZES[0], HIDDEN_SIZES[1])
        fc2 = nn.Linear(HIDDEN_SIZES[1], OUTPUT_SIZE)
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
            gemm_step("swmlp_fc0_relu_kernel", x, w["w0"], w["b0"], h0),
            gemm_step("swmlp_fc1_relu_kernel", h0, w["w1"], w["b1"], h1),
            gemm_step("swmlp_fc2_kernel", h1, w["w2"], w["b2"], out),
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

    def scaled_inputs(scale):
        # Same sign, `scale` times the official U[0,1) range.
        def gen(torch, s):
            return [torch.rand(s["batch"], INPUT_SIZE) * scale]

        return gen

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero, values 1..100; the rest exact zeros.
        x = torch.zeros(s["batch"], INPUT_SIZE)
        mask = torch.rand(s["batch"], INPUT_SIZE) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 99.0
        return [x]

    return K.substrate(
        name="L3p2_shallow_wide_mlp",
        level=3,
        problem="2_ShallowWideMLP",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(128, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs(16.0),
                seeds=[1, 2],
                sizes={"batch": 3},
                small=True,
                purpose="batch 3: every layer has one row of blocks with 3 live rows and 13 dead ones, so the row "
                "guards on the stores and on the activation-tile loads (which would read past the [3, K] buffer) "
                "matter; x = U[0,16) lifts the outputs' standard deviation from about 0.06 (official) to about "
                "0.9, so this CPU-cheap suite also sees value faults in every layer; the weights fix all feature "
                "sizes, and the CPU reference is bound by streaming the 8.6 GB of weights once whatever the batch "
                "(see notes)",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(64.0),
                seeds=[3, 4],
                sizes={"batch": 40},
                purpose="x = U[0,64): same-sign large magnitudes scale every layer's activations by about 64 "
                "(output standard deviation about 3.6 instead of 0.06), far above the 1e-2 atol, so a dropped "
                "K-tile, a lost partial sum or a wrong ReLU in an early layer reaches the output; matmuls are "
                "full fp32 in the reference and the network is nearly homogeneous, so a correct fp32 pipeline "
                "stays far inside the tolerance against fp64 (about 8e-6 measured on the CPU); batch 40 = "
                "2 x 16 + 8 is a second row remainder",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 1% of x nonzero (values 1..100), the rest exact zeros: each layer-0 output is its "
                "bias plus about 160 large isolated terms rather than an average over 16384 inputs, so a wrong "
                "k index, a transposed tile or a wrong tile offset in the first layer is not averaged away "
                "before it propagates; batch 16 fills exactly one row of blocks",
            ),
        ],
        small_limit_s=5.0,
        notes="The small suite cannot be small: the weights (2.15 G parameters, 8.6 GB in fp32) fix every "
        "feature size, so one row (batch 1) costs 2.15 G multiply-adds and reads 8.6 GB of weights, "
        "1.3-1.8 s on a 2-core CPU (memory bound: 0.85 to 1.7 s measured for batch 3 on a 2-core VM, much less "
        "on a host with more memory bandwidth), hence small_limit_s. All feature sizes (16384, 32768, 32768, "
        "16384) are fixed by the weights and are multiples of the 16-wide tile, so the k < K and N guards never "
        "fire and mutants confined to them are equivalent here; only the batch has remainders (T1, T2). An "
        "activation-tile row beyond M only feeds a dead output row, so dropping its zero fill is equivalent "
        "too. With the default nn.Linear init the official outputs are small (standard deviation about 0.06, "
        "max about 0.26, not far above the 1e-2 atol) and fc2's bias is U(+-1/181), so leaving it out moves "
        "every output by at most 0.0055 < atol: that mutant is equivalent on every input. 2.15 G fp32 "
        "parameters: 8.6 GB on the device, 17.2 GB more for the fp64 reference copy; building them on the CPU "
        "takes 15 to 30 s.",
    )
