"""KernelBench level 1, problem 4_Matrix_vector_multiplication_: C = torch.matmul(A, B), A 2048 x 1048576, B 1048576 x 1.

One kernel, one block per output row: the 256 threads of block `row` stride over the K columns
(thread t takes k = t, t + 256, ...) accumulating A[row, k] * B[k] in fp32, park their partial sums
in shared memory, and a tree reduction (a barrier after the stores and after every level) adds them
in a fixed order; thread 0 writes C[row, 0]. Deterministic (no atomics). Flat offsets are 64-bit.

Cost: memory bound: A is 8.6 GB, read once; at ~3-4 TB/s about 2.5-3 ms per forward on an H200
(cuBLAS reference 2.31 ms).
"""

CUDA = r"""
const int BLOCK = 256;  // threads per block (one block per row); a power of two for the tree reduction

extern "C" __global__ void matvec_kernel(
    const float* __restrict__ A,    // [M, K]
    const float* __restrict__ B,    // [K, 1]
    float* __restrict__ C,          // [M, 1]
    int M, int K)
{
    __shared__ float partial[BLOCK];    // each thread's partial sum of the row

    int tid = threadIdx.x;
    int row = blockIdx.x;
    if (row >= M) return;               // uniform across the block: the barriers below stay safe

    const float* a = A + (long long)row * K;
    float acc = 0.0f;
    for (int k = tid; k < K; k += blockDim.x) {
        acc += a[k] * B[k];
    }
    partial[tid] = acc;
    __syncthreads();    // every partial sum is stored

    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) {
            partial[tid] = partial[tid] + partial[tid + s];
        }
        __syncthreads();    // this level is complete before the next reads it
    }

    if (tid == 0) {
        C[row] = partial[0];
    }
}
"""

BLOCK = 256             # must equal BLOCK in the CUDA source
ROWS_PER_BLOCK = 1      # one block reduces one row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        A, B = inputs
        M, Kd = A.shape
        C = torch.empty(M, 1, device=A.device, dtype=A.dtype)
        return (
            "matvec_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [A, B, C],
            [(ctypes.c_int, M), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        A, B = inputs
        return torch.matmul(A, B)

    def rand_inputs(torch, s):
        # get_inputs(): A = torch.rand(M, K); B = torch.rand(K, 1)
        A = torch.rand(s["m"], s["k"])
        B = torch.rand(s["k"], 1)
        return [A, B]

    def signed_inputs(torch, s):
        # U[-1, 1): zero-mean products, so every output is a sum that cancels and each term counts.
        A = torch.rand(s["m"], s["k"]) * 2.0 - 1.0
        B = torch.rand(s["k"], 1) * 2.0 - 1.0
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
        B = torch.rand(k, 1) * 2.0 - 1.0
        return [A, B]

    return K.substrate(
        name="L1p4_matvec",
        level=1,
        problem="4_Matrix_vector_multiplication_",
        cuda=CUDA,
        kernel_name="matvec_kernel",
        launch=launch,
        ref=ref,
        dims={
            "m": K.dim(2048),
            "k": K.dim(1048576, max=2**30),
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
                sizes={"m": 5, "k": 1000},
                small=True,
                purpose="K = 1000 = 3 x 256 + 232: the threads 232..255 run one strided step fewer than the "
                "rest, so a loop bound or stride fault (k <= K, a stride of blockDim - 1, a start at 0 for every "
                "thread) reads past the row or drops or duplicates terms; 5 rows, so a wrong row stride shows; "
                "signed U[-1,1) values make outputs zero-mean (std ~10) so one lost term or a lost partial sum "
                "is visible",
            ),
            K.suite(
                "T2_signed_long_k",
                signed_inputs,
                seeds=[3, 4],
                sizes={"m": 16, "k": 262147},
                purpose="long K (262147 = 1024 x 256 + 3) with signed U[-1,1) values: outputs are cancelling "
                "sums (std ~170, many near zero), so dropping one thread's partial (about 1024 terms, std ~11), "
                "a level of the tree reduction, the 3-term tail or permuting the K index moves them far beyond "
                "1e-2, where on the official U[0,1) inputs every output is ~K/4 and 1% of K can go missing "
                "unseen; a correct fp32 kernel stays well inside 1e-2",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"m": 12, "k": 65539},
                purpose="A about 0.1% nonzero (values 1..50) plus nonzero first and last columns, the rest exact "
                "zeros, B signed U[-1,1): each output is about 67 large isolated terms scattered over the whole "
                "K range, including k = 0 (thread 0's first step) and k = K - 1 (a thread's extra tail step: "
                "65539 = 256 x 256 + 3), so a skipped first or last step, a wrong row offset or a B index taken "
                "from the row changes it outright",
            ),
        ],
        notes="Degenerate at the official inputs (Appendix A: const-pass and input-insensitive at 1e-2): A "
        "and B are U[0,1) with K = 1048576, so every output is K/4 = 262144 plus noise of std ~226 (0.09%); "
        "a constant 262144 passes the 1e-2 check (allowance ~2621) on all five trials, and so does any "
        "output that is input-insensitive. What T0_original cannot see: dropping up to about 1% of the K "
        "terms (e.g. two threads' partials or a level-8 tail), any permutation of the K index, scaling "
        "errors below 1%. It does see a lost tree level (half the sum) and fp16 accumulators. The targeted "
        "suites use signed or sparse inputs whose outputs are cancelling sums. The official K is a "
        "multiple of 256, so every thread runs the same number of steps on T0. Matmuls in the reference "
        "are full fp32 (no TF32).",
    )
