"""KernelBench level 1, problem 13_Matmul_for_symmetric_matrices: C = torch.matmul(A, B), A and B symmetric 4096 x 4096.

get_inputs() draws A = (R + R^T) / 2 and B = (S + S^T) / 2 from U[0,1) matrices R and S, so both
operands are symmetric (the product is not). One kernel: a plain 16 x 16 shared-memory tiled GEMM
(one thread per output element; one 16-wide K-tile of A and of B staged in shared memory per phase,
a barrier after the loads and another after the multiply-accumulate) that reads A and B in their
stored row-major layout and does not rely on the symmetry. Both operands are square N x N, so a
single size N bounds rows, columns and the K loop. Tile loads are guarded and zero-filled outside
the matrices; the output store is guarded. Flat offsets are 64-bit.

Cost: 2 x 4096^3 = 137 GFLOP; at ~4-6 TFLOP/s for a plain 16 x 16 tiled GEMM about 25-35 ms on an
H200 (cuBLAS reference 2.79 ms).
"""

CUDA = r"""
const int TILE = 16;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void matmul_symmetric_kernel(
    const float* __restrict__ A,    // [N, N], symmetric
    const float* __restrict__ B,    // [N, N], symmetric
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

TILE = 16               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # rows are tiled along gridDim.y


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        N = A.shape[0]
        C = torch.empty(N, N, device=A.device, dtype=A.dtype)
        return (
            "matmul_symmetric_kernel",
            (K.cdiv(N, TILE), K.cdiv(N, TILE), 1),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, N)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.matmul(A, B)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(N, N); A = (A + A.T) / 2; B likewise, in that order
        A = torch.rand(s["n"], s["n"])
        A = (A + A.T) / 2
        B = torch.rand(s["n"], s["n"])
        B = (B + B.T) / 2
        return [A, B]

    def signed_inputs(torch, s):
        # Symmetrised U[-1, 1): zero-mean products, so every output is a sum that cancels.
        A = torch.rand(s["n"], s["n"]) * 2.0 - 1.0
        A = (A + A.T) / 2
        B = torch.rand(s["n"], s["n"]) * 2.0 - 1.0
        B = (B + B.T) / 2
        return [A, B]

    def sparse_inputs(torch, s):
        # A: a symmetric matrix with about 2% of the entries nonzero (values 1..50), the rest exact
        # zeros; B: symmetrised U[-1, 1).
        n = s["n"]
        R = torch.zeros(n, n)
        mask = torch.rand(n, n) < 0.01
        R[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        A = torch.maximum(R, R.T)
        B = torch.rand(n, n) * 2.0 - 1.0
        B = (B + B.T) / 2
        return [A, B]

    return K.substrate(
        name="L1p13_matmul_symmetric",
        level=1,
        problem="13_Matmul_for_symmetric_matrices",
        cuda=CUDA,
        kernel_name="matmul_symmetric_kernel",
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
                purpose="N = 45 = 2 x 16 + 13: the last row and column of blocks hold 13 live lines and the last "
                "K-tile 13 live terms, so every load guard (a read past A or B), its zero fill (garbage terms "
                "in live outputs) and the store guard matter; symmetrised signed U[-1,1) values make outputs "
                "zero-mean (std ~1.1) so a lost or duplicated term moves them by far more than 1e-2",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"n": 1000},
                purpose="N = 1000 = 62 x 16 + 8, symmetrised signed U[-1,1): outputs are cancelling sums of 1000 "
                "terms (std ~5.3, many near zero) where dropping one K-tile of 16 terms (a change of std ~0.7 "
                "against an allowance of ~0.01-0.2) or the 8-term tail is visible, unlike at U[0,1) where every "
                "output is ~N/4 and a missing tile is under 1%",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"n": 515},
                purpose="A symmetric and about 2% nonzero (values 1..50), the rest exact zeros, B symmetrised "
                "signed U[-1,1): each output is about 10 large isolated terms, so a single wrong k index, tile "
                "offset or row/column swap of the output changes it outright instead of being averaged away; "
                "515 = 32 x 16 + 3",
            ),
        ],
        notes="Every suite keeps A and B symmetric, as the problem promises, so reading A or B transposed "
        "(A[k, row], B[col, k]) is not a fault here: such mutants are equivalent on every suite, and a kernel "
        "that exploits the symmetry (for coalescing) is legitimate. C itself is not symmetric, so a transposed "
        "output store is caught. At the official inputs every output is about N/4 = 1024 with std ~9, so at "
        "rtol 1e-2 (allowance ~10) a kernel that drops one 16-wide K-tile (about 4) passes T0_original; the "
        "signed suites make each term count. N = 4096 is a multiple of the tile, so no guard fires on T0. "
        "Matmuls in the reference are full fp32 (no TF32).",
    )
