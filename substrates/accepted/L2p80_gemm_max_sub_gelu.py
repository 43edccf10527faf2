"""KernelBench level 2, problem 80_Gemm_Max_Subtract_GELU: gelu(m - m.mean(dim=1)), m = max_j (x @ W^T + b).

x is 1024 x 8192, the nn.Linear is 8192 -> 8192 with its bias. The model takes the row max of the
GEMM output with keepdim (a 1024 x 1 tensor m), subtracts m's mean over dim 1 (a mean over that one
column, i.e. m itself) and applies the exact GELU; the output is 1024 x 1 and identically zero for
finite inputs (see notes).

One kernel, one 256-thread block per batch row. The block walks the row's 8192 GEMM outputs in
column tiles of 256 (one column per thread): for every K-tile of 16 it stages x's 16 values and a
transposed, padded 16 x 256 tile of W in shared memory (coalesced loads, a barrier after the loads
and another after the multiply-accumulate). Each thread keeps a running max of its finished columns
(bias added); a shared-memory tree reduction (a barrier after every level) gives the row max. Thread
0 then averages the one-column max tensor over its single column, subtracts and applies the GELU.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, and every block streams all of W (256 MB) through L2:
about 275 GB of L2 traffic, roughly 50-100 ms on an H200 (cuBLAS reference 2.87 ms).
"""

CUDA = r"""
const int ROW_THREADS = 256;        // threads per block (one block per batch row) = columns per column tile
const int KTILE = 16;               // K is consumed KTILE at a time
const int MAX_COLS = 1;             // torch.max(..., keepdim=True) leaves one column; mean(dim=1) runs over it
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction
const float INV_SQRT2 = 0.70710678118654752f;   // 1 / sqrt(2), for the exact GELU

extern "C" __global__ void gemm_max_sub_gelu_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ out,        // [M, 1]
    int M, int N, int K)
{
    __shared__ float xs[KTILE];                     // xs[k] = x[row, k0 + k]
    __shared__ float ws[KTILE][ROW_THREADS + 1];    // ws[k][c] = w[c0 + c, k0 + k]  (transposed, padded)
    __shared__ float red[ROW_THREADS];              // per-thread running maxima

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;

    float thread_max = NEG_SENTINEL;
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
            thread_max = fmaxf(thread_max, acc + b[col]);
        }
    }

    // Row max: tree reduction in shared memory.
    red[tid] = thread_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }

    if (tid == 0) {
        float row_max = red[0];
        // x - x.mean(dim=1, keepdim=True) on the [M, 1] max tensor: the mean runs over its one column.
        float mean_sum = 0.0f;
        for (int j = 0; j < MAX_COLS; ++j) {
            mean_sum += row_max;
        }
        float row_mean = mean_sum / (float)MAX_COLS;
        float v = row_max - row_mean;
        out[row] = v * 0.5f * (1.0f + erff(v * INV_SQRT2));
    }
}
"""

ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one block reduces one batch row
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192
MAX_DIM = 1               # Model.max_dim


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 1): one nn.Linear with bias; max_dim is a plain int
        gemm = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
        return {"w": gemm.weight, "b": gemm.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        out = torch.empty(M, 1, device=x.device, dtype=x.dtype)
        return (
            "gemm_max_sub_gelu_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        y = torch.max(y, dim=MAX_DIM, keepdim=True).values
        y = y - y.mean(dim=1, keepdim=True)
        return torch.nn.functional.gelu(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def large_inputs(torch, s):
        # Same sign, 32 times the official range.
        return [torch.rand(s["batch"], IN_FEATURES) * 32.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large, the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p80_gemm_max_sub_gelu",
        level=2,
        problem="80_Gemm_Max_Subtract_GELU",
        cuda=CUDA,
        kernel_name="gemm_max_sub_gelu_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=2**31 - 1)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (every output is exactly 0: see notes)",
            ),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values through the whole kernel (all column and K tiles, the "
                "max tree, the one-column mean, the GELU); the output is exactly 0 like every other suite's, "
                "so only faults that leave a row unwritten, make it nonzero (a wrong mean, a subtraction "
                "of something other than the max itself) or produce NaN/inf are visible",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 24},
                purpose="x = U[0,32): same-sign large magnitudes (row maxima ~40 instead of ~1.3), so a mean "
                "or subtraction fault that leaves a multiple of the row max behind gives outputs of ~40 "
                "instead of ~1; the correct output is still exactly 0",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 1% of x nonzero (values 1..50), the rest exact zeros: the row max is set by a few "
                "isolated large terms rather than an average; the correct output is still exactly 0",
            ),
        ],
        notes="Degenerate (facts file: 100% zeros, zeros-pass@1e-4, input-insensitive@1e-4): torch.max with "
        "keepdim leaves a 1024 x 1 tensor m, and m.mean(dim=1, keepdim=True) averages over that single "
        "column, so m - mean(m) is exactly 0 for every finite input and gelu(0) = 0. The output is "
        "identically zero on every suite; the GEMM and the row max are invisible to any check: an "
        "all-zero kernel passes, and so does every fault in the GEMM, the tiling, the max reduction or "
        "its barriers that keeps the row max finite (x - x = 0 whatever x is). Only faults that change "
        "the mean (e.g. dividing by another count), skip the subtraction, leave rows unwritten, or "
        "produce NaN/inf (inf - inf) are visible. Unmerged KernelBench PR #108 proposes fixing this "
        "problem; v0.1 and HEAD still have it. fmaxf ignores a NaN operand where torch.max propagates "
        "it (finite inputs are unaffected).",
    )
