"""KernelBench level 2, problem 97_Matmul_BatchNorm_BiasAdd_Divide_Swish: swish((bn(linear(x)) + bias) / 1.0).

x is 1024 x 8192; nn.Linear(8192, 8192) with bias, then nn.BatchNorm1d(8192) in training mode (the
harness never calls .eval()): every feature (column) is normalised with its batch mean and biased
batch variance over the rows, eps 1e-5, then the module's affine weight (ones) and bias (zeros)
apply; then a scalar bias (nn.Parameter(torch.randn(1))) is added, the result divided by
divide_value = 1.0, and Swish applied: z * sigmoid(z).

A pipeline of three kernels, because a column's statistics need every row of the GEMM before any
element can be normalised, and one launch has no grid-wide barrier:

    gemm_bias_kernel              x [M,K], W [N,K], b -> y [M,N] = x @ W^T + b
    gemm_bn_stats_kernel          y -> stats [2,N]  (row 0 the column means, row 1 the biased variances)
    gemm_bn_bias_div_swish_kernel y, stats, gamma, beta, bias -> out [M,N]

The GEMM is a plain 16 x 16 shared-memory tiled kernel (one thread per output element, a barrier
after the tile loads and another after the multiply-accumulate; loads guarded and zero-filled
outside the matrices) with the linear bias fused into its epilogue. The statistics kernel runs one
256-thread block per column: a strided per-thread fp32 sum over the rows, reduced through a
shared-memory tree, gives the mean; a second strided pass of squared deviations from it, through a
second tree, gives the biased variance (two passes, as a careful first draft computes a variance).
The last kernel is one thread per element over a 64-bit flat index: normalise, add the scalar
bias, divide, Swish.

Cost: the GEMM is 2 x 1024 x 8192 x 8192 = 137 GFLOP, about 50-70 ms at the 2-3 TFLOP/s of a
16 x 16 tiled kernel on an H200 (the same GEMM as the accepted L2p76); the statistics read y twice
(67 MB) over 8192 blocks and the last kernel streams it once more: well under 1 ms each. One
official forward: about 50-80 ms (cuBLAS reference 2.87 ms).
"""

CUDA = r"""
const int TILE = 16;            // GEMM tile edge: blocks are TILE x TILE threads, K consumed TILE at a time
const int STATS_BLOCK = 256;    // threads per block of the statistics kernel (one block per column)

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

extern "C" __global__ void gemm_bn_bias_div_swish_kernel(
    const float* __restrict__ y,        // [M, N]
    const float* __restrict__ stats,    // [2, N]
    const float* __restrict__ gamma,    // [N]  (BatchNorm1d weight)
    const float* __restrict__ beta,     // [N]  (BatchNorm1d bias)
    const float* __restrict__ bias,     // [1]  (the model's scalar bias, broadcast)
    float* __restrict__ out,            // [M, N]
    long long total, int N)
{
    const float BN_EPS = 1e-5f;         // BatchNorm1d eps (bn_eps = 1e-5)
    const float DIVIDE_VALUE = 1.0f;    // divide_value
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;

    int j = (int)(i % N);
    float mean = stats[j];
    float var = stats[N + j];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float z = (y[i] - mean) * inv_std * gamma[j] + beta[j];
    z = (z + bias[0]) / DIVIDE_VALUE;
    float sig = 1.0f / (1.0f + expf(-z));
    out[i] = z * sig;                   // Swish
}
"""

KERNELS = ["gemm_bias_kernel", "gemm_bn_stats_kernel", "gemm_bn_bias_div_swish_kernel"]

TILE = 16                 # must equal TILE in the CUDA source
STATS_BLOCK = 256         # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
COLS_PER_BLOCK = 1        # one statistics block per column
BLOCK = 256               # normalisation: 1D blocks over the flat index
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
BN_EPS = 1e-5
BN_MOMENTUM = 0.1         # only affects the running statistics, never the output
DIVIDE_VALUE = 1.0
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 1e-5, 0.1, (1,), 1.0): matmul, bn (draws nothing), then
        # bias = randn(1)
        nn = torch.nn
        matmul = nn.Linear(IN_FEATURES, OUT_FEATURES)
        bn = nn.BatchNorm1d(OUT_FEATURES, eps=BN_EPS, momentum=BN_MOMENTUM)
        bias = nn.Parameter(torch.randn((1,)))
        return {"w": matmul.weight, "b": matmul.bias, "bn_w": bn.weight, "bn_b": bn.bias, "bias": bias}

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
        total = M * N
        norm = (
            "gemm_bn_bias_div_swish_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [y, stats, w["bn_w"], w["bn_b"], w["bias"], out],
            [(ctypes.c_longlong, total), (ctypes.c_int, N)],
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
        y = y + w["bias"]
        y = y / DIVIDE_VALUE
        return y * torch.sigmoid(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def small_var_inputs(torch, s):
        # U[0, 0.02): column variances about 1.1e-5, the size of eps.
        return [torch.rand(s["batch"], IN_FEATURES) * 0.02]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large (1..50), the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p97_matmul_batchnorm_biasadd_divide_swish",
        level=2,
        problem="97_Matmul_BatchNorm_BiasAdd_Divide_Swish",
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
                "on the store and on the x-tile load matter; each statistics block has 17 live threads out of "
                "256, so the reduction identity and tree bounds matter; with 17 rows the biased and unbiased "
                "variances differ by 6% (outputs by 3%), and a sum that drops one row moves the mean by "
                "1/17 of that row's value",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 40},
                purpose="x = U[0,0.02): the column variances (about 1.1e-5) are the size of eps = 1e-5, so "
                "a dropped or perturbed eps, eps outside the square root or a std used as a variance change "
                "outputs by tens of percent (on U[0,1) eps moves outputs by about 2e-4 relative); batch "
                "40 = 2 x 16 + 8 is a remainder too",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 64},
                purpose="about 1% of x nonzero (values 1..50), the rest exact zeros: every GEMM output is the "
                "bias plus about 80 large isolated terms, so a wrong k index, tile offset or transposed tile "
                "element is not averaged away, and each column's distribution is heavy-tailed (outputs up to "
                "~4 std), so statistics over the wrong rows or column show",
            ),
        ],
        notes="Pipeline of three kernels (GEMM + bias, column statistics, normalisation + epilogue): "
        "training-mode BatchNorm needs every row of a column before it can normalise any, which one launch "
        "cannot do without a grid-wide barrier. BatchNorm1d's affine is its init (weight ones, bias zeros), "
        "and no suite can change it, so mutants that drop or swap gamma/beta at a valid index are equivalent; "
        "likewise divide_value is 1.0, so mutants that drop or invert the division are equivalent. "
        "Training-mode BN removes any per-column constant: the nn.Linear bias never reaches the output "
        "(mutants that drop or misindex it are equivalent up to rounding). The scalar bias is randn(1) "
        "drawn after the Linear's parameters. in_features and out_features (8192) are multiples of the "
        "16-wide tile, so the k < K, w_row < N and col < N guards never fire. batch >= 2, as "
        "training-mode batch_norm requires more than one value per channel. Matmuls in the reference are "
        "full fp32 (no TF32).",
    )
