"""KernelBench level 1, problem 15_Matmul_for_lower_triangular_matrices: C = tril(A @ B), A and B lower triangular 4096 x 4096.

get_inputs() draws A = tril(U[0,1)) and B = tril(U[0,1)) (both rand draws first, then both tril),
so C[i, j] = sum over j <= k <= i of A[i, k] * B[k, j] for i >= j and C[i, j] = 0 above the
diagonal. One kernel: a 32 x 32 shared-memory tiled GEMM (one thread per output element; a barrier
after the tile loads and another after the multiply-accumulate) that uses the structure: the block
of row tile by and column tile bx only visits the K-tiles bx..by (the tiles that can hold k in
[j, i]), so a block above the diagonal (bx > by) runs no phase, and every thread writes 0 for
row < col. Entries of a visited tile outside [j, i] are zeros of the triangular inputs. Tile loads
are guarded and zero-filled outside the matrices; the output store is guarded. Flat offsets are
64-bit.

Cost: the (block, K-tile) pairs number about (N / 32)^3 / 6, a sixth of a full GEMM: about 23 GFLOP
of tile work; at ~5-6 TFLOP/s about 4-6 ms on an H200 (the reference runs a full cuBLAS GEMM and a
tril: 2.8 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void matmul_lower_triangular_kernel(
    const float* __restrict__ A,    // [M, M], lower triangular
    const float* __restrict__ B,    // [M, M], lower triangular
    float* __restrict__ C,          // [M, M], lower triangular result
    int M)
{
    __shared__ float As[TILE][TILE];    // As[r][k] = A[row0 + r, k0 + k]
    __shared__ float Bs[TILE][TILE];    // Bs[k][c] = B[k0 + k, col0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row
    int col = blockIdx.x * TILE + tx;   // output column

    float acc = 0.0f;
    int first_tile = blockIdx.x;        // k >= col: B[k, col] is zero above the diagonal
    int last_tile = blockIdx.y;         // k <= row: A[row, k] is zero right of the diagonal
    for (int t = first_tile; t <= last_tile; ++t) {
        int a_col = t * TILE + tx;      // the column of A this thread loads
        int b_row = t * TILE + ty;      // the row of B this thread loads
        if (row < M && a_col < M) {
            As[ty][tx] = A[(long long)row * M + a_col];
        } else {
            As[ty][tx] = 0.0f;
        }
        if (b_row < M && col < M) {
            Bs[ty][tx] = B[(long long)b_row * M + col];
        } else {
            Bs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += As[ty][kk] * Bs[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < M) {
        C[(long long)row * M + col] = (row >= col) ? acc : 0.0f;   // tril: zero above the diagonal
    }
}
"""

TILE = 32               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # rows are tiled along gridDim.y


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        M = A.shape[0]
        C = torch.empty(M, M, device=A.device, dtype=A.dtype)
        return (
            "matmul_lower_triangular_kernel",
            (K.cdiv(M, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, M)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.tril(torch.matmul(A, B))

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(M, M); B = torch.rand(M, M); A = torch.tril(A); B = torch.tril(B)
        A = torch.rand(s["m"], s["m"])
        B = torch.rand(s["m"], s["m"])
        A = torch.tril(A)
        B = torch.tril(B)
        return [A, B]

    def signed_inputs(torch, s):
        # Lower-triangular U[-1, 1): zero-mean products, so every output is a sum that cancels.
        A = torch.tril(torch.rand(s["m"], s["m"]) * 2.0 - 1.0)
        B = torch.tril(torch.rand(s["m"], s["m"]) * 2.0 - 1.0)
        return [A, B]

    def sparse_inputs(torch, s):
        # B: lower triangular with about 5% of its entries nonzero (values 1..50), the rest exact
        # zeros, and a nonzero diagonal; A: lower-triangular U[-1, 1).
        m = s["m"]
        A = torch.tril(torch.rand(m, m) * 2.0 - 1.0)
        B = torch.zeros(m, m)
        mask = torch.rand(m, m) < 0.05
        mask |= torch.eye(m, dtype=torch.bool)
        B[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.tril(B)
        return [A, B]

    return K.substrate(
        name="L1p15_matmul_lower_triangular",
        level=1,
        problem="15_Matmul_for_lower_triangular_matrices",
        cuda=CUDA,
        kernel_name="matmul_lower_triangular_kernel",
        launch=launch,
        ref=ref,
        dims={"m": K.dim(4096, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"m": 45},
                small=True,
                purpose="M = 45 = 32 + 13: the last row and column of blocks hold 13 live lines and the last "
                "K-tile 13 live terms, so every load guard, its zero fill and the store guard matter; with two "
                "tiles per side the diagonal blocks, the one block below the diagonal (which needs both K-tiles) "
                "and the one above it (all zeros) are all present, so a K range one tile short at either end, a "
                "range taken from the upper-triangular case (by..bx), a full range that reads past the matrix "
                "or a lost zero store shows; lower-triangular signed U[-1,1) values make outputs zero-mean "
                "cancelling sums",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"m": 1000},
                purpose="M = 1000 = 31 x 32 + 8 with lower-triangular signed U[-1,1) values: output (i, j) sums "
                "i - j + 1 cancelling terms (std up to ~10), so dropping the first or last K-tile of a block's "
                "range (up to 32 terms, std ~1.9) or the 8-term tail changes outputs far beyond 1e-2, where at "
                "U[0,1) the far-from-diagonal outputs are ~(i - j) / 4 and a lost tile is a few percent",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"m": 515},
                purpose="B lower triangular, about 5% of its lower entries and its whole diagonal nonzero (values "
                "1..50), the rest exact zeros, A lower-triangular signed U[-1,1): each output is a few large "
                "isolated terms, including k = j (the first term of the range, in the block's first K-tile), so a "
                "wrong first tile, a wrong k index or a row/column swap changes it outright; 515 = 16 x 32 + 3",
            ),
        ],
        notes="Every suite keeps A and B lower triangular, as the problem promises: the kernel's K range "
        "bx..by relies on it, so widening that range (back to the full K) only adds exact zeros and is "
        "equivalent, and since the product of lower-triangular matrices is lower triangular (its upper part "
        "is exactly 0 even without the tril), dropping the row >= col masking is equivalent too. Near the "
        "diagonal the official outputs are small (C[i, i] = A[i, i] B[i, i] < 1), so T0_original sees single "
        "lost terms there; far from it outputs reach ~M/4 and a lost K-tile (~8) is under the allowance. "
        "M = 4096 is a multiple of the tile, so no guard fires on T0. Matmuls in the reference are full fp32 "
        "(no TF32).",
    )
