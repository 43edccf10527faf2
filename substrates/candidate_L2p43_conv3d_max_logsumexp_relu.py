"""KernelBench level 2, problem 43_Conv3d_Max_LogSumExp_ReLU: relu(logsumexp(maxpool(conv3d(x)), dim=1)).

x is 4 x 32 x 32 x 128 x 128; nn.Conv3d(32, 64, 3, stride=1, padding=1) with bias keeps the spatial
size (4 x 64 x 32 x 128 x 128); nn.MaxPool3d(kernel_size=2, stride=2) (floor mode) halves it to
4 x 64 x 16 x 64 x 64; the logsumexp over the 64 channels (keepdim) and a ReLU give 4 x 1 x 16 x 64 x 64.

One kernel, a shared-memory tiled implicit GEMM with the pooling, the logsumexp and the ReLU fused.
A block owns all 64 channels x TILE_P = 64 pooled positions (n, pd, ph, pw) (flattened, pw
fastest; a tile may straddle rows, planes and batch items) and is 16 x 16 threads, each holding a
4 x 4 micro-tile (channels ty + 16 i, pooled positions tx + 16 j) in fp32 registers. For each of the
2 x 2 x 2 pooling window offsets the block runs one convolution as an implicit GEMM: explicit loops
over the taps (kd, kh, kw) and over the input channels TILE_CI = 16 at a time; each phase stages the
weight slice Ws[ci][co] of one tap and the gathered input Xs[ci][p] = x[n, ci, od - pad + kd, ...]
of the window's convolution position in shared memory (loads guarded and zero-filled for the zero
padding, past C_in, past C_out and past the last pooled position), then a barrier, the
multiply-accumulate over the 16 channels and another barrier. After each window offset, every
micro-tile element keeps the running max of acc + bias. Epilogue: the pooled values go to a shared
64 x 64 tile; after a barrier one thread per pooled position takes the channel max, sums
expf(v - max) and stores relu(max + logf(sum)), guarded by the last position. Flat indices and input
offsets are 64-bit.

Cost: the same 116 G multiply-adds (232 GFLOP) as the naive kernel it replaces (1.01 s per forward
on an H100, contended), now 4096 blocks of 256 threads (31 per SM on 132 SMs); per 16-deep phase a
thread does 256 FMAs against 128 shared loads, 8 global loads and ~30 index operations (the padding
tests run once per tap for the one position a thread loads). ESTIMATE, to be measured by the GPU
gate: 5-15 TFLOP/s for such a register-blocked SIMT tile, so about 15-45 ms per forward on an H100
(20-60x faster); global traffic stays small (each element of x, 268 MB, is loaded once per tap, 27
times, mostly from L1/L2; the weights, 221 KB, stay in cache). Reference 2.65 ms.
"""

CUDA = r"""
const int OUT_CHANNELS = 64;    // Conv3d out_channels (fixed by the weights): the logsumexp width and the block's channel tile
const int TILE_P = 64;          // pooled output positions (n, pd, ph, pw) per block
const int TILE_CI = 16;         // input channels consumed per phase
const int THREADS_X = 16;       // block: THREADS_X x THREADS_Y threads
const int THREADS_Y = 16;
const int MICRO_CO = 4;         // channels per thread: ty + THREADS_Y * i
const int MICRO_P = 4;          // pooled positions per thread: tx + THREADS_X * j

extern "C" __global__ void conv3d_maxpool_logsumexp_relu_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, 1, PD, PH, PW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int PD, int PH, int PW, int pad)
{
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    const int POOL = 2;                             // MaxPool3d(kernel_size=2, stride=2)
    const int NUM_THREADS = THREADS_X * THREADS_Y;

    __shared__ float Ws[TILE_CI][OUT_CHANNELS];     // Ws[c][co] = w[co, ci0 + c, kd, kh, kw]
    __shared__ float Xs[TILE_CI][TILE_P];           // Xs[c][p] = x[n, ci0 + c, id, ih, iw] for pooled position p0 + p
    __shared__ float Vs[OUT_CHANNELS][TILE_P];      // max-pooled convolution values

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * THREADS_X + tx;
    long long total = (long long)N * PD * PH * PW; // pooled positions
    long long p0 = (long long)blockIdx.x * TILE_P;  // first pooled position of the tile

    // The one tile column this thread loads into Xs (rows x_row, x_row + X_ROW_STEP, ...).
    const int X_ROW_STEP = NUM_THREADS / TILE_P;
    int x_col = tid % TILE_P;
    int x_row = tid / TILE_P;
    long long lp = p0 + x_col;
    bool lp_live = lp < total;
    int l_pw = (int)(lp % PW);
    int l_ph = (int)((lp / PW) % PH);
    int l_pd = (int)((lp / ((long long)PW * PH)) % PD);
    int l_n = (int)(lp / ((long long)PW * PH * PD));

    // The one tile column (output channel) this thread loads into Ws.
    const int W_ROW_STEP = NUM_THREADS / OUT_CHANNELS;
    int w_col = tid % OUT_CHANNELS;
    int w_row = tid / OUT_CHANNELS;

    float pooled[MICRO_CO][MICRO_P];
    for (int i = 0; i < MICRO_CO; ++i) {
        for (int j = 0; j < MICRO_P; ++j) {
            pooled[i][j] = NEG_SENTINEL;
        }
    }

    for (int a = 0; a < POOL; ++a) {
        for (int e = 0; e < POOL; ++e) {
            for (int f = 0; f < POOL; ++f) {
                // The convolution output of the window this thread loads for (stride 1: OD = D).
                int od = l_pd * POOL + a;
                int oh = l_ph * POOL + e;
                int ow = l_pw * POOL + f;

                float acc[MICRO_CO][MICRO_P];
                for (int i = 0; i < MICRO_CO; ++i) {
                    for (int j = 0; j < MICRO_P; ++j) {
                        acc[i][j] = 0.0f;
                    }
                }

                for (int kd = 0; kd < KD; ++kd) {
                    for (int kh = 0; kh < KH; ++kh) {
                        for (int kw = 0; kw < KW; ++kw) {
                            // Does the loaded position read an input voxel through this tap?
                            bool hit = lp_live;
                            int id = od - pad + kd;
                            if (id < 0 || id >= D) hit = false;     // zero padding in depth
                            int ih = oh - pad + kh;
                            if (ih < 0 || ih >= H) hit = false;     // zero padding in height
                            int iw = ow - pad + kw;
                            if (iw < 0 || iw >= W) hit = false;     // zero padding in width

                            for (int ci0 = 0; ci0 < C_in; ci0 += TILE_CI) {
                                for (int r = x_row; r < TILE_CI; r += X_ROW_STEP) {
                                    int ci = ci0 + r;
                                    if (hit && ci < C_in) {
                                        Xs[r][x_col] = x[((((long long)l_n * C_in + ci) * D + id) * H + ih) * W + iw];
                                    } else {
                                        Xs[r][x_col] = 0.0f;
                                    }
                                }
                                for (int r = w_row; r < TILE_CI; r += W_ROW_STEP) {
                                    int ci = ci0 + r;
                                    if (ci < C_in && w_col < C_out) {
                                        Ws[r][w_col] = w[((((long long)w_col * C_in + ci) * KD + kd) * KH + kh) * KW + kw];
                                    } else {
                                        Ws[r][w_col] = 0.0f;
                                    }
                                }
                                __syncthreads();    // both tiles are loaded

                                for (int c = 0; c < TILE_CI; ++c) {
                                    float wv[MICRO_CO];
                                    float xv[MICRO_P];
                                    for (int i = 0; i < MICRO_CO; ++i) {
                                        wv[i] = Ws[c][ty + THREADS_Y * i];
                                    }
                                    for (int j = 0; j < MICRO_P; ++j) {
                                        xv[j] = Xs[c][tx + THREADS_X * j];
                                    }
                                    for (int i = 0; i < MICRO_CO; ++i) {
                                        for (int j = 0; j < MICRO_P; ++j) {
                                            acc[i][j] += wv[i] * xv[j];
                                        }
                                    }
                                }
                                __syncthreads();    // everyone is done with the tiles before the next load
                            }
                        }
                    }
                }

                for (int i = 0; i < MICRO_CO; ++i) {
                    int co = ty + THREADS_Y * i;
                    for (int j = 0; j < MICRO_P; ++j) {
                        if (co < C_out) {
                            pooled[i][j] = fmaxf(pooled[i][j], acc[i][j] + conv_b[co]);
                        }
                    }
                }
            }
        }
    }

    for (int i = 0; i < MICRO_CO; ++i) {
        int co = ty + THREADS_Y * i;
        for (int j = 0; j < MICRO_P; ++j) {
            int p = tx + THREADS_X * j;
            if (co < C_out) {
                Vs[co][p] = pooled[i][j];
            }
        }
    }
    __syncthreads();    // the pooled tile is complete

    // logsumexp over the channels of each pooled position, stabilised by the channel max, then ReLU.
    if (tid < TILE_P) {
        long long pos = p0 + tid;
        if (pos < total) {
            float vmax = NEG_SENTINEL;
            for (int co = 0; co < C_out; ++co) {
                vmax = fmaxf(vmax, Vs[co][tid]);
            }
            float sum = 0.0f;
            for (int co = 0; co < C_out; ++co) {
                sum += expf(Vs[co][tid] - vmax);
            }
            float v = vmax + logf(sum);
            out[pos] = v > 0.0f ? v : 0.0f;
        }
    }
}
"""

TILE_P = 64               # must equal TILE_P in the CUDA source: pooled positions per block
THREADS_X = 16            # must equal THREADS_X and THREADS_Y in the CUDA source
THREADS_Y = 16
IN_CHANNELS = 32          # fixed by the weight [64, 32, 3, 3, 3]
OUT_CHANNELS = 64         # must equal OUT_CHANNELS in the CUDA source (the block's channel tile)
KERNEL_SIZE = 3
PADDING = 1               # Conv3d(stride=1, padding=1): the output keeps the input size
POOL = 2                  # MaxPool3d(kernel_size=2, stride=2)
SCALED = 8.0              # T2: x = U[0, 8)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(32, 64, 3, 1, 1): conv (with bias), then max_pool (no parameters)
        conv = torch.nn.Conv3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=1, padding=PADDING)
        return {"w": conv.weight, "b": conv.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["w"].shape
        OD = D + 2 * PADDING - KD + 1
        OH = H + 2 * PADDING - KH + 1
        OW = W_in + 2 * PADDING - KW + 1
        PD, PH, PW = OD // POOL, OH // POOL, OW // POOL
        out = torch.empty((N, 1, PD, PH, PW), device=x.device, dtype=x.dtype)
        total = N * PD * PH * PW
        return (
            "conv3d_maxpool_logsumexp_relu_kernel",
            (K.cdiv(total, TILE_P), 1, 1),
            (THREADS_X, THREADS_Y, 1),
            [x, w["w"], w["b"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, D),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KD),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OD),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, PD),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
                (ctypes.c_int, PADDING),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.conv3d(x, w["w"], w["b"], stride=1, padding=PADDING)
        y = F.max_pool3d(y, kernel_size=POOL, stride=POOL)
        y = torch.logsumexp(y, dim=1, keepdim=True)
        return torch.relu(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def scaled_inputs(torch, s):
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * SCALED]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the voxels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p43_conv3d_max_logsumexp_relu",
        level=2,
        problem="43_Conv3d_Max_LogSumExp_ReLU",
        cuda=CUDA,
        kernel_name="conv3d_maxpool_logsumexp_relu_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(4),
            "depth": K.dim(32, min=2),
            "height": K.dim(128, min=2),
            "width": K.dim(128, min=2),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 5, "height": 6, "width": 7},
                small=True,
                purpose="pooled output 2 x 2 x 3 x 3 = 36 elements, fewer than one 64-position tile, so the tail "
                "guards matter; depth 5 and width 7 are odd, so the floor of the max pool drops the last "
                "convolution plane and column and an off-by-one window reads them; D, H, W all differ, so "
                "swapped strides or divisors show, and with 5 to 7 positions per axis every pooled value "
                "touches the zero padding on some side",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 8, "height": 12, "width": 10},
                purpose="x = U[0,8): same-sign larger magnitudes, convolution values of std ~2.4, so the "
                "logsumexp follows the largest pooled channel (outputs 7.1 to 10.3, std 0.46) instead of sitting near "
                "log(64) + ~0.2 as on U[0,1), and a wrong channel, tap, padding bound or pooling window, or a "
                "logsumexp without its max add-back, moves it beyond the tolerance",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 6, "height": 10, "width": 11},
                purpose="about 1% isolated U[0,8) spikes on exact zeros: a pooled window's 8 convolutions see 864 "
                "taps each, about 9 spikes, so the largest channel depends on a few specific taps, and kd/kh/kw "
                "swaps, transposed weights, wrong padding offsets or wrong channel strides move it; spikes on "
                "the border planes test the padding guards",
            ),
        ],
        notes="Weak at the official inputs: with x = U[0,1) every channel's pooled value stays near its "
        "bias plus 0.5 * sum(w), so the logsumexp sits near log(64) + ~0.3; measured on the CPU (batch 1, "
        "two official seeds) the outputs lie in about 4.40-4.54 (mean 4.466) and the two seeds' outputs "
        "differ by at most 0.088 (allclose distance 0.016, just above the tolerance ~0.055), so most "
        "faults that shift the values a little pass T0_original and T1 (4.44-4.49); T2 and T3 spread them. "
        "The logsumexp of 64 channels is at least log(64) + their minimum and is positive on every "
        "suite, so the ReLU's zero branch never runs (mutants of it are equivalent). The block's channel tile "
        "(OUT_CHANNELS) holds all 64 output channels fixed by the weights, so the logsumexp stays inside one "
        "block (C_out is passed but must be 64). Tiling (CPU-checked only): T1's 36 pooled positions fill "
        "part of one 64-position tile, so the position guards of the input-tile load (an off-by-one there "
        "fails T1) and of the store matter; dropping the load's position guard only fills columns that are "
        "never stored; C_in = 32 is two full 16-channel phases, so the ci guards never fire at these weights. "
        "Faults that shift the values a little pass T1 as they pass T0 (a K loop that drops one of the 16 "
        "channels of each phase: allclose distance 0.0067) and fail T2 and T3 on the CPU; an ih <= H padding "
        "bound also fails T2 and T3, and on T1 it reads past the end of x at the last plane, so its T1 verdict "
        "depends on what lies there (it passed once and failed once in the CPU gate). With W = 7 on T1 and 11 on T3 "
        "the floor-mode pooling never reads the last convolution column, so the right-hand width padding guard is reached only by T2 (W = 10). Stride 1 is implicit "
        "(the convolution keeps the input size; OD, OH, OW are passed for the output geometry only). The "
        "reference convolution may run through cuDNN with TF32 (the facts file measured this problem's "
        "reference within 1e-4 of fp64 on T0); a CPU emulation of TF32 operand rounding (round-to-nearest "
        "and truncation) gave fp32-vs-fp64 allclose distances of at most ~6e-4 on the targeted suites.",
    )
