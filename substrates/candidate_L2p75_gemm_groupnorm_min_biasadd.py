"""KernelBench level 2, problem 75_Gemm_GroupNorm_Min_BiasAdd.

nn.Linear(8192, 8192) with bias, GroupNorm(512 groups of 16 features, eps 1e-5, affine weight ones and
bias zeros), the minimum over the features (torch.min(x, dim=1, keepdim=True)[0], shape batch x 1),
then + bias of shape (1, 8192, 1, 1). The (batch, 1) minimum broadcasts against (1, 8192, 1, 1) as
(1, 1, batch, 1), so the output is 1 x 8192 x batch x 1: out[0, c, r, 0] = min_r + bias[c]. x is
1024 x 8192; the output is 1 x 8192 x 1024 x 1.

A two-kernel pipeline, because each row's minimum needs all 512 of its groups, which span many GEMM
tiles:

1. gemm_kernel: a register-blocked shared-memory tiled GEMM. Each 16 x 16-thread block owns a
   64 x 64 output tile (BM x BN); K is consumed 16 at a time (BK): the block stages a 16 x 64 slice
   of x and one of W in shared memory (both stored transposed, k-major, rows padded by one float),
   a barrier after the loads, then every thread multiply-accumulates its 4 x 4 micro-tile (rows
   ty + 16 i, columns tx + 16 j) in fp32 registers, and a barrier after the compute. The epilogue
   adds the linear bias and stores the pre-norm values v into an intermediate [M, N] that launch
   allocates. Tile loads are zero-filled outside the matrices and every store is guarded, so any
   batch works (only the batch is resizable: N and K are 8192, multiples of the tile).
2. groupnorm_min_biasadd_kernel: one 256-thread block per row. Each thread takes the row's groups
   tid, tid + 256 (512 groups of N / G = 16 features): for each, an explicit loop over its 16 values
   gives the group mean, a second one the biased variance, a third normalises them (times the
   GroupNorm weight, plus its bias) and folds them into the thread's running minimum. A shared-memory
   tree of fminf (a __syncthreads() after the write and after every level) gives the row minimum, and
   the block writes out[c * batch + r] = min_r + bias[c] for all 8192 c of its row.

Cost, an ESTIMATE made without a GPU, to be measured by the GPU gate: the GEMM is 2 x 1024 x 8192 x
8192 = 137 GFLOP in 128 x 16 = 2048 blocks of 256 threads (about 15 blocks per SM of the 132, several
resident at once), each thread doing 16 FMAs per 8 shared-memory loads; a plain register-blocked fp32
SIMT GEMM of this shape runs at roughly 5-10 TFLOP/s on an H100, so about 14-27 ms. Each block reads
(64 + 64) x 8192 x 4 B = 4 MB of x and W, 8.6 GB in all, mostly from L2 (W is 256 MB), a few ms
overlapped. The row kernel reads v three times (about 100 MB) and scatters the 32 MB output with a
row stride of batch floats (one 32-byte sector per 4-byte store), well under 1 ms. In all roughly
15-30 ms per forward, against about 1.02 s measured (contended, mutant mean) for the accepted
one-kernel version with only 64 blocks; cuBLAS reference 3.2 ms.
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
const float GN_EPS = 1e-5f;         // nn.GroupNorm default eps
const float POS_SENTINEL = 3.402823466e+38f;    // FLT_MAX: identity of the min reduction

extern "C" __global__ void gemm_kernel(
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

extern "C" __global__ void groupnorm_min_biasadd_kernel(
    const float* __restrict__ v,        // [M, N]  linear output (from gemm_kernel)
    const float* __restrict__ gn_w,     // [N]
    const float* __restrict__ gn_b,     // [N]
    const float* __restrict__ bias,     // [1, N, 1, 1]
    float* __restrict__ out,            // [1, N, M, 1]
    int M, int N, int G)
{
    __shared__ float red[ROW_THREADS];  // per-thread running minima

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    int cpg = N / G;                    // features per group
    long long base = (long long)row * N;

    // GroupNorm of each of the thread's groups, folded into a running minimum.
    float thread_min = POS_SENTINEL;
    for (int g = tid; g < G; g += ROW_THREADS) {
        int c0 = g * cpg;               // first feature of the group
        float sum = 0.0f;
        for (int j = 0; j < cpg; ++j) {
            sum += v[base + c0 + j];
        }
        float mean = sum / (float)cpg;
        float sq = 0.0f;
        for (int j = 0; j < cpg; ++j) {
            float d = v[base + c0 + j] - mean;
            sq += d * d;
        }
        float var = sq / (float)cpg;    // biased, as group_norm
        float inv_std = 1.0f / sqrtf(var + GN_EPS);
        for (int j = 0; j < cpg; ++j) {
            int c = c0 + j;
            float vn = (v[base + c] - mean) * inv_std * gn_w[c] + gn_b[c];
            thread_min = fminf(thread_min, vn);
        }
    }

    // The row minimum: a tree of fminf over the block's threads.
    red[tid] = thread_min;
    __syncthreads();
    for (int s = ROW_THREADS / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = fminf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }
    float m = red[0];

    // Broadcast: out[0, c, row, 0] = min_row + bias[c] for every feature c.
    for (int c = tid; c < N; c += ROW_THREADS) {
        out[(long long)c * M + row] = m + bias[c];
    }
}
"""

KERNELS = ["gemm_kernel", "groupnorm_min_biasadd_kernel"]
BM = 64                   # must equal BM in the CUDA source (GEMM tile rows)
BN = 64                   # must equal BN in the CUDA source (GEMM tile columns)
TM = 4                    # must equal TM (micro-tile rows per thread)
TN = 4                    # must equal TN (micro-tile columns per thread)
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # the row kernel: one block per batch row
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
NUM_GROUPS = 512          # 16 features per group
GN_EPS = 1e-5
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y
MAX_BATCH = MAX_GRID_Y * 16   # the declared batch bound, kept from the accepted version (the GEMM grid admits MAX_GRID_Y * BM)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 512, (1, 8192, 1, 1)): nn.Linear, nn.GroupNorm(512, 8192) (weight ones,
        # bias zeros; it draws nothing), then bias = randn(1, 8192, 1, 1).
        nn = torch.nn
        gemm = nn.Linear(IN_FEATURES, OUT_FEATURES)
        gn = nn.GroupNorm(NUM_GROUPS, OUT_FEATURES)
        bias = nn.Parameter(torch.randn((1, OUT_FEATURES, 1, 1)))
        return {"w": gemm.weight, "b": gemm.bias, "gn_w": gn.weight, "gn_b": gn.bias, "bias": bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, K_in = x.shape
        N = w["w"].shape[0]
        v = torch.empty((M, N), device=x.device, dtype=x.dtype)
        gemm = (
            "gemm_kernel",
            (K.cdiv(N, BN), K.cdiv(M, BM), 1),
            (BN // TN, BM // TM, 1),
            [x, w["w"], w["b"], v],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, K_in)],
        )
        out = torch.empty((1, N, M, 1), device=x.device, dtype=x.dtype)
        norm = (
            "groupnorm_min_biasadd_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [v, w["gn_w"], w["gn_b"], w["bias"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, NUM_GROUPS)],
        )
        return {"seq": [gemm, norm], "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        y = torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)
        y = torch.min(y, dim=1, keepdim=True)[0]
        return y + w["bias"]

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def small_var_inputs(torch, s):
        # U[0, 0.01): the GEMM's input-dependent part shrinks 100x, to the size of the bias spread.
        return [torch.rand(s["batch"], IN_FEATURES) * 0.01]

    def sparse_inputs(torch, s):
        # About 0.2% of the entries nonzero (1..50), the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.002
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p75_gemm_groupnorm_min_biasadd",
        level=2,
        problem="75_Gemm_GroupNorm_Min_BiasAdd",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=MAX_BATCH)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (one minimum per row, "
                "broadcast with the bias: see notes)",
            ),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values: the one row tile is partial (rows 5..63 idle), so the "
                "row guards of the loads and the broadcast stores matter (batch 5 also sets the output's "
                "row stride c * 5 + r, so a stride taken from the tile or from N shows); every group and K "
                "tile runs in full",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 9},
                purpose="x = U[0,0.01): the input-dependent part of each linear output shrinks to about the size "
                "of the bias spread, so 16-feature group variances fall to about 5e-5 (down to about 1e-5), "
                "comparable to eps = 1e-5: a dropped or perturbed eps or an eps added after the sqrt moves "
                "the normalised values, and so the row minimum, by several percent or more; 9 rows leave a "
                "partial row tile",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 11},
                purpose="about 0.2% of x nonzero (values 1..50, about 16 per row), the rest exact zeros: each "
                "linear output is its bias plus a few large W terms at specific k, so the groups holding "
                "them have lopsided distributions whose minimum differs by row; a wrong K index, a dropped "
                "K tile or a group statistic taken from the wrong row moves the minimum; 11 rows",
            ),
        ],
        notes="Each row's output is one number, its minimum over 8192 normalised values, plus bias[c] (randn), "
        "so every fault inside the GEMM or the norm reaches the output only through that minimum: a group "
        "of 16 normalised values cannot go below -sqrt(15) = -3.87, and measured on the CPU reference "
        "the row minima lie in -2.9..-3.4 (official inputs, 16 rows), -2.3..-2.75 (T2) and -2.9..-3.25 "
        "(T3); faults that move a row's minimum by less than about 1e-2 * (1 + |out|) pass, and faults "
        "confined to values above the minimum are invisible. eps changes the minima by 4e-4 on U[0,1) "
        "and by up to 0.46 on T2. GroupNorm's affine parameters are its init, weight ones and bias "
        "zeros. The group width is 8192 / 512 = 16, fixed by the weights; the row kernel takes it as N / G "
        "and does not rely on the GEMM tile. N = K = 8192 are multiples of the 64-wide column tile and "
        "the 16-wide K tile, so only the GEMM's row guards (x loads and the v store) ever fire, on a "
        "batch that is not a multiple of 64 (every suite but T0); the row kernel's grid is the batch "
        "exactly, so its row guard never fires. The GEMM's micro-tile is strided (rows ty + 16 i, "
        "columns tx + 16 j) and its shared tiles are padded by one float per row; the padding only moves "
        "bank conflicts, so faults in it are equivalent. Matmuls in the reference are full fp32 (no TF32). "
        "Only the batch is resizable.",
    )
