"""KernelBench level 2, problem 28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply (two inputs: x and y).

nn.Linear(8192, 8192) with bias (named bmm, but a plain linear layer), InstanceNorm2d(8192) on the
output viewed as (batch, 1, 1, 8192), then + y and * y. x and y are 1024 x 8192; the output is
1024 x 8192. The view has one channel, not 8192: InstanceNorm2d (no affine, no running statistics;
torch only warns that num_features is unused) normalises each sample's single 1 x 8192 plane, so the
norm is a per-row normalisation over all 8192 features, with the biased variance and eps 1e-5. The
output is ((v - mean_row) / sqrt(var_row + eps) + y) * y.

A two-kernel pipeline, because the norm needs whole 8192-wide rows that span many GEMM tiles:

1. bmm_kernel: a register-blocked shared-memory tiled GEMM. Each 16 x 16-thread block owns a
   64 x 64 output tile (BM x BN); K is consumed 16 at a time (BK): the block stages a 16 x 64 slice
   of x and one of W in shared memory (both stored transposed, k-major, rows padded by one float),
   a barrier after the loads, then every thread multiply-accumulates its 4 x 4 micro-tile (rows
   ty + 16 i, columns tx + 16 j) in fp32 registers, and a barrier after the compute. The epilogue
   adds the linear bias and stores the pre-norm values v into an intermediate [M, N] that launch
   allocates. Tile loads are zero-filled outside the matrices and every store is guarded, so any
   batch works (only the batch is resizable: N and K are 8192, multiples of the tile).
2. instancenorm_sum_residualadd_multiply_kernel: one 256-thread block per row. Each thread sums the
   row's columns tid, tid + 256, ...; a shared-memory tree gives the row mean; the same for the
   squared deviations (biased variance); then each thread normalises its columns, adds y and
   multiplies by y. A __syncthreads() follows every shared-memory write phase and every tree level.

Cost, an ESTIMATE made without a GPU, to be measured by the GPU gate: the GEMM is 2 x 1024 x 8192 x
8192 = 137 GFLOP in 128 x 16 = 2048 blocks of 256 threads (about 15 blocks per SM of the 132, several
resident at once), each thread doing 16 FMAs per 8 shared-memory loads; a plain register-blocked fp32
SIMT GEMM of this shape runs at roughly 5-10 TFLOP/s on an H100, so about 14-27 ms. Each block reads
(64 + 64) x 8192 x 4 B = 4 MB of x and W, 8.6 GB in all, mostly from L2 (W is 256 MB), a few ms
overlapped. The row kernel moves about 200 MB (v read three times, y twice, out once): well under 1
ms. In all roughly 15-30 ms per forward, against about 1.05 s measured (contended, mutant mean) for
the accepted one-kernel version with only 64 blocks; cuBLAS reference 2.9 ms.
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
const int ROW_THREADS = 256;        // threads per block of the row kernel (a power of two)
const float IN_EPS = 1e-5f;         // InstanceNorm2d eps

extern "C" __global__ void bmm_kernel(
    const float* __restrict__ x,        // [M, K]
    const float* __restrict__ w,        // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,        // [N]
    float* __restrict__ v,              // [M, N]  linear output (pre-norm)
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

extern "C" __global__ void instancenorm_sum_residualadd_multiply_kernel(
    const float* __restrict__ v,        // [M, N]  linear output (from bmm_kernel)
    const float* __restrict__ y,        // [M, N]
    float* __restrict__ out,            // [M, N]
    int M, int N)
{
    __shared__ float red[ROW_THREADS];  // per-thread partial statistics

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    long long base = (long long)row * N;

    // The row mean: per-thread partial sums over columns tid, tid + ROW_THREADS, ..., then a tree.
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
    float mean = red[0] / (float)N;
    __syncthreads();    // every thread has read the sum before the variance overwrites red

    // The sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    for (int j = tid; j < N; j += ROW_THREADS) {
        float d = v[base + j] - mean;
        thread_sq += d * d;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = ROW_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float var = red[0] / (float)N;      // biased, as instance_norm
    float inv_std = 1.0f / sqrtf(var + IN_EPS);

    // Normalise, + y, * y.
    for (int j = tid; j < N; j += ROW_THREADS) {
        long long o = base + j;
        float u = (v[o] - mean) * inv_std;
        u = u + y[o];
        out[o] = u * y[o];
    }
}
"""

KERNELS = ["bmm_kernel", "instancenorm_sum_residualadd_multiply_kernel"]
BM = 64                   # must equal BM in the CUDA source (GEMM tile rows)
BN = 64                   # must equal BN in the CUDA source (GEMM tile columns)
TM = 4                    # must equal TM (micro-tile rows per thread)
TN = 4                    # must equal TN (micro-tile columns per thread)
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # the row kernel: one block per batch row
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
IN_EPS = 1e-5
IN_MOMENTUM = 0.1         # only affects running statistics, which this module does not keep
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y
MAX_BATCH = MAX_GRID_Y * 16   # the declared batch bound, kept from the accepted version (the GEMM grid admits MAX_GRID_Y * BM)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192): nn.Linear(8192, 8192), then nn.InstanceNorm2d(8192, eps=1e-5,
        # momentum=0.1) (affine=False: no parameters, nothing drawn).
        nn = torch.nn
        bmm = nn.Linear(IN_FEATURES, OUT_FEATURES)
        return {"w": bmm.weight, "b": bmm.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        x, y = inputs
        w = W(x)
        M, K_in = x.shape
        N = w["w"].shape[0]
        v = torch.empty((M, N), device=x.device, dtype=x.dtype)
        gemm = (
            "bmm_kernel",
            (K.cdiv(N, BN), K.cdiv(M, BM), 1),
            (BN // TN, BM // TM, 1),
            [x, w["w"], w["b"], v],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, K_in)],
        )
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        norm = (
            "instancenorm_sum_residualadd_multiply_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [v, y, out],
            [(ctypes.c_int, M), (ctypes.c_int, N)],
        )
        return {"seq": [gemm, norm], "out": out}

    def ref(inputs, torch):
        x, y = inputs
        w = W(x)
        v = torch.nn.functional.linear(x, w["w"], w["b"])
        v = v.unsqueeze(1).unsqueeze(1)     # (batch, 1, 1, 8192): one channel, one 1 x 8192 plane
        v = torch.nn.functional.instance_norm(v, momentum=IN_MOMENTUM, eps=IN_EPS).squeeze(1).squeeze(1)
        v = v + y
        return v * y

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features), torch.rand(batch_size, out_features)]
        return [torch.rand(s["batch"], IN_FEATURES), torch.rand(s["batch"], OUT_FEATURES)]

    def small_var_inputs(torch, s):
        # x = U[0, 0.01): the row variance of the linear output falls to about 5e-5; y official.
        return [torch.rand(s["batch"], IN_FEATURES) * 0.01, torch.rand(s["batch"], OUT_FEATURES)]

    def sparse_inputs(torch, s):
        # x: about 0.2% of the entries nonzero (1..50), the rest exact zeros; y = U[-1, 1).
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.002
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        y = torch.rand(s["batch"], OUT_FEATURES) * 2.0 - 1.0
        return [x, y]

    return K.substrate(
        name="L2p28_bmm_instancenorm_sum_residualadd_multiply",
        level=2,
        problem="28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=MAX_BATCH)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values: the one row tile is partial (rows 5..63 idle), so the "
                "row guards of the loads, the stores and the statistics matter; every column tile and K tile "
                "runs in full",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 9},
                purpose="x = U[0,0.01), y official: the input-dependent part of the linear output shrinks to "
                "about the size of the bias spread, so row variances fall to about 5e-5, five times eps = "
                "1e-5: a dropped or perturbed eps or an eps added after the sqrt moves outputs by several "
                "percent (invisible on U[0,1), where the variance is about 0.1); a bias dropped or read at a "
                "wrong column changes most outputs; 9 rows leave a partial row tile",
            ),
            K.suite(
                "T3_sparse_signed_y",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 11},
                purpose="x with about 0.2% nonzero entries (values 1..50, about 16 per row), the rest exact "
                "zeros, so each linear output is its bias plus a few large W terms at specific k (a wrong K "
                "index, a dropped K tile or a swapped x/W index moves it) and rows have very different "
                "statistics; y = U[-1,1) is sign-mixed, so (v + y) * y changes sign with y and a swapped "
                "add/multiply order or a dropped residual shows more clearly than with y in [0,1); 11 rows",
            ),
        ],
        notes="Not a batched matmul: the layer is nn.Linear, and the InstanceNorm2d acts on a single 1 x 8192 "
        "plane per row (the unsqueezes make one channel), i.e. it is a per-row normalisation over all "
        "features without affine parameters. Matmuls in the reference are full fp32 (no TF32). The "
        "linear bias does not cancel in the normalisation (it varies by column). N = K = 8192 are "
        "multiples of the 64-wide column tile and the 16-wide K tile, so only the row guards of the GEMM "
        "(x loads and the v store) ever fire, on a batch that is not a multiple of 64 (every suite but "
        "T0); the column and K guards and the zero fill of W never do. The row kernel's grid is the "
        "batch exactly, so its row guard never fires either. The GEMM's micro-tile is strided (rows "
        "ty + 16 i, columns tx + 16 j) and its shared tiles are padded by one float per row; the padding "
        "only moves bank conflicts, so faults in it are equivalent. The pipeline's intermediate v is the "
        "pre-norm linear output (bias added). in_features and out_features are fixed by the weights; only "
        "the batch is resizable (its declared bound is the accepted version's, below the new grid's).",
    )
