"""KernelBench level 2, problem 13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling.

2.0 * tanh(softmax(mean_d(conv_t(x)) + bias, dim=1)): x is 16 x 16 x 32 x 128 x 128;
nn.ConvTranspose3d(16, 64, 3, stride=1, padding=1) with bias keeps the spatial size (16 x 64 x 32 x
128 x 128); the mean over depth (keepdim) leaves 16 x 64 x 1 x 128 x 128; bias is
nn.Parameter(torch.randn(1, 64, 1, 1, 1)) drawn after the convolution; then a softmax over the 64
channels, tanh, and scaling_factor = 2.0.

One kernel, a shared-memory tiled implicit GEMM with the whole epilogue fused. The depth sum is
part of the reduction: depth_sum[n, co, oh, ow] = sum over (od, kd, kh, kw, ci) of
w[ci, co, kd, kh, kw] * x[n, ci, id, ih, iw] (the ConvTranspose3d weight is [C_in, C_out, KD, KH, KW]),
a term counting only where od + pad - kd (likewise for h and w) is a non-negative multiple of the
stride whose quotient lies inside the input (gather form). A block owns an output tile of all 64
channels x TILE_P = 64 positions (n, oh, ow) (flattened, ow fastest; a tile may straddle rows and
batch items) and is 16 x 16 threads, each accumulating a 4 x 4 micro-tile (channels ty + 16 i,
positions tx + 16 j) in fp32 registers. The reduction runs as explicit loops over od, kd (a depth
tap outside the input skips the whole step, uniformly for the block), kh, kw and the input channels
TILE_CI = 16 at a time: each phase stages the weight slice Ws[ci][co] of one tap and the gathered
input Xs[ci][p] in shared memory (loads guarded and zero-filled outside the input, past C_in, past
C_out and past the last position), then a barrier, the multiply-accumulate over the 16 channels, and
another barrier. Epilogue: each value depth_sum / OD + conv_b + bias goes to a shared 64 x 64 tile;
after a barrier one thread per position takes the channel max, replaces each value by
expf(v - max) and sums them; after another barrier every thread writes 2 * tanh(e / sum) for its
micro-tile (neighbouring threads write neighbouring positions of a channel plane), guarded by the
last position. Flat indices and offsets are 64-bit.

Cost: the same 232 G multiply-adds (464 GFLOP) as the naive kernel it replaces (1.16 s per forward
on an H100, contended), now 4096 blocks of 256 threads (31 per SM on 132 SMs); per 16-deep phase a
thread does 256 FMAs against 128 shared loads, 8 global loads and ~60 index operations (the stride
tests run once per tap for the one position a thread loads). ESTIMATE, to be measured by the GPU
gate: 5-15 TFLOP/s for such a register-blocked SIMT tile, so about 30-90 ms per forward on an H100
(13-35x faster); the global traffic is small (each element of x, 134 MB, is loaded once per tap, 27
times, mostly from L1/L2; the weights, 110 KB, stay in cache). Reference 8.45 ms.
"""

CUDA = r"""
const int OUT_CHANNELS = 64;    // ConvTranspose3d out_channels (fixed by the weights): the softmax width and the block's channel tile
const int TILE_P = 64;          // output positions (n, oh, ow) per block
const int TILE_CI = 16;         // input channels consumed per phase
const int THREADS_X = 16;       // block: THREADS_X x THREADS_Y threads
const int THREADS_Y = 16;
const int MICRO_CO = 4;         // channels per thread: ty + THREADS_Y * i
const int MICRO_P = 4;          // positions per thread: tx + THREADS_X * j

extern "C" __global__ void convtranspose3d_mean_add_softmax_tanh_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [1, C_out, 1, 1, 1]
    float* __restrict__ out,            // [N, C_out, 1, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad)
{
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    const float SCALING_FACTOR = 2.0f;              // scaling_factor
    const int NUM_THREADS = THREADS_X * THREADS_Y;

    __shared__ float Ws[TILE_CI][OUT_CHANNELS];     // Ws[c][co] = w[ci0 + c, co, kd, kh, kw]
    __shared__ float Xs[TILE_CI][TILE_P];           // Xs[c][p] = x[n, ci0 + c, id, ih, iw] of position p0 + p
    __shared__ float Vs[OUT_CHANNELS][TILE_P];      // pre-softmax values, then their exponentials
    __shared__ float col_sum[TILE_P];               // sum of the exponentials per position

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * THREADS_X + tx;
    long long total = (long long)N * OH * OW;       // positions (n, oh, ow)
    long long p0 = (long long)blockIdx.x * TILE_P;  // first position of the tile

    // The one tile column this thread loads into Xs (rows x_row, x_row + X_ROW_STEP, ...).
    const int X_ROW_STEP = NUM_THREADS / TILE_P;
    int x_col = tid % TILE_P;
    int x_row = tid / TILE_P;
    long long lp = p0 + x_col;
    bool lp_live = lp < total;
    int l_ow = (int)(lp % OW);
    int l_oh = (int)((lp / OW) % OH);
    int l_n = (int)(lp / ((long long)OW * OH));

    // The one tile column (output channel) this thread loads into Ws.
    const int W_ROW_STEP = NUM_THREADS / OUT_CHANNELS;
    int w_col = tid % OUT_CHANNELS;
    int w_row = tid / OUT_CHANNELS;

    float acc[MICRO_CO][MICRO_P];
    for (int i = 0; i < MICRO_CO; ++i) {
        for (int j = 0; j < MICRO_P; ++j) {
            acc[i][j] = 0.0f;
        }
    }

    for (int od = 0; od < OD; ++od) {
        for (int kd = 0; kd < KD; ++kd) {
            int td = od + pad - kd;                     // = id * stride when the tap hits
            if (td < 0 || td % stride != 0) continue;   // the same for the whole block
            int id = td / stride;
            if (id >= D) continue;
            for (int kh = 0; kh < KH; ++kh) {
                for (int kw = 0; kw < KW; ++kw) {
                    // Does the loaded position read an input pixel through this tap?
                    bool hit = lp_live;
                    int th = l_oh + pad - kh;
                    if (th < 0 || th % stride != 0) hit = false;
                    int ih = th / stride;
                    if (ih >= H) hit = false;
                    int tw = l_ow + pad - kw;
                    if (tw < 0 || tw % stride != 0) hit = false;
                    int iw = tw / stride;
                    if (iw >= W) hit = false;

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
                                Ws[r][w_col] = w[((((long long)ci * C_out + w_col) * KD + kd) * KH + kh) * KW + kw];
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
    }

    // Mean over depth (the conv bias was in every depth plane), then the bias.
    for (int i = 0; i < MICRO_CO; ++i) {
        int co = ty + THREADS_Y * i;
        for (int j = 0; j < MICRO_P; ++j) {
            int p = tx + THREADS_X * j;
            float depth_sum = acc[i][j];        // sum over the OD depth planes
            if (co < C_out) {
                Vs[co][p] = depth_sum / (float)OD + conv_b[co] + bias[co];
            }
        }
    }
    __syncthreads();    // the pre-softmax tile is complete

    // Softmax over the channels of each position, stabilised by the channel max.
    if (tid < TILE_P) {
        float vmax = NEG_SENTINEL;
        for (int co = 0; co < C_out; ++co) {
            vmax = fmaxf(vmax, Vs[co][tid]);
        }
        float sum = 0.0f;
        for (int co = 0; co < C_out; ++co) {
            float e = expf(Vs[co][tid] - vmax);
            Vs[co][tid] = e;
            sum += e;
        }
        col_sum[tid] = sum;
    }
    __syncthreads();    // every position's exponentials and their sum are ready

    long long plane = (long long)OH * OW;
    for (int j = 0; j < MICRO_P; ++j) {
        int p = tx + THREADS_X * j;
        long long pos = p0 + p;
        if (pos >= total) continue;
        int ow = (int)(pos % OW);
        int oh = (int)((pos / OW) % OH);
        int n = (int)(pos / plane);
        long long base = (long long)n * C_out * plane + (long long)oh * OW + ow;
        for (int i = 0; i < MICRO_CO; ++i) {
            int co = ty + THREADS_Y * i;
            if (co < C_out) {
                out[base + co * plane] = tanhf(Vs[co][p] / col_sum[p]) * SCALING_FACTOR;
            }
        }
    }
}
"""

TILE_P = 64               # must equal TILE_P in the CUDA source: positions per block
THREADS_X = 16            # must equal THREADS_X and THREADS_Y in the CUDA source
THREADS_Y = 16
IN_CHANNELS = 16          # fixed by the weight [16, 64, 3, 3, 3]
OUT_CHANNELS = 64         # must equal OUT_CHANNELS in the CUDA source (the block's channel tile)
KERNEL_SIZE = 3
STRIDE = 1                # ConvTranspose3d(stride=1, padding=1): the output keeps the input size
PADDING = 1
SCALING_FACTOR = 2.0
SCALED = 30.0             # T2: x = U[0, 30)
SPIKE = 30.0              # T3: spikes U[0, 30)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(16, 64, 3, 1, 1, 2.0): conv_transpose (with bias), then bias = randn(1, 64, 1, 1, 1)
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING)
        bias = nn.Parameter(torch.randn(1, OUT_CHANNELS, 1, 1, 1))
        return {"w": conv_t.weight, "b": conv_t.bias, "bias": bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD
        OH = (H - 1) * STRIDE - 2 * PADDING + KH
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW
        out = torch.empty((N, C_out, 1, OH, OW), device=x.device, dtype=x.dtype)
        positions = N * OH * OW
        return (
            "convtranspose3d_mean_add_softmax_tanh_kernel",
            (K.cdiv(positions, TILE_P), 1, 1),
            (THREADS_X, THREADS_Y, 1),
            [x, w["w"], w["b"], w["bias"], out],
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
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose3d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING)
        y = y.mean(dim=2, keepdim=True)
        y = y + w["bias"]
        y = torch.softmax(y, dim=1)
        y = torch.tanh(y)
        return y * SCALING_FACTOR

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def scaled_inputs(torch, s):
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * SCALED]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the voxels set to U[0, SPIKE).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape) * SPIKE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p13_convtranspose3d_mean_add_softmax_tanh_scaling",
        level=2,
        problem="13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling",
        cuda=CUDA,
        kernel_name="convtranspose3d_mean_add_softmax_tanh_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "depth": K.dim(32),
            "height": K.dim(128),
            "width": K.dim(128),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 3, "height": 5, "width": 7},
                small=True,
                purpose="2 x 5 x 7 = 70 positions, one full 64-position tile and a second with 6 live positions, so the "
                "tail guards matter; "
                "D, H, W all differ, so swapped strides or divisors show; with 3 depth planes two of the three "
                "convolution outputs averaged touch the zero padding in depth, and the depth mean's divisor "
                "(3, not the official 32) is exercised",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 6, "height": 12, "width": 10},
                purpose="x = U[0,30): same-sign larger magnitudes, so the depth means of the 64 channels "
                "spread over several units and the channel softmax is peaked (median largest probability ~0.6, outputs up to 1.49; 76% of the outputs move beyond the tolerance from their zero-input value, measured on the CPU) instead of set by the "
                "bias alone; a wrong channel, tap, depth range, divisor, max, sum or bias moves outputs beyond "
                "1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 5, "height": 11, "width": 9},
                purpose="about 2% isolated U[0,30) spikes on exact zeros: a position's depth means see "
                "a few spikes through specific taps, so kd/kh/kw swaps, transposed weight indices, wrong "
                "padding offsets or wrong channel strides move them; spikes on the border planes test the "
                "padding guards",
            ),
        ],
        notes="Nearly input-insensitive at the official inputs: the depth mean averages 32 transposed-convolution "
        "outputs, so a position's 64 channel values differ mainly by the randn bias, the softmax is about the "
        "same pattern everywhere (largest probability ~0.09) and the outputs stay small (2 tanh(p): |out| mean "
        "0.031, max 0.19); measured on the CPU (batch 1, official spatial size), two official seeds' outputs "
        "differ by at most 0.0126 (allclose distance 0.011, just above 1e-2), so faults that move outputs by "
        "less than ~1e-2 pass T0_original; T2 and T3 make the softmax input-dependent. The block's channel "
        "tile (OUT_CHANNELS) holds all "
        "64 output channels fixed by the weights, so "
        "the channel softmax stays inside one block (C_out is passed but must be 64). Tiling (CPU-checked only): "
        "T1's 70 positions leave a second tile with 6 live positions, and its 5 x 7 planes reach every "
        "padding guard of the gathered load; the position guard of the input-tile load only protects columns "
        "that are never stored (dropping it reads past x but changes no output), and C_in = 16 fills the "
        "16-channel phase exactly, so the ci guards never fire at these weights. A K-loop fault that drops one "
        "of the 16 input channels passes T1 (allclose distance 0.0088: the U[0,1) weakness above) but fails "
        "T2 and T3 on the CPU. Stride 1 and padding 1 are model constants passed as kernel arguments, so stride "
        "mutants are equivalent. The reference runs ConvTranspose3d through cuDNN, perhaps with TF32 (the "
        "facts file measured this problem's reference within 1e-4 of fp64 on T0); a CPU emulation of TF32 "
        "operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose distances of at most "
        "~8.4e-4 on the targeted suites.",
    )
