"""KernelBench level 2, problem 99_Matmul_GELU_Softmax: softmax(gelu(x @ W^T + b), dim=1).

x is 1024 x 8192, the nn.Linear is 8192 -> 8192 with its bias, then the exact (erf) GELU and a
softmax over the 8192 features of each row. One kernel, one 256-thread block per batch row, in
three phases:

1. the row's GEMM outputs in column tiles of 256 (one column per thread): for every K-tile of 16
   the block stages x's 16 values and a transposed, padded 16 x 256 tile of W in shared memory
   (coalesced loads, a barrier after the loads and another after the multiply-accumulate). Each
   thread adds the bias, applies the GELU, parks the value in the output row (global memory, the
   kernel's own output) and keeps a running max; a shared-memory tree reduction gives the row max.
2. each thread sums expf(g - max) over its columns; a second tree reduction gives the row sum.
3. each thread rewrites its columns in place as expf(g - max) / sum.

Every thread reads back only the columns it wrote itself. The row offsets are 64-bit.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, and every block streams all of W (256 MB) through L2:
about 275 GB of L2 traffic, roughly 50-100 ms on an H200 (cuBLAS reference 2.87 ms).
"""

CUDA = r"""
const int ROW_THREADS = 256;        // threads per block (one block per batch row) = columns per column tile
const int KTILE = 16;               // K is consumed KTILE at a time
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction
const float INV_SQRT2 = 0.70710678118654752f;   // 1 / sqrt(2), for the exact GELU

extern "C" __global__ void matmul_gelu_softmax_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ out,        // [M, N]  (holds gelu(x @ W^T + b) between phases 1 and 3)
    int M, int N, int K)
{
    __shared__ float xs[KTILE];                     // xs[k] = x[row, k0 + k]
    __shared__ float ws[KTILE][ROW_THREADS + 1];    // ws[k][c] = w[c0 + c, k0 + k]  (transposed, padded)
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    float* out_row = out + (long long)row * N;

    // Phase 1: g = gelu(x[row] @ W^T + b) into the output row, and the row max of g.
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
            float v = acc + b[col];
            float g = v * 0.5f * (1.0f + erff(v * INV_SQRT2));
            out_row[col] = g;
            thread_max = fmaxf(thread_max, g);
        }
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
        thread_sum += expf(out_row[col] - row_max);
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

    // Phase 3: normalise every element of the row in place.
    for (int col = tid; col < N; col += blockDim.x) {
        out_row[col] = expf(out_row[col] - row_max) / row_sum;
    }
}
"""

ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one block handles one batch row
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
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        return (
            "matmul_gelu_softmax_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

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
        kernel_name="matmul_gelu_softmax_kernel",
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
        "so the softmax is peaked. The kernel parks the GELU values in its own output row between the "
        "phases (each thread reads back only what it wrote). N = 8192 is fixed by the weights and a "
        "multiple of the 256-column tile, and K = 8192 a multiple of 16, so the col < N, w_row < N and "
        "k < K guards never fire; grid = batch exactly, so the row guard never fires either. Matmuls in "
        "the reference are full fp32 (no TF32).",
    )
