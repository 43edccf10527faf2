"""KernelBench level 1, problem 14_Matmul_for_upper_triangular_matrices: C = triu(A @ B), A and B upper triangular 4096 x 4096.

get_inputs() draws A = triu(U[0,1)) and B = triu(U[0,1)), so C[i, j] = sum over i <= k <= j of
A[i, k] * B[k, j] for i <= j and C[i, j] = 0 below the diagonal. One kernel: a 32 x 32
shared-memory tiled GEMM (one thread per output element; a barrier after the tile loads and
another after the multiply-accumulate) that uses the structure: the block of row tile by and column
tile bx only visits the K-tiles by..bx (the tiles that can hold k in [i, j]), so a block below the
diagonal (by > bx) runs no phase, and every thread writes 0 for row > col. Entries of a visited tile
outside [i, j] are zeros of the triangular inputs. Tile loads are guarded and zero-filled outside
the matrices; the output store is guarded. Flat offsets are 64-bit.

Cost: the (block, K-tile) pairs number about (N / 32)^3 / 6, a sixth of a full GEMM: about 23 GFLOP
of tile work; at ~5-6 TFLOP/s about 4-6 ms on an H200 (the reference runs a full cuBLAS GEMM and a
triu: 2.74 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void matmul_upper_triangular_kernel(
    const float* __restrict__ A,    // [N, N], upper triangular
    const float* __restrict__ B,    // [N, N], upper triangular
    float* __restrict__ C,          // [N, N], upper triangular result
    int N)
{
    __shared__ float As[TILE][TILE];    // As[r][k] = A[row0 + r, k0 + k]
    __shared__ float Bs[TILE][TILE];    // Bs[k][c] = B[k0 + k, col0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row
    int col = blockIdx.x * TILE + tx;   // output column

    float acc = 0.0f;
    int first_tile = blockIdx.y;        // k >= row: A[row, k] is zero left of the diagonal
    int last_tile = blockIdx.x;         // k <= col: B[k, col] is zero below the diagonal
    for (int t = first_tile; t <= last_tile; ++t) {
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
        C[(long long)row * N + col] = (row <= col) ? acc : 0.0f;   // triu: zero below the diagonal
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
            "matmul_upper_triangular_kernel",
            (K.cdiv(N, TILE), K.cdiv(N, TILE), 1),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, N)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.triu(torch.matmul(A, B))

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.triu(torch.rand(N, N)); B = torch.triu(torch.rand(N, N))
        A = torch.triu(torch.rand(s["n"], s["n"]))
        B = torch.triu(torch.rand(s["n"], s["n"]))
        return [A, B]

    def signed_inputs(torch, s):
        # Upper-triangular U[-1, 1): zero-mean products, so every output is a sum that cancels.
        A = torch.triu(torch.rand(s["n"], s["n"]) * 2.0 - 1.0)
        B = torch.triu(torch.rand(s["n"], s["n"]) * 2.0 - 1.0)
        return [A, B]

    def sparse_inputs(torch, s):
        # A: upper triangular with about 5% of its entries nonzero (values 1..50), the rest exact
        # zeros, and a nonzero diagonal; B: upper-triangular U[-1, 1).
        n = s["n"]
        A = torch.zeros(n, n)
        mask = torch.rand(n, n) < 0.05
        mask |= torch.eye(n, dtype=torch.bool)
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        A = torch.triu(A)
        B = torch.triu(torch.rand(n, n) * 2.0 - 1.0)
        return [A, B]

    return K.substrate(
        name="L1p14_matmul_upper_triangular",
        level=1,
        problem="14_Matmul_for_upper_triangular_matrices",
        cuda=CUDA,
        kernel_name="matmul_upper_triangular_kernel",
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
                purpose="N = 45 = 32 + 13: the last row and column of blocks hold 13 live lines and the last "
                "K-tile 13 live terms, so every load guard, its zero fill and the store guard matter; with two "
                "tiles per side the diagonal blocks, the one block above the diagonal (which needs both K-tiles) "
                "and the one below it (all zeros) are all present, so a K range one tile short at either end, a "
                "full range that reads past the matrix or a lost zero store shows; upper-triangular signed "
                "U[-1,1) values make outputs zero-mean cancelling sums",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"n": 1000},
                purpose="N = 1000 = 31 x 32 + 8 with upper-triangular signed U[-1,1) values: output (i, j) sums "
                "j - i + 1 cancelling terms (std up to ~10), so dropping the first or last K-tile of a block's "
                "range (up to 32 terms, std ~1.9) or the 8-term tail changes outputs far beyond 1e-2, where at "
                "U[0,1) the far-from-diagonal outputs are ~(j - i) / 4 and a lost tile is a few percent",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"n": 515},
                purpose="A upper triangular, about 5% of its upper entries and its whole diagonal nonzero (values "
                "1..50), the rest exact zeros, B upper-triangular signed U[-1,1): each output is a few large "
                "isolated terms, including k = i (the first term of the range, in the block's first K-tile), so a "
                "wrong first tile, a wrong k index or a row/column swap changes it outright; 515 = 16 x 32 + 3",
            ),
        ],
        notes="Every suite keeps A and B upper triangular, as the problem promises: the kernel's K range "
        "by..bx relies on it, so widening that range (back to the full K) only adds exact zeros and is "
        "equivalent, and since the product of upper-triangular matrices is upper triangular (its lower part "
        "is exactly 0 even without the triu), dropping the row <= col masking is equivalent too. Near the "
        "diagonal the official outputs are small (C[i, i] = A[i, i] B[i, i] < 1), so T0_original sees single "
        "lost terms there; far from it outputs reach ~N/4 and a lost K-tile (~8) is under the allowance. "
        "N = 4096 is a multiple of the tile, so no guard fires on T0. Matmuls in the reference are full fp32 "
        "(no TF32).",
    )
