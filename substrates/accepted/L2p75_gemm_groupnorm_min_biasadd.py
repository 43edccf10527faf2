"""KernelBench level 2, problem 75_Gemm_GroupNorm_Min_BiasAdd.

nn.Linear(8192, 8192) with bias, GroupNorm(512 groups of 16 features, eps 1e-5, affine weight ones and
bias zeros), the minimum over the features (torch.min(x, dim=1, keepdim=True)[0], shape batch x 1),
then + bias of shape (1, 8192, 1, 1). The (batch, 1) minimum broadcasts against (1, 8192, 1, 1) as
(1, 1, batch, 1), so the output is 1 x 8192 x batch x 1: out[0, c, r, 0] = min_r + bias[c]. x is
1024 x 8192; the output is 1 x 8192 x 1024 x 1.

One kernel, one 16 x 16-thread block per 16-row tile: the block owns 16 whole rows, because each
row's minimum needs all 512 of its groups. A group is exactly one 16-column tile (8192 / 512 = 16 =
TILE, fixed by the weights), so for each group in turn the block computes its 16 x 16 linear outputs
with a plain shared-memory tiled GEMM (one thread per output, one K-tile of x and of W staged per
step, a barrier after the loads and another after the multiply-accumulate), adds the bias, and
normalises them in registers: a 16-wide shared-memory tree per row gives the group mean, a second
one the biased variance; each thread folds its normalised value (times the GroupNorm weight, plus
its bias) into a running minimum. After the last group a tree of fminf over the row's 16 threads
gives the row minimum, and the block writes out[c * batch + r] = min_r + bias[c] for all 8192 c of
its rows. Tile loads are zero-filled outside the matrices and every store is guarded, so any batch
works. A __syncthreads() follows every shared-memory write phase and every tree level.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, but a block needs whole rows, so only 64 blocks (of 256
threads) run, one per SM on 64 of the 132 SMs: each streams all of W through 262,144 K-steps of a few
hundred cycles of load latency each, roughly 0.1-0.2 s per forward on an H200 (cuBLAS reference 3.2 ms).
"""

CUDA = r"""
const int TILE = 16;            // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time;
                                // also the group width (8192 features / 512 groups)
const float GN_EPS = 1e-5f;     // nn.GroupNorm default eps
const float POS_SENTINEL = 3.402823466e+38f;    // FLT_MAX: identity of the min reduction

extern "C" __global__ void gemm_groupnorm_min_biasadd_kernel(
    const float* __restrict__ x,        // [M, K]
    const float* __restrict__ w,        // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,        // [N]
    const float* __restrict__ gn_w,     // [N]
    const float* __restrict__ gn_b,     // [N]
    const float* __restrict__ bias,     // [1, N, 1, 1]
    float* __restrict__ out,            // [1, N, M, 1]
    int M, int N, int K, int G)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)
    __shared__ float red[TILE][TILE];   // red[r][t]: row r's partial statistics

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // batch index
    int cpg = N / G;                    // features per group: TILE (see the docstring)

    float row_min = POS_SENTINEL;       // this thread's minimum over its columns g * cpg + tx
    int num_k_tiles = (K + TILE - 1) / TILE;
    for (int g = 0; g < G; ++g) {
        int col0 = g * cpg;
        int col = col0 + tx;                // feature of this thread
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
        float v = acc + b[col];

        // The group mean of this row: a tree over the row's TILE threads.
        red[ty][tx] = v;
        __syncthreads();
        for (int s = TILE / 2; s > 0; s >>= 1) {
            if (tx < s) {
                red[ty][tx] = red[ty][tx] + red[ty][tx + s];
            }
            __syncthreads();
        }
        float mean = red[ty][0] / (float)cpg;
        __syncthreads();    // every thread has read its row's sum before red is overwritten

        // The biased group variance: the same tree over squared deviations.
        float d = v - mean;
        red[ty][tx] = d * d;
        __syncthreads();
        for (int s = TILE / 2; s > 0; s >>= 1) {
            if (tx < s) {
                red[ty][tx] = red[ty][tx] + red[ty][tx + s];
            }
            __syncthreads();
        }
        float var = red[ty][0] / (float)cpg;
        __syncthreads();    // every thread has read its row's sum before the next group reuses red
        float inv_std = 1.0f / sqrtf(var + GN_EPS);

        float vn = (v - mean) * inv_std * gn_w[col] + gn_b[col];
        row_min = fminf(row_min, vn);
    }

    // The row minimum: a tree of fminf over the row's TILE threads.
    red[ty][tx] = row_min;
    __syncthreads();
    for (int s = TILE / 2; s > 0; s >>= 1) {
        if (tx < s) {
            red[ty][tx] = fminf(red[ty][tx], red[ty][tx + s]);
        }
        __syncthreads();
    }
    float m = red[ty][0];

    // Broadcast: out[0, c, row, 0] = min_row + bias[c] for every feature c.
    if (row < M) {
        for (int c = tx; c < N; c += TILE) {
            out[(long long)c * M + row] = m + bias[c];
        }
    }
}
"""

TILE = 16                 # must equal TILE in the CUDA source (a power of two)
ROWS_PER_BLOCK = TILE     # one block owns TILE whole rows
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
NUM_GROUPS = 512          # OUT_FEATURES / NUM_GROUPS must equal TILE (the kernel's group width)
GN_EPS = 1e-5
MAX_GRID_Y = 65535        # the batch is tiled along gridDim.y


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
        out = torch.empty((1, N, M, 1), device=x.device, dtype=x.dtype)
        return (
            "gemm_groupnorm_min_biasadd_kernel",
            (1, K.cdiv(M, ROWS_PER_BLOCK), 1),
            (TILE, TILE, 1),
            [x, w["w"], w["b"], w["gn_w"], w["gn_b"], w["bias"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, K_in), (ctypes.c_int, NUM_GROUPS)],
        )

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
        kernel_name="gemm_groupnorm_min_biasadd_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=MAX_GRID_Y * TILE)},
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
                purpose="5 rows of official U[0,1) values: the one row tile is partial (rows 5..15 idle), so the "
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
        "zeros. The group width equals the tile edge (8192 / 512 = 16), fixed by the weights; the kernel "
        "relies on it. Matmuls in the reference are full fp32 (no TF32). Only the batch is resizable.",
    )
