"""KernelBench level 2, problem 28_BMM_InstanceNorm_Sum_ResidualAdd_Multiply (two inputs: x and y).

nn.Linear(8192, 8192) with bias (named bmm, but a plain linear layer), InstanceNorm2d(8192) on the
output viewed as (batch, 1, 1, 8192), then + y and * y. x and y are 1024 x 8192; the output is
1024 x 8192. The view has one channel, not 8192: InstanceNorm2d (no affine, no running statistics;
torch only warns that num_features is unused) normalises each sample's single 1 x 8192 plane, so the
norm is a per-row normalisation over all 8192 features, with the biased variance and eps 1e-5. The
output is ((v - mean_row) / sqrt(var_row + eps) + y) * y.

One kernel, one 16 x 16-thread block per 16-row tile: the block owns 16 whole rows. Phase 1 computes
them 16 columns at a time with a plain shared-memory tiled GEMM (one thread per output, one K-tile of
x and of W staged per step, a barrier after the loads and another after the multiply-accumulate),
adds the bias and stores the pre-norm values in the output (as scratch). Phase 2: each thread sums its
row's columns tx, tx + 16, ... (512 of them), a 16-wide shared-memory tree per row gives the row mean;
phase 3 does the same for the squared deviations (biased variance); phase 4 normalises, adds y and
multiplies by y, in place. Tile loads are zero-filled outside the matrices and every store is
guarded, so any batch works. A __syncthreads() follows every shared-memory write phase and every tree
level.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, but a block needs whole rows, so only 64 blocks (of 256
threads) run, one per SM on 64 of the 132 SMs: each streams all of W through 262,144 K-steps of a few
hundred cycles of load latency each, roughly 0.1-0.2 s per forward on an H200 (cuBLAS reference 2.9 ms).
"""

CUDA = r"""
const int TILE = 16;            // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time
const float IN_EPS = 1e-5f;     // InstanceNorm2d eps

extern "C" __global__ void bmm_instancenorm_sum_residualadd_multiply_kernel(
    const float* __restrict__ x,        // [M, K]
    const float* __restrict__ w,        // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,        // [N]
    const float* __restrict__ y,        // [M, N]
    float* __restrict__ out,            // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)
    __shared__ float red[TILE][TILE];   // red[r][t]: row r's partial statistics

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (batch index)

    // Phase 1: the block's rows, TILE columns at a time: a 16 x 16 shared-memory tiled GEMM (one K-tile
    // of x and of W staged per step), plus the linear bias, into out.
    int num_col_tiles = (N + TILE - 1) / TILE;
    int num_k_tiles = (K + TILE - 1) / TILE;
    for (int ct = 0; ct < num_col_tiles; ++ct) {
        int col0 = ct * TILE;
        int col = col0 + tx;                // output column of this thread
        int w_row = col0 + ty;              // the W row this thread loads into the tile
        float acc = 0.0f;
        for (int t = 0; t < num_k_tiles; ++t) {
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
            out[(long long)row * N + col] = acc + b[col];
        }
    }
    __syncthreads();    // the block's rows are in out

    // Phase 2: the mean of each row: per-thread partial sums over the row's columns tx, tx + TILE, ...,
    // then a tree over the TILE threads of the row.
    float thread_sum = 0.0f;
    if (row < M) {
        for (int j = tx; j < N; j += TILE) {
            thread_sum += out[(long long)row * N + j];
        }
    }
    red[ty][tx] = thread_sum;
    __syncthreads();
    for (int s = TILE / 2; s > 0; s >>= 1) {
        if (tx < s) {
            red[ty][tx] = red[ty][tx] + red[ty][tx + s];
        }
        __syncthreads();
    }
    float mean = red[ty][0] / (float)N;
    __syncthreads();    // every thread has read its row's sum before phase 3 overwrites red

    // Phase 3: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    if (row < M) {
        for (int j = tx; j < N; j += TILE) {
            float d = out[(long long)row * N + j] - mean;
            thread_sq += d * d;
        }
    }
    red[ty][tx] = thread_sq;
    __syncthreads();
    for (int s = TILE / 2; s > 0; s >>= 1) {
        if (tx < s) {
            red[ty][tx] = red[ty][tx] + red[ty][tx + s];
        }
        __syncthreads();
    }
    float var = red[ty][0] / (float)N;  // biased, as instance_norm
    float inv_std = 1.0f / sqrtf(var + IN_EPS);

    // Phase 4: normalise, + y, * y, in place.
    if (row < M) {
        for (int j = tx; j < N; j += TILE) {
            long long o = (long long)row * N + j;
            float v = (out[o] - mean) * inv_std;
            v = v + y[o];
            out[o] = v * y[o];
        }
    }
}
"""

TILE = 16                 # must equal TILE in the CUDA source (a power of two)
ROWS_PER_BLOCK = TILE     # one block owns TILE whole rows
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
IN_EPS = 1e-5
IN_MOMENTUM = 0.1         # only affects running statistics, which this module does not keep
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


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
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        return (
            "bmm_instancenorm_sum_residualadd_multiply_kernel",
            (1, K.cdiv(M, ROWS_PER_BLOCK), 1),
            (TILE, TILE, 1),
            [x, w["w"], w["b"], y, out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, K_in)],
        )

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
        kernel_name="bmm_instancenorm_sum_residualadd_multiply_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values: the one row tile is partial (rows 5..15 idle), so the "
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
        "linear bias does not cancel in the normalisation (it varies by column). In phases 2-4 every "
        "thread reads back only the outputs it stored itself in phase 1 (columns tx + 16 m of its row), "
        "so the barrier after phase 1 is not needed for correctness and a mutant removing it is "
        "equivalent. in_features and out_features are fixed by the weights; only the batch is resizable.",
    )
