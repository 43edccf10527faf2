"""KernelBench level 2, problem 37_Matmul_Swish_Sum_GroupNorm.

nn.Linear(1024, 4096) with bias, Swish (sigmoid(v) * v), + bias (randn(4096)), then GroupNorm(64
groups of 64 features, eps 1e-5, affine weight ones and bias zeros). x is 32768 x 1024; the output is
32768 x 4096.

One kernel, one 16 x 16-thread block per (16-row tile, group): the block owns rows row0..row0+15 of
the group's 64 columns. Phase 1 computes them 16 columns at a time with a plain shared-memory tiled
GEMM (one thread per output, one K-tile of x and of W staged per step, a barrier after the loads and
another after the multiply-accumulate), then the pre-norm epilogue (linear bias, Swish, extra bias)
and stores the values in the output (as scratch). Phase 2: each thread sums its row's columns tx,
tx + 16, tx + 32, tx + 48, a 16-wide shared-memory tree per row gives the group mean; phase 3 does
the same for the squared deviations (biased variance); phase 4 normalises, (v - mean) /
sqrtf(var + eps), and applies the GroupNorm affine, in place. Tile loads are zero-filled outside the
matrices and every store is guarded, so any batch works. A __syncthreads() follows every
shared-memory write phase and every tree level.

Cost: 2 x 32768 x 1024 x 4096 = 275 GFLOP at roughly 1-2 TFLOP/s for this plain tiling: about
0.14-0.28 s per forward on an H200 (cuBLAS reference 8.4 ms). 64 x 2048 = 131072 blocks.
"""

CUDA = r"""
const int TILE = 16;            // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time
const float GN_EPS = 1e-5f;     // GroupNorm eps

extern "C" __global__ void matmul_swish_sum_groupnorm_kernel(
    const float* __restrict__ x,        // [M, K]
    const float* __restrict__ w,        // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,        // [N]
    const float* __restrict__ bias,     // [N]  (the extra bias)
    const float* __restrict__ gn_w,     // [N]
    const float* __restrict__ gn_b,     // [N]
    float* __restrict__ out,            // [M, N]
    int M, int N, int K, int G)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)
    __shared__ float red[TILE][TILE];   // red[r][t]: row r's partial statistics

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int g = blockIdx.x;                 // the group of columns this block normalises
    if (g >= G) return;
    int row = blockIdx.y * TILE + ty;   // output row (batch index)
    int cpg = N / G;                    // channels (columns) per group
    int c_begin = g * cpg;
    int c_end = c_begin + cpg;

    // Phase 1: the block's rows of the group's columns, TILE columns at a time: a 16 x 16 shared-memory
    // tiled GEMM (one K-tile of x and of W staged per step), plus the pre-norm epilogue, into out.
    int num_col_tiles = (cpg + TILE - 1) / TILE;
    int num_k_tiles = (K + TILE - 1) / TILE;
    for (int ct = 0; ct < num_col_tiles; ++ct) {
        int col0 = c_begin + ct * TILE;
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
            if (w_row < c_end && k < K) {
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
        if (row < M && col < c_end) {
            float v = acc + b[col];
            v = (1.0f / (1.0f + expf(-v))) * v;     // swish
            v = v + bias[col];
            out[(long long)row * N + col] = v;
        }
    }
    __syncthreads();    // the block's rows of the group are in out

    // Phase 2: the mean of each row's group: per-thread partial sums over the row's columns
    // tx, tx + TILE, ..., then a tree over the TILE threads of the row.
    float thread_sum = 0.0f;
    if (row < M) {
        for (int j = tx; j < cpg; j += TILE) {
            thread_sum += out[(long long)row * N + c_begin + j];
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
    float mean = red[ty][0] / (float)cpg;
    __syncthreads();    // every thread has read its row's sum before phase 3 overwrites red

    // Phase 3: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    if (row < M) {
        for (int j = tx; j < cpg; j += TILE) {
            float d = out[(long long)row * N + c_begin + j] - mean;
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
    float var = red[ty][0] / (float)cpg;    // biased, as group_norm
    float inv_std = 1.0f / sqrtf(var + GN_EPS);

    // Phase 4: normalise, the channel's affine and the post-norm epilogue, in place.
    if (row < M) {
        for (int j = tx; j < cpg; j += TILE) {
            int c = c_begin + j;
            long long o = (long long)row * N + c;
            out[o] = (out[o] - mean) * inv_std * gn_w[c] + gn_b[c];
        }
    }
}
"""

TILE = 16                 # must equal TILE in the CUDA source (a power of two)
GROUPS_PER_BLOCK = 1      # one block column per group
IN_FEATURES = 1024        # fixed by the weights
OUT_FEATURES = 4096
NUM_GROUPS = 64
GN_EPS = 1e-5
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1024, 4096, 64, (4096,)): nn.Linear, bias = randn(4096), then nn.GroupNorm(64, 4096)
        # (weight ones, bias zeros; it draws nothing).
        nn = torch.nn
        matmul = nn.Linear(IN_FEATURES, OUT_FEATURES)
        bias = nn.Parameter(torch.randn((OUT_FEATURES,)))
        gn = nn.GroupNorm(NUM_GROUPS, OUT_FEATURES)
        return {"w": matmul.weight, "b": matmul.bias, "bias": bias, "gn_w": gn.weight, "gn_b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, K_in = x.shape
        N = w["w"].shape[0]
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        return (
            "matmul_swish_sum_groupnorm_kernel",
            (K.cdiv(NUM_GROUPS, GROUPS_PER_BLOCK), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w["w"], w["b"], w["bias"], w["gn_w"], w["gn_b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, K_in), (ctypes.c_int, NUM_GROUPS)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        y = torch.sigmoid(y) * y
        y = y + w["bias"]
        return torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def large_inputs(torch, s):
        # Same sign, 4x the official range.
        return [torch.rand(s["batch"], IN_FEATURES) * 4.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero (1..50), the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p37_matmul_swish_sum_groupnorm",
        level=2,
        problem="37_Matmul_Swish_Sum_GroupNorm",
        cuda=CUDA,
        kernel_name="matmul_swish_sum_groupnorm_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values: the one row tile is partial (rows 5..15 idle), so the "
                "row guards of the loads, the stores and the statistics matter; every group, column tile and "
                "K tile runs in full",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 9},
                purpose="x = U[0,4) (same sign, 4x the official range): the Swish inputs grow to std about "
                "1.3 (about 0.33 officially, where Swish is nearly linear), so its nonlinearity and the "
                "input carry a larger share of each group's spread against the randn bias: a wrong K index, "
                "a dropped K tile, a Swish fault or a bias read at a wrong column moves outputs further; "
                "9 rows leave a partial row tile",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 11},
                purpose="about 1% of x nonzero (values 1..50, about 9 per row), the rest exact zeros: each "
                "linear output is its bias plus a few large W terms at specific k, so a wrong K index, a "
                "dropped K tile or a swapped x/W index moves it; rows have very different group statistics, "
                "so using another row's statistics shows; 11 rows",
            ),
        ],
        notes="GroupNorm's affine parameters are its init, weight ones and bias zeros, and no suite can change "
        "them: a kernel that skips the affine or reads gn_w/gn_b at a wrong in-range column passes. "
        "The extra bias is randn (std 1) and dominates every group's spread on the official inputs "
        "(the Swish output has std about 0.17 there), so faults in the GEMM move normalised outputs by "
        "only about a fifth of their own size; eps = 1e-5 is invisible (group variances about 1). "
        "Matmuls in the reference are full fp32 (no TF32). In phases 2-4 every thread reads back only "
        "the outputs it stored itself in phase 1, so the barrier after phase 1 is not needed for "
        "correctness and a mutant removing it is equivalent. in_features and out_features are fixed by "
        "the weights; only the batch is resizable.",
    )
