"""KernelBench level 2, problem 18_Matmul_Sum_Max_AvgPool_LogSumExp_LogSumExp.

x is 1024 x 8192 and the nn.Linear is 8192 -> 8192 with bias; torch.sum over the 8192 features
(keepdim) leaves one value per row, and the max, mean, logsumexp and logsumexp that follow all run
over that dimension of size 1, so each is the identity on the row sum up to rounding (logsumexp of
one value is v + log(exp(v - v)) = v). The output is 1024 x 1.

A two-kernel pipeline, because the row sum needs whole 8192-wide rows that span many GEMM tiles:

1. matmul_kernel: a register-blocked shared-memory tiled GEMM. Each 16 x 16-thread block owns a
   64 x 64 output tile (BM x BN); K is consumed 16 at a time (BK): the block stages a 16 x 64 slice
   of x and one of W in shared memory (both stored transposed, k-major, rows padded by one float),
   a barrier after the loads, then every thread multiply-accumulates its 4 x 4 micro-tile (rows
   ty + 16 i, columns tx + 16 j) in fp32 registers, and a barrier after the compute. The epilogue
   adds the linear bias and stores the linear output v into an intermediate [M, N] that launch
   allocates. Tile loads are zero-filled outside the matrices and every store is guarded, so any
   batch works (only the batch is resizable: N and K are 8192, multiples of the tile).
2. sum_max_avgpool_logsumexp_kernel: one 256-thread block per batch row. Each thread sums the row's
   columns tid, tid + 256, ... in fp32; a shared-memory tree reduction (a barrier after the write and
   after every level) gives the row sum; thread 0 applies the size-1 max, mean and the two
   logsumexps as written (the max and the mean over one value, the logsumexp with its max
   subtraction) and stores the result.

Cost, an ESTIMATE made without a GPU, to be measured by the GPU gate: the GEMM is 2 x 1024 x 8192 x
8192 = 137 GFLOP in 128 x 16 = 2048 blocks of 256 threads (about 15 blocks per SM of the 132, several
resident at once), each thread doing 16 FMAs per 8 shared-memory loads; a plain register-blocked fp32
SIMT GEMM of this shape runs at roughly 5-10 TFLOP/s on an H100, so about 14-27 ms. Each block reads
(64 + 64) x 8192 x 4 B = 4 MB of x and W, 8.6 GB in all, mostly from L2 (W is 256 MB), a few ms
overlapped. The row kernel reads v once (32 MB): far under 1 ms. In all roughly 15-30 ms per
forward, against about 0.74 s measured (contended, mutant mean) for the accepted one-block-per-row
version that streamed all of W per row; cuBLAS reference 2.93 ms.
"""

CUDA = r"""
const int BM = 64;                  // output rows per block tile
const int BN = 64;                  // output columns per block tile
const int BK = 16;                  // K is consumed BK at a time
const int TM = 4;                   // output rows per thread (micro-tile)
const int TN = 4;                   // output columns per thread (micro-tile)
const int THREADS_X = BN / TN;      // 16: blockDim.x of the GEMM
const int THREADS_Y = BM / TM;      // 16: blockDim.y of the GEMM
const int GEMM_THREADS = THREADS_X * THREADS_Y;     // 256
const int TILE_PAD = 1;             // one float of padding per shared tile row (bank conflicts)
const int ROW_THREADS = 256;        // threads per block of the row kernel (one block per batch row)

extern "C" __global__ void matmul_kernel(
    const float* __restrict__ x,        // [M, K]
    const float* __restrict__ w,        // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,        // [N]
    float* __restrict__ v,              // [M, N]  linear output
    int M, int N, int K)
{
    __shared__ float xs[BK][BM + TILE_PAD];     // xs[k][r] = x[row0 + r, k0 + k]  (stored transposed)
    __shared__ float ws[BK][BN + TILE_PAD];     // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * THREADS_X + tx;      // linear thread id, for the tile loads
    int row0 = blockIdx.y * BM;         // first output row of the block tile
    int col0 = blockIdx.x * BN;         // first output column of the block tile

    float acc[TM][TN];                  // acc[i][j]: output (row0 + ty + i * THREADS_Y, col0 + tx + j * THREADS_X)
    for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < TN; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    int num_k_tiles = (K + BK - 1) / BK;
    for (int t = 0; t < num_k_tiles; ++t) {
        int k0 = t * BK;
        // Load phase: BM x BK elements of x and BN x BK of W, k fastest (coalesced along rows).
        for (int e = tid; e < BM * BK; e += GEMM_THREADS) {
            int r = e / BK;             // tile row: x row row0 + r
            int kk = e % BK;            // position inside the K tile
            int row = row0 + r;
            int k = k0 + kk;
            if (row < M && k < K) {
                xs[kk][r] = x[(long long)row * K + k];
            } else {
                xs[kk][r] = 0.0f;
            }
        }
        for (int e = tid; e < BN * BK; e += GEMM_THREADS) {
            int c = e / BK;             // tile column: W row col0 + c
            int kk = e % BK;
            int w_row = col0 + c;
            int k = k0 + kk;
            if (w_row < N && k < K) {
                ws[kk][c] = w[(long long)w_row * K + k];
            } else {
                ws[kk][c] = 0.0f;
            }
        }
        __syncthreads();    // both tiles are loaded

        // Compute phase: the thread's TM x TN micro-tile, one k at a time.
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM];
            float bw[TN];
            for (int i = 0; i < TM; ++i) {
                a[i] = xs[kk][ty + i * THREADS_Y];
            }
            for (int j = 0; j < TN; ++j) {
                bw[j] = ws[kk][tx + j * THREADS_X];
            }
            for (int i = 0; i < TM; ++i) {
                for (int j = 0; j < TN; ++j) {
                    acc[i][j] += a[i] * bw[j];
                }
            }
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    // Epilogue: + bias, guarded store of the micro-tile.
    for (int i = 0; i < TM; ++i) {
        int row = row0 + ty + i * THREADS_Y;
        for (int j = 0; j < TN; ++j) {
            int col = col0 + tx + j * THREADS_X;
            if (row < M && col < N) {
                v[(long long)row * N + col] = acc[i][j] + b[col];
            }
        }
    }
}

extern "C" __global__ void sum_max_avgpool_logsumexp_kernel(
    const float* __restrict__ v,    // [M, N]  linear output (from matmul_kernel)
    float* __restrict__ out,        // [M, 1]
    int M, int N)
{
    const int REDUCED_WIDTH = 1;                    // every op after the sum runs over a dim of size 1
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    long long base = (long long)row * N;

    // The row sum: per-thread partial sums over columns tid, tid + ROW_THREADS, ..., then a tree.
    float thread_sum = 0.0f;
    for (int j = tid; j < N; j += ROW_THREADS) {
        thread_sum += v[base + j];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = ROW_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }

    // max, mean, logsumexp, logsumexp, each over the summed dimension of size 1.
    if (tid == 0) {
        float r = red[0];                           // torch.sum(dim=1, keepdim=True)
        float m = r;                                // torch.max over one value
        r = m / (float)REDUCED_WIDTH;               // torch.mean over one value
        m = r;                                      // logsumexp: max, then max + log(sum(exp(r - max)))
        r = m + logf(expf(r - m));
        m = r;                                      // logsumexp again
        r = m + logf(expf(r - m));
        out[row] = r;
    }
}
"""

KERNELS = ["matmul_kernel", "sum_max_avgpool_logsumexp_kernel"]
BM = 64                   # must equal BM in the CUDA source (GEMM tile rows)
BN = 64                   # must equal BN in the CUDA source (GEMM tile columns)
TM = 4                    # must equal TM (micro-tile rows per thread)
TN = 4                    # must equal TN (micro-tile columns per thread)
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # the row kernel: one block per batch row
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
        v = torch.empty(M, N, device=x.device, dtype=x.dtype)
        gemm = (
            "matmul_kernel",
            (K.cdiv(N, BN), K.cdiv(M, BM), 1),
            (BN // TN, BM // TM, 1),
            [x, w["w"], w["b"], v],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )
        out = torch.empty(M, 1, device=x.device, dtype=x.dtype)
        reduce = (
            "sum_max_avgpool_logsumexp_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [v, out],
            [(ctypes.c_int, M), (ctypes.c_int, N)],
        )
        return {"seq": [gemm, reduce], "out": out}

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
        kernel_name=list(KERNELS),
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
                purpose="5 rows of official U[0,1) values: every phase of the kernels runs in full (all 128 GEMM "
                "column tiles and 512 K tiles, the tree reduction, the size-1 epilogue) and the one GEMM row tile "
                "is partial (rows 5..63 idle), so a missing barrier, a broken "
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
        "~14) and differ from seed to seed, so the problem is not degenerate. N = 8192 is fixed by the weights and a multiple of the GEMM's 64-column "
        "tile, and K = 8192 a multiple of 16, so the col < N, w_row < N and k < K guards never fire; only "
        "the GEMM's row guards (x loads and the v store) do, on a batch that is not a multiple of 64 "
        "(every suite but T0). The row kernel's grid is the batch exactly, so its row guard never fires. "
        "The GEMM's micro-tile is strided (rows ty + 16 i, columns tx + 16 j) and its shared tiles are "
        "padded by one float per row; the padding only moves bank conflicts, so faults in it are "
        "equivalent. The linear bias is added in the GEMM's epilogue, once per output. The row sum adds 8192 GEMM outputs in fp32 (32 "
        "per thread, then a 256-way tree), as the reference sums them in fp32 too. Matmuls in the reference "
        "are full fp32 (no TF32).",
    )
