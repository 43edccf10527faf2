"""KernelBench level 2, problem 22_Matmul_Scale_ResidualAdd_Clamp_LogSumExp_Mish.

y = clamp(s + s, -10, 10) with s = (x @ W^T + b) * 2.0; v = logsumexp(y, dim=1, keepdim); out = v * mish(v).
x is 1024 x 8192, the nn.Linear is 8192 -> 8192 with bias; the "residual add" is x + x of the scaled
GEMM (so the GEMM output is multiplied by 4 in all); the clamp bounds are -10 and 10; the logsumexp
runs over the 8192 features of each row (output 1024 x 1), and Mish is v * tanh(softplus(v)).

A pipeline of two kernels, because the logsumexp needs a whole 8192-wide row and that row spans
64 blocks' output tiles:

1. matmul_scale_residual_clamp_kernel: y = clamp((x @ W^T + b) * 2 doubled) into a [M, 8192]
   intermediate. A plain register-blocked shared-memory tiled GEMM: a 16 x 16-thread block owns a
   64-row x 128-column output tile; for every K-tile of 16 it stages the 64 x 16 slice of x and the
   128 x 16 slice of W, both transposed and padded, in shared memory (coalesced loads, guarded and
   zero-filled outside the matrices, a barrier after the loads), then each thread accumulates a
   4-row x 8-column micro-tile in fp32 registers (rows ty + 16i, columns tx + 16j) and the block
   synchronises again before the next load. The bias, scale, doubling and clamp are fused into the
   guarded micro-tile store. Batch tiles run along gridDim.x, column tiles along gridDim.y.
2. logsumexp_mish_kernel: one 256-thread block per row: the row max through a shared-memory tree
   reduction, the row sum of expf(y - max) through a second tree (each thread sums the columns tid,
   tid + 256, ... first, the accepted kernel's order); thread 0 forms v = max + logf(sum) and stores
   v * mish(v).

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP. ESTIMATE, to be measured by the GPU gate: the 4 x 8
micro-tile does 32 FMAs per 12 shared-memory loads; plain SIMT kernels of this shape reach roughly
5-12 TFLOP/s on an H100, so about 12-30 ms for the GEMM (1024 blocks of 256 threads, about 4 waves
of two resident blocks on 132 SMs); each block reads 12 KB of operands per K-tile (about 4.4 GB of
L2 traffic in all, about 1 ms at L2 bandwidth), the 32 MB intermediate and the row pass well under
1 ms. Against the accepted one-block-per-row kernel (1.38 s per forward measured on a contended
H100, about 0.1 TFLOP/s; it streamed all of W through L2 once per row) that is an expected 45-110x.
"""

CUDA = r"""
const int BM = 64;                  // batch rows per block tile
const int BN = 128;                 // output columns (weight rows) per block tile
const int BK = 16;                  // K is consumed BK at a time
const int LANES = 16;               // GEMM blocks are LANES x LANES threads
const int THREADS = LANES * LANES;  // threads per GEMM block (256)
const int TM = BM / LANES;          // rows per thread: ty, ty + LANES, ty + 2 LANES, ty + 3 LANES
const int TN = BN / LANES;          // columns per thread: tx, tx + LANES, ..., tx + 7 LANES
const int ROW_THREADS = 256;        // threads per logsumexp block (one block per batch row)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction

extern "C" __global__ void matmul_scale_residual_clamp_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ y,          // [M, N]  clamp(s + s), s = (x @ W^T + b) * scale
    int M, int N, int K)
{
    const float SCALE_FACTOR = 2.0f;                // scale_factor
    const float CLAMP_MIN = -10.0f;                 // clamp_min
    const float CLAMP_MAX = 10.0f;                  // clamp_max
    __shared__ float xs[BK][BM + 1];    // xs[k][r] = x[row0 + r, k0 + k]  (transposed, padded)
    __shared__ float ws[BK][BN + 1];    // ws[k][c] = w[col0 + c, k0 + k]  (transposed, padded)

    int tx = threadIdx.x;                           // column lane
    int ty = threadIdx.y;                           // row lane
    int tid = ty * LANES + tx;                      // 0 .. THREADS - 1, for the tile loads
    long long row0 = (long long)blockIdx.x * BM;    // first batch row of the tile
    int col0 = blockIdx.y * BN;                     // first output column of the tile

    float acc[TM][TN];                  // acc[i][j] = GEMM (row0 + ty + i * LANES, col0 + tx + j * LANES)
    for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < TN; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    int num_k_tiles = (K + BK - 1) / BK;
    for (int t = 0; t < num_k_tiles; ++t) {
        int k0 = t * BK;
        for (int e = tid; e < BM * BK; e += THREADS) {
            int r = e / BK;             // tile row: x row row0 + r
            int kk = e % BK;            // position inside the K tile
            long long row = row0 + r;
            int k = k0 + kk;
            if (row < M && k < K) {
                xs[kk][r] = x[row * K + k];
            } else {
                xs[kk][r] = 0.0f;
            }
        }
        for (int e = tid; e < BN * BK; e += THREADS) {
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
        __syncthreads();    // the x and W tiles are loaded
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM];
            float wv[TN];
            for (int i = 0; i < TM; ++i) {
                a[i] = xs[kk][ty + i * LANES];
            }
            for (int j = 0; j < TN; ++j) {
                wv[j] = ws[kk][tx + j * LANES];
            }
            for (int i = 0; i < TM; ++i) {
                for (int j = 0; j < TN; ++j) {
                    acc[i][j] += a[i] * wv[j];
                }
            }
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    // Epilogue: bias, scale, residual doubling and clamp, guarded store of the micro-tile.
    for (int i = 0; i < TM; ++i) {
        long long row = row0 + ty + i * LANES;
        for (int j = 0; j < TN; ++j) {
            int col = col0 + tx + j * LANES;
            if (row < M && col < N) {
                float v = (acc[i][j] + b[col]) * SCALE_FACTOR;
                v = v + v;                                  // x + x: the "residual add"
                v = fminf(fmaxf(v, CLAMP_MIN), CLAMP_MAX);  // clamp
                y[row * N + col] = v;
            }
        }
    }
}

extern "C" __global__ void logsumexp_mish_kernel(
    const float* __restrict__ y,    // [M, N]  (stage 1's output)
    float* __restrict__ out,        // [M, 1]
    int M, int N)
{
    const float SOFTPLUS_THRESHOLD = 20.0f;         // softplus(v) = v above it (torch's default threshold)
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    const float* y_row = y + (long long)row * N;

    // Row max of y.
    float thread_max = NEG_SENTINEL;
    for (int c = tid; c < N; c += blockDim.x) {
        thread_max = fmaxf(thread_max, y_row[c]);
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
    __syncthreads();    // every thread has read red[0] before the sum overwrites it

    // Row sum of expf(y - row_max), fp32 accumulation, same tree reduction.
    float thread_sum = 0.0f;
    for (int c = tid; c < N; c += blockDim.x) {
        thread_sum += expf(y_row[c] - row_max);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }

    // logsumexp, then v * mish(v) on the row's one value.
    if (tid == 0) {
        float v = row_max + logf(red[0]);
        float sp = v > SOFTPLUS_THRESHOLD ? v : log1pf(expf(v));    // softplus, beta 1
        float mish = v * tanhf(sp);
        out[row] = v * mish;
    }
}
"""

BM = 64                   # must equal BM in the CUDA source (batch rows per GEMM tile)
BN = 128                  # must equal BN in the CUDA source (output columns per GEMM tile)
LANES = 16                # must equal LANES in the CUDA source: GEMM blocks are LANES x LANES threads
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one logsumexp block handles one batch row
IN_FEATURES = 8192        # input_size, fixed by the weights
OUT_FEATURES = 8192       # hidden_size, fixed by the weights
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
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        out = torch.empty(M, 1, device=x.device, dtype=x.dtype)
        seq = [
            (
                "matmul_scale_residual_clamp_kernel",
                (K.cdiv(M, BM), K.cdiv(N, BN), 1),
                (LANES, LANES, 1),
                [x, w["w"], w["b"], y],
                [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
            ),
            (
                "logsumexp_mish_kernel",
                (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
                (ROW_THREADS, 1, 1),
                [y, out],
                [(ctypes.c_int, M), (ctypes.c_int, N)],
            ),
        ]
        return {"seq": seq, "out": out}

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
        kernel_name=["matmul_scale_residual_clamp_kernel", "logsumexp_mish_kernel"],
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=2**31 - 1)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 69},
                small=True,
                purpose="69 rows (64 + 5) of official U[0,1) values: every stage runs in full (all 64 column "
                "tiles and 512 K tiles of the GEMM, both tree reductions, the Mish epilogue), so a missing "
                "barrier, a broken reduction, a wrong logsumexp formula (no log, no max add-back, a sum over "
                "part of the row), a lost scale or residual doubling, or a wrong Mish shows. The batch was 5 "
                "for the accepted one-block-per-row kernel; with 64-row GEMM tiles 5 rows reach only one row "
                "of blocks and only the first of the four register rows of each thread's micro-tile (rows ty, "
                "ty + 16, ty + 32, ty + 48), so faults in the other rows or in the batch-tile offset could "
                "not show. 69 gives one full batch tile and a partial second one (5 live rows), where the "
                "row guards of the tile loads and stores fire",
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
        "The GEMM stage is 64 x 128 output tiles (4 x 8 per thread, K-tiles of 16). N = 8192 is fixed by the "
        "weights and a multiple of the 128-column tile, and K = 8192 a multiple of 16, so the w_row < N and "
        "k < K guards of the tile loads and the col < N guard of the store never fire; only the batch has "
        "partial tiles (T1: 69 = 64 + 5; T2 and T3, 24 and 16 rows, fill part of one tile), and a fault in "
        "the row guard of the x-tile load touches only tile rows past the batch, which the store's row guard "
        "never writes (visible at most as an out-of-bounds read; checked on the CPU backend only). The row "
        "kernel's grid is batch exactly, so its row guard never fires either. Softplus follows torch's "
        "threshold (v above 20 kept as is), and v > 20 never happens here (v <= 10 + log(8192) = 19.01), so "
        "the threshold branch never runs. Matmuls in the reference are full fp32 (no TF32).",
    )
