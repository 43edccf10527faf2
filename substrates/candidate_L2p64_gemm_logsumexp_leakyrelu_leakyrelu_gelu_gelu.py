"""KernelBench level 2, problem 64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU.

gelu(gelu(leaky_relu(leaky_relu(logsumexp(x @ W^T + b, dim=1))))): x is 1024 x 8192, the nn.Linear is
8192 -> 8192 with bias, the logsumexp runs over the 8192 features of each row (keepdim, so the output
is 1024 x 1), then two LeakyReLUs (slope 0.01) and two exact (erf) GELUs act on that one value.

A two-kernel pipeline (the logsumexp needs a whole row, which spans 64 of the GEMM's column tiles):

1. gemm_kernel: y = x @ W^T + b into an intermediate [M, N] that launch allocates. A shared-memory
   tiled GEMM: a block of 16 x 16 threads owns a TILE_M = 64 (rows, blockIdx.x) x TILE_N = 128
   (columns, blockIdx.y) output tile; for every K-tile of 16 it stages a 64 x 16 tile of x and a
   transposed, padded 16 x 128 tile of W in shared memory (coalesced loads, guarded and zero-filled
   past M, N and K; a barrier after the loads and another after the multiply-accumulate). Each
   thread accumulates 4 rows x 8 columns in fp32 registers (rows ty + 16 i, columns tx + 16 j:
   strided, so the shared reads are conflict-free and the stores coalesced), then adds the bias and
   stores each of its outputs under a guard.
2. logsumexp_leakyrelu_gelu_kernel: one 256-thread block per row, as the original kernel's last two
   phases: a running max over the row's columns and a shared-memory tree reduction gives the row
   max; each thread sums expf(y - max) and a second tree reduction gives the row sum; thread 0
   forms max + logf(sum), applies the two LeakyReLUs and the two GELUs, and stores it.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, unchanged. ESTIMATE, to be measured by the GPU gate: the
GEMM runs 16 x 64 = 1024 blocks of 256 threads (about 7.8 per SM on 132 SMs, ~2-3 resident at once);
per K-tile a thread issues 512 FMAs against 192 shared loads and 12 global loads, so a plain SIMT
fp32 GEMM of this shape should run at roughly 8-12 TFLOP/s, i.e. about 11-17 ms on an H100. Its L2
traffic is ~6 GB (each block reads a 2 MB strip of x and a 4 MB strip of W) instead of the old
~275 GB (every row's block streamed all of W); DRAM ~0.35 GB (W and x once, y written and read
back once: 32 MB each way). The row kernel reads 32 MB: well under 1 ms. The previous one-block-per-
row kernel measured 0.65 s per mutant forward on a contended H100, so the gain expected there is
~40-60x.
"""

CUDA = r"""
const int TILE_M = 64;          // output rows per block (blockIdx.x)
const int TILE_N = 128;         // output columns per block (blockIdx.y)
const int TILE_K = 16;          // K is consumed TILE_K at a time
const int THREADS_X = 16;       // threads along the columns (blockDim.x)
const int THREADS_Y = 16;       // threads along the rows (blockDim.y)
const int MICRO_M = 4;          // rows per thread: m0 + ty + i * THREADS_Y
const int MICRO_N = 8;          // columns per thread: n0 + tx + j * THREADS_X
const int ROW_THREADS = 256;    // threads per block of the row kernel (one block per batch row)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction

extern "C" __global__ void gemm_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ y,          // [M, N]  (x @ W^T + b)
    int M, int N, int K)
{
    __shared__ float xs[TILE_M][TILE_K];        // xs[r][k] = x[m0 + r, k0 + k]
    __shared__ float ws[TILE_K][TILE_N + 1];    // ws[k][c] = w[n0 + c, k0 + k]  (transposed, padded)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * THREADS_X + tx;
    int num_threads = THREADS_X * THREADS_Y;
    int m0 = blockIdx.x * TILE_M;   // first row of this block
    int n0 = blockIdx.y * TILE_N;   // first column of this block

    float acc[MICRO_M][MICRO_N];
    for (int i = 0; i < MICRO_M; ++i) {
        for (int j = 0; j < MICRO_N; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    int num_k_tiles = (K + TILE_K - 1) / TILE_K;
    for (int t = 0; t < num_k_tiles; ++t) {
        int k0 = t * TILE_K;
        // x tile: consecutive threads take consecutive k of one row.
        for (int e = tid; e < TILE_M * TILE_K; e += num_threads) {
            int r = e / TILE_K;
            int kk = e % TILE_K;
            int m = m0 + r;
            int k = k0 + kk;
            if (m < M && k < K) {
                xs[r][kk] = x[(long long)m * K + k];
            } else {
                xs[r][kk] = 0.0f;
            }
        }
        // W tile: consecutive threads take consecutive k of one W row, stored transposed.
        for (int e = tid; e < TILE_N * TILE_K; e += num_threads) {
            int c = e / TILE_K;
            int kk = e % TILE_K;
            int n = n0 + c;
            int k = k0 + kk;
            if (n < N && k < K) {
                ws[kk][c] = w[(long long)n * K + k];
            } else {
                ws[kk][c] = 0.0f;
            }
        }
        __syncthreads();    // the x and W tiles are loaded

        for (int kk = 0; kk < TILE_K; ++kk) {
            float a[MICRO_M];
            float bv[MICRO_N];
            for (int i = 0; i < MICRO_M; ++i) {
                a[i] = xs[ty + i * THREADS_Y][kk];
            }
            for (int j = 0; j < MICRO_N; ++j) {
                bv[j] = ws[kk][tx + j * THREADS_X];
            }
            for (int i = 0; i < MICRO_M; ++i) {
                for (int j = 0; j < MICRO_N; ++j) {
                    acc[i][j] += a[i] * bv[j];
                }
            }
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    for (int i = 0; i < MICRO_M; ++i) {
        int m = m0 + ty + i * THREADS_Y;
        if (m >= M) continue;
        for (int j = 0; j < MICRO_N; ++j) {
            int n = n0 + tx + j * THREADS_X;
            if (n >= N) continue;
            y[(long long)m * N + n] = acc[i][j] + b[n];
        }
    }
}

extern "C" __global__ void logsumexp_leakyrelu_gelu_kernel(
    const float* __restrict__ y,    // [M, N]  (the GEMM's output)
    float* __restrict__ out,        // [M, 1]
    int M, int N)
{
    const float NEGATIVE_SLOPE = 0.01f;             // leaky_relu(negative_slope=0.01)
    const float INV_SQRT2 = 0.70710678118654752f;   // 1 / sqrt(2), for the exact GELU
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    const float* y_row = y + (long long)row * N;

    // Phase 1: the row max of y, then a tree reduction.
    float thread_max = NEG_SENTINEL;
    for (int col = tid; col < N; col += blockDim.x) {
        thread_max = fmaxf(thread_max, y_row[col]);
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
    for (int col = tid; col < N; col += blockDim.x) {
        thread_sum += expf(y_row[col] - row_max);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }

    // Phase 3: logsumexp, then the elementwise chain on the row's one value.
    if (tid == 0) {
        float v = row_max + logf(red[0]);
        v = v > 0.0f ? v : v * NEGATIVE_SLOPE;              // LeakyReLU
        v = v > 0.0f ? v : v * NEGATIVE_SLOPE;              // LeakyReLU
        v = v * 0.5f * (1.0f + erff(v * INV_SQRT2));        // GELU
        v = v * 0.5f * (1.0f + erff(v * INV_SQRT2));        // GELU
        out[row] = v;
    }
}
"""

TILE_M = 64               # must equal TILE_M in the CUDA source
TILE_N = 128              # must equal TILE_N in the CUDA source
THREADS_X = 16            # must equal THREADS_X in the CUDA source (blockDim.x of the GEMM)
THREADS_Y = 16            # must equal THREADS_Y in the CUDA source (blockDim.y of the GEMM)
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # the row kernel: one block handles one batch row
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192): one nn.Linear with bias
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
        gemm = (
            "gemm_kernel",
            (K.cdiv(M, TILE_M), K.cdiv(N, TILE_N), 1),
            (THREADS_X, THREADS_Y, 1),
            [x, w["w"], w["b"], y],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )
        row = (
            "logsumexp_leakyrelu_gelu_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [y, out],
            [(ctypes.c_int, M), (ctypes.c_int, N)],
        )
        return {"seq": [gemm, row], "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.linear(x, w["w"], w["b"])
        y = torch.logsumexp(y, dim=1, keepdim=True)
        y = F.leaky_relu(y, negative_slope=0.01)
        y = F.leaky_relu(y, negative_slope=0.01)
        y = F.gelu(y)
        return F.gelu(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def large_inputs(torch, s):
        # Same sign, 100 times the official range: GEMM outputs of std ~33, row maxima ~140.
        return [torch.rand(s["batch"], IN_FEATURES) * 100.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large (1..50), the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p64_gemm_logsumexp_leakyrelu_leakyrelu_gelu_gelu",
        level=2,
        problem="64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU",
        cuda=CUDA,
        kernel_name=["gemm_kernel", "logsumexp_leakyrelu_gelu_kernel"],
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=2**31 - 1)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (outputs nearly constant: see notes)",
            ),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values: every phase of the kernel runs in full (all 32 column "
                "tiles and 512 K tiles, both tree reductions, the epilogue chain), so a missing barrier, a broken "
                "reduction or a wrong logsumexp formula (no log, no max add-back, a sum over part of the row) "
                "shows; faults confined to the GEMM are barely visible here (see notes)",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 24},
                purpose="x = U[0,100): same-sign large magnitudes, GEMM outputs of std ~33 and row maxima ~140, "
                "beyond expf's fp32 range (88.7) in every row, so only a kernel that subtracts the true row max "
                "stays finite; the logsumexp is then close to the row max, so the argmax column's GEMM value must "
                "be right and the outputs vary from row to row (a correct fp32 kernel stays ~1e-5 relative of the "
                "exact result)",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                small=True,
                purpose="about 1% of x nonzero (values 1..50), the rest exact zeros: the GEMM outputs are the bias "
                "plus about 80 large isolated terms, so the largest few columns (which dominate the logsumexp) "
                "depend on specific k indices, and a wrong k index, tile offset or transposed tile element moves "
                "the output",
            ),
        ],
        notes="Degenerate at the official inputs (facts file: const-pass@1e-2, input-insensitive@1e-2): with x = "
        "U[0,1) the GEMM outputs have std ~0.33, so every row's logsumexp is log(8192) + ~0.07; measured on the "
        "CPU over the 5 official seeds, every output lies in 9.06-9.08, a constant 9.068 passes the 1e-2 check "
        "(tolerance ~0.1) on all of them, and any two seeds' outputs agree within 0.011. Faults that keep the "
        "logsumexp near log(8192) (most GEMM faults) pass T0_original and T1; T2 and T3 make rows differ. The "
        "logsumexp of a row is at least log(8192) + min(y) and is positive on "
        "every suite, so the LeakyReLUs' negative branches never run (mutants of the slope or of those "
        "branches are equivalent) and the GELUs act as near-identities on values of 9 or more (GELU(v) = v to "
        "fp32 precision above ~6). N = 8192 is fixed by the weights and a multiple of the 128-column GEMM "
        "tile, and K = 8192 a multiple of 16, so the GEMM's n < N and k < K guards never fire; only the row "
        "tiles are partial (batch 5, 24 and 16 in the targeted suites against TILE_M = 64; 1024 = 16 x 64 on "
        "T0_original), where the row load guard only keeps reads inside x (a zero-filled row feeds only "
        "outputs the store guard drops) and the row store guard is what the suites see. The row kernel's "
        "grid = batch exactly, so its row guard never fires either. The GEMM's intermediate y is a step "
        "output of its own (the pipeline's layer 0). Matmuls in the reference are full fp32 (no TF32). "
        "T3_sparse is marked small (its 16 rows cost the CPU backend no more than T1's 5: one 64-row tile) "
        "because T1_small, on official-like inputs, sees no GEMM fault: on the CPU backend a zeroed last x "
        "row, a K loop one short per tile and a wrong row index in the micro-tile store all passed T1 and "
        "failed T3. A permutation of columns inside a tile is invisible to any suite (logsumexp is symmetric "
        "in the columns; only the tiny bias, |b| < 0.011, tells them apart). T1_small's purpose still speaks "
        "of the old kernel's 32 column tiles (the GEMM now has 64 column tiles of 128 and 512 K tiles). "
        "Checked on the CPU backend only so far (kmut gate --backend cpu); the speed is an estimate "
        "(docstring).",
    )
