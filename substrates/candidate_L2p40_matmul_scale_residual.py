"""KernelBench level 2, problem 40_Matmul_Scaling_ResidualAdd: y = x @ W^T + b; out = y * 0.5 + y.

x is 16384 x 4096, the nn.Linear is 4096 -> 4096 with its bias. The model keeps a detached clone of
the GEMM output, scales the GEMM output by 0.5 and adds the clone back. One kernel: a plain
register-blocked shared-memory tiled GEMM. A 16 x 16-thread block owns a 64-row x 128-column
output tile; for every K-tile of 16 it stages the 64 x 16 slice of x and the 128 x 16 slice of W,
both transposed and padded, in shared memory (coalesced loads, a barrier after the loads), then
each thread accumulates a 4-row x 8-column micro-tile in fp32 registers (rows ty + 16i, columns
tx + 16j) and the block synchronises again before the next load. The bias, the scaling and the
residual add are fused into the epilogue (the "clone" is the thread's own register value). Tile
loads are guarded and zero-filled outside the matrices, so any batch works; the micro-tile store
is guarded. Batch tiles run along gridDim.x, column tiles along gridDim.y; row offsets are 64-bit.

Cost: 2 x 16384 x 4096 x 4096 = 550 GFLOP. ESTIMATE, to be measured by the GPU gate: the 4 x 8
micro-tile does 32 FMAs per 12 shared-memory loads; plain SIMT kernels of this shape reach roughly
5-12 TFLOP/s on an H100, so about 45-110 ms (8192 blocks of 256 threads, many waves over 132 SMs;
about 26 GB of L2 operand traffic, a few ms at L2 bandwidth; the 256 MB output written once).
Against the accepted 16 x 16 one-output-per-thread tiling (1.09 s per forward measured on a
contended H100, about 0.5 TFLOP/s: two shared loads per FMA) that is an expected 10-25x.
"""

CUDA = r"""
const int BM = 64;                      // batch rows per block tile
const int BN = 128;                     // output columns (weight rows) per block tile
const int BK = 16;                      // K is consumed BK at a time
const int LANES = 16;                   // blocks are LANES x LANES threads
const int THREADS = LANES * LANES;      // threads per block (256)
const int TM = BM / LANES;              // rows per thread: ty, ty + LANES, ty + 2 LANES, ty + 3 LANES
const int TN = BN / LANES;              // columns per thread: tx, tx + LANES, ..., tx + 7 LANES
const float SCALING_FACTOR = 0.5f;      // Model.scaling_factor

extern "C" __global__ void matmul_scale_residual_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (nn.Linear weight: out_features x in_features)
    const float* __restrict__ b,    // [N]     (nn.Linear bias)
    float* __restrict__ out,        // [M, N]
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

    // Epilogue: bias, scaling and residual add, guarded store of the micro-tile.
    for (int i = 0; i < TM; ++i) {
        long long row = row0 + ty + i * LANES;
        for (int j = 0; j < TN; ++j) {
            int col = col0 + tx + j * LANES;
            if (row < M && col < N) {
                float v = acc[i][j] + b[col];
                float original = v;                 // original_x = x.clone().detach()
                float scaled = v * SCALING_FACTOR;
                out[row * N + col] = scaled + original;
            }
        }
    }
}
"""

BM = 64                   # must equal BM in the CUDA source (batch rows per tile)
BN = 128                  # must equal BN in the CUDA source (output columns per tile)
LANES = 16                # must equal LANES in the CUDA source: blocks are LANES x LANES threads
IN_FEATURES = 4096        # fixed by the weights
OUT_FEATURES = 4096
SCALING_FACTOR = 0.5      # must equal the CUDA constant
MAX_BATCH = 65535 * 16    # the accepted file's declared bound (65535 x its 16-row tile), kept; batch tiles now
                          # run along gridDim.x, so the kernel itself is not limited by gridDim.y


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(4096, 4096, 0.5): one nn.Linear with bias; the scaling factor is a plain float
        matmul = torch.nn.Linear(IN_FEATURES, OUT_FEATURES)
        return {"w": matmul.weight, "b": matmul.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        out = torch.empty(M, N, device=x.device, dtype=x.dtype)
        return (
            "matmul_scale_residual_kernel",
            (K.cdiv(M, BM), K.cdiv(N, BN), 1),
            (LANES, LANES, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.linear(x, w["w"], w["b"])
        original = y.clone().detach()
        y = y * SCALING_FACTOR
        return y + original

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_features)]
        return [torch.rand(s["batch"], IN_FEATURES)]

    def large_inputs(torch, s):
        # Same sign, 32 times the official range: GEMM outputs of std ~11.
        return [torch.rand(s["batch"], IN_FEATURES) * 32.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero and large, the rest exact zeros.
        x = torch.zeros(s["batch"], IN_FEATURES)
        mask = torch.rand(s["batch"], IN_FEATURES) < 0.01
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p40_matmul_scale_residual",
        level=2,
        problem="40_Matmul_Scaling_ResidualAdd",
        cuda=CUDA,
        kernel_name="matmul_scale_residual_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(16384, max=MAX_BATCH)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 69},
                small=True,
                purpose="batch 69 = 64 + 5: one full 64-row batch tile and a second one with 5 live rows and "
                "59 dead ones, so the row guard on the store (and on the x-tile load, which would read past x) "
                "matters, and every register row of each thread's 4 x 8 micro-tile (rows ty, ty + 16, ty + 32, "
                "ty + 48) holds live rows in the first tile; official U[0,1) values. The batch was 17 for the "
                "accepted 16 x 16 tiling; with 64-row tiles 17 rows would reach one row of blocks and only two "
                "of the four register rows, so faults in the batch-tile offset or the last two micro-tile rows "
                "could not show",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 40},
                purpose="x = U[0,32): same-sign large magnitudes (GEMM std ~11, outputs up to ~75) so that a "
                "dropped K-tile, a lost partial sum, a wrong scale or a missing residual term moves outputs "
                "far beyond 1e-2 relative; a correct fp32 GEMM (4096-term sums) stays orders of magnitude "
                "inside the tolerance; batch 40 = 2 x 16 + 8 is a remainder too",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 64},
                purpose="about 1% of x nonzero (values 1..50), the rest exact zeros: each output is the bias "
                "plus about 40 large isolated terms instead of an average over 4096, so a single wrong k "
                "index, tile offset or transposed tile element is not averaged away",
            ),
        ],
        notes="in_features and out_features (4096) are fixed by the weights and are multiples of the "
        "16-wide K tile and the 128-column tile, so the k < K and w_row < N / col < N guards never fire on "
        "any suite: mutants that only touch them are equivalent here. Only the batch (M) has remainders in "
        "its 64-row tiles (T1: 69 = 64 + 5, T2: 40, T3: 64 fills one tile exactly); a fault in the row guard "
        "of the x-tile load touches only tile rows past the batch, which the store's row guard never writes "
        "(visible at most as an out-of-bounds read; checked on the CPU backend only). "
        "The epilogue is 1.5 * y computed as y * 0.5 + y, as the reference does (y * 0.5 is exact). "
        "Matmuls in the reference are full fp32 (no TF32).",
    )
