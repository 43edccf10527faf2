"""KernelBench level 1, problem 3_Batched_matrix_multiplication: C = torch.bmm(A, B), A 128 x 512 x 1024, B 128 x 1024 x 2048.

One kernel: a plain 16 x 16 shared-memory tiled GEMM per batch item (one thread per output
element; batch item b = blockIdx.z; one 16-wide K-tile of A[b] and of B[b] staged in shared memory
per phase, a barrier after the loads and another after the multiply-accumulate). Tile loads are
guarded and zero-filled outside the matrices, so any batch, M, N, K work; the output store is
guarded. Batch offsets and flat offsets are 64-bit.

Cost: 2 x 128 x 512 x 2048 x 1024 = 275 GFLOP; at ~4-6 TFLOP/s for a plain 16 x 16 tiled GEMM
about 45-70 ms on an H200 (cuBLAS reference 5.48 ms).
"""

CUDA = r"""
const int TILE = 16;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void bmm_kernel(
    const float* __restrict__ A,    // [batch, M, K]
    const float* __restrict__ B,    // [batch, K, N]
    float* __restrict__ C,          // [batch, M, N]
    int batch, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];    // As[r][k] = A[b, row0 + r, k0 + k]
    __shared__ float Bs[TILE][TILE];    // Bs[k][c] = B[b, k0 + k, col0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int b = blockIdx.z;                 // batch item
    int row = blockIdx.y * TILE + ty;   // output row
    int col = blockIdx.x * TILE + tx;   // output column

    const float* Ab = A + (long long)b * M * K;     // this batch item's matrices
    const float* Bb = B + (long long)b * K * N;

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int a_col = t * TILE + tx;      // the column of A[b] this thread loads
        int b_row = t * TILE + ty;      // the row of B[b] this thread loads
        if (row < M && a_col < K) {
            As[ty][tx] = Ab[(long long)row * K + a_col];
        } else {
            As[ty][tx] = 0.0f;
        }
        if (b_row < K && col < N) {
            Bs[ty][tx] = Bb[(long long)b_row * N + col];
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
        C[((long long)b * M + row) * N + col] = acc;
    }
}
"""

TILE = 16               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # the rows of A are tiled along gridDim.y
MAX_GRID_Z = 65535      # the batch runs along gridDim.z


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        batch, M, Kd = A.shape
        N = B.shape[2]
        C = torch.empty(batch, M, N, device=A.device, dtype=A.dtype)
        return (
            "bmm_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), batch),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, batch), (ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.bmm(A, B)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(batch_size, m, k); B = torch.rand(batch_size, k, n)
        A = torch.rand(s["batch"], s["m"], s["k"])
        B = torch.rand(s["batch"], s["k"], s["n"])
        return [A, B]

    def signed_inputs(torch, s):
        # U[-1, 1): zero-mean products, so every output is a sum that cancels and each term counts.
        A = torch.rand(s["batch"], s["m"], s["k"]) * 2.0 - 1.0
        B = torch.rand(s["batch"], s["k"], s["n"]) * 2.0 - 1.0
        return [A, B]

    def sparse_inputs(torch, s):
        # A: about 2% of the entries nonzero (values 1..50), the rest exact zeros; B: U[-1, 1).
        shape = (s["batch"], s["m"], s["k"])
        A = torch.zeros(shape)
        mask = torch.rand(shape) < 0.02
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.rand(s["batch"], s["k"], s["n"]) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p3_bmm",
        level=1,
        problem="3_Batched_matrix_multiplication",
        cuda=CUDA,
        kernel_name="bmm_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128, max=MAX_GRID_Z),
            "m": K.dim(512, max=MAX_GRID_Y * TILE),
            "n": K.dim(2048),
            "k": K.dim(1024),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "m": 19, "n": 21, "k": 35},
                small=True,
                purpose="M = 19 = 16 + 3, N = 21 = 16 + 5, K = 35 = 2 x 16 + 3, all different, and 3 batch "
                "items: every row, column and K-tile guard fires in a partial tile (a dropped guard reads into "
                "the next batch item or past the end, a dropped zero fill adds garbage terms), an M/N/K swap "
                "in a batch offset, an index or a bound changes the result, and a wrong batch stride mixes "
                "items; signed U[-1,1) values make outputs zero-mean (std ~2) so one lost term is visible",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "m": 40, "n": 72, "k": 1027},
                purpose="the official-length K (1027 = 64 x 16 + 3) with signed U[-1,1) values: outputs are "
                "cancelling 1027-term sums (std ~10.5, many near zero) where dropping one 16-wide K-tile (a "
                "change of std ~1.3 against an allowance of ~0.01-0.4) or the 3-term tail is visible, unlike at "
                "U[0,1) where every output is ~256 and a missing tile is 1.6%; M = 40 and N = 72 leave partial "
                "row and column tiles; a correct fp32 kernel stays orders of magnitude inside 1e-2",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "m": 48, "n": 40, "k": 300},
                purpose="A about 2% nonzero (values 1..50), the rest exact zeros, B signed U[-1,1): each output is "
                "about 6 large isolated terms, so a single wrong k index, tile offset, a transposed tile, a "
                "row/column swap or a B taken from another batch item changes it outright instead of being "
                "averaged away; K = 300 = 18 x 16 + 12",
            ),
        ],
        notes="At the official inputs (U[0,1), K = 1024) every output is about 256 with std ~7, so at rtol "
        "1e-2 (allowance ~2.6) a kernel that drops one 16-wide K-tile (about 4) fails most outputs but one "
        "that loses a few terms passes; the signed suites make each term count. The official batch, M, N, K "
        "are multiples of the 16-wide tile, so no guard fires on T0: only T1-T3 have remainders. Matmuls in "
        "the reference are full fp32 (no TF32).",
    )
