"""KernelBench level 2, problem 64_Gemm_LogSumExp_LeakyReLU_LeakyReLU_GELU_GELU.

gelu(gelu(leaky_relu(leaky_relu(logsumexp(x @ W^T + b, dim=1))))): x is 1024 x 8192, the nn.Linear is
8192 -> 8192 with bias, the logsumexp runs over the 8192 features of each row (keepdim, so the output
is 1024 x 1), then two LeakyReLUs (slope 0.01) and two exact (erf) GELUs act on that one value.

One kernel, one 256-thread block per batch row, in three phases:

1. the row's GEMM outputs in 32 column tiles of 256 (one column per thread): for every K-tile of 16
   the block stages x's 16 values and a transposed, padded 16 x 256 tile of W in shared memory
   (coalesced loads, a barrier after the loads and another after the multiply-accumulate). Each
   thread adds the bias and keeps its 32 values in a register array, with a running max; a
   shared-memory tree reduction gives the row max.
2. each thread sums expf(y - max) over its values; a second tree reduction gives the row sum.
3. thread 0 forms max + logf(sum), applies the two LeakyReLUs and the two GELUs, and stores it.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, and every block streams all of W (256 MB) through L2:
about 275 GB of L2 traffic, roughly 50-100 ms on an H200 (the accepted L2p99 runs the same GEMM
phase; cuBLAS reference 2.78 ms).
"""

CUDA = r"""
const int ROW_THREADS = 256;        // threads per block (one block per batch row) = columns per column tile
const int KTILE = 16;               // K is consumed KTILE at a time
const int COL_TILES = 32;           // out_features / ROW_THREADS = 8192 / 256 (fixed by the weights)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction

extern "C" __global__ void gemm_logsumexp_leakyrelu_gelu_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ out,        // [M, 1]
    int M, int N, int K)
{
    const float NEGATIVE_SLOPE = 0.01f;             // leaky_relu(negative_slope=0.01)
    const float INV_SQRT2 = 0.70710678118654752f;   // 1 / sqrt(2), for the exact GELU
    __shared__ float xs[KTILE];                     // xs[k] = x[row, k0 + k]
    __shared__ float ws[KTILE][ROW_THREADS + 1];    // ws[k][c] = w[c0 + c, k0 + k]  (transposed, padded)
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    float vals[COL_TILES];                          // vals[ct] = y[row, ct * ROW_THREADS + tid]

    // Phase 1: y = x[row] @ W^T + b, column tile by column tile, and the row max of y.
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
            v = acc + b[col];
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

ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one block handles one batch row
IN_FEATURES = 8192        # fixed by the weights
OUT_FEATURES = 8192       # = COL_TILES x ROW_THREADS in the CUDA source


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
        out = torch.empty(M, 1, device=x.device, dtype=x.dtype)
        return (
            "gemm_logsumexp_leakyrelu_gelu_kernel",
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
        kernel_name="gemm_logsumexp_leakyrelu_gelu_kernel",
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
        "fp32 precision above ~6). N = 8192 is fixed by the weights and a multiple of the 256-column tile, and "
        "K = 8192 a multiple of 16, so the col < N, w_row < N and k < K guards never fire; grid = batch "
        "exactly, so the row guard never fires either. Matmuls in the reference are full fp32 (no TF32).",
    )
