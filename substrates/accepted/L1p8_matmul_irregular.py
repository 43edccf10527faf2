"""KernelBench level 1, problem 8_Matmul_with_irregular_shapes_: C = torch.matmul(A, B), A 8205 x 2949, B 2949 x 5921.

One kernel: a plain 32 x 32 shared-memory tiled GEMM (one thread per output element, 1024 threads
per block; one 32-wide K-tile of A and of B staged in shared memory per phase, a barrier after the
loads and another after the multiply-accumulate). None of the official sizes is a multiple of 32
(8205 = 256 x 32 + 13, 2949 = 92 x 32 + 5, 5921 = 185 x 32 + 1), so the guarded, zero-filled tile
loads and the guarded store all fire on the official inputs too. Flat offsets are 64-bit.

Cost: 2 x 8205 x 5921 x 2949 = 287 GFLOP; at ~5-6 TFLOP/s for a plain shared-memory tiled GEMM
about 50-60 ms on an H200 (cuBLAS reference 6.6 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void matmul_irregular_kernel(
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
            "matmul_irregular_kernel",
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
        name="L1p8_matmul_irregular",
        level=1,
        problem="8_Matmul_with_irregular_shapes_",
        cuda=CUDA,
        kernel_name="matmul_irregular_kernel",
        launch=launch,
        ref=ref,
        dims={
            "m": K.dim(8205, max=MAX_GRID_Y * TILE),
            "n": K.dim(5921),
            "k": K.dim(2949),
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
                sizes={"m": 65, "n": 97, "k": 2949},
                purpose="the official K (2949 = 92 x 32 + 5) with signed U[-1,1) values: outputs are cancelling "
                "2949-term sums (std ~18, many near zero) where dropping one 32-wide K-tile (std ~1.9 against an "
                "allowance of ~0.01-0.5) or the 5-term tail tile is visible, unlike at U[0,1) where every "
                "output is ~737 and the tail is 0.2% of it; M = 65 = 2 x 32 + 1 and N = 97 = 3 x 32 + 1 leave "
                "one-line row and column tiles, as the official 5921 does",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"m": 97, "n": 81, "k": 1001},
                purpose="A about 2% nonzero (values 1..50), the rest exact zeros, B signed U[-1,1): each output is "
                "about 20 large isolated terms, so a single wrong k index, tile offset, a transposed tile or "
                "row/column swap changes it outright instead of being averaged away; K = 1001 = 31 x 32 + 9",
            ),
        ],
        notes="At the official inputs (U[0,1), K = 2949) every output is about 737 with std ~12, so at rtol "
        "1e-2 (allowance ~7.4) a kernel that drops the 5-term tail tile (about 1.25) passes T0_original, "
        "while one that drops a whole 32-wide K-tile (about 8 against ~7.4) fails most outputs; the signed suites "
        "make each term count. Unlike most matmul problems every official size leaves a partial tile, so "
        "T0_original exercises every load guard and the store guard. Matmuls in the reference are full fp32 "
        "(no TF32).",
    )
