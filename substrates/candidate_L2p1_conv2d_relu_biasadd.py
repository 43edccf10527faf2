"""KernelBench level 2, problem 1_Conv2D_ReLU_BiasAdd: conv2d 64 -> 128 (3x3), ReLU, + bias.

x is 128 x 64 x 128 x 128; the convolution has stride 1, no padding and its own bias, so the
output is 128 x 128 x 126 x 126. The extra bias has shape (128, 1, 1) and broadcasts over H and W.
The output has 260 M elements, under 2^31, but flat offsets are 64-bit all the same.

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
epilogue to each of its outputs under a guard: conv bias, ReLU, extra bias.

Cost: 260 M outputs x 576 multiply-adds = 150 G MAC (300 GFLOP), unchanged. ESTIMATE, to be measured
by the GPU gate: 128 x 125 = 16000 blocks of 256 threads (about 121 per SM on 132 SMs, 2 resident
per SM at ~128 registers a thread); per 16-channel phase a thread issues 1024 FMAs against 256
shared loads and 16 guarded global loads, so a plain SIMT fp32 kernel of this shape should run at
roughly 8-15 TFLOP/s, i.e. about 20-40 ms per forward on an H100 (global traffic: ~9 GB of mostly
L1/L2-hit requests, ~1.6 GB of DRAM: x once, the output once; the FMAs bound it). The previous
one-thread-per-output kernel measured 0.82 s per mutant forward on a contended H100, so the gain
expected there is ~20-40x (against its uncontended H200 time of 117 ms, ~3-6x).
"""

CUDA = r"""
const int TILE_CO = 128;    // output channels per block (rows of the implicit GEMM)
const int TILE_P = 128;     // flattened output positions per block (columns of the implicit GEMM)
const int TILE_CI = 16;     // input channels consumed per phase (the reduction tile, one tap at a time)
const int THREADS_X = 16;   // threads along the positions (blockDim.x)
const int THREADS_Y = 16;   // threads along the output channels (blockDim.y)
const int MICRO_CO = 8;     // output channels per thread: co0 + ty + i * THREADS_Y
const int MICRO_P = 8;      // positions per thread: p0 + tx + j * THREADS_X

extern "C" __global__ void conv2d_relu_biasadd_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [C_out, 1, 1]
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
            v = v > 0.0f ? v : 0.0f;
            out[((long long)n * C_out + co) * P + p] = v + bias[co];
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
        # Model.__init__(in_channels=64, out_channels=128, kernel_size=3, bias_shape=(128, 1, 1))
        nn = torch.nn
        conv = nn.Conv2d(64, 128, 3)
        bias = nn.Parameter(torch.randn((128, 1, 1)))
        return {"conv_w": conv.weight, "conv_b": conv.bias, "bias": bias}

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
            "conv2d_relu_biasadd_kernel",
            (K.cdiv(OH * OW, TILE_P) * N, K.cdiv(C_out, TILE_CO), 1),
            (THREADS_X, THREADS_Y, 1),
            [x, w["conv_w"], w["conv_b"], w["bias"], out],
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
        y = torch.relu(y)
        return y + w["bias"]

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): conv outputs (and the TF32 reference's error) grow about 4x.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 0.5% of the pixels set to U[0, 4).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.005
        spikes = torch.rand(shape) * 4.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p1_conv2d_relu_biasadd",
        level=2,
        problem="1_Conv2D_ReLU_BiasAdd",
        cuda=CUDA,
        kernel_name="conv2d_relu_biasadd_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(128, min=3),
            "width": K.dim(128, min=3),
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
                sizes={"batch": 8, "height": 64, "width": 96},
                purpose="same-sign U[0,4) inputs (x4) amplify accumulation and epilogue faults while staying under the "
                "legitimate-variance ceiling: the reference convolution is TF32 (10-bit mantissa), whose error grows "
                "linearly with the input scale; a CPU emulation of TF32 rounding (round-to-nearest and truncation) "
                "gave allclose distances to the exact result of about 4e-4 at x1, 2.7e-3 at x4 and 5e-3 at x10, so "
                "x4 keeps a correct fp32 kernel (and the fp32 reference against fp64) about 3.5x inside 1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 33, "width": 40},
                purpose="about 0.5% isolated U[0,4) spikes on exact zeros (about 3 of the 576 taps of a window): "
                "without the large mean of U[0,1) inputs (whose contribution 0.5 * sum(w) is the same for any "
                "permutation of the window taps) each output depends on a few specific taps, so kh/kw swaps, "
                "transposed weights or wrong channel strides show; about 5% of the windows hold no spike and give "
                "exactly relu(conv_bias) + bias, isolating the epilogue",
            ),
        ],
        notes="The reference runs nn.Conv2d through cuDNN with TF32 enabled (torch's default, never changed by "
        "the harness), so this exact fp32 kernel differs from the reference beyond 1e-4 on the official inputs "
        "but passes the v0.1 tolerance 1e-2. Large-magnitude suites must stay modest for the same reason. "
        "ReLU is written as v > 0 ? v : 0, which maps NaN to 0 where torch.relu propagates it (finite inputs "
        "are unaffected). Tiling: C_out = 128 is fixed by the weight and equals TILE_CO, so gridDim.y is 1 "
        "and the co < C_out guards never fire (blockIdx.y is always 0); C_in = 64 is a multiple of TILE_CI = "
        "16, so the ci < C_in guards never fire either. Only the position tiles are partial: OH * OW = 15876 "
        "= 124 x 128 + 4 on the official inputs and 165 = 128 + 37 on T1_remainder (a partial second "
        "position tile per batch item, the batch folded into blockIdx.x). The position load guard only keeps "
        "reads inside x (a zero-filled column feeds only outputs the store guard drops); the store guard and "
        "the batch/position decode of blockIdx.x are what the suites see. Checked on the CPU backend only so "
        "far (kmut gate --backend cpu); the speed is an estimate (docstring).",
    )
