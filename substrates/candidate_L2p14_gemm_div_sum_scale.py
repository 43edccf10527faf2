"""KernelBench level 2, problem 14_Gemm_Divide_Sum_Scaling: sum_j((x @ W^T)[:, j] / 2) * 1.5, keepdim.

x is 1024 x 8192, W is a plain nn.Parameter(torch.randn(8192, 8192)) (no bias); the output is
1024 x 1. A pipeline of two kernels, because the sum runs over the 8192 GEMM outputs of a row and
that row spans 64 blocks' output tiles:

1. gemm_div_kernel: y = (x @ W^T) / 2 into a [M, 8192] intermediate. A plain register-blocked
   shared-memory tiled GEMM: a 16 x 16-thread block owns a 64-row x 128-column output tile; for
   every K-tile of 16 it stages the 64 x 16 slice of x and the 128 x 16 slice of W, both transposed
   and padded, in shared memory (coalesced loads, guarded and zero-filled outside the matrices, a
   barrier after the loads), then each thread accumulates a 4-row x 8-column micro-tile in fp32
   registers (rows ty + 16i, columns tx + 16j; each output a sequential sum over k, as before) and
   the block synchronises again before the next load. The division is fused into the guarded
   micro-tile store. Batch tiles run along gridDim.x, column tiles along gridDim.y.
2. sum_scale_kernel: one 256-thread block per row: each thread adds its columns tid, tid + 256, ...
   into a private fp32 partial sum (the accepted kernel's order); a shared-memory tree reduction (a
   barrier after every level) gives the row sum, which thread 0 scales by 1.5 and stores.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP. ESTIMATE, to be measured by the GPU gate: the 4 x 8
micro-tile does 32 FMAs per 12 shared-memory loads; plain SIMT kernels of this shape reach roughly
5-12 TFLOP/s on an H100, so about 12-30 ms for the GEMM (1024 blocks of 256 threads, about 4 waves
of two resident blocks on 132 SMs; about 4.4 GB of L2 operand traffic, about 1 ms at L2
bandwidth); the 32 MB intermediate and the row pass well under 1 ms. Against the accepted
one-block-per-row kernel (0.78 s per forward measured on a contended H100, about 0.18 TFLOP/s; it
streamed all of W through L2 once per row) that is an expected 25-65x.
"""

CUDA = r"""
const int BM = 64;                  // batch rows per block tile
const int BN = 128;                 // output columns (weight rows) per block tile
const int BK = 16;                  // K is consumed BK at a time
const int LANES = 16;               // GEMM blocks are LANES x LANES threads
const int THREADS = LANES * LANES;  // threads per GEMM block (256)
const int TM = BM / LANES;          // rows per thread: ty, ty + LANES, ty + 2 LANES, ty + 3 LANES
const int TN = BN / LANES;          // columns per thread: tx, tx + LANES, ..., tx + 7 LANES
const int ROW_THREADS = 256;        // threads per sum block (one block per batch row)
const float DIVISOR = 2.0f;         // x / 2
const float SCALING_FACTOR = 1.5f;  // Model.scaling_factor

extern "C" __global__ void gemm_div_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (hidden_size x input_size)
    float* __restrict__ y,          // [M, N]  (x @ W^T) / 2
    int M, int N, int K)
{
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

    // Epilogue: the division, guarded store of the micro-tile.
    for (int i = 0; i < TM; ++i) {
        long long row = row0 + ty + i * LANES;
        for (int j = 0; j < TN; ++j) {
            int col = col0 + tx + j * LANES;
            if (row < M && col < N) {
                y[row * N + col] = acc[i][j] / DIVISOR;
            }
        }
    }
}

extern "C" __global__ void sum_scale_kernel(
    const float* __restrict__ y,    // [M, N]  (stage 1's output)
    float* __restrict__ out,        // [M, 1]
    int M, int N)
{
    __shared__ float red[ROW_THREADS];              // per-thread partial row sums

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    const float* y_row = y + (long long)row * N;

    float thread_sum = 0.0f;
    for (int c = tid; c < N; c += blockDim.x) {
        thread_sum += y_row[c];
    }

    // Row sum: tree reduction in shared memory.
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[row] = red[0] * SCALING_FACTOR;
    }
}
"""

BM = 64                   # must equal BM in the CUDA source (batch rows per GEMM tile)
BN = 128                  # must equal BN in the CUDA source (output columns per GEMM tile)
LANES = 16                # must equal LANES in the CUDA source: GEMM blocks are LANES x LANES threads
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one sum block reduces one batch row
INPUT_SIZE = 8192         # fixed by the weight
HIDDEN_SIZE = 8192
DIVISOR = 2.0             # must equal the CUDA constants
SCALING_FACTOR = 1.5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 1.5): self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        weight = torch.nn.Parameter(torch.randn(HIDDEN_SIZE, INPUT_SIZE))
        return {"w": weight}

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
                "gemm_div_kernel",
                (K.cdiv(M, BM), K.cdiv(N, BN), 1),
                (LANES, LANES, 1),
                [x, w["w"], y],
                [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
            ),
            (
                "sum_scale_kernel",
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
        y = torch.matmul(x, w["w"].T)
        y = y / DIVISOR
        y = torch.sum(y, dim=1, keepdim=True)
        return y * SCALING_FACTOR

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_size)]
        return [torch.rand(s["batch"], INPUT_SIZE)]

    def large_inputs(torch, s):
        # Same sign, 16 times the official range.
        return [torch.rand(s["batch"], INPUT_SIZE) * 16.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero (1..50), the rest exact zeros; rows 0, 4, 8, ... hold a
        # single nonzero entry only.
        x = torch.zeros(s["batch"], INPUT_SIZE)
        mask = torch.rand(s["batch"], INPUT_SIZE) < 0.01
        mask[0::4] = False
        mask[0::4, 7] = True
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p14_gemm_div_sum_scale",
        level=2,
        problem="14_Gemm_Divide_Sum_Scaling",
        cuda=CUDA,
        kernel_name=["gemm_div_kernel", "sum_scale_kernel"],
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
                purpose="69 rows (64 + 5) of official U[0,1) values: every column tile and K tile of the "
                "8192 x 8192 weight runs, so dropped tiles, a wrong divisor or scale, a broken tree reduction "
                "or a missing barrier show; the row sums are thousands in magnitude (sums of 8192 GEMM outputs "
                "of std ~50). The batch was 5 for the accepted one-block-per-row kernel; with 64-row GEMM "
                "tiles 5 rows reach only one row of blocks and only the first of the four register rows of "
                "each thread's micro-tile (rows ty, ty + 16, ty + 32, ty + 48), so faults in the other rows "
                "or in the batch-tile offset could not show. 69 gives one full batch tile and a partial "
                "second one (5 live rows), where the row guards of the tile loads and stores fire",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 24},
                purpose="x = U[0,16): same-sign large magnitudes, row sums in the tens of thousands; the error "
                "of a correct fp32 kernel (and of the fp32 reference against fp64) scales with the sum: a CPU "
                "emulation of this kernel gave allclose distances of at most 1.6e-4 to the fp32 reference and "
                "1.4e-4 to fp64, two orders inside 1e-2, while a lost partial sum or tile moves the sum by "
                "percents",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 1% of x nonzero (values 1..50), and every fourth row a single nonzero entry at "
                "k = 7: each row sum is a sum of ~80 (or one) scaled column sums of W, so a wrong k index, K "
                "tile offset or transposed tile element is not averaged away, and a row whose only term sits "
                "in the first K tile isolates tile-offset faults",
            ),
        ],
        notes="The output is one number per row: sum over 8192 columns of GEMM outputs with W ~ N(0,1), "
        "magnitudes of a few thousand. The facts file marks this problem fp32-ill-conditioned at 1e-4 "
        "(the IEEE fp32 reference misses fp64 at 1e-4, but stays far inside the v0.1 1e-2). The pipeline "
        "keeps the accepted kernel's arithmetic order: each GEMM output is a sequential fp32 sum over k, "
        "divided by 2, and the row kernel sums each thread's 32 columns sequentially and then through a "
        "tree, a different order from torch's. The accepted kernel's absolute error is about 5e-3 (std) at "
        "official values, from 8192-term sequential fp32 dot products summed over 8192 columns, independent "
        "of the output's size, so rows whose sum lies near zero use a real share of the 1e-2 atol: an "
        "FMA-faithful CPU emulation of that kernel on the 11 rows with |out| < 4 across the five official "
        "seeds used at most 65% of the allowance (seed 576165995, row 100: out -0.779 vs an fp32 CPU "
        "reference -0.768, allowed 1.78e-2), and every other row far less; the fp32 CPU reference itself "
        "stays within 10% of the allowance of fp64. On the targeted suites the distances are below 2e-4. "
        "This pipeline performs the same operations in the same order (not yet measured on a GPU). "
        "N = 8192 is fixed by the weight and a multiple of the 128-column tile, and K = 8192 a multiple of "
        "16, so the col < N, w_row < N and k < K guards never fire; only the batch has partial 64-row "
        "tiles (T1: 69 = 64 + 5; T2 and T3, 24 and 16 rows, fill part of one tile), and a fault in the row "
        "guard of the x-tile load touches only tile rows past the batch, which the store's row guard never "
        "writes (visible at most as an out-of-bounds read; checked on the CPU backend only). The sum "
        "kernel's grid is batch exactly, so its row >= M guard never fires: mutants that only touch those "
        "guards are equivalent. Division by 2 is exact in fp32, so moving it after the sum is equivalent "
        "too.",
    )
