"""KernelBench level 2, problem 40_Matmul_Scaling_ResidualAdd: y = x @ W^T + b; out = y * 0.5 + y.

x is 16384 x 4096, the nn.Linear is 4096 -> 4096 with its bias. The model keeps a detached clone of
the GEMM output, scales the GEMM output by 0.5 and adds the clone back. One kernel: a plain
16 x 16 shared-memory tiled GEMM (one thread per output element, one K-tile of x and of W staged
in shared memory per phase, a barrier after the loads and another after the multiply-accumulate)
with the bias, the scaling and the residual add fused into the epilogue (the "clone" is the
thread's own register value). Tile loads are guarded and zero-filled outside the matrices, so any
batch works; the output store is guarded.

Cost: 2 x 16384 x 4096 x 4096 = 550 GFLOP; at ~6 TFLOP/s for this tiled GEMM about 90 ms on an
H200 (cuBLAS reference 11.5 ms).
"""

CUDA = r"""
const int TILE = 16;                    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time
const float SCALING_FACTOR = 0.5f;      // Model.scaling_factor

extern "C" __global__ void matmul_scale_residual_kernel(
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
        float original = v;                 // original_x = x.clone().detach()
        float scaled = v * SCALING_FACTOR;
        out[(long long)row * N + col] = scaled + original;
    }
}
"""

TILE = 16                 # must equal TILE in the CUDA source
IN_FEATURES = 4096        # fixed by the weights
OUT_FEATURES = 4096
SCALING_FACTOR = 0.5      # must equal the CUDA constant
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(4096, 4096, 0.5): one nn.Linear with bias; the scaling factor is a plain float
        matmul = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
        return {"w": matmul.weight, "b": matmul.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        return (
            "matmul_scale_residual_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        original = y.clone().detach()
        y = y * SCALING_FACTOR
        return y + original

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def large_inputs(torch, s):
        # Same sign, 32 times the official range: GEMM outputs of std ~11.
        return [torch.rand(s["batch"], IN_FEATURES) * 32.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large, the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p40_matmul_scale_residual",
        level=2,
        problem="40_Matmul_Scaling_ResidualAdd",
        cuda=CUDA,
        kernel_name="matmul_scale_residual_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(16384, max=MAX_GRID_Y * TILE)},
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
                "official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 40},
                purpose="x = U[0,32): same-sign large magnitudes (GEMM std ~11, outputs up to ~75) so that a "
                "dropped K-tile, a lost partial sum, a wrong scale or a missing residual term moves outputs "
                "far beyond 1e-2 relative; a correct fp32 GEMM (4096-term sums) stays orders of magnitude "
                "inside the tolerance; batch 40 = 2 x 16 + 8 is a remainder too",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 64},
                purpose="about 1% of x nonzero (values 1..50), the rest exact zeros: each output is the bias "
                "plus about 40 large isolated terms instead of an average over 4096, so a single wrong k "
                "index, tile offset or transposed tile element is not averaged away",
            ),
        ],
        notes="in_features and out_features (4096) are fixed by the weights and are multiples of the "
        "16-wide tile, so the k < K and w_row < N / col < N guards never fire on any suite: mutants "
        "that only touch them are equivalent here. Only the batch (M) has remainders (T1, T2). "
        "The epilogue is 1.5 * y computed as y * 0.5 + y, as the reference does (y * 0.5 is exact). "
        "Matmuls in the reference are full fp32 (no TF32).",
    )
