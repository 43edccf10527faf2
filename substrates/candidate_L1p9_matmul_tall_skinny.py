"""KernelBench level 1, problem 9_Tall_skinny_matrix_multiplication_: C = torch.matmul(A, B), A 32768 x 32, B 32 x 32768.

The file's M = 32768 and N = 32 name A's shape (M, N) and B's shape (N, M): the product is an
M x M outer-product-like GEMM with inner size N = 32. One kernel: a plain 16 x 16 shared-memory
tiled GEMM (one thread per output element; one 16-wide K-tile of A and of B staged in shared memory
per phase, a barrier after the loads and another after the multiply-accumulate; the inner 32 takes
two phases). Tile loads are guarded and zero-filled outside the matrices, so any sizes work; the
output store is guarded. The output has 1.07 G elements: flat offsets are 64-bit.

Cost: 2 x 32768 x 32768 x 32 = 68.7 GFLOP plus a 4.3 GB output; at ~4-6 TFLOP/s for a plain tiled
GEMM about 13-18 ms on an H200 (cuBLAS reference 2.54 ms).
"""

CUDA = r"""
const int TILE = 16;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

extern "C" __global__ void matmul_tall_skinny_kernel(
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

TILE = 16               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # the rows of A are tiled along gridDim.y


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        M, Kd = A.shape
        N = B.shape[1]
        C = torch.empty(M, N, device=A.device, dtype=A.dtype)
        return (
            "matmul_tall_skinny_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.matmul(A, B)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(M, N); B = torch.rand(N, M)
        A = torch.rand(s["m"], s["n"])
        B = torch.rand(s["n"], s["m"])
        return [A, B]

    def signed_inputs(torch, s):
        # U[-1, 1): zero-mean products, so every output is a sum that cancels and each term counts.
        A = torch.rand(s["m"], s["n"]) * 2.0 - 1.0
        B = torch.rand(s["n"], s["m"]) * 2.0 - 1.0
        return [A, B]

    def sparse_inputs(torch, s):
        # A: about 10% of the entries nonzero (values 1..50), the rest exact zeros; B: U[-1, 1).
        A = torch.zeros(s["m"], s["n"])
        mask = torch.rand(s["m"], s["n"]) < 0.1
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.rand(s["n"], s["m"]) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p9_matmul_tall_skinny",
        level=1,
        problem="9_Tall_skinny_matrix_multiplication_",
        cuda=CUDA,
        kernel_name="matmul_tall_skinny_kernel",
        launch=launch,
        ref=ref,
        dims={
            "m": K.dim(32768, max=MAX_GRID_Y * TILE),
            "n": K.dim(32),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"m": 37, "n": 21},
                small=True,
                purpose="M = 37 = 2 x 16 + 5 output rows and columns, inner N = 21 = 16 + 5: every row, column "
                "and K-tile guard fires in a partial tile (a dropped guard reads past A or B, a dropped zero "
                "fill adds garbage terms) and a swap of the inner size with M in an index or a bound changes "
                "the result; signed U[-1,1) values make outputs zero-mean (std ~1.5) so one lost term is visible",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"m": 200, "n": 35},
                purpose="an inner size just past the official 32 (35 = 2 x 16 + 3) with signed U[-1,1) values: "
                "outputs are cancelling 35-term sums (std ~2, many near zero) where a lost K-tile, the 3-term "
                "tail or a single term (std ~0.33 against an allowance of ~0.01-0.03) is visible; M = 200 = "
                "12 x 16 + 8 leaves partial row and column tiles",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"m": 96, "n": 32},
                purpose="A about 10% nonzero (values 1..50), the rest exact zeros, B signed U[-1,1): each output "
                "is about 3 large isolated terms, so a single wrong k index, tile offset, a transposed tile or "
                "a row/column swap changes it outright instead of being averaged away; about 3% of the rows of "
                "A are all zero, so their outputs are exactly 0",
            ),
        ],
        notes="At the official inputs (U[0,1), inner size 32) every output is about 8 with std ~1.3, so at "
        "rtol 1e-2 (allowance ~0.09) a single dropped term (~0.25) fails most outputs: T0_original is "
        "sensitive. The output is M x M at every size (A is M x N and B is N x M), so a fault that swaps "
        "the row and column counts M and N of the kernel (both M here) is equivalent at every declared size. "
        "The official sizes are multiples of the 16-wide tile, so no guard fires on T0: only T1-T3 have "
        "remainders. The output has 1.07 G elements (under 2^31), so a 32-bit output offset happens to "
        "stay in range on T0_original. Matmuls in the reference are full fp32 (no TF32).",
    )
