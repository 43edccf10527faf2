"""KernelBench level 1, problem 10_3D_tensor_matrix_multiplication: C = torch.matmul(A, B), A 16 x 1024 x 2048, B 2048 x 768.

torch.matmul broadcasts the matrix B over the leading dimension of A: C[n] = A[n] @ B for each of
the N = 16 slices. One kernel: a plain 32 x 32 shared-memory tiled GEMM per slice (one thread per
output element; slice n = blockIdx.z; one 32-wide K-tile of A[n] and of the shared B staged in
shared memory per phase, a barrier after the loads and another after the multiply-accumulate).
B has no slice offset. Tile loads are guarded and zero-filled outside the matrices, so any sizes
work; the output store is guarded. Slice and flat offsets are 64-bit.

Cost: 2 x 16 x 1024 x 768 x 2048 = 51.5 GFLOP; at ~5-6 TFLOP/s for a plain tiled GEMM about 9-11 ms
on an H200 (cuBLAS reference 1.04 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void tensor3d_matmul_kernel(
    const float* __restrict__ A,    // [N, M, K]
    const float* __restrict__ B,    // [K, L]  (one matrix shared by every slice of A)
    float* __restrict__ C,          // [N, M, L]
    int N, int M, int K, int L)
{
    __shared__ float As[TILE][TILE];    // As[r][k] = A[n, row0 + r, k0 + k]
    __shared__ float Bs[TILE][TILE];    // Bs[k][c] = B[k0 + k, col0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int n = blockIdx.z;                 // slice of A
    int row = blockIdx.y * TILE + ty;   // output row within the slice
    int col = blockIdx.x * TILE + tx;   // output column

    const float* An = A + (long long)n * M * K;     // this slice of A

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int a_col = t * TILE + tx;      // the column of A[n] this thread loads
        int b_row = t * TILE + ty;      // the row of B this thread loads
        if (row < M && a_col < K) {
            As[ty][tx] = An[(long long)row * K + a_col];
        } else {
            As[ty][tx] = 0.0f;
        }
        if (b_row < K && col < L) {
            Bs[ty][tx] = B[(long long)b_row * L + col];
        } else {
            Bs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += As[ty][kk] * Bs[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < L) {
        C[((long long)n * M + row) * L + col] = acc;
    }
}
"""

TILE = 32               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # the rows of a slice are tiled along gridDim.y
MAX_GRID_Z = 65535      # the slices run along gridDim.z


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        N, M, Kd = A.shape
        L = B.shape[1]
        C = torch.empty(N, M, L, device=A.device, dtype=A.dtype)
        return (
            "tensor3d_matmul_kernel",
            (K.cdiv(L, TILE), K.cdiv(M, TILE), N),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, N), (ctypes.c_int, M), (ctypes.c_int, Kd), (ctypes.c_int, L)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.matmul(A, B)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(N, M, K); B = torch.rand(K, L)
        A = torch.rand(s["n"], s["m"], s["k"])
        B = torch.rand(s["k"], s["l"])
        return [A, B]

    def signed_inputs(torch, s):
        # U[-1, 1): zero-mean products, so every output is a sum that cancels and each term counts.
        A = torch.rand(s["n"], s["m"], s["k"]) * 2.0 - 1.0
        B = torch.rand(s["k"], s["l"]) * 2.0 - 1.0
        return [A, B]

    def sparse_inputs(torch, s):
        # A: about 2% of the entries nonzero (values 1..50), the rest exact zeros; B: U[-1, 1).
        shape = (s["n"], s["m"], s["k"])
        A = torch.zeros(shape)
        mask = torch.rand(shape) < 0.02
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.rand(s["k"], s["l"]) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p10_tensor3d_matmul",
        level=1,
        problem="10_3D_tensor_matrix_multiplication",
        cuda=CUDA,
        kernel_name="tensor3d_matmul_kernel",
        launch=launch,
        ref=ref,
        dims={
            "n": K.dim(16, max=MAX_GRID_Z),
            "m": K.dim(1024, max=MAX_GRID_Y * TILE),
            "k": K.dim(2048),
            "l": K.dim(768),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"n": 2, "m": 37, "k": 70, "l": 45},
                small=True,
                purpose="M = 37 = 32 + 5, K = 70 = 2 x 32 + 6, L = 45 = 32 + 13, all different, and 2 slices: "
                "every row, column and K-tile guard fires in a partial tile (a dropped guard reads into the "
                "next slice or past the end, a dropped zero fill adds garbage terms), an M/K/L swap in an "
                "offset, an index or a bound changes the result, and a slice offset applied to B (as if it "
                "were batched) or a wrong slice stride shows; signed U[-1,1) values make outputs zero-mean "
                "(std ~2.7) so one lost term is visible",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"n": 2, "m": 40, "k": 2051, "l": 72},
                purpose="the official-length K (2051 = 64 x 32 + 3) with signed U[-1,1) values: outputs are "
                "cancelling 2051-term sums (std ~15, many near zero) where dropping one 32-wide K-tile (std "
                "~1.9 against an allowance of ~0.01-0.5) or the 3-term tail is visible, unlike at U[0,1) where "
                "every output is ~512 and a missing tile is 1.6%; M = 40 and L = 72 leave partial row and "
                "column tiles",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"n": 3, "m": 48, "k": 500, "l": 40},
                purpose="A about 2% nonzero (values 1..50), the rest exact zeros, B signed U[-1,1): each output is "
                "about 10 large isolated terms, so a single wrong k index, tile offset, a transposed tile, a "
                "row/column swap or a slice taken from the wrong offset changes it outright instead of being "
                "averaged away; K = 500 = 15 x 32 + 20",
            ),
        ],
        notes="At the official inputs (U[0,1), K = 2048) every output is about 512 with std ~10, so at rtol "
        "1e-2 (allowance ~5) a kernel that drops one 32-wide K-tile (about 8) fails but one that loses a "
        "dozen terms passes; the signed suites make each term count. The official sizes are multiples of the "
        "32-wide tile, so no guard fires on T0: only T1-T3 have remainders. Matmuls in the reference are full "
        "fp32 (no TF32).",
    )
