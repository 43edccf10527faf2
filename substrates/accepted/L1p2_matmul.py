"""KernelBench level 1, problem 2_Standard_matrix_multiplication_: C = torch.matmul(A, B), A 2048 x 8192, B 8192 x 4096.

One kernel: a plain 32 x 32 shared-memory tiled GEMM (one thread per output element, 1024 threads
per block; one 32-wide K-tile of A and of B staged in shared memory per phase, a barrier after the
loads and another after the multiply-accumulate). Tile loads are guarded and zero-filled outside
the matrices, so any M, N, K work; the output store is guarded. Flat offsets are 64-bit.

Cost: 2 x 2048 x 4096 x 8192 = 137 GFLOP; at ~6 TFLOP/s for a plain shared-memory tiled GEMM
about 25 ms on an H200 (cuBLAS reference 2.78 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void matmul_kernel(
    const float* __restrict__ A,    // [M, K]
    const float* __restrict__ B,    // [K, N]
    float* __restrict__ C,          // [M, N]
    int M, int N, int K)
{
    __shared__ float As[TILE][TILE];    // As[r][k] = A[row0 + r, k0 + k]
    __shared__ float Bs[TILE][TILE];    // Bs[k][c] = B[k0 + k, col0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row
    int col = blockIdx.x * TILE + tx;   // output column

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int a_col = t * TILE + tx;      // the column of A this thread loads
        int b_row = t * TILE + ty;      // the row of B this thread loads
        if (row < M && a_col < K) {
            As[ty][tx] = A[(long long)row * K + a_col];
        } else {
            As[ty][tx] = 0.0f;
        }
        if (b_row < K && col < N) {
            Bs[ty][tx] = B[(long long)b_row * N + col];
        } else {
            Bs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += As[ty][kk] * Bs[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        C[(long long)row * N + col] = acc;
    }
}
"""

TILE = 32               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # the rows of A are tiled along gridDim.y


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        M, Kd = A.shape
        N = B.shape[1]
        C = torch.empty(M, N, device=A.device, dtype=A.dtype)
        return (
            "matmul_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.matmul(A, B)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(M, K); B = torch.rand(K, N)
        A = torch.rand(s["m"], s["k"])
        B = torch.rand(s["k"], s["n"])
        return [A, B]

    def signed_inputs(torch, s):
        # U[-1, 1): zero-mean products, so every output is a sum that cancels and each term counts.
        A = torch.rand(s["m"], s["k"]) * 2.0 - 1.0
        B = torch.rand(s["k"], s["n"]) * 2.0 - 1.0
        return [A, B]

    def sparse_inputs(torch, s):
        # A: about 2% of the entries nonzero (values 1..50), the rest exact zeros; B: U[-1, 1).
        A = torch.zeros(s["m"], s["k"])
        mask = torch.rand(s["m"], s["k"]) < 0.02
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.rand(s["k"], s["n"]) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p2_matmul",
        level=1,
        problem="2_Standard_matrix_multiplication_",
        cuda=CUDA,
        kernel_name="matmul_kernel",
        launch=launch,
        ref=ref,
        dims={
            "m": K.dim(2048, max=MAX_GRID_Y * TILE),
            "n": K.dim(4096),
            "k": K.dim(8192),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"m": 37, "n": 45, "k": 70},
                small=True,
                purpose="M = 37 = 32 + 5, N = 45 = 32 + 13, K = 70 = 2 x 32 + 6, all different: every row, "
                "column and K-tile guard fires in a partial tile (a dropped guard reads past A or B, a dropped "
                "zero fill adds garbage terms) and an M/N/K swap in an index or a bound changes the result; "
                "signed U[-1,1) values make outputs zero-mean (std ~2.7) so one lost term is visible",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"m": 72, "n": 100, "k": 8195},
                purpose="the official-length K (8195 = 256 x 32 + 3) with signed U[-1,1) values: outputs are "
                "cancelling 8195-term sums (std ~30, many near zero) where dropping one 32-wide K-tile (a change "
                "of std ~1.9 against an allowance of ~0.3) or the 3-term tail is visible, unlike at U[0,1) where "
                "every output is ~2048 and a missing tile is under 1%; M = 72 and N = 100 leave partial row and "
                "column tiles; a correct fp32 kernel stays orders of magnitude inside 1e-2",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"m": 96, "n": 80, "k": 1000},
                purpose="A about 2% nonzero (values 1..50), the rest exact zeros, B signed U[-1,1): each output is "
                "about 20 large isolated terms, so a single wrong k index, tile offset, a transposed tile or "
                "row/column swap changes it outright instead of being averaged away; K = 1000 = 31 x 32 + 8",
            ),
        ],
        notes="At the official inputs (U[0,1), K = 8192) every output is about 2048 with std ~20, so at rtol "
        "1e-2 (allowance ~20) a kernel that drops up to 2 of the 256 32-wide K-tiles (about 8 each) passes "
        "T0_original; the signed suites make each term count. The official M, N, K are multiples of the "
        "32-wide tile, so no guard fires on T0: only T1-T3 have remainders. Matmuls in the reference are full "
        "fp32 (no TF32).",
    )
