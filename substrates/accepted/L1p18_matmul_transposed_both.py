"""KernelBench level 1, problem 18_Matmul_with_transposed_both: C = torch.matmul(A.T, B.T), A 8192 x 2048, B 4096 x 8192.

One kernel: a plain 16 x 16 shared-memory tiled GEMM (one thread per output element, one K-tile of
A and of B staged in shared memory per phase, a barrier after the loads and another after the
multiply-accumulate). Both operands are read in their stored layouts and transposed into the
tiles: the thread (ty, tx) loads A[k0 + ty, row0 + tx] of A = [K, M] (consecutive threads read
consecutive columns of A) and B[col0 + ty, k0 + tx] of B = [N, K] (consecutive threads read
consecutive columns of B), and stores each at the swapped tile position, so C[i, j] =
sum_k A[k, i] * B[j, k].
Tile loads are guarded and zero-filled outside the matrices, so any M, N, K work; the output store
is guarded. Flat offsets are 64-bit.

Cost: 2 x 2048 x 4096 x 8192 = 137 GFLOP; at ~5-6 TFLOP/s for this tiled GEMM about 25-30 ms on an
H200 (cuBLAS reference 2.77 ms).
"""

CUDA = r"""
const int TILE = 16;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void matmul_transposed_both_kernel(
    const float* __restrict__ A,    // [K, M]  (the product uses A^T and B^T:
    const float* __restrict__ B,    // [N, K]   C[i, j] = sum_k A[k, i] * B[j, k])
    float* __restrict__ C,          // [M, N]
    int M, int N, int K)
{
    __shared__ float As[TILE][TILE];    // As[r][k] = A[k0 + k, row0 + r]  (stored transposed)
    __shared__ float Bs[TILE][TILE];    // Bs[k][c] = B[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (column of A)
    int col = blockIdx.x * TILE + tx;   // output column (row of B)
    int a_col = blockIdx.y * TILE + tx; // the A column this thread loads into the tile
    int b_row = blockIdx.x * TILE + ty; // the B row this thread loads into the tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int a_k = t * TILE + ty;        // the row of A this thread loads
        int b_k = t * TILE + tx;        // the column of B this thread loads
        if (a_k < K && a_col < M) {
            As[tx][ty] = A[(long long)a_k * M + a_col];
        } else {
            As[tx][ty] = 0.0f;
        }
        if (b_row < N && b_k < K) {
            Bs[tx][ty] = B[(long long)b_row * K + b_k];
        } else {
            Bs[tx][ty] = 0.0f;
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

TILE = 16               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # the rows of A are tiled along gridDim.y


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        Kd, M = A.shape
        N = B.shape[0]
        C = torch.empty(M, N, device=A.device, dtype=A.dtype)
        return (
            "matmul_transposed_both_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.matmul(A.T, B.T)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(K, M); B = torch.rand(N, K)
        A = torch.rand(s["k"], s["m"])
        B = torch.rand(s["n"], s["k"])
        return [A, B]

    def signed_inputs(torch, s):
        # U[-1, 1): zero-mean products, so outputs are cancelling sums in which each term counts.
        A = torch.rand(s["k"], s["m"]) * 2.0 - 1.0
        B = torch.rand(s["n"], s["k"]) * 2.0 - 1.0
        return [A, B]

    def sparse_inputs(torch, s):
        # A: about 2% of the entries nonzero (values 1..50), the rest exact zeros; B: U[-1, 1).
        A = torch.zeros(s["k"], s["m"])
        mask = torch.rand(s["k"], s["m"]) < 0.02
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.rand(s["n"], s["k"]) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p18_matmul_transposed_both",
        level=1,
        problem="18_Matmul_with_transposed_both",
        cuda=CUDA,
        kernel_name="matmul_transposed_both_kernel",
        launch=launch,
        ref=ref,
        dims={
            "m": K.dim(2048, max=MAX_GRID_Y * TILE),
            "n": K.dim(4096),
            "k": K.dim(8192, max=2**30),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"m": 19, "n": 35, "k": 41},
                small=True,
                purpose="M = 19 = 16 + 3, N = 35 = 2 x 16 + 3, K = 41 = 2 x 16 + 9, all different: every row, "
                "column and K-tile guard fires in a partial tile (a dropped guard reads past A or B, a dropped "
                "zero fill adds garbage terms) and an M/N/K swap in an index or a bound changes the result; "
                "signed U[-1,1) values make outputs zero-mean (std ~2.1) so one lost term is visible",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"m": 40, "n": 72, "k": 8195},
                purpose="the official-length K (8195 = 512 x 16 + 3) with signed U[-1,1) values: outputs are "
                "cancelling 8195-term sums (std ~30, many near zero) where dropping one 16-wide K-tile (a change "
                "of std ~1.3 against an allowance of ~0.3) or a tail term is visible, unlike at U[0,1) where "
                "every output is ~2048 and a missing tile is under 1%; M = 40 and N = 72 leave partial row and "
                "column tiles; a correct fp32 kernel stays orders of magnitude inside 1e-2",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"m": 64, "n": 80, "k": 1024},
                purpose="A about 2% nonzero (values 1..50), the rest exact zeros, B signed U[-1,1): each output is "
                "about 20 large isolated terms, so a single wrong k index, tile offset or reading A as [M, K] "
                "or B as [K, N] (without the transpose) changes it outright instead of being averaged away",
            ),
        ],
        notes="At the official inputs (U[0,1), K = 8192) every output is about 2048 with std ~20, so at rtol "
        "1e-2 (allowance ~20) a kernel that drops up to two or three of the 512 16-wide K-tiles (about 4 "
        "each; three reach 0.98 of the allowance on 1M outputs, four fail on 1% of them) passes "
        "T0_original; the signed suites make each term count. The official M, N, K are multiples of the "
        "16-wide tile, so no guard fires on T0: only T1-T3 have remainders. Reading A or B untransposed "
        "(A[i * K + k], B[k * N + j]) stays inside the operand (same element count) but pairs the wrong "
        "elements: on T0 the two sums are independent (std ~20 each against an allowance of ~20), so most "
        "outputs fail. Matmuls in the reference are full fp32 "
        "(no TF32).",
    )
