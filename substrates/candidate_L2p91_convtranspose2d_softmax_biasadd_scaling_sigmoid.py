"""KernelBench level 2, problem 91_ConvTranspose2d_Softmax_BiasAdd_Scaling_Sigmoid.

sigmoid((softmax(conv_t(x), dim=1) + bias) * 2.0): x is 128 x 64 x 64 x 64; nn.ConvTranspose2d(64, 128,
4, stride=2, padding=1, output_padding=1) with bias, so each output size is (S - 1) * 2 - 2 * 1 + 4 + 1
= 2S + 1 and the output is 128 x 128 x 129 x 129 (272 M elements); the softmax runs over the 128
channels; bias is nn.Parameter(torch.randn(128, 1, 1)) drawn after the convolution, scaling_factor 2.0.

One kernel, a shared-memory tiled implicit GEMM in gather form with the whole epilogue fused. An
output position (oh, ow) takes tap (kh, kw) only where oh + pad - kh (likewise for w) is a
non-negative multiple of the stride whose quotient lies inside the input, so the taps that hit depend
on the position's residues (oh % stride, ow % stride). The grid's z index is that residue class
(rh, rw) (stride x stride = 4 classes), and a block owns all 128 channels x TILE_P = 64 positions of
one class: columns q = (n, qh, qw) (qw fastest, a tile may straddle rows and batch items) with
oh = rh + stride * qh, ow = rw + stride * qw, qh < ceil(OH / stride), qw < ceil(OW / stride) (a
column past OH or OW is dead). A tap whose residue misses the class is skipped by the whole block
(4 of the 16 taps hit), so no phase multiplies zeros. The block is 16 x 16 threads, each holding an
8 x 4 micro-tile (channels ty + 16 i, columns tx + 16 j) in fp32 registers; for each tap that hits,
the input channels are consumed TILE_CI = 16 at a time: each phase stages the weight slice Ws[ci][co]
of the tap (the ConvTranspose2d weight is [C_in, C_out, KH, KW]) and the gathered input
Xs[ci][q] = x[n, ci, ih, iw] in shared memory (loads guarded and zero-filled for taps outside the
input, past C_in, past C_out and for dead columns), then a barrier, the multiply-accumulate over the
16 channels and another barrier. Epilogue: acc + conv_b goes to a shared 128 x 64 tile; after a barrier
one thread per column takes the channel max, replaces each value by expf(v - max) and sums them;
after another barrier every thread writes sigmoid((e / sum + bias) * 2) for its micro-tile, guarded
by C_out and the column's liveness. Flat indices and plane offsets are 64-bit.

Cost: 70 G multiply-adds (the taps that hit; the naive kernel it replaces did the same, 0.52 s per
forward on an H100, contended), now 8450 x 4 = 33800 blocks of 256 threads (256 per SM on 132 SMs);
per 16-deep phase a thread does 512 FMAs against 192 shared loads, 12 global loads and a few index
operations; the epilogue adds ~60 instructions per output element (272 M) and 1.1 GB of stores.
ESTIMATE, to be measured by the GPU gate: 5-15 TFLOP/s for the register-blocked SIMT tile, so about
10-30 ms for the GEMM plus ~1-3 ms for the epilogue and stores, 12-40 ms per forward on an H100
(13-40x faster). Static shared memory 44.3 KB per block. Reference 8 ms.
"""

CUDA = r"""
const int OUT_CHANNELS = 128;   // ConvTranspose2d out_channels (fixed by the weights): the softmax width and the block's channel tile
const int TILE_P = 64;          // positions (one residue class) per block
const int TILE_CI = 16;         // input channels consumed per phase
const int THREADS_X = 16;       // block: THREADS_X x THREADS_Y threads
const int THREADS_Y = 16;
const int MICRO_CO = 8;         // channels per thread: ty + THREADS_Y * i
const int MICRO_P = 4;          // columns per thread: tx + THREADS_X * j

extern "C" __global__ void convtranspose2d_softmax_bias_scale_sigmoid_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [C_out, 1, 1]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
{
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    const float SCALING_FACTOR = 2.0f;              // scaling_factor
    const int NUM_THREADS = THREADS_X * THREADS_Y;

    __shared__ float Ws[TILE_CI][OUT_CHANNELS];     // Ws[c][co] = w[ci0 + c, co, kh, kw]
    __shared__ float Xs[TILE_CI][TILE_P];           // Xs[c][q] = x[n, ci0 + c, ih, iw] of column q0 + q
    __shared__ float Vs[OUT_CHANNELS][TILE_P];      // convolution values, then their exponentials
    __shared__ float col_sum[TILE_P];               // sum of the exponentials per column

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int tid = ty * THREADS_X + tx;

    // The block's residue class: every column has oh % stride == rh and ow % stride == rw.
    int rh = blockIdx.z / stride;
    int rw = blockIdx.z % stride;
    int QH = (OH + stride - 1) / stride;            // rows qh of a class (the last may be dead)
    int QW = (OW + stride - 1) / stride;
    long long total = (long long)N * QH * QW;       // columns (n, qh, qw) of a class
    long long q0 = (long long)blockIdx.x * TILE_P;  // first column of the tile

    // The one tile column this thread loads into Xs (rows x_row, x_row + X_ROW_STEP, ...).
    const int X_ROW_STEP = NUM_THREADS / TILE_P;
    int x_col = tid % TILE_P;
    int x_row = tid / TILE_P;
    long long lq = q0 + x_col;
    int l_ow = rw + stride * (int)(lq % QW);
    int l_oh = rh + stride * (int)((lq / QW) % QH);
    int l_n = (int)(lq / ((long long)QW * QH));
    bool lq_live = lq < total && l_oh < OH && l_ow < OW;

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

    for (int kh = 0; kh < KH; ++kh) {
        if ((rh + pad - kh) % stride != 0) continue;        // no column of the class takes this tap row
        for (int kw = 0; kw < KW; ++kw) {
            if ((rw + pad - kw) % stride != 0) continue;    // nor this tap column
            // Does the loaded column read an input pixel through this tap?
            bool hit = lq_live;
            int th = l_oh + pad - kh;                       // = ih * stride when the tap hits
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
                        Xs[r][x_col] = x[(((long long)l_n * C_in + ci) * H + ih) * W + iw];
                    } else {
                        Xs[r][x_col] = 0.0f;
                    }
                }
                for (int r = w_row; r < TILE_CI; r += W_ROW_STEP) {
                    int ci = ci0 + r;
                    if (ci < C_in && w_col < C_out) {
                        Ws[r][w_col] = w[(((long long)ci * C_out + w_col) * KH + kh) * KW + kw];
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

    for (int i = 0; i < MICRO_CO; ++i) {
        int co = ty + THREADS_Y * i;
        for (int j = 0; j < MICRO_P; ++j) {
            int q = tx + THREADS_X * j;
            if (co < C_out) {
                Vs[co][q] = acc[i][j] + conv_b[co];
            }
        }
    }
    __syncthreads();    // the convolution tile is complete

    // Softmax over the channels of each column, stabilised by the channel max.
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
    __syncthreads();    // every column's exponentials and their sum are ready

    long long plane = (long long)OH * OW;
    for (int j = 0; j < MICRO_P; ++j) {
        int q = tx + THREADS_X * j;
        long long cq = q0 + q;
        int ow = rw + stride * (int)(cq % QW);
        int oh = rh + stride * (int)((cq / QW) % QH);
        int n = (int)(cq / ((long long)QW * QH));
        if (cq >= total || oh >= OH || ow >= OW) continue;     // past the last column, or a dead row or column of the class
        long long base = (long long)n * C_out * plane + (long long)oh * OW + ow;
        for (int i = 0; i < MICRO_CO; ++i) {
            int co = ty + THREADS_Y * i;
            if (co < C_out) {
                float v = (Vs[co][q] / col_sum[q] + bias[co]) * SCALING_FACTOR;
                out[base + co * plane] = 1.0f / (1.0f + expf(-v));
            }
        }
    }
}
"""

TILE_P = 64               # must equal TILE_P in the CUDA source: positions per block
THREADS_X = 16            # must equal THREADS_X and THREADS_Y in the CUDA source
THREADS_Y = 16
IN_CHANNELS = 64          # fixed by the weight [64, 128, 4, 4]
OUT_CHANNELS = 128        # must equal OUT_CHANNELS in the CUDA source (the block's channel tile)
KERNEL_SIZE = 4
STRIDE = 2                # ConvTranspose2d(stride=2, padding=1, output_padding=1)
PADDING = 1
OUTPUT_PADDING = 1
SCALING_FACTOR = 2.0
SCALED = 16.0             # T1: x = U[0, 16)
LARGE = 120.0             # T2: x = U[0, 120)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 128, 4, 2, 1, 1, (128, 1, 1), 2.0): conv_transpose (with bias), then
        # bias = randn(128, 1, 1)
        nn = torch.nn
        conv_t = nn.ConvTranspose2d(
            IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING
        )
        bias = nn.Parameter(torch.randn((OUT_CHANNELS, 1, 1)))
        return {"w": conv_t.weight, "b": conv_t.bias, "bias": bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        _, C_out, KH, KW = w["w"].shape
        OH = (H - 1) * STRIDE - 2 * PADDING + KH + OUTPUT_PADDING
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW + OUTPUT_PADDING
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        # Positions per residue class (oh % STRIDE, ow % STRIDE), the grid's z index.
        class_positions = N * K.cdiv(OH, STRIDE) * K.cdiv(OW, STRIDE)
        return (
            "convtranspose2d_softmax_bias_scale_sigmoid_kernel",
            (K.cdiv(class_positions, TILE_P), 1, STRIDE * STRIDE),
            (THREADS_X, THREADS_Y, 1),
            [x, w["w"], w["b"], w["bias"], out],
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
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose2d(
            x, w["w"], w["b"], stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING
        )
        y = torch.softmax(y, dim=1)
        y = y + w["bias"]
        y = y * SCALING_FACTOR
        return torch.sigmoid(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def scaled_inputs(scale):
        def gen(torch, s):
            return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the pixels set to U[0, 40).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape) * 40.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p91_convtranspose2d_softmax_biasadd_scaling_sigmoid",
        level=2,
        problem="91_ConvTranspose2d_Softmax_BiasAdd_Scaling_Sigmoid",
        cuda=CUDA,
        kernel_name="convtranspose2d_softmax_bias_scale_sigmoid_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(64),
            "width": K.dim(64),
        },
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (outputs nearly input-independent: "
                "see notes)",
            ),
            K.suite(
                "T1_small_scaled",
                scaled_inputs(SCALED),
                seeds=[1, 2],
                sizes={"batch": 2, "height": 5, "width": 6},
                small=True,
                purpose="x = U[0,16) at 2 x 11 x 13 = 286 positions: each of the 4 residue classes has 2 x 6 x 7 = 84 "
                "columns, a full 64-column tile and one with 20, and OH = 11, OW = 13 are odd, so the classes with "
                "an odd residue have a dead last row or column: the tail and liveness guards matter; OH = 11 != OW = "
                "13, so swapped strides or divisors show, and the border "
                "taps that fall outside the 5 x 6 input are exercised; the 16x scale sharpens the channel softmax "
                "(median largest probability 0.13 against 0.01 on U[0,1)), so a wrong channel, tap, max, sum, "
                "bias or scale moves outputs beyond 1e-2",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(LARGE),
                seeds=[3, 4],
                sizes={"batch": 2, "height": 12, "width": 10},
                purpose="x = U[0,120): same-sign large magnitudes, a position's channel values up to ~97 apart "
                "(median 68, measured on the CPU), so the softmax is nearly one-hot (median largest probability "
                "0.94): the winning channel's output moves from sigmoid(2 bias) to sigmoid(2 (bias + 1)), so a "
                "wrong argmax channel, tap or channel plane shows (the values stay below ~55, so a softmax "
                "without its max subtraction stays finite here and that mutant is equivalent in fp32 up to "
                "rounding)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 9, "width": 11},
                purpose="about 2% isolated U[0,40) spikes on exact zeros: an output position sees 1 to 4 input "
                "pixels of 64 channels (by the parity of its coordinates), about 1-5 spikes, so its softmax "
                "depends on specific taps, and a wrong parity test, a transposed weight index, a swapped tap or a "
                "wrong channel stride moves it; positions with no spike give the softmax of the 128 biases, one "
                "constant pattern",
            ),
        ],
        notes="Degenerate at the official inputs (facts file: input-insensitive@1e-2): with x = U[0,1) a "
        "position's 128 channel values lie within ~0.6-0.8 of each other, so the softmax is nearly uniform "
        "(largest probability ~0.01) and the output is essentially sigmoid(2 (bias + 1/128)) per channel: "
        "measured on the CPU (batch 2, official spatial size), that per-channel constant passes the 1e-2 check "
        "(allclose distance 1.8e-3), and two official seeds' outputs agree within 0.0019. Faults that keep the "
        "softmax flat (most faults in the transposed convolution) pass T0_original; the targeted suites scale "
        "x up so the softmax is peaked. The block's channel tile (OUT_CHANNELS) holds all 128 output channels "
        "fixed by the "
        "weights, so the channel softmax stays inside one block (C_out is passed but must be 128). Tiling "
        "(CPU-checked only): the grid's z index is the residue class (oh % 2, ow % 2); the block-uniform test "
        "that skips a tap whose residue misses the class only saves work (the per-column test repeats it), "
        "so mutants that drop it are equivalent up to time. T1 reaches a partial tile and dead rows and "
        "columns of the odd classes; dropping the load's liveness test only fills columns that are never "
        "stored (the input-range tests already miss them); an off-by-one on the load's tail test zeroes one "
        "corner position's input and fails T1 narrowly (allclose distance 0.0107 on one seed); C_in = 64 is "
        "four full 16-channel phases, so the ci guards never fire at these weights. "
        "The reference runs ConvTranspose2d through cuDNN, perhaps with TF32 (the facts "
        "file measured this problem's reference within 1e-4 of fp64 on T0, where the outputs barely move); a "
        "CPU emulation of TF32 operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose "
        "distances of at most ~1e-3 on the targeted suites. Stride 2, padding 1 and output padding 1 are "
        "model constants; the output padding only sets the output size.",
    )
