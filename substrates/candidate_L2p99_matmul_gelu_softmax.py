"""KernelBench level 2, problem 99_Matmul_GELU_Softmax: softmax(gelu(x @ W^T + b), dim=1).

x is 1024 x 8192, the nn.Linear is 8192 -> 8192 with its bias, then the exact (erf) GELU and a
softmax over the 8192 features of each row. A two-kernel pipeline (the softmax needs a whole row,
which spans 64 of the GEMM's column tiles):

1. matmul_gelu_kernel: g = gelu(x @ W^T + b) into an intermediate [M, N] that launch allocates. A
   shared-memory tiled GEMM: a block of 16 x 16 threads owns a TILE_M = 64 (rows, blockIdx.x) x
   TILE_N = 128 (columns, blockIdx.y) output tile; for every K-tile of 16 it stages a 64 x 16 tile
   of x and a transposed, padded 16 x 128 tile of W in shared memory (coalesced loads, guarded and
   zero-filled past M, N and K; a barrier after the loads and another after the multiply-
   accumulate). Each thread accumulates 4 rows x 8 columns in fp32 registers (rows ty + 16 i,
   columns tx + 16 j: strided, so the shared reads are conflict-free and the stores coalesced), then
   adds the bias, applies the GELU and stores each of its outputs under a guard.
2. softmax_kernel: one 256-thread block per row, as the original kernel's phases: a running max
   over the row's columns and a shared-memory tree reduction gives the row max; each thread sums
   expf(g - max) and a second tree reduction gives the row sum; each thread writes its columns of
   the output as expf(g - max) / sum. The row offsets are 64-bit.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, unchanged. ESTIMATE, to be measured by the GPU gate: the
GEMM runs 16 x 64 = 1024 blocks of 256 threads (about 7.8 per SM on 132 SMs, ~2-3 resident at once);
per K-tile a thread issues 512 FMAs against 192 shared loads and 12 global loads, so a plain SIMT
fp32 GEMM of this shape should run at roughly 8-12 TFLOP/s, i.e. about 11-17 ms on an H100. Its L2
traffic is ~6 GB (each block reads a 2 MB strip of x and a 4 MB strip of W) instead of the old
~275 GB (every row's block streamed all of W); DRAM ~0.4 GB (W and x once, g written once and read
twice, the output written once: 32 MB each). The softmax kernel moves ~100 MB: well under 1 ms. The
previous one-block-per-row kernel measured 0.62 s per mutant forward on a contended H100, so the
gain expected there is ~35-55x.
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
const float INV_SQRT2 = 0.70710678118654752f;   // 1 / sqrt(2), for the exact GELU

extern "C" __global__ void matmul_gelu_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ g,          // [M, N]  (gelu(x @ W^T + b))
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
            float v = acc[i][j] + b[n];
            g[(long long)m * N + n] = v * 0.5f * (1.0f + erff(v * INV_SQRT2));
        }
    }
}

extern "C" __global__ void softmax_kernel(
    const float* __restrict__ g,    // [M, N]  (the GEMM's output, gelu(x @ W^T + b))
    float* __restrict__ out,        // [M, N]
    int M, int N)
{
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    const float* g_row = g + (long long)row * N;
    float* out_row = out + (long long)row * N;

    // Phase 1: the row max of g, then a tree reduction.
    float thread_max = NEG_SENTINEL;
    for (int col = tid; col < N; col += blockDim.x) {
        thread_max = fmaxf(thread_max, g_row[col]);
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

    // Phase 2: row sum of expf(g - row_max), fp32 accumulation, same tree reduction.
    float thread_sum = 0.0f;
    for (int col = tid; col < N; col += blockDim.x) {
        thread_sum += expf(g_row[col] - row_max);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float row_sum = red[0];

    // Phase 3: normalise every element of the row.
    for (int col = tid; col < N; col += blockDim.x) {
        out_row[col] = expf(g_row[col] - row_max) / row_sum;
    }
}
"""

TILE_M = 64               # must equal TILE_M in the CUDA source
TILE_N = 128              # must equal TILE_N in the CUDA source
THREADS_X = 16            # must equal THREADS_X in the CUDA source (blockDim.x of the GEMM)
THREADS_Y = 16            # must equal THREADS_Y in the CUDA source (blockDim.y of the GEMM)
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # the softmax kernel: one block handles one batch row
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
        g = torch.empty(M, N, device=x.device, dtype=x.dtype)
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        gemm = (
            "matmul_gelu_kernel",
            (K.cdiv(M, TILE_M), K.cdiv(N, TILE_N), 1),
            (THREADS_X, THREADS_Y, 1),
            [x, w["w"], w["b"], g],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )
        softmax = (
            "softmax_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [g, out],
            [(ctypes.c_int, M), (ctypes.c_int, N)],
        )
        return {"seq": [gemm, softmax], "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        y = torch.nn.functional.gelu(y)
        return torch.nn.functional.softmax(y, dim=1)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def scaled_inputs(scale):
        # Same-sign U[0, scale): GEMM outputs of std ~0.33 x scale, a peaked softmax.
        def gen(torch, s):
            return [torch.rand(s["batch"], IN_FEATURES) * scale]

        return gen

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large (1..200), the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 199.0
        return [x]

    return K.substrate(
        name="L2p99_matmul_gelu_softmax",
        level=2,
        problem="99_Matmul_GELU_Softmax",
        cuda=CUDA,
        kernel_name=["matmul_gelu_kernel", "softmax_kernel"],
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=2**31 - 1)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (every output below ~4e-4: an "
                "all-zero output passes, see notes)",
            ),
            K.suite(
                "T1_small",
                scaled_inputs(8.0),
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of x = U[0,8): GELU values up to ~10, so the softmax is moderately peaked (top "
                "outputs ~0.03-0.2, about 13 per row above 1e-2) and a wrong max, sum or normalisation, a "
                "dropped column or K tile, or a broken reduction or barrier moves outputs beyond 1e-2, "
                "unlike the official inputs",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(100.0),
                seeds=[3, 4],
                sizes={"batch": 24},
                purpose="x = U[0,100): same-sign large magnitudes, GELU row maxima ~110-140, beyond expf's "
                "fp32 range (88.7) in every row, so only a kernel that subtracts the true row max stays finite; the softmax "
                "is nearly one-hot, so the argmax column must be right; the GEMM's fp32 error (~1e-4 on "
                "logits of ~100) moves outputs by ~1e-4 relative, far inside 1e-2",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 1% of x nonzero (values 1..200), the rest exact zeros: GELU values up to ~30 "
                "set by about 80 isolated large terms, top outputs ~0.2-0.9, so a single wrong k index, tile "
                "offset or transposed tile element moves the peak",
            ),
        ],
        notes="Weak at the official inputs (facts file: zeros-pass@1e-2, input-insensitive@1e-2): x = U[0,1) "
        "gives GELU values within about [-0.17, 1.35], so the softmax over 8192 columns is nearly flat "
        "(every output between ~1e-4 and ~4e-4) and an all-zero or uniform 1/8192 output passes the 1e-2 "
        "check, as does almost any fault in the GEMM or the normalisation. The targeted suites scale x "
        "so the softmax is peaked. The GELU values live in the GEMM's intermediate g (the pipeline's layer "
        "0, a step output of its own) and the softmax kernel reads them back. N = 8192 is fixed by the "
        "weights and a multiple of the 128-column GEMM tile, and K = 8192 a multiple of 16, so the GEMM's "
        "n < N and k < K guards never fire; only the row tiles are partial (batch 5, 24 and 16 in the "
        "targeted suites against TILE_M = 64; 1024 = 16 x 64 on T0_original), where the row load guard only "
        "keeps reads inside x (a zero-filled row feeds only outputs the store guard drops) and the row store "
        "guard is what the suites see. The softmax kernel's grid = batch exactly, so its row guard never "
        "fires either. Matmuls in the reference are full fp32 (no TF32). Checked on the CPU backend only so "
        "far (kmut gate --backend cpu); the speed is an estimate (docstring).",
    )
