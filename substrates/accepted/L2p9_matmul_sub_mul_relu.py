"""KernelBench level 2, problem 9_Matmul_Subtract_Multiply_ReLU: relu((x @ W^T + b - 2.0) * 1.5).

x is 1024 x 8192, the nn.Linear is 8192 -> 8192 with its bias. One kernel: a plain 16 x 16
shared-memory tiled GEMM (one thread per output element, one K-tile of x and of W staged in shared
memory per phase, a barrier after the loads and another after the multiply-accumulate) with the
bias, the subtraction, the multiplication and the ReLU fused into the epilogue. Tile loads are
guarded and zero-filled outside the matrices, so any batch works; the output store is guarded.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP; at ~6 TFLOP/s for this tiled GEMM about 25 ms on an
H200 (cuBLAS reference 2.75 ms).
"""

CUDA = r"""
const int TILE = 16;                    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time
const float SUBTRACT_VALUE = 2.0f;      // Model.subtract_value
const float MULTIPLY_VALUE = 1.5f;      // Model.multiply_value

extern "C" __global__ void matmul_sub_mul_relu_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
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
        v = v - SUBTRACT_VALUE;
        v = v * MULTIPLY_VALUE;
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;
    }
}
"""

TILE = 16                 # must equal TILE in the CUDA source
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
SUBTRACT_VALUE = 2.0      # must equal the CUDA constants
MULTIPLY_VALUE = 1.5
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 2.0, 1.5): one nn.Linear with bias; the two values are plain floats
        linear = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
        return {"w": linear.weight, "b": linear.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        return (
            "matmul_sub_mul_relu_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        y = y - SUBTRACT_VALUE
        y = y * MULTIPLY_VALUE
        return torch.relu(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def scaled_inputs(scale):
        # Same-sign U[0, scale): the GEMM outputs (std ~0.33 x scale) now cross the subtract value 2.0.
        def gen(torch, s):
            return [torch.rand(s["batch"], IN_FEATURES) * scale]

        return gen

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large (50..250), the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 50.0 + torch.rand(int(mask.sum())) * 200.0
        return [x]

    return K.substrate(
        name="L2p9_matmul_sub_mul_relu",
        level=2,
        problem="9_Matmul_Subtract_Multiply_ReLU",
        cuda=CUDA,
        kernel_name="matmul_sub_mul_relu_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (every output is exactly 0: see notes)",
            ),
            K.suite(
                "T1_remainder",
                scaled_inputs(16.0),
                seeds=[1, 2],
                sizes={"batch": 17},
                small=True,
                purpose="batch 17 = 16 + 1: the second row of blocks holds one live row and 15 dead ones, so the "
                "row guard on the store (and on the x-tile load, which would read past x) matters; x = U[0,16) "
                "so the GEMM outputs (std ~5) cross the subtract value 2.0 and about a third of the outputs are "
                "positive, unlike the all-zero official output",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(32.0),
                seeds=[3, 4],
                sizes={"batch": 40},
                purpose="x = U[0,32): same-sign large magnitudes (GEMM std ~11, outputs up to ~70, about 40% "
                "positive) so that a dropped K-tile, a lost partial sum, a wrong subtract or multiply constant "
                "or a ReLU threshold shift moves outputs far beyond 1e-2; a correct fp32 GEMM (8192-term sums) "
                "stays orders of magnitude inside the tolerance; batch 40 = 2 x 16 + 8 is a remainder too",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 64},
                purpose="about 1% of x nonzero (values 50..250), the rest exact zeros: each output is the bias "
                "plus about 80 large isolated terms (std ~5) instead of an average over 8192, so a single wrong "
                "k index, tile offset or transposed tile element is not averaged away and still crosses the "
                "ReLU threshold",
            ),
        ],
        notes="Degenerate at the official inputs: x = U[0,1) gives GEMM outputs of std ~0.33 (the largest over "
        "the five official trials is 1.78 < 2.0), so (y - 2.0) * 1.5 is always negative and the official "
        "output is 100% exact zeros. "
        "T0_original therefore cannot see anything but NaN/inf or a positive spurious value: an all-zero "
        "kernel, a kernel that skips the GEMM, or any GEMM fault that keeps outputs below 2.0 passes it. "
        "The targeted suites scale x (U[0,16), U[0,32), sparse 50..250) so the ReLU passes a large share "
        "of the outputs. in_features and out_features (8192) are fixed by the weights and are multiples "
        "of the 16-wide tile, so the k < K and w_row < N / col < N guards never fire on any suite; only the "
        "batch has remainders (T1, T2). Matmuls in the reference are full fp32 (no TF32). ReLU is written "
        "as v > 0 ? v : 0, which maps NaN to 0 where torch.relu propagates it.",
    )
