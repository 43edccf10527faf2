"""KernelBench level 1, problem 1_Square_matrix_multiplication_: C = torch.matmul(A, B), A and B 4096 x 4096.

One kernel: a plain 32 x 32 shared-memory tiled GEMM (one thread per output element, 1024 threads
per block; one 32-wide K-tile of A and of B staged in shared memory per phase, a barrier after the
loads and another after the multiply-accumulate). Both operands are square N x N, so a single size N
bounds rows, columns and the K loop. Tile loads are guarded and zero-filled outside the matrix, so
any N works; the output store is guarded. Flat offsets are 64-bit.

Cost: 2 x 4096^3 = 137 GFLOP; at ~6 TFLOP/s for a plain shared-memory tiled GEMM about 25 ms on an
H200 (cuBLAS reference 2.82 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void square_matmul_kernel(
    const float* __restrict__ A,    // [N, N]
    const float* __restrict__ B,    // [N, N]
    float* __restrict__ C,          // [N, N]
    int N)
{
    __shared__ float As[TILE][TILE];    // As[r][k] = A[row0 + r, k0 + k]
    __shared__ float Bs[TILE][TILE];    // Bs[k][c] = B[k0 + k, col0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row
    int col = blockIdx.x * TILE + tx;   // output column

    float acc = 0.0f;
    int num_tiles = (N + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int a_col = t * TILE + tx;      // the column of A this thread loads
        int b_row = t * TILE + ty;      // the row of B this thread loads
        if (row < N && a_col < N) {
            As[ty][tx] = A[(long long)row * N + a_col];
        } else {
            As[ty][tx] = 0.0f;
        }
        if (b_row < N && col < N) {
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

    if (row < N && col < N) {
        C[(long long)row * N + col] = acc;
    }
}
"""

TILE = 32               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # rows are tiled along gridDim.y


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        N = A.shape[0]
        C = torch.empty(N, N, device=A.device, dtype=A.dtype)
        return (
            "square_matmul_kernel",
            (K.cdiv(N, TILE), K.cdiv(N, TILE), 1),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, N)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.matmul(A, B)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(N, N); B = torch.rand(N, N)
        A = torch.rand(s["n"], s["n"])
        B = torch.rand(s["n"], s["n"])
        return [A, B]

    def signed_inputs(torch, s):
        # U[-1, 1): zero-mean products, so every output is a sum that cancels and each term counts.
        A = torch.rand(s["n"], s["n"]) * 2.0 - 1.0
        B = torch.rand(s["n"], s["n"]) * 2.0 - 1.0
        return [A, B]

    def sparse_inputs(torch, s):
        # A: about 2% of the entries nonzero (values 1..50), the rest exact zeros; B: U[-1, 1).
        n = s["n"]
        A = torch.zeros(n, n)
        mask = torch.rand(n, n) < 0.02
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.rand(n, n) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p1_square_matmul",
        level=1,
        problem="1_Square_matrix_multiplication_",
        cuda=CUDA,
        kernel_name="square_matmul_kernel",
        launch=launch,
        ref=ref,
        dims={"n": K.dim(4096, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"n": 45},
                small=True,
                purpose="N = 45 = 32 + 13: the second row and column of blocks hold 13 live lines and the second "
                "K-tile 13 live terms, so every load guard (a read past A or B), its zero fill (garbage terms "
                "in live outputs) and the store guard matter; signed U[-1,1) values make outputs zero-mean "
                "(std ~2.2) so a lost or duplicated term moves them by far more than 1e-2",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"n": 1000},
                purpose="N = 1000 = 31 x 32 + 8, signed U[-1,1): outputs are cancelling sums of 1000 terms "
                "(std ~10.5, many near zero) where dropping one K-tile of 32 terms (a change of std ~1.9 against "
                "an allowance of ~0.1-0.3) or a transposed tile element is visible, unlike at U[0,1) where every output is ~N/4 and a "
                "missing tile is under 1% of it (seen only through the noise tail); a correct fp32 kernel stays orders of magnitude inside 1e-2",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"n": 515},
                purpose="A about 2% nonzero (values 1..50), the rest exact zeros, B signed U[-1,1): each output is "
                "about 10 large isolated terms, so a single wrong k index, tile offset, A/B transposition or "
                "row/column swap changes it outright instead of being averaged away; 515 = 16 x 32 + 3",
            ),
        ],
        notes="At the official inputs (U[0,1), N = 4096) every output is about 1024 with std ~14, so at rtol "
        "1e-2 (allowance ~10) a kernel that drops up to ~16 of the 4096 K terms (half a tile; 0.85 of the "
        "allowance at worst on 1M outputs) passes T0_original; a whole dropped 32-wide K-tile (~8 of 1024) "
        "is caught only through the noise tail (5% of outputs). The signed suites make each term count. "
        "N = 4096 is a multiple of the 32-wide tile, so no guard fires on T0: only T1-T3 have remainders. "
        "Matmuls in the reference are full fp32 (no TF32).",
    )
