"""KernelBench level 2, problem 22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish.

y = clamp(s + s, -10, 10) with s = (x @ W^T + b) * 2.0; v = logsumexp(y, dim=1, keepdim); out = v * mish(v).
x is 1024 x 8192, the nn.Linear is 8192 -> 8192 with bias; the "residual add" is x + x of the scaled
GEMM (so the GEMM output is multiplied by 4 in all); the clamp bounds are -10 and 10; the logsumexp
runs over the 8192 features of each row (output 1024 x 1), and Mish is v * tanh(softplus(v)).

One kernel, one 256-thread block per batch row, in three phases:

1. the row's GEMM outputs in 32 column tiles of 256 (one column per thread): for every K-tile of 16
   the block stages x's 16 values and a transposed, padded 16 x 256 tile of W in shared memory
   (coalesced loads, a barrier after the loads and another after the multiply-accumulate). Each
   thread adds the bias, scales, doubles and clamps, and keeps its 32 values in a register array,
   with a running max; a shared-memory tree reduction gives the row max.
2. each thread sums expf(y - max) over its values; a second tree reduction gives the row sum.
3. thread 0 forms v = max + logf(sum) and stores v * mish(v).

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, and every block streams all of W (256 MB) through L2:
about 275 GB of L2 traffic, roughly 50-100 ms on an H200 (the accepted L2p99 runs the same GEMM
phase; cuBLAS reference 2.86 ms).
"""

CUDA = r"""
const int ROW_THREADS = 256;        // threads per block (one block per batch row) = columns per column tile
const int KTILE = 16;               // K is consumed KTILE at a time
const int COL_TILES = 32;           // out_features / ROW_THREADS = 8192 / 256 (fixed by the weights)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction

extern "C" __global__ void matmul_scale_residual_clamp_logsumexp_mish_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ out,        // [M, 1]
    int M, int N, int K)
{
    const float SCALE_FACTOR = 2.0f;                // scale_factor
    const float CLAMP_MIN = -10.0f;                 // clamp_min
    const float CLAMP_MAX = 10.0f;                  // clamp_max
    const float SOFTPLUS_THRESHOLD = 20.0f;         // softplus(v) = v above it (torch's default threshold)
    __shared__ float xs[KTILE];                     // xs[k] = x[row, k0 + k]
    __shared__ float ws[KTILE][ROW_THREADS + 1];    // ws[k][c] = w[c0 + c, k0 + k]  (transposed, padded)
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    float vals[COL_TILES];                          // vals[ct] = y[row, ct * ROW_THREADS + tid]

    // Phase 1: y = clamp(s + s), s = (x[row] @ W^T + b) * scale, and the row max of y.
    float thread_max = NEG_SENTINEL;
    int num_k_tiles = (K + KTILE - 1) / KTILE;
    for (int ct = 0; ct < COL_TILES; ++ct) {
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
        float v = NEG_SENTINEL;
        if (col < N) {
            v = (acc + b[col]) * SCALE_FACTOR;
            v = v + v;                                  // x + x: the "residual add"
            v = fminf(fmaxf(v, CLAMP_MIN), CLAMP_MAX);  // clamp
        }
        vals[ct] = v;
        thread_max = fmaxf(thread_max, v);
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

    // Phase 2: row sum of expf(y - row_max), fp32 accumulation, same tree reduction.
    float thread_sum = 0.0f;
    for (int ct = 0; ct < COL_TILES; ++ct) {
        int col = ct * ROW_THREADS + tid;
        if (col < N) {
            thread_sum += expf(vals[ct] - row_max);
        }
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }

    // Phase 3: logsumexp, then v * mish(v) on the row's one value.
    if (tid == 0) {
        float v = row_max + logf(red[0]);
        float sp = v > SOFTPLUS_THRESHOLD ? v : log1pf(expf(v));    // softplus, beta 1
        float mish = v * tanhf(sp);
        out[row] = v * mish;
    }
}
"""

ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one block handles one batch row
IN_FEATURES = 8192        # input_size, fixed by the weights
OUT_FEATURES = 8192       # hidden_size = COL_TILES x ROW_THREADS in the CUDA source
SCALE_FACTOR = 2.0
CLAMP_MIN = -10.0
CLAMP_MAX = 10.0


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 2.0, -10.0, 10.0): one nn.Linear with bias
        linear = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
        return {"w": linear.weight, "b": linear.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        out = torch.empty(M, 1, device=x.device, dtype=x.dtype)
        return (
            "matmul_scale_residual_clamp_logsumexp_mish_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.linear(x, w["w"], w["b"])
        y = y * SCALE_FACTOR
        y = y + y
        y = torch.clamp(y, CLAMP_MIN, CLAMP_MAX)
        y = torch.logsumexp(y, dim=1, keepdim=True)
        return y * F.mish(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_size)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def large_inputs(torch, s):
        # Same sign, 4 times the official range: scaled GEMM outputs of std ~5, a few percent clamped.
        return [torch.rand(s["batch"], IN_FEATURES) * 4.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large (1..50), the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p22_matmul_scale_residualadd_clamp_logsumexp_mish",
        level=2,
        problem="22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish",
        cuda=CUDA,
        kernel_name="matmul_scale_residual_clamp_logsumexp_mish_kernel",
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
                purpose="5 rows of official U[0,1) values: every phase of the kernel runs in full (all 32 column "
                "tiles and 512 K tiles, both tree reductions, the Mish epilogue), so a missing barrier, a broken "
                "reduction, a wrong logsumexp formula (no log, no max add-back, a sum over part of the row), a "
                "lost scale or residual doubling, or a wrong Mish shows",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 24},
                purpose="x = U[0,4): same-sign larger magnitudes, the scaled and doubled GEMM outputs have std ~5, "
                "so about 3% of them exceed the clamp bound 10 and are cut to exactly 10 (and 3% go below -10; "
                "none do on U[0,1)): the row max is the clamp bound and the outputs are ~255, while a dropped or "
                "misplaced upper clamp gives ~430-480 (measured on the CPU), and a swapped bound or a clamp "
                "applied before the scaling moves them by far more than the tolerance (~2.6)",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 1% of x nonzero (values 1..50), the rest exact zeros: the GEMM outputs are the bias "
                "plus about 80 large isolated terms, so the largest columns (which dominate the logsumexp) depend "
                "on specific k indices, and a wrong k index, tile offset or transposed tile element moves the "
                "output",
            ),
        ],
        notes="Weak at the official inputs: the outputs are v * mish(v) ~ v^2 with v = logsumexp ~ 9.9, so "
        "the tolerance is about 1 in absolute terms; measured on the CPU (3 official seeds) every output lies "
        "in 96-99.8 (mean 98.18) and two seeds' outputs differ by at most ~2.1 (allclose distance 0.02), so a "
        "constant output or most faults confined to the GEMM fail only narrowly or pass. The clamp never "
        "acts on the official inputs (scaled GEMM outputs of std ~1.3): T2 is the only suite where it does. "
        "N = 8192 is fixed by the weights and a multiple of the "
        "256-column tile, and K = 8192 a multiple of 16, so the col < N, w_row < N and k < K guards never fire; "
        "grid = batch exactly, so the row guard never fires either. Softplus follows torch's threshold (v above "
        "20 kept as is), and v > 20 never happens here (v <= 10 + log(8192) = 19.01), so the threshold branch "
        "never runs. Matmuls in the reference are full fp32 (no TF32).",
    )
