"""KernelBench level 2, problem 80_Gemm_Max_Subtract_GELU: gelu(m - m.mean(dim=1)), m = max_j (x @ W^T + b).

x is 1024 x 8192, the nn.Linear is 8192 -> 8192 with its bias. The model takes the row max of the
GEMM output with keepdim (a 1024 x 1 tensor m), subtracts m's mean over dim 1 (a mean over that one
column, i.e. m itself) and applies the exact GELU; the output is 1024 x 1 and identically zero for
finite inputs (see notes).

A two-kernel pipeline, because the row max needs whole 8192-wide rows that span many GEMM tiles:

1. gemm_kernel: a register-blocked shared-memory tiled GEMM. Each 16 x 16-thread block owns a
   64 x 64 output tile (BM x BN); K is consumed 16 at a time (BK): the block stages a 16 x 64 slice
   of x and one of W in shared memory (both stored transposed, k-major, rows padded by one float),
   a barrier after the loads, then every thread multiply-accumulates its 4 x 4 micro-tile (rows
   ty + 16 i, columns tx + 16 j) in fp32 registers, and a barrier after the compute. The epilogue
   adds the linear bias and stores the linear output v into an intermediate [M, N] that launch
   allocates. Tile loads are zero-filled outside the matrices and every store is guarded, so any
   batch works (only the batch is resizable: N and K are 8192, multiples of the tile).
2. max_sub_gelu_kernel: one 256-thread block per batch row. Each thread keeps a running max of the
   row's columns tid, tid + 256, ...; a shared-memory tree reduction (a barrier after the write and
   after every level) gives the row max. Thread 0 then averages the one-column max tensor over its
   single column, subtracts and applies the GELU.

Cost, an ESTIMATE made without a GPU, to be measured by the GPU gate: the GEMM is 2 x 1024 x 8192 x
8192 = 137 GFLOP in 128 x 16 = 2048 blocks of 256 threads (about 15 blocks per SM of the 132, several
resident at once), each thread doing 16 FMAs per 8 shared-memory loads; a plain register-blocked fp32
SIMT GEMM of this shape runs at roughly 5-10 TFLOP/s on an H100, so about 14-27 ms. Each block reads
(64 + 64) x 8192 x 4 B = 4 MB of x and W, 8.6 GB in all, mostly from L2 (W is 256 MB), a few ms
overlapped. The row kernel reads v once (32 MB): far under 1 ms. In all roughly 15-30 ms per
forward, against about 0.54 s measured (contended, mutant mean) for the accepted one-block-per-row
version that streamed all of W per row; cuBLAS reference 2.87 ms.
"""

CUDA = r"""
const int BM = 64;                  // output rows per block tile
const int BN = 64;                  // output columns per block tile
const int BK = 16;                  // K is consumed BK at a time
const int TM = 4;                   // output rows per thread (micro-tile)
const int TN = 4;                   // output columns per thread (micro-tile)
const int THREADS_X = BN / TN;      // 16: blockDim.x of the GEMM
const int THREADS_Y = BM / TM;      // 16: blockDim.y of the GEMM
const int GEMM_THREADS = THREADS_X * THREADS_Y;     // 256
const int TILE_PAD = 1;             // one float of padding per shared tile row (bank conflicts)
const int ROW_THREADS = 256;        // threads per block of the row kernel (one block per batch row)
const int MAX_COLS = 1;             // torch.max(..., keepdim=True) leaves one column; mean(dim=1) runs over it
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction
const float INV_SQRT2 = 0.70710678118654752f;   // 1 / sqrt(2), for the exact GELU

extern "C" __global__ void gemm_kernel(
    const float* __restrict__ x,        // [M, K]
    const float* __restrict__ w,        // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,        // [N]
    float* __restrict__ v,              // [M, N]  linear output
    int M, int N, int K)
{
    __shared__ float xs[BK][BM + TILE_PAD];     // xs[k][r] = x[row0 + r, k0 + k]  (stored transposed)
    __shared__ float ws[BK][BN + TILE_PAD];     // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * THREADS_X + tx;      // linear thread id, for the tile loads
    int row0 = blockIdx.y * BM;         // first output row of the block tile
    int col0 = blockIdx.x * BN;         // first output column of the block tile

    float acc[TM][TN];                  // acc[i][j]: output (row0 + ty + i * THREADS_Y, col0 + tx + j * THREADS_X)
    for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < TN; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    int num_k_tiles = (K + BK - 1) / BK;
    for (int t = 0; t < num_k_tiles; ++t) {
        int k0 = t * BK;
        // Load phase: BM x BK elements of x and BN x BK of W, k fastest (coalesced along rows).
        for (int e = tid; e < BM * BK; e += GEMM_THREADS) {
            int r = e / BK;             // tile row: x row row0 + r
            int kk = e % BK;            // position inside the K tile
            int row = row0 + r;
            int k = k0 + kk;
            if (row < M && k < K) {
                xs[kk][r] = x[(long long)row * K + k];
            } else {
                xs[kk][r] = 0.0f;
            }
        }
        for (int e = tid; e < BN * BK; e += GEMM_THREADS) {
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
        __syncthreads();    // both tiles are loaded

        // Compute phase: the thread's TM x TN micro-tile, one k at a time.
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM];
            float bw[TN];
            for (int i = 0; i < TM; ++i) {
                a[i] = xs[kk][ty + i * THREADS_Y];
            }
            for (int j = 0; j < TN; ++j) {
                bw[j] = ws[kk][tx + j * THREADS_X];
            }
            for (int i = 0; i < TM; ++i) {
                for (int j = 0; j < TN; ++j) {
                    acc[i][j] += a[i] * bw[j];
                }
            }
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    // Epilogue: + bias, guarded store of the micro-tile.
    for (int i = 0; i < TM; ++i) {
        int row = row0 + ty + i * THREADS_Y;
        for (int j = 0; j < TN; ++j) {
            int col = col0 + tx + j * THREADS_X;
            if (row < M && col < N) {
                v[(long long)row * N + col] = acc[i][j] + b[col];
            }
        }
    }
}

extern "C" __global__ void max_sub_gelu_kernel(
    const float* __restrict__ v,    // [M, N]  linear output (from gemm_kernel)
    float* __restrict__ out,        // [M, 1]
    int M, int N)
{
    __shared__ float red[ROW_THREADS];              // per-thread running maxima

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    long long base = (long long)row * N;

    float thread_max = NEG_SENTINEL;
    for (int j = tid; j < N; j += ROW_THREADS) {
        thread_max = fmaxf(thread_max, v[base + j]);
    }

    // Row max: tree reduction in shared memory.
    red[tid] = thread_max;
    __syncthreads();
    for (int s = ROW_THREADS / 2; s > 0; s >>= 1) {
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
        float d = row_max - row_mean;
        out[row] = d * 0.5f * (1.0f + erff(d * INV_SQRT2));
    }
}
"""

KERNELS = ["gemm_kernel", "max_sub_gelu_kernel"]
BM = 64                   # must equal BM in the CUDA source (GEMM tile rows)
BN = 64                   # must equal BN in the CUDA source (GEMM tile columns)
TM = 4                    # must equal TM (micro-tile rows per thread)
TN = 4                    # must equal TN (micro-tile columns per thread)
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # the row kernel: one block reduces one batch row
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
        v = torch.empty(M, N, device=x.device, dtype=x.dtype)
        gemm = (
            "gemm_kernel",
            (K.cdiv(N, BN), K.cdiv(M, BM), 1),
            (BN // TN, BM // TM, 1),
            [x, w["w"], w["b"], v],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )
        out = torch.empty(M, 1, device=x.device, dtype=x.dtype)
        reduce = (
            "max_sub_gelu_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [v, out],
            [(ctypes.c_int, M), (ctypes.c_int, N)],
        )
        return {"seq": [gemm, reduce], "out": out}

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
        kernel_name=list(KERNELS),
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
                purpose="5 rows of official U[0,1) values through both kernels (all column and K tiles, the "
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
        "produce NaN/inf (inf - inf) are visible. This holds for the tiled GEMM kernel too (checked on "
        "the CPU with hand-made faults: a tightened row guard on the x tile load, a wrong micro-tile "
        "store row and a K loop one short all pass T1); a store guard that writes past the intermediate "
        "v is caught only as an out-of-bounds write (a memory fault on the CPU backend). Unmerged KernelBench PR #108 proposes fixing this "
        "problem; v0.1 and HEAD still have it. fmaxf ignores a NaN operand where torch.max propagates "
        "it (finite inputs are unaffected).",
    )
