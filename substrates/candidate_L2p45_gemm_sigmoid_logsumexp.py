"""KernelBench level 2, problem 45_Gemm_Sigmoid_LogSumExp: logsumexp(linear2(sigmoid(linear1(x))), dim=1).

x is 16384 x 2048; linear1 is 2048 -> 4096 and linear2 4096 -> 1024, both with bias; the output is
one logsumexp per row (shape 16384). A pipeline of three kernels, because the logsumexp needs a
whole 1024-wide row of linear2 and that row spans several blocks' output tiles:

1. linear1_sigmoid_kernel: hidden = sigmoid(x @ W1^T + b1) into a [M, 4096] intermediate.
2. linear2_kernel: y = hidden @ W2^T + b2 into a [M, 1024] intermediate.
3. logsumexp_kernel: one 256-thread block per row: the row max through a shared-memory tree
   reduction, then the row sum of expf(y - max) through a second tree; thread 0 stores
   max + logf(sum).

Both GEMMs are the same plain register-blocked shared-memory tiling: a 16 x 16-thread block owns
a 64-row x 128-column output tile; for every K-tile of 16 it stages the 64 x 16 slice of the left
operand and the 128 x 16 slice of the weight, both transposed and padded, in shared memory
(coalesced loads, guarded and zero-filled outside the matrices, a barrier after the loads), then
each thread accumulates a 4-row x 8-column micro-tile in fp32 registers (rows ty + 16i, columns
tx + 16j) and the block synchronises again before the next load. The epilogue (bias, sigmoid in
stage 1) is fused into the guarded micro-tile store. Batch tiles run along gridDim.x, column tiles
along gridDim.y; row offsets are 64-bit.

Cost: 2 x 16384 x (2048 x 4096 + 4096 x 1024) = 412 GFLOP (linear1 275, linear2 137). ESTIMATE, to
be measured by the GPU gate: the 4 x 8 micro-tile does 32 FMAs per 12 shared-memory loads, which
bounds it near 35-40 TFLOP/s on an H100; plain SIMT kernels of this shape reach roughly 5-12
TFLOP/s, so about 35-80 ms for both GEMMs (8192 and 2048 blocks of 256 threads: many waves over
132 SMs). Each block reads 12 KB of operands per K-tile (about 13 GB of L2 traffic in all, a few
ms at L2 bandwidth); the intermediates (hidden 256 MB, y 64 MB, written once and read back) and
the logsumexp pass add about 1 ms. Against the accepted one-block-per-row kernel (3.46 s per
forward measured on a contended H100, about 0.12 TFLOP/s) that is an expected 40-90x.
"""

CUDA = r"""
const int BM = 64;                  // batch rows per block tile
const int BN = 128;                 // output columns (weight rows) per block tile
const int BK = 16;                  // K is consumed BK at a time
const int LANES = 16;               // blocks are LANES x LANES threads
const int THREADS = LANES * LANES;  // threads per GEMM block (256)
const int TM = BM / LANES;          // rows per thread: ty, ty + LANES, ty + 2 LANES, ty + 3 LANES
const int TN = BN / LANES;          // columns per thread: tx, tx + LANES, ..., tx + 7 LANES
const int ROW_THREADS = 256;        // threads per logsumexp block (one block per batch row)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction

extern "C" __global__ void linear1_sigmoid_kernel(
    const float* __restrict__ x,    // [M, I]
    const float* __restrict__ w1,   // [H, I]  (linear1 weight)
    const float* __restrict__ b1,   // [H]
    float* __restrict__ hidden,     // [M, H]  sigmoid(x @ W1^T + b1)
    int M, int I, int H)
{
    __shared__ float xs[BK][BM + 1];    // xs[k][r] = x[row0 + r, k0 + k]   (transposed, padded)
    __shared__ float ws[BK][BN + 1];    // ws[k][c] = w1[col0 + c, k0 + k]  (transposed, padded)

    int tx = threadIdx.x;                           // column lane
    int ty = threadIdx.y;                           // row lane
    int tid = ty * LANES + tx;                      // 0 .. THREADS - 1, for the tile loads
    long long row0 = (long long)blockIdx.x * BM;    // first batch row of the tile
    int col0 = blockIdx.y * BN;                     // first hidden unit of the tile

    float acc[TM][TN];                  // acc[i][j] = output (row0 + ty + i * LANES, col0 + tx + j * LANES)
    for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < TN; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    int num_k_tiles = (I + BK - 1) / BK;
    for (int t = 0; t < num_k_tiles; ++t) {
        int k0 = t * BK;
        for (int e = tid; e < BM * BK; e += THREADS) {
            int r = e / BK;             // tile row: x row row0 + r
            int kk = e % BK;            // position inside the K tile
            long long row = row0 + r;
            int k = k0 + kk;
            if (row < M && k < I) {
                xs[kk][r] = x[row * I + k];
            } else {
                xs[kk][r] = 0.0f;
            }
        }
        for (int e = tid; e < BN * BK; e += THREADS) {
            int c = e / BK;             // tile column: W1 row col0 + c
            int kk = e % BK;
            int w_row = col0 + c;
            int k = k0 + kk;
            if (w_row < H && k < I) {
                ws[kk][c] = w1[(long long)w_row * I + k];
            } else {
                ws[kk][c] = 0.0f;
            }
        }
        __syncthreads();    // the x and W1 tiles are loaded
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

    // Epilogue: bias and sigmoid, guarded store of the micro-tile.
    for (int i = 0; i < TM; ++i) {
        long long row = row0 + ty + i * LANES;
        for (int j = 0; j < TN; ++j) {
            int col = col0 + tx + j * LANES;
            if (row < M && col < H) {
                float v = acc[i][j] + b1[col];
                hidden[row * H + col] = 1.0f / (1.0f + expf(-v));
            }
        }
    }
}

extern "C" __global__ void linear2_kernel(
    const float* __restrict__ hidden,   // [M, H]  (stage 1's output)
    const float* __restrict__ w2,       // [N, H]  (linear2 weight)
    const float* __restrict__ b2,       // [N]
    float* __restrict__ y,              // [M, N]  hidden @ W2^T + b2
    int M, int H, int N)
{
    __shared__ float hs[BK][BM + 1];    // hs[k][r] = hidden[row0 + r, k0 + k]  (transposed, padded)
    __shared__ float ws[BK][BN + 1];    // ws[k][c] = w2[col0 + c, k0 + k]      (transposed, padded)

    int tx = threadIdx.x;                           // column lane
    int ty = threadIdx.y;                           // row lane
    int tid = ty * LANES + tx;                      // 0 .. THREADS - 1, for the tile loads
    long long row0 = (long long)blockIdx.x * BM;    // first batch row of the tile
    int col0 = blockIdx.y * BN;                     // first output column of the tile

    float acc[TM][TN];                  // acc[i][j] = output (row0 + ty + i * LANES, col0 + tx + j * LANES)
    for (int i = 0; i < TM; ++i) {
        for (int j = 0; j < TN; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    int num_k_tiles = (H + BK - 1) / BK;
    for (int t = 0; t < num_k_tiles; ++t) {
        int k0 = t * BK;
        for (int e = tid; e < BM * BK; e += THREADS) {
            int r = e / BK;             // tile row: hidden row row0 + r
            int kk = e % BK;            // position inside the K tile
            long long row = row0 + r;
            int k = k0 + kk;
            if (row < M && k < H) {
                hs[kk][r] = hidden[row * H + k];
            } else {
                hs[kk][r] = 0.0f;
            }
        }
        for (int e = tid; e < BN * BK; e += THREADS) {
            int c = e / BK;             // tile column: W2 row col0 + c
            int kk = e % BK;
            int w_row = col0 + c;
            int k = k0 + kk;
            if (w_row < N && k < H) {
                ws[kk][c] = w2[(long long)w_row * H + k];
            } else {
                ws[kk][c] = 0.0f;
            }
        }
        __syncthreads();    // the hidden and W2 tiles are loaded
        for (int kk = 0; kk < BK; ++kk) {
            float a[TM];
            float wv[TN];
            for (int i = 0; i < TM; ++i) {
                a[i] = hs[kk][ty + i * LANES];
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

    // Epilogue: bias, guarded store of the micro-tile.
    for (int i = 0; i < TM; ++i) {
        long long row = row0 + ty + i * LANES;
        for (int j = 0; j < TN; ++j) {
            int col = col0 + tx + j * LANES;
            if (row < M && col < N) {
                y[row * N + col] = acc[i][j] + b2[col];
            }
        }
    }
}

extern "C" __global__ void logsumexp_kernel(
    const float* __restrict__ y,    // [M, N]  (stage 2's output)
    float* __restrict__ out,        // [M]
    int M, int N)
{
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

    // Row sum of expf(y - row_max), then max + log(sum).
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
    if (tid == 0) {
        out[row] = row_max + logf(red[0]);
    }
}
"""

BM = 64                   # must equal BM in the CUDA source (batch rows per GEMM tile)
BN = 128                  # must equal BN in the CUDA source (output columns per GEMM tile)
LANES = 16                # must equal LANES in the CUDA source: GEMM blocks are LANES x LANES threads
ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one logsumexp block handles one batch row
INPUT_SIZE = 2048         # fixed by the weights
HIDDEN_SIZE = 4096        # fixed by the weights
OUTPUT_SIZE = 1024        # fixed by the weights


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
        hidden = torch.empty(M, H, device=x.device, dtype=x.dtype)
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        out = torch.empty(M, device=x.device, dtype=x.dtype)
        seq = [
            (
                "linear1_sigmoid_kernel",
                (K.cdiv(M, BM), K.cdiv(H, BN), 1),
                (LANES, LANES, 1),
                [x, w["w1"], w["b1"], hidden],
                [(ctypes.c_int, M), (ctypes.c_int, I), (ctypes.c_int, H)],
            ),
            (
                "linear2_kernel",
                (K.cdiv(M, BM), K.cdiv(N, BN), 1),
                (LANES, LANES, 1),
                [hidden, w["w2"], w["b2"], y],
                [(ctypes.c_int, M), (ctypes.c_int, H), (ctypes.c_int, N)],
            ),
            (
                "logsumexp_kernel",
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
        kernel_name=["linear1_sigmoid_kernel", "linear2_kernel", "logsumexp_kernel"],
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
                sizes={"batch": 69},
                small=True,
                purpose="69 rows (64 + 5) of official U[0,1) values: every stage runs in full (both GEMMs "
                "over all column and K tiles, both tree reductions), so a missing barrier, a broken "
                "reduction, a wrong logsumexp formula (no log, no max add-back, a wrong sum) shows; the "
                "GEMM stages themselves are barely visible (see notes). The batch was 5 for the accepted "
                "one-block-per-row kernel; with 64-row GEMM tiles 5 rows reach only one row of blocks and "
                "only the first of the four register rows of each thread's micro-tile (rows ty, ty + 16, "
                "ty + 32, ty + 48), so faults in the other rows or in the batch-tile offset could not show "
                "even as unwritten (NaN-filled) intermediates. 69 gives one full batch tile and a partial "
                "second one (5 live rows), where the row guards of the tile loads and stores fire",
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
        "faults that leave part of an intermediate unwritten (the NaN fill shows them), and faults that "
        "produce NaN or inf. Because |y| is small, dropping the max subtraction is equivalent on every "
        "suite (expf cannot overflow). No input can change this: the output is bounded by the weights. "
        "The GEMM stages are 64 x 128 output tiles (4 x 8 per thread, K-tiles of 16). hidden_size (4096), "
        "output_size (1024) and input_size (2048) are fixed by the weights and are multiples of the "
        "128-column tile and the 16-wide K tile, so the k and w_row guards of the tile loads and the "
        "col guard of the stores never fire; only the batch has a partial tile (T1: 69 = 64 + 5; T2 and T3, "
        "24 and 16 rows, fill part of one tile), and a fault in the x/hidden row guard of a tile load "
        "touches only tile rows past the batch, which the row guard of the store never writes, so on the "
        "CPU such faults show only as out-of-bounds reads (checked on the CPU backend only). The "
        "logsumexp grid is batch exactly, so its row guard never fires. Matmuls in the reference are "
        "full fp32 (no TF32).",
    )
