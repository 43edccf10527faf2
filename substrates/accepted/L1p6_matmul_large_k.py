"""KernelBench level 1, problem 6_Matmul_with_large_K_dimension_: C = torch.matmul(A, B), A 256 x 524288, B 524288 x 256.

One kernel: a 16 x 16 shared-memory tiled GEMM whose K loop is split inside each block. A block is
16 x 16 x KSPLIT threads: the KSPLIT slices (threadIdx.z) of one output tile take the K-tiles
t0 + z of every group of KSPLIT consecutive 16-wide K-tiles, each slice with its own pair of shared
tiles (a barrier after the loads, another after the multiply-accumulate). Every slice runs the same
number of groups, so the barriers are uniform; a K-tile past the end is zero-filled by the load
guards. At the end each slice parks its fp32 partial sum in shared memory and a tree reduction over
the slices (a barrier after every level) adds them in a fixed order, so the result is deterministic
(no atomics). Flat offsets are 64-bit.

Cost: 2 x 256 x 256 x 524288 = 68.7 GFLOP. The 256 output tiles give 256 blocks of 1024 threads
(one wave, two blocks per SM on an H200); at ~4-6 TFLOP/s for this plain tiled GEMM about 12-18 ms
(cuBLAS reference 1.31 ms).
"""

CUDA = r"""
const int TILE = 16;    // tile edge: each K-slice is TILE x TILE threads, consuming TILE of K per tile
const int KSPLIT = 4;   // K-slices per block (blockDim.z); a power of two for the tree reduction

extern "C" __global__ void matmul_large_k_kernel(
    const float* __restrict__ A,    // [M, K]
    const float* __restrict__ B,    // [K, N]
    float* __restrict__ C,          // [M, N]
    int M, int N, int K)
{
    __shared__ float As[KSPLIT][TILE][TILE];        // As[z][r][k] = A[row0 + r, (t0 + z) * TILE + k]
    __shared__ float Bs[KSPLIT][TILE][TILE];        // Bs[z][k][c] = B[(t0 + z) * TILE + k, col0 + c]
    __shared__ float partial[KSPLIT][TILE][TILE];   // each slice's partial sum of one output

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tz = threadIdx.z;               // K-slice of this thread
    int row = blockIdx.y * TILE + ty;   // output row
    int col = blockIdx.x * TILE + tx;   // output column

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t0 = 0; t0 < num_tiles; t0 += KSPLIT) {
        int t = t0 + tz;                // the K-tile of this slice in this group
        int a_col = t * TILE + tx;      // the column of A this thread loads
        int b_row = t * TILE + ty;      // the row of B this thread loads
        if (row < M && a_col < K) {
            As[tz][ty][tx] = A[(long long)row * K + a_col];
        } else {
            As[tz][ty][tx] = 0.0f;
        }
        if (b_row < K && col < N) {
            Bs[tz][ty][tx] = B[(long long)b_row * N + col];
        } else {
            Bs[tz][ty][tx] = 0.0f;
        }
        __syncthreads();    // every slice's tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += As[tz][ty][kk] * Bs[tz][kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    // Fixed-order tree reduction of the KSPLIT partial sums of this output.
    partial[tz][ty][tx] = acc;
    __syncthreads();
    for (int s = KSPLIT / 2; s > 0; s >>= 1) {
        if (tz < s) {
            partial[tz][ty][tx] = partial[tz][ty][tx] + partial[tz + s][ty][tx];
        }
        __syncthreads();
    }

    if (tz == 0 && row < M && col < N) {
        C[(long long)row * N + col] = partial[0][ty][tx];
    }
}
"""

TILE = 16               # must equal TILE in the CUDA source
KSPLIT = 4              # must equal KSPLIT in the CUDA source (blockDim.z)
MAX_GRID_Y = 65535      # the rows of A are tiled along gridDim.y


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        M, Kd = A.shape
        N = B.shape[1]
        C = torch.empty(M, N, device=A.device, dtype=A.dtype)
        return (
            "matmul_large_k_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, KSPLIT),
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
        # U[-1, 1): zero-mean products, so outputs are cancelling sums in which each K region counts.
        A = torch.rand(s["m"], s["k"]) * 2.0 - 1.0
        B = torch.rand(s["k"], s["n"]) * 2.0 - 1.0
        return [A, B]

    def sparse_inputs(torch, s):
        # A: about 0.1% of the entries nonzero (values 1..50) plus a nonzero first and last column,
        # the rest exact zeros; B: U[-1, 1).
        m, k = s["m"], s["k"]
        A = torch.zeros(m, k)
        mask = torch.rand(m, k) < 0.001
        mask[:, 0] = True
        mask[:, k - 1] = True
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.rand(k, s["n"]) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p6_matmul_large_k",
        level=1,
        problem="6_Matmul_with_large_K_dimension_",
        cuda=CUDA,
        kernel_name="matmul_large_k_kernel",
        launch=launch,
        ref=ref,
        dims={
            "m": K.dim(256, max=MAX_GRID_Y * TILE),
            "n": K.dim(256),
            "k": K.dim(524288, max=2**30),
        },
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (nearly constant output: see notes)",
            ),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"m": 19, "n": 21, "k": 967},
                small=True,
                purpose="M = 19 = 16 + 3, N = 21 = 16 + 5, K = 967 = 60 x 16 + 7: 61 K-tiles, so the last "
                "group of 4 has one live slice and three slices past the end (their zero fill and the a_col/"
                "b_row < K guards matter) and the last live tile holds 7 terms; partial row and column tiles; "
                "signed U[-1,1) values make outputs zero-mean (std ~10) so a lost term, tile or slice is visible",
            ),
            K.suite(
                "T2_signed_long_k",
                signed_inputs,
                seeds=[3, 4],
                sizes={"m": 32, "n": 48, "k": 131075},
                purpose="long K (131075 = 8192 x 16 + 3) with signed U[-1,1) values: outputs are cancelling sums "
                "(std ~120, many near zero), so dropping any group of K-tiles, one slice's partial, the tail "
                "or a level of the slice reduction, or permuting the K index (a transposed operand), moves them "
                "far beyond 1e-2, where on the official U[0,1) inputs every output is ~K/4 and 1% of K (about "
                "80 tile groups) can go missing unseen; a correct fp32 kernel stays well inside 1e-2",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"m": 24, "n": 40, "k": 65539},
                purpose="A about 0.1% nonzero (values 1..50) plus nonzero first and last columns, the rest exact "
                "zeros, B signed U[-1,1): each output is about 65 large isolated terms scattered over the whole "
                "K range, including k = 0 (the first tile of slice 0) and k = K - 1 (a 3-term tail tile), so a "
                "skipped first or last tile, a wrong slice offset or a wrong row stride changes it outright",
            ),
        ],
        notes="Degenerate at the official inputs: A and B are U[0,1) with K = 524288, so every output is "
        "K/4 = 131072 plus noise of std ~160 (0.12%); a constant 131072 passes the 1e-2 check (allowance "
        "~1311) on all five trials, and so does any output that is input-insensitive. What T0_original "
        "cannot see: dropping up to about 1% of the K terms (e.g. the last 300 K-tiles, or a tail), any "
        "permutation of the K index (reading A or B transposed or with a wrong stride, as long as it stays "
        "in bounds), scaling errors below 1%, and low-precision inputs with fp32 accumulation. It does see "
        "a lost slice (25% of K) and fp16 accumulators (which stall far below 131072). The targeted suites "
        "use signed or sparse inputs whose outputs are cancelling sums. The official M, N, K are multiples "
        "of the tile and of TILE x KSPLIT, so no guard fires on T0: only T1-T3 have remainders. Matmuls in "
        "the reference are full fp32 (no TF32).",
    )
