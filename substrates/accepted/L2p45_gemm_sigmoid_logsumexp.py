"""KernelBench level 2, problem 45_Gemm_Sigmoid_LogSumExp: logsumexp(linear2(sigmoid(linear1(x))), dim=1).

x is 16384 x 2048; linear1 is 2048 -> 4096 and linear2 4096 -> 1024, both with bias; the output is
one logsumexp per row (shape 16384). One kernel, one 256-thread block per batch row, in four phases:

1. hidden[j] = sigmoid(x[row] . W1[j] + b1[j]) for the 4096 hidden units, in column tiles of 256
   (one unit per thread): every K-tile of 16 stages 16 values of x and a transposed, padded
   16 x 256 tile of W1 in shared memory (coalesced loads, a barrier after the loads and another
   after the multiply-accumulate). The hidden row stays in shared memory.
2. y[c] = hidden . W2[c] + b2[c] for the 1024 outputs, the same tiling with the hidden row as the
   left operand (its K-tile copied into the same 16-value staging buffer). y stays in shared memory.
3. the row max of y through a shared-memory tree reduction;
4. the row sum of expf(y - max) through a second tree; thread 0 stores max + logf(sum).

Cost: 2 x 16384 x (2048 x 4096 + 4096 x 1024) = 412 GFLOP, and every block streams W1 and W2
(48 MB) through L2: about 800 GB of L2 traffic, roughly 0.15-0.3 s on an H200 (cuBLAS reference
8.64 ms). hidden_size and output_size are fixed by the weights and size the shared buffers.
"""

CUDA = r"""
const int ROW_THREADS = 256;        // threads per block (one block per batch row) = columns per column tile
const int KTILE = 16;               // K is consumed KTILE at a time
const int HIDDEN_SIZE = 4096;       // linear1 out_features = linear2 in_features (fixed by the weights)
const int OUTPUT_SIZE = 1024;       // linear2 out_features (fixed by the weights)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction

extern "C" __global__ void gemm_sigmoid_logsumexp_kernel(
    const float* __restrict__ x,    // [M, I]
    const float* __restrict__ w1,   // [H, I]  (linear1 weight)
    const float* __restrict__ b1,   // [H]
    const float* __restrict__ w2,   // [N, H]  (linear2 weight)
    const float* __restrict__ b2,   // [N]
    float* __restrict__ out,        // [M]
    int M, int I, int H, int N)
{
    __shared__ float as[KTILE];                     // as[k] = left operand (x row, then hidden row) at k0 + k
    __shared__ float ws[KTILE][ROW_THREADS + 1];    // ws[k][c] = weight[c0 + c, k0 + k]  (transposed, padded)
    __shared__ float hidden[HIDDEN_SIZE];           // sigmoid(linear1(x[row]))
    __shared__ float y[OUTPUT_SIZE];                // linear2(hidden)
    __shared__ float red[ROW_THREADS];              // reduction buffer

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;

    // Phase 1: hidden = sigmoid(x[row] @ W1^T + b1).
    int num_col_tiles = (H + ROW_THREADS - 1) / ROW_THREADS;
    int num_k_tiles = (I + KTILE - 1) / KTILE;
    for (int ct = 0; ct < num_col_tiles; ++ct) {
        int c0 = ct * ROW_THREADS;
        float acc = 0.0f;
        for (int t = 0; t < num_k_tiles; ++t) {
            int k0 = t * KTILE;
            if (tid < KTILE) {
                int k = k0 + tid;
                if (k < I) {
                    as[tid] = x[(long long)row * I + k];
                } else {
                    as[tid] = 0.0f;
                }
            }
            for (int e = tid; e < KTILE * ROW_THREADS; e += blockDim.x) {
                int c = e / KTILE;      // tile column: W1 row c0 + c
                int kk = e % KTILE;     // position inside the K tile
                int w_row = c0 + c;
                int k = k0 + kk;
                if (w_row < H && k < I) {
                    ws[kk][c] = w1[(long long)w_row * I + k];
                } else {
                    ws[kk][c] = 0.0f;
                }
            }
            __syncthreads();    // the x and W1 tiles are loaded
            for (int kk = 0; kk < KTILE; ++kk) {
                acc += as[kk] * ws[kk][tid];
            }
            __syncthreads();    // everyone is done with the tiles before the next load
        }
        int j = c0 + tid;
        if (j < H) {
            float v = acc + b1[j];
            hidden[j] = 1.0f / (1.0f + expf(-v));
        }
    }
    __syncthreads();    // the hidden row is complete

    // Phase 2: y = hidden @ W2^T + b2.
    num_col_tiles = (N + ROW_THREADS - 1) / ROW_THREADS;
    num_k_tiles = (H + KTILE - 1) / KTILE;
    for (int ct = 0; ct < num_col_tiles; ++ct) {
        int c0 = ct * ROW_THREADS;
        float acc = 0.0f;
        for (int t = 0; t < num_k_tiles; ++t) {
            int k0 = t * KTILE;
            if (tid < KTILE) {
                int k = k0 + tid;
                if (k < H) {
                    as[tid] = hidden[k];
                } else {
                    as[tid] = 0.0f;
                }
            }
            for (int e = tid; e < KTILE * ROW_THREADS; e += blockDim.x) {
                int c = e / KTILE;      // tile column: W2 row c0 + c
                int kk = e % KTILE;
                int w_row = c0 + c;
                int k = k0 + kk;
                if (w_row < N && k < H) {
                    ws[kk][c] = w2[(long long)w_row * H + k];
                } else {
                    ws[kk][c] = 0.0f;
                }
            }
            __syncthreads();    // the hidden and W2 tiles are loaded
            for (int kk = 0; kk < KTILE; ++kk) {
                acc += as[kk] * ws[kk][tid];
            }
            __syncthreads();    // everyone is done with the tiles before the next load
        }
        int c = c0 + tid;
        if (c < N) {
            y[c] = acc + b2[c];
        }
    }
    __syncthreads();    // the output row y is complete

    // Phase 3: row max of y.
    float thread_max = NEG_SENTINEL;
    for (int c = tid; c < N; c += blockDim.x) {
        thread_max = fmaxf(thread_max, y[c]);
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
    __syncthreads();    // every thread has read red[0] before phase 4 overwrites it

    // Phase 4: row sum of expf(y - row_max), then max + log(sum).
    float thread_sum = 0.0f;
    for (int c = tid; c < N; c += blockDim.x) {
        thread_sum += expf(y[c] - row_max);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[row] = row_max + logf(red[0]);
    }
}
"""

ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one block handles one batch row
INPUT_SIZE = 2048         # fixed by the weights
HIDDEN_SIZE = 4096        # must equal HIDDEN_SIZE in the CUDA source
OUTPUT_SIZE = 1024        # must equal OUTPUT_SIZE in the CUDA source


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(2048, 4096, 1024): linear1 then linear2, both with bias
        nn = torch.nn
        linear1 = nn.Linear(INPUT_SIZE, HIDDEN_SIZE)
        linear2 = nn.Linear(HIDDEN_SIZE, OUTPUT_SIZE)
        return {"w1": linear1.weight, "b1": linear1.bias, "w2": linear2.weight, "b2": linear2.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, I = x.shape
        H = w["w1"].shape[0]
        N = w["w2"].shape[0]
        out = torch.empty(M, device=x.device, dtype=x.dtype)
        return (
            "gemm_sigmoid_logsumexp_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [x, w["w1"], w["b1"], w["w2"], w["b2"], out],
            [(ctypes.c_int, M), (ctypes.c_int, I), (ctypes.c_int, H), (ctypes.c_int, N)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        h = torch.nn.functional.linear(x, w["w1"], w["b1"])
        h = torch.sigmoid(h)
        y = torch.nn.functional.linear(h, w["w2"], w["b2"])
        return torch.logsumexp(y, dim=1)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_size)]
        return [torch.rand(s["batch"], INPUT_SIZE)]

    def large_inputs(torch, s):
        # Same sign, 256 times the official range: linear1 outputs of std ~85, most sigmoids saturated.
        return [torch.rand(s["batch"], INPUT_SIZE) * 256.0]

    def sparse_inputs(torch, s):
        # About 0.2% of the entries nonzero (1..500), the rest exact zeros.
        x = torch.zeros(s["batch"], INPUT_SIZE)
        mask = torch.rand(s["batch"], INPUT_SIZE) < 0.002
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 499.0
        return [x]

    return K.substrate(
        name="L2p45_gemm_sigmoid_logsumexp",
        level=2,
        problem="45_Gemm_Sigmoid_LogSumExp",
        cuda=CUDA,
        kernel_name="gemm_sigmoid_logsumexp_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(16384, max=2**31 - 1)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (outputs ~6.98, nearly constant: "
                "see notes)",
            ),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values: every phase of the kernel runs in full (both GEMMs "
                "over all column and K tiles, both tree reductions), so a missing barrier, a broken "
                "reduction, a wrong logsumexp formula (no log, no max add-back, a wrong sum) shows; the "
                "GEMM stages themselves are barely visible (see notes)",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 24},
                purpose="x = U[0,256): linear1 outputs of std ~85, so most sigmoids saturate and many "
                "pre-activations (about 15%) lie below -88, where expf(-v) overflows to inf: 1 / (1 + inf) = 0 is right, "
                "but a sigmoid rewritten as expf(v) / (1 + expf(v)) or with a fast intrinsic that misbehaves "
                "gives NaN or wrong saturation; the hidden row becomes a 0/1 pattern that depends on x, "
                "which moves the output most (std ~6e-3 across rows, still under the tolerance)",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 0.2% of x nonzero (values 1..500, about 4 per row), the rest exact zeros: the "
                "hidden row is sigmoid(b1 + a few large isolated terms), so it depends on specific k indices "
                "rather than on an average over 2048; the largest input sensitivity found (dropping one K "
                "tile of linear1 moves outputs by up to ~1e-2)",
            ),
        ],
        notes="Nearly input-insensitive (facts file: const-pass@1e-2, input-insensitive@1e-2): the hidden "
        "row lies in (0,1) and W2 is U(-1/64, 1/64), so every y is small (|y| < ~1) and dominated by the "
        "input-independent part 0.5 * rowsum(W2) + b2; the output is log(1024) + ~0.05, about 6.98-7.01 "
        "for every input tried (official, U[0,4..256), sparse), with a spread across rows below 0.01 "
        "while the tolerance is 1e-2 + 1e-2 * 7 = 0.08. A constant kernel passes every suite, and so do "
        "most faults confined to the two GEMMs (a dropped K tile of linear1 moves outputs by at most "
        "~1e-2); what is visible is the logsumexp epilogue, barriers and reductions that produce garbage, "
        "and faults that produce NaN or inf. Because |y| is small, dropping the max subtraction is "
        "equivalent on every suite (expf cannot overflow). No input can change this: the output is "
        "bounded by the weights. hidden_size (4096) and output_size (1024) are fixed by the weights "
        "and size the shared buffers; all of I, H, N are multiples of the tiles, so the k/w_row/col "
        "guards never fire, and grid = batch exactly, so the row guard never fires. Matmuls in the "
        "reference are full fp32 (no TF32).",
    )
