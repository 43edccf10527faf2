"""KernelBench level 2, problem 35_Conv2d_Subtract_HardSwish_MaxPool_Mish.

conv2d 64 -> 128 (3x3, stride 1, no padding, with bias), - 0.5, HardSwish, MaxPool2d(2) (kernel 2,
stride 2, floor mode), Mish. x is 128 x 64 x 128 x 128, the convolution output 128 x 128 x 126 x 126
and the pooled output 128 x 128 x 63 x 63 (65 M elements; flat indices are 64-bit anyway).

One kernel, a shared-memory tiled implicit GEMM with the epilogue fused. A block owns an output
tile of TILE_CO = 64 channels x TILE_P = 64 pooled positions (n, ph, pw) (flattened, pw fastest; a
tile may straddle rows and batch items) and is 16 x 16 threads, each holding a 4 x 4 micro-tile
(channels co0 + ty + 16 i, pooled positions tx + 16 j) in fp32 registers. For each of the 2 x 2
pooling window offsets the block runs one convolution as an implicit GEMM: explicit loops over the
taps (kh, kw) and over the input channels TILE_CI = 16 at a time; each phase stages the weight slice
Ws[ci][co] of one tap and the gathered input Xs[ci][p] = x[n, ci, oh + kh, ow + kw] of the window's
convolution position in shared memory (loads guarded and zero-filled past C_in, past C_out and past
the last pooled position; no padding, and floor mode keeps oh + kh < H), then a barrier, the
multiply-accumulate over the 16 channels and another barrier. After each window offset every
micro-tile element applies conv bias, the subtraction and HardSwish and keeps the running max; at
the end it finishes with Mish (x * tanh(log1p(exp(x))), as torch computes it) and stores, guarded by
C_out and the last position (neighbouring threads write neighbouring pw). Floor mode means conv
rows/columns past 2 * PH (an odd conv size's last one) are never read.

Cost: the same 150 G MAC (300 GFLOP) as the naive kernel it replaces (0.68 s per forward on an
H100, contended), now 7938 x 2 = 15876 blocks of 256 threads (120 per SM on 132 SMs); per 16-deep
phase a thread does 256 FMAs against 128 shared loads, 8 global loads and a few index operations.
ESTIMATE, to be measured by the GPU gate: 5-15 TFLOP/s for such a register-blocked SIMT tile, so
about 20-60 ms per forward on an H100 (11-34x faster); each element of x (537 MB) is loaded once per
tap and channel tile, 18 times, mostly from L1/L2; the weights (295 KB) stay in cache. cuDNN: 4.5 ms.
"""

CUDA = r"""
const int TILE_CO = 64;         // output channels per block
const int TILE_P = 64;          // pooled output positions (n, ph, pw) per block
const int TILE_CI = 16;         // input channels consumed per phase
const int THREADS_X = 16;       // block: THREADS_X x THREADS_Y threads
const int THREADS_Y = 16;
const int MICRO_CO = 4;         // channels per thread: co0 + ty + THREADS_Y * i
const int MICRO_P = 4;          // pooled positions per thread: tx + THREADS_X * j

extern "C" __global__ void conv2d_sub_hardswish_maxpool_mish_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, C_out, PH, PW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int PH, int PW)
{
    const int POOL = 2;                     // MaxPool2d(2): kernel 2, stride 2
    const float subtract_value = 0.5f;      // Model.subtract_value
    const float hs_offset = 3.0f;           // hardswish(v) = v * min(max(v + 3, 0), 6) / 6
    const float hs_cap = 6.0f;
    const float LOWEST = -3.402823466e+38f; // -FLT_MAX: identity of the max
    const int NUM_THREADS = THREADS_X * THREADS_Y;

    __shared__ float Ws[TILE_CI][TILE_CO];  // Ws[c][co] = w[co0 + co, ci0 + c, kh, kw]
    __shared__ float Xs[TILE_CI][TILE_P];   // Xs[c][p] = x[n, ci0 + c, oh + kh, ow + kw] for pooled position p0 + p

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * THREADS_X + tx;
    long long total = (long long)N * PH * PW;       // pooled positions (n, ph, pw)
    long long p0 = (long long)blockIdx.x * TILE_P;  // first pooled position of the tile
    int co0 = blockIdx.y * TILE_CO;                 // first output channel of the tile

    // The one tile column this thread loads into Xs (rows x_row, x_row + X_ROW_STEP, ...).
    const int X_ROW_STEP = NUM_THREADS / TILE_P;
    int x_col = tid % TILE_P;
    int x_row = tid / TILE_P;
    long long lp = p0 + x_col;
    bool lp_live = lp < total;
    int l_pw = (int)(lp % PW);
    int l_ph = (int)((lp / PW) % PH);
    int l_n = (int)(lp / ((long long)PW * PH));

    // The one tile column (output channel) this thread loads into Ws.
    const int W_ROW_STEP = NUM_THREADS / TILE_CO;
    int w_col = tid % TILE_CO;
    int w_row = tid / TILE_CO;
    int w_co = co0 + w_col;

    float m[MICRO_CO][MICRO_P];             // running max over the pooling window
    for (int i = 0; i < MICRO_CO; ++i) {
        for (int j = 0; j < MICRO_P; ++j) {
            m[i][j] = LOWEST;
        }
    }

    for (int dh = 0; dh < POOL; ++dh) {
        for (int dw = 0; dw < POOL; ++dw) {
            int oh = l_ph * POOL + dh;      // conv output row of the loaded position (< OH in floor mode)
            int ow = l_pw * POOL + dw;      // conv output column (< OW)

            float acc[MICRO_CO][MICRO_P];
            for (int i = 0; i < MICRO_CO; ++i) {
                for (int j = 0; j < MICRO_P; ++j) {
                    acc[i][j] = 0.0f;
                }
            }

            for (int kh = 0; kh < KH; ++kh) {
                for (int kw = 0; kw < KW; ++kw) {
                    int ih = oh + kh;
                    int iw = ow + kw;
                    for (int ci0 = 0; ci0 < C_in; ci0 += TILE_CI) {
                        for (int r = x_row; r < TILE_CI; r += X_ROW_STEP) {
                            int ci = ci0 + r;
                            if (lp_live && ci < C_in) {
                                Xs[r][x_col] = x[(((long long)l_n * C_in + ci) * H + ih) * W + iw];
                            } else {
                                Xs[r][x_col] = 0.0f;
                            }
                        }
                        for (int r = w_row; r < TILE_CI; r += W_ROW_STEP) {
                            int ci = ci0 + r;
                            if (w_co < C_out && ci < C_in) {
                                Ws[r][w_col] = w[(((long long)w_co * C_in + ci) * KH + kh) * KW + kw];
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

            // Conv bias, the subtraction and HardSwish, then the running max.
            for (int i = 0; i < MICRO_CO; ++i) {
                int co = co0 + ty + THREADS_Y * i;
                for (int j = 0; j < MICRO_P; ++j) {
                    if (co < C_out) {
                        float v = acc[i][j] + conv_b[co];
                        v = v - subtract_value;
                        float gate = fminf(fmaxf(v + hs_offset, 0.0f), hs_cap);
                        v = v * gate / hs_cap;
                        if (v > m[i][j]) m[i][j] = v;
                    }
                }
            }
        }
    }

    // Mish on the pooled value.
    for (int j = 0; j < MICRO_P; ++j) {
        long long pos = p0 + tx + THREADS_X * j;
        if (pos >= total) continue;
        int pw = (int)(pos % PW);
        int ph = (int)((pos / PW) % PH);
        int n = (int)(pos / ((long long)PW * PH));
        for (int i = 0; i < MICRO_CO; ++i) {
            int co = co0 + ty + THREADS_Y * i;
            if (co < C_out) {
                float sp = log1pf(expf(m[i][j]));
                out[(((long long)n * C_out + co) * PH + ph) * PW + pw] = m[i][j] * tanhf(sp);
            }
        }
    }
}
"""

TILE_CO = 64          # must equal TILE_CO in the CUDA source: output channels per block
TILE_P = 64           # must equal TILE_P in the CUDA source: pooled positions per block
THREADS_X = 16        # must equal THREADS_X and THREADS_Y in the CUDA source
THREADS_Y = 16
POOL = 2              # MaxPool2d(pool_kernel_size=2); must equal POOL in the CUDA source
IN_CHANNELS = 64      # fixed by the conv weight [128, 64, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 128, 3, subtract_value=0.5, pool_kernel_size=2): nn.Conv2d, then a
        # parameterless nn.MaxPool2d.
        nn = torch.nn
        conv = nn.Conv2d(64, 128, 3)
        return {"conv_w": conv.weight, "conv_b": conv.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w["conv_w"].shape
        OH = H - KH + 1
        OW = W_in - KW + 1
        PH = (OH - POOL) // POOL + 1
        PW = (OW - POOL) // POOL + 1
        out = torch.empty((N, C_out, PH, PW), device=x.device, dtype=x.dtype)
        positions = N * PH * PW
        return (
            "conv2d_sub_hardswish_maxpool_mish_kernel",
            (K.cdiv(positions, TILE_P), K.cdiv(C_out, TILE_CO), 1),
            (THREADS_X, THREADS_Y, 1),
            [x, w["conv_w"], w["conv_b"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        y = y - 0.5
        y = torch.nn.functional.hardswish(y)
        y = torch.nn.functional.max_pool2d(y, POOL)
        return torch.nn.functional.mish(y)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): conv outputs over about -5..+5.7, across both HardSwish kinks.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 0.5% of the pixels set to U[0, 16).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.005
        spikes = torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p35_conv2d_sub_hardswish_maxpool_mish",
        level=2,
        problem="35_Conv2d_Subtract_HardSwish_MaxPool_Mish",
        cuda=CUDA,
        kernel_name="conv2d_sub_hardswish_maxpool_mish_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(128, min=4),
            "width": K.dim(128, min=4),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 17, "width": 13},
                small=True,
                purpose="conv output 15 x 11 (both odd: floor-mode pooling drops the last conv row and column) "
                "pooled to 7 x 5, so an output-size or window-offset error reads the wrong conv positions; "
                "3 x 7 x 5 = 105 pooled positions, one full 64-position tile and a second with 41 live ones, so "
                "the tail guards matter; PH=7 != PW=5 catches swapped H/W indexing",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 64, "width": 96},
                purpose="same-sign U[0,4) inputs (x4): conv outputs over about -5..+5.7 (std 1.33 instead of "
                "0.33), so after the subtraction HardSwish sees values beyond both kinks (-3: output 0, +3: "
                "identity) as well as its quadratic middle, the max picks among well-separated values and Mish "
                "gets inputs up to about 5.7; kept at x4 because the reference convolution is TF32 (10-bit "
                "mantissa): a CPU emulation of TF32 rounding puts the x4 reference at an allclose distance of "
                "1e-3 (round-to-nearest) to 1.6e-3 (truncation) from the exact result, well inside 1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 34, "width": 41},
                purpose="about 0.5% isolated U[0,16) spikes on exact zeros (about 5 of the 1024 input values "
                "a pooled output sees): each pooled output depends on a few specific taps and on which of "
                "its four conv positions holds the largest value, so kh/kw swaps, wrong window offsets or "
                "channel strides show; outputs reach about 1.6; windows without spikes give exactly "
                "mish(hardswish(conv_bias - 0.5)), about -0.1, isolating the epilogue constants; conv width "
                "39 is odd (floor mode); the TF32 reference stays within about 1.2e-3 of the exact result",
            ),
        ],
        notes="The reference runs nn.Conv2d through cuDNN with TF32 enabled (torch's default, never changed by "
        "the harness), so this exact fp32 kernel differs from the reference beyond 1e-4 on the official inputs "
        "but passes the v0.1 tolerance 1e-2; large-magnitude suites stay modest for that reason. On the "
        "official U[0,1) inputs the conv outputs lie in about -1.3..1.5, so after the subtraction HardSwish "
        "works only in its quadratic middle (its clamps at -3 and +3 never act) and the outputs are small "
        "(|out| up to about 0.5, mean -0.06): a fault in the clamp branches shows only on T2. "
        "HardSwish is v * min(max(v + 3, 0), 6) / 6 and Mish is m * tanh(log1p(exp(m))), as torch computes them. "
        "Tiling (CPU-checked only): T1's 105 pooled positions leave a second tile with 41 live positions, so "
        "the position guards of the input-tile load (an off-by-one there fails T1) and of the store matter; "
        "dropping the load's position guard only fills columns that are never stored; C_out = 128 is two full "
        "64-channel tiles and C_in = 64 four full 16-channel phases, so the channel guards never fire at these "
        "weights.",
    )
