"""KernelBench level 2, problem 18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp.

x is 1024 x 8192 and the nn.Linear is 8192 -> 8192 with bias; torch.sum over the 8192 features
(keepdim) leaves one value per row, and the max, mean, logsumexp and logsumexp that follow all run
over that dimension of size 1, so each is the identity on the row sum up to rounding (logsumexp of
one value is v + log(exp(v - v)) = v). The output is 1024 x 1.

One kernel, one 256-thread block per batch row, in two phases:

1. the row's GEMM outputs in 32 column tiles of 256 (one column per thread): for every K-tile of 16
   the block stages x's 16 values and a transposed, padded 16 x 256 tile of W in shared memory
   (coalesced loads, a barrier after the loads and another after the multiply-accumulate). Each
   thread adds the bias and accumulates its columns in an fp32 sum; a shared-memory tree reduction
   gives the row sum.
2. thread 0 applies the size-1 max, mean and the two logsumexps as written (the max and the mean
   over one value, the logsumexp with its max subtraction) and stores the result.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, and every block streams all of W (256 MB) through L2:
about 275 GB of L2 traffic, roughly 50-100 ms on an H200 (the accepted L2p99 runs the same GEMM
phase; cuBLAS reference 2.93 ms).
"""

CUDA = r"""
const int ROW_THREADS = 256;        // threads per block (one block per batch row) = columns per column tile
const int KTILE = 16;               // K is consumed KTILE at a time

extern "C" __global__ void matmul_sum_max_avgpool_logsumexp_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ out,        // [M, 1]
    int M, int N, int K)
{
    const int REDUCED_WIDTH = 1;                    // every op after the sum runs over a dim of size 1
    __shared__ float xs[KTILE];                     // xs[k] = x[row, k0 + k]
    __shared__ float ws[KTILE][ROW_THREADS + 1];    // ws[k][c] = w[c0 + c, k0 + k]  (transposed, padded)
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;

    // Phase 1: y = x[row] @ W^T + b, column tile by column tile, summed over the row.
    float thread_sum = 0.0f;
    int num_col_tiles = (N + ROW_THREADS - 1) / ROW_THREADS;
    int num_k_tiles = (K + KTILE - 1) / KTILE;
    for (int ct = 0; ct < num_col_tiles; ++ct) {
        int c0 = ct * ROW_THREADS;
        float acc = 0.0f;
        for (int t = 0; t < num_k_tiles; ++t) {
            int k0 = t * KTILE;
            if (tid < KTILE) {
                int k = k0 + tid;
                if (k < K) {
                    xs[tid] = x[(long long)row * K + k];
                } else {
                    xs[tid] = 0.0f;
                }
            }
            for (int e = tid; e < KTILE * ROW_THREADS; e += blockDim.x) {
                int c = e / KTILE;      // tile column: W row c0 + c
                int kk = e % KTILE;     // position inside the K tile
                int w_row = c0 + c;
                int k = k0 + kk;
                if (w_row < N && k < K) {
                    ws[kk][c] = w[(long long)w_row * K + k];
                } else {
                    ws[kk][c] = 0.0f;
                }
            }
            __syncthreads();    // the x and W tiles are loaded
            for (int kk = 0; kk < KTILE; ++kk) {
                acc += xs[kk] * ws[kk][tid];
            }
            __syncthreads();    // everyone is done with the tiles before the next load
        }
        int col = c0 + tid;
        if (col < N) {
            thread_sum += acc + b[col];
        }
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }

    // Phase 2: max, mean, logsumexp, logsumexp, each over the summed dimension of size 1.
    if (tid == 0) {
        float v = red[0];                           // torch.sum(dim=1, keepdim=True)
        float m = v;                                // torch.max over one value
        v = m / (float)REDUCED_WIDTH;               // torch.mean over one value
        m = v;                                      // logsumexp: max, then max + log(sum(exp(v - max)))
        v = m + logf(expf(v - m));
        m = v;                                      // logsumexp again
        v = m + logf(expf(v - m));
        out[row] = v;
    }
}
"""

ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one block handles one batch row
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
LARGE_SCALE = 8.0         # T2: x = U[0, 8)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192): one nn.Linear with bias
        linear = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
        return {"w": linear.weight, "b": linear.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        out = torch.empty(M, 1, device=x.device, dtype=x.dtype)
        return (
            "matmul_sum_max_avgpool_logsumexp_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.linear(x, w["w"], w["b"])
        y = torch.sum(y, dim=1, keepdim=True)
        y = torch.max(y, dim=1, keepdim=True)[0]
        y = torch.mean(y, dim=1, keepdim=True)
        y = torch.logsumexp(y, dim=1, keepdim=True)
        return torch.logsumexp(y, dim=1, keepdim=True)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def large_inputs(torch, s):
        # Same sign, LARGE_SCALE times the official range: row sums spread over several hundred.
        return [torch.rand(s["batch"], IN_FEATURES) * LARGE_SCALE]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large (1..50), the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p18_matmul_sum_max_avgpool_logsumexp_logsumexp",
        level=2,
        problem="18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp",
        cuda=CUDA,
        kernel_name="matmul_sum_max_avgpool_logsumexp_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=2**31 - 1)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values: every phase of the kernel runs in full (all 32 column "
                "tiles and 512 K tiles, the tree reduction, the size-1 epilogue), so a missing barrier, a broken "
                "reduction, a dropped column tile or bias, or a wrong mean divisor shows; the row sums "
                "(-21 to 32 here) are the kernel's only output",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 24},
                purpose="x = U[0,8): same-sign large magnitudes, row sums of -230 to 420, and about 60% of the rows lie beyond "
                "expf's fp32 range (|v| > 88): a logsumexp without its max subtraction gives inf or -inf there "
                "(logf(expf(v))), where the stabilised form returns v exactly; a dropped K tile or column tile "
                "moves the sum by far more than the tolerance",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 1% of x nonzero (values 1..50), the rest exact zeros: each row sum is "
                "sum(b) + sum_k x_k * colsum(W)_k over about 80 large isolated k, so a wrong k index, tile "
                "offset or transposed tile element changes it by more than the tolerance instead of averaging "
                "out",
            ),
        ],
        notes="The max, mean and both logsumexps run over a dimension of size 1, so the kernel's output is the "
        "row sum of the GEMM; their code is kept as written (max of one value, mean divided by 1, logsumexp "
        "with its max subtraction), and mutants of it are equivalent except where they produce inf/NaN or "
        "touch the divisor. On the official inputs (measured on the CPU, 3 seeds) the row sums lie within about +-60 (mean |out| "
        "~14) and differ from seed to seed, so the problem is not degenerate. N = 8192 is fixed by the weights and a multiple of the 256-column "
        "tile, and K = 8192 a multiple of 16, so the col < N, w_row < N and k < K guards never fire; grid = "
        "batch exactly, so the row guard never fires either. The row sum adds 8192 GEMM outputs in fp32 (32 "
        "per thread, then a 256-way tree), as the reference sums them in fp32 too. Matmuls in the reference "
        "are full fp32 (no TF32).",
    )
