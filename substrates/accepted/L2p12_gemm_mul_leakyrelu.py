"""KernelBench level 2, problem 12_Gemm_Multiply_LeakyReLU: leaky_relu((x @ W^T + b) * 2.0, 0.1).

x is 1024 x 8192, the nn.Linear is 8192 -> 8192 with its bias, then a multiply by 2.0 and a
LeakyReLU with negative slope 0.1. One kernel: a plain 16 x 16 shared-memory tiled GEMM (one thread
per output element, one K-tile of x and of W staged in shared memory per phase, a barrier after the
loads and another after the multiply-accumulate) with the bias, the multiplication and the LeakyReLU
fused into the epilogue. Tile loads are guarded and zero-filled outside the matrices, so any batch
works; the output store is guarded.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP; at ~6 TFLOP/s for this tiled GEMM about 25 ms on an
H200 (cuBLAS reference 2.73 ms).
"""

CUDA = r"""
const int TILE = 16;                    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time
const float MULTIPLIER = 2.0f;          // Model.multiplier
const float NEGATIVE_SLOPE = 0.1f;      // nn.LeakyReLU(negative_slope)

extern "C" __global__ void gemm_mul_leakyrelu_kernel(
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
        v = v * MULTIPLIER;
        out[(long long)row * N + col] = v > 0.0f ? v : v * NEGATIVE_SLOPE;
    }
}
"""

TILE = 16                 # must equal TILE in the CUDA source
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
MULTIPLIER = 2.0          # must equal the CUDA constants
NEGATIVE_SLOPE = 0.1
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 2.0, 0.1): nn.Linear with bias, then nn.LeakyReLU (no parameters)
        gemm = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
        return {"w": gemm.weight, "b": gemm.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        return (
            "gemm_mul_leakyrelu_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        y = y * MULTIPLIER
        return torch.nn.functional.leaky_relu(y, NEGATIVE_SLOPE)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def large_inputs(torch, s):
        # Same sign, 32 times the official range: GEMM outputs of std ~11, outputs up to ~100.
        return [torch.rand(s["batch"], IN_FEATURES) * 32.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large, the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p12_gemm_mul_leakyrelu",
        level=2,
        problem="12_Gemm_Multiply_LeakyReLU",
        cuda=CUDA,
        kernel_name="gemm_mul_leakyrelu_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 17},
                small=True,
                purpose="batch 17 = 16 + 1: the second row of blocks holds one live row and 15 dead ones, "
                "so the row guard on the store (and on the x-tile load, which would read past x) matters; "
                "official U[0,1) values (outputs of both signs, the negative ones scaled by 0.1)",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 40},
                purpose="x = U[0,32): same-sign large magnitudes (GEMM std ~11, outputs up to ~100 and down to "
                "~-10) so that a dropped K-tile, a lost partial sum, a wrong multiplier or a wrong negative "
                "slope moves outputs far beyond 1e-2 relative; a correct fp32 GEMM (8192-term sums) stays "
                "orders of magnitude inside the tolerance; batch 40 = 2 x 16 + 8 is a remainder too",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 64},
                purpose="about 1% of x nonzero (values 1..50), the rest exact zeros: each output is the bias "
                "plus about 80 large isolated terms instead of an average over 8192, so a single wrong k "
                "index, tile offset or transposed tile element is not averaged away",
            ),
        ],
        notes="in_features and out_features (8192) are fixed by the weights and are multiples of the "
        "16-wide tile, so the k < K and w_row < N / col < N guards never fire on any suite: mutants "
        "that only touch them are equivalent here. Only the batch (M) has remainders (T1, T2). "
        "An x-tile row beyond M only feeds a dead output row, so dropping its zero fill is equivalent "
        "too. About half the outputs are negative, so the slope branch is exercised on every suite. "
        "Matmuls in the reference are full fp32 (no TF32).",
    )
