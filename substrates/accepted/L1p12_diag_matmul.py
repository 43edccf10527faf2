"""KernelBench level 1, problem 12_Matmul_with_diagonal_matrices_ (v0.1): C = torch.diag(A) @ B, A of size 4096, B 4096 x 4096.

In v0.1 the reference builds the dense N x N matrix diag(A) and multiplies it with B (a full
4096^3 GEMM whose every sum holds one nonzero term); v0.2 replaced it by A.unsqueeze(1) * B. The
product is C[i, j] = A[i] * B[i, j]: row i of B scaled by A[i]. One kernel, one thread per output
element (i, j) with j fastest: one multiply, no accumulation. Flat indices are 64-bit.

Cost: memory bound: B (67 MB) read and C (67 MB) written; about 0.05 ms per forward on an H200
(the v0.1 reference runs the dense GEMM: about 2.8 ms; Appendix A's 0.0543 ms is v0.2's broadcast).
"""

CUDA = r"""
extern "C" __global__ void diag_matmul_kernel(
    const float* __restrict__ A,    // [N]     the diagonal
    const float* __restrict__ B,    // [N, M]
    float* __restrict__ C,          // [N, M]
    int N, int M)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * M;
    if (idx >= total) return;

    int i = (int)(idx / M);         // row: the diagonal entry that scales it
    C[idx] = A[i] * B[idx];
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        N, M = B.shape
        C = torch.empty(N, M, device=B.device, dtype=B.dtype)
        return (
            "diag_matmul_kernel",
            (K.cdiv(N * M, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [A, B, C],
            [(ctypes.c_int, N), (ctypes.c_int, M)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.diag(A) @ B

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(N); B = torch.rand(N, M)
        A = torch.rand(s["n"])
        B = torch.rand(s["n"], s["m"])
        return [A, B]

    def ramp_inputs(torch, s):
        # A: distinct diagonal entries 1, 2, ..., N plus U[0, 1) noise; B: signed U[-1, 1).
        n = s["n"]
        A = torch.arange(1, n + 1, dtype=torch.float32) + torch.rand(n)
        B = torch.rand(n, s["m"]) * 2.0 - 1.0
        return [A, B]

    def spiky_inputs(torch, s):
        # A: about 10% of the diagonal set to U[1, 51), the rest exact zeros; B: U[0, 1).
        n = s["n"]
        mask = torch.rand(n) < 0.1
        A = torch.where(mask, 1.0 + torch.rand(n) * 50.0, torch.zeros(n))
        B = torch.rand(n, s["m"])
        return [A, B]

    return K.substrate(
        name="L1p12_diag_matmul",
        level=1,
        problem="12_Matmul_with_diagonal_matrices_",
        cuda=CUDA,
        kernel_name="diag_matmul_kernel",
        launch=launch,
        ref=ref,
        dims={
            "n": K.dim(4096),
            "m": K.dim(4096),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"n": 37, "m": 45},
                small=True,
                purpose="37 x 45 = 1665 = 6 blocks of 256 + 129, so the tail block's guard matters (the official "
                "4096 x 4096 fills every block); N != M, so a row taken as idx / N or idx % M (scaling by the "
                "column's entry, C = B diag(A)) or swapped N/M in the launch shows; official U[0,1) values",
            ),
            K.suite(
                "T2_distinct_rows",
                ramp_inputs,
                seeds=[3, 4],
                sizes={"n": 300, "m": 77},
                purpose="diagonal entries 1..300 (plus noise), all distinct and well apart, times signed U[-1,1) "
                "B: every row has its own scale, so scaling by a neighbouring row's entry (an off-by-one row), "
                "by the column's entry, or not at all moves outputs far beyond 1e-2 (by at least 1 x |B|), "
                "where the official U[0,1) entries may differ by less; M = 77 is odd, so rows straddle blocks",
            ),
            K.suite(
                "T3_sparse_diag",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"n": 500, "m": 129},
                purpose="about 10% of the diagonal set to U[1,51), the rest exact zeros: about 90% of the rows of "
                "C must be exactly 0 and the rest large, so a kernel that reads A at a shifted or wrong index, "
                "adds B instead of multiplying, or copies B where the diagonal is zero is caught outright",
            ),
        ],
        notes="v0.1's forward (torch.diag(A) @ B, a dense GEMM over a diagonal matrix); every sum of the "
        "reference holds one nonzero term plus exact zeros, so it equals A[i] * B[i, j] bit for bit on "
        "finite inputs and this kernel matches it exactly. No accumulation and no reduction, so precision "
        "faults have nothing to act on beyond the one product. The official 4096 x 4096 output is a multiple "
        "of the 256-thread block, so only T1 and T2 leave a partial tail block.",
    )
