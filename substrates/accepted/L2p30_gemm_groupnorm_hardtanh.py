"""KernelBench level 2, problem 30_Gemm_GroupNorm_Hardtanh.

nn.Linear(8192, 8192) with bias, GroupNorm(16 groups of 512 features, eps 1e-5, affine weight ones
and bias zeros), Hardtanh(-2, 2). x is 1024 x 8192; the output is 1024 x 8192.

One kernel, one 16 x 16-thread block per (16-row tile, group): the block owns rows row0..row0+15 of
the group's 512 columns. Phase 1 computes them 16 columns at a time with a plain shared-memory tiled
GEMM (one thread per output, one K-tile of x and of W staged per step, a barrier after the loads and
another after the multiply-accumulate), adds the bias and stores the pre-norm values in the output
(as scratch). Phase 2: each thread sums its row's columns tx, tx + 16, ..., a 16-wide shared-memory
tree per row gives the group mean; phase 3 does the same for the squared deviations (biased variance);
phase 4 normalises, (v - mean) / sqrtf(var + eps), applies the GroupNorm affine and the Hardtanh
clamp, in place. Tile loads are zero-filled outside the matrices and every store is guarded, so any
batch works. A __syncthreads() follows every shared-memory write phase and every tree level.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP at roughly 1-2 TFLOP/s for this plain tiling: about 70-140 ms
per forward on an H200 (cuBLAS reference 2.85 ms). 16 x 64 = 1024 blocks.
"""

CUDA = r"""
const int TILE = 16;            // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time
const float GN_EPS = 1e-5f;     // GroupNorm eps

extern "C" __global__ void gemm_groupnorm_hardtanh_kernel(
    const float* __restrict__ x,        // [M, K]
    const float* __restrict__ w,        // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,        // [N]
    const float* __restrict__ gn_w,     // [N]
    const float* __restrict__ gn_b,     // [N]
    float* __restrict__ out,            // [M, N]
    int M, int N, int K, int G)
{
    const float ht_min = -2.0f;         // nn.Hardtanh(min_val=-2.0, max_val=2.0)
    const float ht_max = 2.0f;

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
            out[(long long)row * N + col] = acc + b[col];
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
            float v = (out[o] - mean) * inv_std * gn_w[c] + gn_b[c];
            out[o] = fminf(fmaxf(v, ht_min), ht_max);
        }
    }
}
"""

TILE = 16                 # must equal TILE in the CUDA source (a power of two)
GROUPS_PER_BLOCK = 1      # one block column per group
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
NUM_GROUPS = 16
GN_EPS = 1e-5
HT_MIN, HT_MAX = -2.0, 2.0
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 16, -2.0, 2.0): nn.Linear, then nn.GroupNorm(16, 8192) (weight ones,
        # bias zeros; it draws nothing); nn.Hardtanh has no parameters.
        nn = torch.nn
        gemm = nn.Linear(IN_FEATURES, OUT_FEATURES)
        gn = nn.GroupNorm(NUM_GROUPS, OUT_FEATURES)
        return {"w": gemm.weight, "b": gemm.bias, "gn_w": gn.weight, "gn_b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, K_in = x.shape
        N = w["w"].shape[0]
        out = torch.empty((M, N), device=x.device, dtype=x.dtype)
        return (
            "gemm_groupnorm_hardtanh_kernel",
            (K.cdiv(NUM_GROUPS, GROUPS_PER_BLOCK), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w["w"], w["b"], w["gn_w"], w["gn_b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, K_in), (ctypes.c_int, NUM_GROUPS)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        y = torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)
        return torch.nn.functional.hardtanh(y, min_val=HT_MIN, max_val=HT_MAX)

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
        name="L2p30_gemm_groupnorm_hardtanh",
        level=2,
        problem="30_Gemm_GroupNorm_Hardtanh",
        cuda=CUDA,
        kernel_name="gemm_groupnorm_hardtanh_kernel",
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
                "row guards of the loads, the stores and the statistics matter; every group, column tile and "
                "K tile runs in full; about 4.6% of the outputs are clamped at +-2",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 9},
                purpose="x = U[0,0.01): the input-dependent part of each output shrinks to about the size of "
                "the bias spread, so group variances fall to about 5e-5, five times eps = 1e-5: a dropped or "
                "perturbed eps or an eps added after the sqrt moves outputs by several percent (invisible on "
                "U[0,1), where the variance is about 0.1); a bias dropped or read at a wrong column changes "
                "about half of each output; 9 rows leave a partial row tile",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 11},
                purpose="about 0.2% of x nonzero (values 1..50, about 16 per row), the rest exact zeros: each "
                "output is its bias plus a few large W terms at specific k, so a wrong K index, a dropped K "
                "tile or a swapped x/W index moves it by up to several stds; rows have very different group "
                "statistics, so using another row's statistics shows; 11 rows",
            ),
        ],
        notes="GroupNorm's affine parameters are its init, weight ones and bias zeros, and no suite can change "
        "them: a kernel that skips the affine or reads gn_w/gn_b at a wrong in-range column passes. "
        "Matmuls in the reference are full fp32 (no TF32). In phases 2-4 every thread reads back only the "
        "outputs it stored itself in phase 1 (columns tx + 16 m of its row), so the barrier after phase 1 "
        "is not needed for correctness and a mutant removing it is equivalent. in_features and "
        "out_features are fixed by the weights; only the batch is resizable (up to 65535 row tiles).",
    )
