"""KernelBench level 2, problem 84_Gemm_BatchNorm_Scaling_Softmax: softmax(scale * bn(linear(x)), dim=1).

x is 1024 x 8192; nn.Linear(8192, 8192) with bias, then nn.BatchNorm1d(8192) in training mode (the
harness never calls .eval()): every feature (column) is normalised with its batch mean and biased
batch variance over the rows, eps 1e-5, then the module's affine weight (ones) and bias (zeros)
apply; then a scalar scale (nn.Parameter(torch.ones(1))) multiplies everything and a softmax runs
over the 8192 features of each row.

A pipeline of three kernels, because a column's statistics need every row of the GEMM before any
element can be normalised, and one launch has no grid-wide barrier:

    gemm_bias_kernel                x [M,K], W [N,K], b -> y [M,N] = x @ W^T + b
    gemm_bn_stats_kernel            y -> stats [2,N]  (row 0 the column means, row 1 the biased variances)
    gemm_bn_scale_softmax_kernel    y, stats, gamma, beta, scale -> out [M,N]

The GEMM is a plain 16 x 16 shared-memory tiled kernel (one thread per output element, a barrier
after the tile loads and another after the multiply-accumulate; loads guarded and zero-filled
outside the matrices) with the bias fused into its epilogue. The statistics kernel runs one
256-thread block per column: a strided per-thread fp32 sum over the rows, reduced through a
shared-memory tree, gives the mean; a second strided pass of squared deviations from it, through a
second tree, gives the biased variance (two passes, as a careful first draft computes a variance).
The last kernel runs one 256-thread block per row in three phases: each thread normalises and
scales its strided columns, parks them in the output row and keeps a running max, reduced through
a shared-memory tree; then the sum of expf(z - max) through a second tree; then every element is
rewritten in place as expf(z - max) / sum (each thread reads back only what it wrote).

Cost: the GEMM is 2 x 1024 x 8192 x 8192 = 137 GFLOP, about 50-70 ms at the 2-3 TFLOP/s of a
16 x 16 tiled kernel on an H200 (the same GEMM as the accepted L2p76); the statistics read y twice
(67 MB) over 8192 blocks and the softmax reads it once and its own output twice: well under 1 ms
each. One official forward: about 50-80 ms (cuBLAS reference 2.89 ms).
"""

CUDA = r"""
const int TILE = 16;            // GEMM tile edge: blocks are TILE x TILE threads, K consumed TILE at a time
const int STATS_BLOCK = 256;    // threads per block of the statistics kernel (one block per column)
const int ROW_THREADS = 256;    // threads per block of the softmax kernel (one block per row)

extern "C" __global__ void gemm_bias_kernel(
    const float* __restrict__ x,        // [M, K]
    const float* __restrict__ w,        // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,        // [N]     (nn.Linear bias)
    float* __restrict__ y,              // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (batch index)
    int col = blockIdx.x * TILE + tx;   // output column (feature)
    int w_row = blockIdx.x * TILE + ty; // the W row this thread loads into the tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = x[(long long)row * K + k];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        y[(long long)row * N + col] = acc + b[col];
    }
}

extern "C" __global__ void gemm_bn_stats_kernel(
    const float* __restrict__ y,    // [M, N]
    float* __restrict__ stats,      // [2, N]: stats[j] = mean, stats[N + j] = biased variance of column j
    int M, int N)
{
    __shared__ float red[STATS_BLOCK];
    int j = blockIdx.x;
    if (j >= N) return;
    int tid = threadIdx.x;

    // Pass 1: the column sum, strided over the rows, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int r = tid; r < M; r += blockDim.x) {
        thread_sum += y[(long long)r * N + j];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)M;
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    for (int r = tid; r < M; r += blockDim.x) {
        float d = y[(long long)r * N + j] - mean;
        thread_sq += d * d;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        stats[j] = mean;
        stats[N + j] = red[0] / (float)M;   // biased: divide by the count, as training-mode BN does
    }
}

extern "C" __global__ void gemm_bn_scale_softmax_kernel(
    const float* __restrict__ y,        // [M, N]
    const float* __restrict__ stats,    // [2, N]
    const float* __restrict__ gamma,    // [N]  (BatchNorm1d weight)
    const float* __restrict__ beta,     // [N]  (BatchNorm1d bias)
    const float* __restrict__ scale,    // [1]  (the model's scalar scale, broadcast)
    float* __restrict__ out,            // [M, N]  (holds scale * bn(y) between phases 1 and 3)
    int M, int N)
{
    const float BN_EPS = 1e-5f;         // BatchNorm1d eps (bn_eps = 1e-5)
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction
    __shared__ float red[ROW_THREADS];

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    const float* y_row = y + (long long)row * N;
    float* out_row = out + (long long)row * N;

    // Phase 1: z = scale * bn(y) into the output row, and the row max of z.
    float thread_max = NEG_SENTINEL;
    for (int col = tid; col < N; col += blockDim.x) {
        float mean = stats[col];
        float var = stats[N + col];
        float inv_std = 1.0f / sqrtf(var + BN_EPS);
        float z = scale[0] * ((y_row[col] - mean) * inv_std * gamma[col] + beta[col]);
        out_row[col] = z;
        thread_max = fmaxf(thread_max, z);
    }
    red[tid] = thread_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();    // every thread has read red[0] before phase 2 overwrites it

    // Phase 2: row sum of expf(z - row_max), fp32 accumulation, same tree reduction.
    float thread_sum = 0.0f;
    for (int col = tid; col < N; col += blockDim.x) {
        thread_sum += expf(out_row[col] - row_max);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float row_sum = red[0];

    // Phase 3: normalise every element of the row in place.
    for (int col = tid; col < N; col += blockDim.x) {
        out_row[col] = expf(out_row[col] - row_max) / row_sum;
    }
}
"""

KERNELS = ["gemm_bias_kernel", "gemm_bn_stats_kernel", "gemm_bn_scale_softmax_kernel"]

TILE = 16                 # must equal TILE in the CUDA source
STATS_BLOCK = 256         # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
COLS_PER_BLOCK = 1        # one statistics block per column
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one softmax block per row
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
BN_EPS = 1e-5
BN_MOMENTUM = 0.1         # only affects the running statistics, never the output
OUTLIER_RANK = 64         # T2: rows are combinations of 64 random directions
OUTLIER_EVERY = 64        # T2: every 64th row is an outlier
OUTLIER_FACTOR = 10.0     # T2: ... with 10x larger coefficients
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 1e-5, 0.1, (1,)): gemm, bn, scale = ones(1); only the gemm draws
        nn = torch.nn
        gemm = nn.Linear(IN_FEATURES, OUT_FEATURES)
        bn = nn.BatchNorm1d(OUT_FEATURES, eps=BN_EPS, momentum=BN_MOMENTUM)
        scale = nn.Parameter(torch.ones((1,)))
        return {"w": gemm.weight, "b": gemm.bias, "bn_w": bn.weight, "bn_b": bn.bias, "scale": scale}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        gemm = (
            "gemm_bias_kernel",
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w["w"], w["b"], y],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )
        stats = torch.empty(2, N, device=x.device, dtype=x.dtype)
        stats_step = (
            "gemm_bn_stats_kernel",
            (K.cdiv(N, COLS_PER_BLOCK), 1, 1),
            (STATS_BLOCK, 1, 1),
            [y, stats],
            [(ctypes.c_int, M), (ctypes.c_int, N)],
        )
        out = torch.empty_like(y)
        norm = (
            "gemm_bn_scale_softmax_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [y, stats, w["bn_w"], w["bn_b"], w["scale"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N)],
        )
        return {"seq": [gemm, stats_step, norm], "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: batch statistics (the running buffers never reach the output).
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        y = torch.nn.functional.batch_norm(
            y, None, None, w["bn_w"], w["bn_b"], training=True, momentum=BN_MOMENTUM, eps=BN_EPS
        )
        y = w["scale"] * y
        return torch.softmax(y, dim=1)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def outlier_inputs(torch, s):
        # Rank-64 rows x = c @ V with V, c ~ N(0,1) (accumulated one direction at a time, no BLAS),
        # and every 64th row's coefficients 10x larger: those rows lie far from each column's batch
        # mean in a direction that favours a few columns, so their softmax rows are peaked.
        rows = s["batch"]
        v = torch.randn(OUTLIER_RANK, IN_FEATURES)
        c = torch.randn(rows, OUTLIER_RANK)
        c[::OUTLIER_EVERY] *= OUTLIER_FACTOR
        x = torch.zeros(rows, IN_FEATURES)
        for i in range(OUTLIER_RANK):
            x += c[:, i : i + 1] * v[i]
        return [x]

    return K.substrate(
        name="L2p84_gemm_batchnorm_scaling_softmax",
        level=2,
        problem="84_Gemm_BatchNorm_Scaling_Softmax",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, min=2, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 17},
                small=True,
                purpose="batch 17 = 16 + 1: the second row of GEMM blocks holds one live row, so the row guards "
                "on the store and on the x-tile load matter, and each statistics block has 17 live threads out "
                "of 256; a smoke test of the whole pipeline that runs on a CPU: with 17 rows every normalised "
                "value is at most 4 in magnitude, so the softmax rows are flat (outputs ~1e-4) and only faults "
                "that blow outputs up (no normalisation by the sum, a wrong max, NaN, inf) show here",
            ),
            K.suite(
                "T2_outlier_rows",
                outlier_inputs,
                seeds=[3, 4],
                sizes={"batch": 1000},
                purpose="rank-64 rows with every 64th row's coefficients 10x larger: in each column those 16 "
                "rows lie up to ~23 batch std from the mean, so their softmax rows are peaked (row maxima "
                "about 0.05-0.8, about 230 outputs above 1e-2, measured on the CPU) where the official inputs' rows are nearly "
                "flat (every output below ~1.3e-2): a wrong mean, variance, eps, max, sum or normalisation, "
                "a dropped column or a broken reduction moves the peaks beyond 1e-2; batch 1000 = 62 x 16 + 8 "
                "and 3 x 256 + 232 leaves remainders in the GEMM tiles and the strided statistics loops",
            ),
        ],
        notes="Nearly degenerate at the official inputs (facts file: const-pass@1e-2): every normalised value "
        "is ~N(0,1) over 8192 columns, so the softmax rows are nearly flat: measured on the CPU over the 5 official seeds, the "
        "largest output is 0.0128-0.0195 and only 2-7 of the 8.4 M outputs exceed 1e-2, so an all-zero "
        "output misses the check only on those few (the two first seeds' outputs also differ by 0.019 at "
        "most, just beyond 1e-2); most faults that keep the rows flat pass T0_original. The batch bounds every "
        "normalised value by sqrt(batch - 1), so T1's 17 rows (|z| <= 4) are flat too: only "
        "T2_outlier_rows has peaked rows. "
        "Pipeline of three kernels (GEMM + bias, column statistics, normalisation + scale + row softmax): "
        "training-mode BatchNorm needs every row of a column before it can normalise any, which one launch "
        "cannot do without a grid-wide barrier, and the softmax runs along the other axis. BatchNorm1d's "
        "affine is its init (weight ones, bias zeros) and the scale is ones(1), and no suite can change "
        "them, so mutants that drop or swap gamma/beta/scale at a valid index are equivalent. "
        "Training-mode BN removes any per-column constant: the nn.Linear bias never reaches the output "
        "(mutants that drop or misindex it are equivalent up to rounding). in_features and out_features "
        "(8192) are multiples of the 16-wide tile and of the 256-thread row block, so the k < K, w_row < N "
        "and col < N guards never fire. batch >= 2, as training-mode batch_norm requires more than one "
        "value per channel. Matmuls in the reference are full fp32 (no TF32).",
    )
