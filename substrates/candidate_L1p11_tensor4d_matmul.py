"""KernelBench level 1, problem 11_4D_tensor_matrix_multiplication: C = einsum("bijl,lk->bijk", A, B), A 8 x 256 x 512 x 256, B 256 x 768.

The contraction runs over A's last axis only, so C viewed as [b * i * j, k] is the GEMM
A[b * i * j, l] @ B[l, k] with 1 M rows. One kernel: a plain 16 x 16 shared-memory tiled GEMM (one
thread per output element; the flattened row tiles run along gridDim.x, which allows 2^31 - 1
blocks, and the column tiles along gridDim.y; one 16-wide tile of the contraction axis of A and of
B staged in shared memory per phase, a barrier after the loads and another after the
multiply-accumulate). Tile loads are guarded and zero-filled outside the matrices, so any sizes
work; the output store is guarded. The flattened row index and all offsets are 64-bit.

Cost: 2 x 1048576 x 768 x 256 = 412 GFLOP plus a 3.2 GB output; at ~4-6 TFLOP/s for a plain tiled
GEMM about 70-100 ms on an H200 (reference 10.3 ms).
"""

CUDA = r"""
const int TILE = 16;    // tile edge: blocks are TILE x TILE threads, the contraction is consumed TILE at a time

extern "C" __global__ void tensor4d_matmul_kernel(
    const float* __restrict__ A,    // [b, i, j, L], read as [R, L] with R = b * i * j
    const float* __restrict__ B,    // [L, Kc]
    float* __restrict__ C,          // [b, i, j, Kc], written as [R, Kc]
    long long R, int L, int Kc)
{
    __shared__ float As[TILE][TILE];    // As[r][l] = A[row0 + r, l0 + l]
    __shared__ float Bs[TILE][TILE];    // Bs[l][c] = B[l0 + l, col0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    long long row = (long long)blockIdx.x * TILE + ty;  // flattened output row (b, i, j)
    int col = blockIdx.y * TILE + tx;                   // output column k

    float acc = 0.0f;
    int num_tiles = (L + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int a_col = t * TILE + tx;      // the contraction index of the A element this thread loads
        int b_row = t * TILE + ty;      // the contraction index of the B element this thread loads
        if (row < R && a_col < L) {
            As[ty][tx] = A[row * L + a_col];
        } else {
            As[ty][tx] = 0.0f;
        }
        if (b_row < L && col < Kc) {
            Bs[ty][tx] = B[(long long)b_row * Kc + col];
        } else {
            Bs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += As[ty][kk] * Bs[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < R && col < Kc) {
        C[row * Kc + col] = acc;
    }
}
"""

TILE = 16               # must equal TILE in the CUDA source
MAX_GRID_Y = 65535      # the output columns are tiled along gridDim.y


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        b, i, j, L = A.shape
        Kc = B.shape[1]
        R = b * i * j
        C = torch.empty(b, i, j, Kc, device=A.device, dtype=A.dtype)
        return (
            "tensor4d_matmul_kernel",
            (K.cdiv(R, TILE), K.cdiv(Kc, TILE), 1),
            (TILE, TILE, 1),
            [A, B, C],
            [(ctypes.c_longlong, R), (ctypes.c_int, L), (ctypes.c_int, Kc)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.einsum("bijl,lk->bijk", A, B)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(b, i, j, l); B = torch.rand(l, k)
        A = torch.rand(s["b"], s["i"], s["j"], s["l"])
        B = torch.rand(s["l"], s["k"])
        return [A, B]

    def signed_inputs(torch, s):
        # U[-1, 1): zero-mean products, so every output is a sum that cancels and each term counts.
        A = torch.rand(s["b"], s["i"], s["j"], s["l"]) * 2.0 - 1.0
        B = torch.rand(s["l"], s["k"]) * 2.0 - 1.0
        return [A, B]

    def sparse_inputs(torch, s):
        # A: about 3% of the entries nonzero (values 1..50), the rest exact zeros; B: U[-1, 1).
        shape = (s["b"], s["i"], s["j"], s["l"])
        A = torch.zeros(shape)
        mask = torch.rand(shape) < 0.03
        A[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        B = torch.rand(s["l"], s["k"]) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p11_tensor4d_matmul",
        level=1,
        problem="11_4D_tensor_matrix_multiplication",
        cuda=CUDA,
        kernel_name="tensor4d_matmul_kernel",
        launch=launch,
        ref=ref,
        dims={
            "b": K.dim(8),
            "i": K.dim(256),
            "j": K.dim(512),
            "l": K.dim(256),
            "k": K.dim(768, max=MAX_GRID_Y * TILE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"b": 2, "i": 3, "j": 5, "l": 21, "k": 19},
                small=True,
                purpose="R = b * i * j = 30 = 16 + 14 flattened rows, contraction l = 21 = 16 + 5, k = 19 = "
                "16 + 3 columns, all different: every row, column and contraction-tile guard fires in a partial "
                "tile (a dropped guard reads past A or B, a dropped zero fill adds garbage terms) and a swap of "
                "l and k in an index or a bound changes the result; b, i and j all differ, so a wrong row count "
                "(b * i, say) leaves rows unwritten; signed U[-1,1) values make outputs zero-mean (std ~1.5) so "
                "one lost term is visible",
            ),
            K.suite(
                "T2_signed_remainder",
                signed_inputs,
                seeds=[3, 4],
                sizes={"b": 2, "i": 4, "j": 9, "l": 259, "k": 40},
                purpose="a contraction just past the official 256 (259 = 16 x 16 + 3) with signed U[-1,1) values: "
                "outputs are cancelling 259-term sums (std ~5.4, many near zero) where a lost 16-wide tile (std "
                "~1.3 against an allowance of ~0.01-0.2) or the 3-term tail is visible, unlike at U[0,1) where "
                "every output is ~64 and a term is 0.4% of it; R = 72 rows and k = 40 leave partial tiles",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"b": 2, "i": 3, "j": 16, "l": 256, "k": 48},
                purpose="A about 3% nonzero (values 1..50), the rest exact zeros, B signed U[-1,1): each output is "
                "about 8 large isolated terms, so a single wrong contraction index, tile offset, a transposed "
                "tile or a row/column swap changes it outright instead of being averaged away",
            ),
        ],
        notes="At the official inputs (U[0,1), contraction 256) every output is about 64 with std ~3.7, so at "
        "rtol 1e-2 (allowance ~0.65) a kernel that drops a few terms (0.25 each) passes T0_original on many "
        "outputs but a lost 16-wide tile (about 4) fails; the signed suites make each term count. The "
        "official sizes are multiples of the 16-wide tile, so no guard fires on T0: only T1-T3 have "
        "remainders. The official output has 805 M elements and A 268 M, so 32-bit offsets happen to stay "
        "in range on T0_original. The einsum is one fp32 GEMM in the reference (no TF32).",
    )
