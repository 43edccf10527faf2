"""KernelBench level 2, problem 4_Conv2d_Mish_Mish: conv2d 64 -> 128 (3x3), then Mish applied twice.

x is 64 x 64 x 256 x 256; the convolution has stride 1, no padding and its own bias, so the output
is 64 x 128 x 254 x 254 (528 M elements, under 2^31; flat indices and offsets are 64-bit anyway).
Mish is x * tanh(softplus(x)) with softplus(x) = log1p(exp(x)), as torch computes it (no threshold).

One kernel, a shared-memory tiled implicit GEMM with a register micro-tile per thread. For one batch
item n, out[n, co, p] = sum over (kh, kw, ci) of w[co, ci, kh, kw] * x[n, ci, oh + kh, ow + kw],
with p = oh * OW + ow the flattened output position. A block of 16 x 16 threads owns a tile of
TILE_CO = 128 output channels x TILE_P = 128 positions of one batch item (the batch item and the
position tile are folded into blockIdx.x; the channel tile is blockIdx.y). The reduction runs tap by
tap (kh, kw: loops with the weight's own sizes) and, inside a tap, over the input channels TILE_CI =
16 at a time; each phase stages a 128 x 16 weight slice w[co0.., ci0.., kh, kw] and a 16 x 128 input
slice x[n, ci0.., oh + kh, ow + kw] in shared memory (guarded, zero-filled past C_out, past C_in
and past OH * OW), a barrier after the loads and another after the multiply-accumulate. Each thread
accumulates 8 channels x 8 positions in fp32 registers (channels ty + 16 i, positions tx + 16 j:
strided, so the shared reads are conflict-free and the stores coalesced), then applies the fused
epilogue to each of its outputs under a guard: conv bias, Mish, Mish. Each Mish is written out in
full so that each has its own sites.

Cost: 528 M outputs x 576 multiply-adds = 304 G MAC (609 GFLOP), unchanged. ESTIMATE, to be measured
by the GPU gate: 64 x 505 = 32320 blocks of 256 threads (about 245 per SM on 132 SMs, 2 resident
per SM at ~128 registers a thread); per 16-channel phase a thread issues 1024 FMAs against 256
shared loads (8 + 8 per channel step) and 16 guarded global loads, so a plain SIMT fp32 kernel of
this shape should run at roughly 8-15 TFLOP/s, i.e. about 40-80 ms per forward on an H100. Global
traffic: each block reads its 128-position input slab 9 times (once per tap, mostly L1/L2 hits) and
the whole 295 KB weight once (L2-resident): about 19 GB of L1/L2 requests and ~3.2 GB of DRAM (x
once, the output once) per forward, a few ms at H100 bandwidths, so the FMAs bound it. The previous
one-thread-per-output kernel measured 1.27 s per mutant forward on a contended H100, so the gain
expected there is ~15-30x (against its uncontended estimate of ~0.25 s, ~3-6x).
"""

CUDA = r"""
const int TILE_CO = 128;    // output channels per block (rows of the implicit GEMM)
const int TILE_P = 128;     // flattened output positions per block (columns of the implicit GEMM)
const int TILE_CI = 16;     // input channels consumed per phase (the reduction tile, one tap at a time)
const int THREADS_X = 16;   // threads along the positions (blockDim.x)
const int THREADS_Y = 16;   // threads along the output channels (blockDim.y)
const int MICRO_CO = 8;     // output channels per thread: co0 + ty + i * THREADS_Y
const int MICRO_P = 8;      // positions per thread: p0 + tx + j * THREADS_X

extern "C" __global__ void conv2d_mish_mish_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    __shared__ float Ws[TILE_CO][TILE_CI];  // Ws[c][r] = w[co0 + c, ci0 + r, kh, kw]
    __shared__ float Xs[TILE_CI][TILE_P];   // Xs[r][c] = x[n, ci0 + r, oh + kh, ow + kw] for p0 + c = (oh, ow)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * THREADS_X + tx;
    int num_threads = THREADS_X * THREADS_Y;

    int P = OH * OW;                                // output positions per channel
    int p_tiles = (P + TILE_P - 1) / TILE_P;        // position tiles per batch item
    int n = blockIdx.x / p_tiles;                   // batch item
    int p0 = (blockIdx.x % p_tiles) * TILE_P;       // first position of this block
    int co0 = blockIdx.y * TILE_CO;                 // first output channel of this block
    if (n >= N) return;                             // uniform over the block

    // The input slice: this thread always loads tile column load_c, rows load_r, load_r + load_step, ...
    int load_c = tid % TILE_P;
    int load_r = tid / TILE_P;
    int load_step = num_threads / TILE_P;
    int load_p = p0 + load_c;
    int load_oh = load_p / OW;
    int load_ow = load_p % OW;

    float acc[MICRO_CO][MICRO_P];
    for (int i = 0; i < MICRO_CO; ++i) {
        for (int j = 0; j < MICRO_P; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    int num_ci_tiles = (C_in + TILE_CI - 1) / TILE_CI;
    for (int kh = 0; kh < KH; ++kh) {
        for (int kw = 0; kw < KW; ++kw) {
            for (int t = 0; t < num_ci_tiles; ++t) {
                int ci0 = t * TILE_CI;
                // Weight slice: consecutive threads take consecutive input channels of one output channel.
                for (int e = tid; e < TILE_CO * TILE_CI; e += num_threads) {
                    int c = e / TILE_CI;
                    int r = e % TILE_CI;
                    int co = co0 + c;
                    int ci = ci0 + r;
                    if (co < C_out && ci < C_in) {
                        Ws[c][r] = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                    } else {
                        Ws[c][r] = 0.0f;
                    }
                }
                // Input slice: consecutive threads take consecutive output positions of one input channel.
                for (int r = load_r; r < TILE_CI; r += load_step) {
                    int ci = ci0 + r;
                    if (ci < C_in && load_p < P) {
                        Xs[r][load_c] = x[(((long long)n * C_in + ci) * H + load_oh + kh) * W + load_ow + kw];
                    } else {
                        Xs[r][load_c] = 0.0f;
                    }
                }
                __syncthreads();    // both slices are loaded

                for (int kk = 0; kk < TILE_CI; ++kk) {
                    float a[MICRO_CO];
                    float b[MICRO_P];
                    for (int i = 0; i < MICRO_CO; ++i) {
                        a[i] = Ws[ty + i * THREADS_Y][kk];
                    }
                    for (int j = 0; j < MICRO_P; ++j) {
                        b[j] = Xs[kk][tx + j * THREADS_X];
                    }
                    for (int i = 0; i < MICRO_CO; ++i) {
                        for (int j = 0; j < MICRO_P; ++j) {
                            acc[i][j] += a[i] * b[j];
                        }
                    }
                }
                __syncthreads();    // everyone is done with the slices before the next load
            }
        }
    }

    for (int i = 0; i < MICRO_CO; ++i) {
        int co = co0 + ty + i * THREADS_Y;
        if (co >= C_out) continue;
        for (int j = 0; j < MICRO_P; ++j) {
            int p = p0 + tx + j * THREADS_X;
            if (p >= P) continue;

            float v = acc[i][j] + conv_b[co];

            // First Mish: v * tanh(log1p(exp(v))).
            float sp1 = log1pf(expf(v));
            v = v * tanhf(sp1);

            // Second Mish on the result of the first.
            float sp2 = log1pf(expf(v));
            v = v * tanhf(sp2);

            out[((long long)n * C_out + co) * P + p] = v;
        }
    }
}
"""

TILE_CO = 128         # must equal TILE_CO in the CUDA source
TILE_P = 128          # must equal TILE_P in the CUDA source
THREADS_X = 16        # must equal THREADS_X in the CUDA source (blockDim.x)
THREADS_Y = 16        # must equal THREADS_Y in the CUDA source (blockDim.y)
IN_CHANNELS = 64      # fixed by the conv weight [128, 64, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(in_channels=64, out_channels=128, kernel_size=3): one nn.Conv2d, nothing else.
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
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "conv2d_mish_mish_kernel",
            (K.cdiv(OH * OW, TILE_P) * N, K.cdiv(C_out, TILE_CO), 1),
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
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        y = torch.nn.functional.mish(y)
        y = torch.nn.functional.mish(y)
        return y

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): conv outputs (std about 1.33 instead of 0.33) cross the curved part of Mish.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 0.5% of the pixels set to U[0, 16).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.005
        spikes = torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p4_conv2d_mish_mish",
        level=2,
        problem="4_Conv2d_Mish_Mish",
        cuda=CUDA,
        kernel_name="conv2d_mish_mish_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(64),
            "height": K.dim(256, min=3),
            "width": K.dim(256, min=3),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 13, "width": 17},
                small=True,
                purpose="output 3 x 128 x 11 x 15 = 63360 elements, not a multiple of the 256-thread block, so the "
                "tail block's guard matters; OH=11 != OW=15 and neither a power of two, so swapped H/W strides, "
                "a wrong output-width divisor or an off-by-one window bound change the result",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 64, "width": 96},
                purpose="same-sign U[0,4) inputs (x4): conv outputs spread over about -5..+5.7 (std 1.33 instead "
                "of 0.33), so both Mish stages work across their curved region (negative tails pulled to "
                "zero, positive values near identity) and accumulation faults are amplified; kept at x4 "
                "because the reference convolution is TF32 (10-bit mantissa), whose error grows with the "
                "input scale: a CPU emulation of TF32 rounding puts the x4 reference at an allclose distance "
                "of 1.2e-3 (round-to-nearest) to 1.5e-3 (truncation) from the exact result, well inside 1e-2 "
                "(Mish's slope stays below 1.1, so it does not amplify the error)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 33, "width": 40},
                purpose="about 0.5% isolated U[0,16) spikes on exact zeros (about 3 of the 576 taps of a window): "
                "without the large mean of U[0,1) inputs each output depends on a few specific taps, so kh/kw "
                "swaps, transposed weights or wrong channel strides show; conv outputs of std about 0.4 and "
                "up to about 2.4 make one Mish and two differ far beyond 1e-2 (mish(1) = 0.87, mish(mish(1)) = "
                "0.72); the TF32 "
                "reference stays within about 1e-3 of the exact result (few terms per output); about 5% of "
                "the windows hold no spike and give exactly "
                "mish(mish(conv_bias)) (|conv_bias| <= 0.042, so those outputs are small)",
            ),
        ],
        notes="The reference runs nn.Conv2d through cuDNN with TF32 enabled (torch's default, never changed by "
        "the harness), so this exact fp32 kernel differs from the reference beyond 1e-4 on the official inputs "
        "but passes the v0.1 tolerance 1e-2. Large-magnitude suites must stay modest for the same reason. "
        "Mish is computed as v * tanhf(log1pf(expf(v))) like torch; expf overflows to inf above 88.7, which "
        "still gives v (tanh(inf) = 1). Tiling: C_out = 128 is fixed by the weight and equals TILE_CO, so "
        "gridDim.y is 1 and the co < C_out guards never fire (blockIdx.y is always 0); C_in = 64 is a "
        "multiple of TILE_CI = 16, so the ci < C_in guards never fire either. Only the position tiles are "
        "partial: OH * OW = 64516 = 504 x 128 + 4 on the official inputs and 165 = 128 + 37 on T1_remainder "
        "(a partial second position tile per batch item, the batch folded into blockIdx.x). The position "
        "load guard only keeps reads inside x (a zero-filled column feeds only outputs the store guard drops); "
        "the store guard and the batch/position decode of blockIdx.x are what the suites see. Checked on the "
        "CPU backend only so far (kmut gate --backend cpu); the speed is an estimate (docstring).",
    )
