"""KernelBench level 2, problem 91_ConvTranspose2d_Softmax_BiasAdd_Scaling_Sigmoid.

sigmoid((softmax(conv_t(x), dim=1) + bias) * 2.0): x is 128 x 64 x 64 x 64; nn.ConvTranspose2d(64, 128,
4, stride=2, padding=1, output_padding=1) with bias, so each output size is (S - 1) * 2 - 2 * 1 + 4 + 1
= 2S + 1 and the output is 128 x 128 x 129 x 129 (272 M elements); the softmax runs over the 128
channels; bias is nn.Parameter(torch.randn(128, 1, 1)) drawn after the convolution, scaling_factor 2.0.

One kernel, one thread per output position (n, oh, ow) with ow fastest. The thread computes the 128
transposed-convolution values of its position into a local array, in gather form: for each output
channel it visits every tap (kh, kw), keeps it only where oh + pad - kh (likewise for w) is a
non-negative multiple of the stride whose quotient lies inside the input, and sums
x[n, ci, ih, iw] * w[ci, co, kh, kw] over the input channels (the ConvTranspose2d weight is
[C_in, C_out, KH, KW]) in fp32, plus the bias; a running max gives the channel max, a second loop
replaces each value by expf(v - max) and sums them, and a third writes sigmoid((e / sum + bias) * 2)
for every channel (neighbouring threads write neighbouring positions of a channel plane). Flat
indices and plane offsets are 64-bit.

Cost: 2.1 M threads, each 128 channels x 2 x 2 taps hit (of 16 tested) x 64 input channels = 32 K
multiply-adds: 70 G multiply-adds in all, with neighbouring threads reading neighbouring inputs and
the same weight (a broadcast); at roughly 1-2 TFLOP/s on an H200 one forward takes about 70-150 ms
(reference 8 ms).
"""

CUDA = r"""
const int OUT_CHANNELS = 128;   // ConvTranspose2d out_channels (fixed by the weights): the softmax width

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

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;     // position (n, oh, ow)
    long long total = (long long)N * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int n = (int)(i / ((long long)OW * OH));

    float vals[OUT_CHANNELS];
    float vmax = NEG_SENTINEL;
    for (int co = 0; co < C_out; ++co) {
        float acc = 0.0f;
        for (int kh = 0; kh < KH; ++kh) {
            int th = oh + pad - kh;                     // = ih * stride when the tap hits
            if (th < 0 || th % stride != 0) continue;
            int ih = th / stride;
            if (ih >= H) continue;
            for (int kw = 0; kw < KW; ++kw) {
                int tw = ow + pad - kw;
                if (tw < 0 || tw % stride != 0) continue;
                int iw = tw / stride;
                if (iw >= W) continue;
                for (int ci = 0; ci < C_in; ++ci) {
                    float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                    float wv = w[(((long long)ci * C_out + co) * KH + kh) * KW + kw];
                    acc += xv * wv;
                }
            }
        }
        float v = acc + conv_b[co];
        vals[co] = v;
        vmax = fmaxf(vmax, v);
    }

    // Softmax over the channels, stabilised by the channel max.
    float sum = 0.0f;
    for (int co = 0; co < C_out; ++co) {
        float e = expf(vals[co] - vmax);
        vals[co] = e;
        sum += e;
    }
    long long plane = (long long)OH * OW;
    long long base = (long long)n * C_out * plane + (long long)oh * OW + ow;
    for (int co = 0; co < C_out; ++co) {
        float v = (vals[co] / sum + bias[co]) * SCALING_FACTOR;
        out[base + co * plane] = 1.0f / (1.0f + expf(-v));
    }
}
"""

BLOCK = 256               # 1D blocks over the flat position index
IN_CHANNELS = 64          # fixed by the weight [64, 128, 4, 4]
OUT_CHANNELS = 128        # must equal OUT_CHANNELS in the CUDA source (the local array size)
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
        positions = N * OH * OW
        return (
            "convtranspose2d_softmax_bias_scale_sigmoid_kernel",
            (K.cdiv(positions, BLOCK), 1, 1),
            (BLOCK, 1, 1),
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
                purpose="x = U[0,16) at 2 x 11 x 13 = 286 positions, not a multiple of the 256-thread block, so the "
                "tail guard matters; OH = 11 != OW = 13, so swapped strides or divisors show, and the border "
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
        "x up so the softmax is peaked. The local array holds the 128 output channels fixed by the weights (C_out is passed "
        "but must be 128). The reference runs ConvTranspose2d through cuDNN, perhaps with TF32 (the facts "
        "file measured this problem's reference within 1e-4 of fp64 on T0, where the outputs barely move); a "
        "CPU emulation of TF32 operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose "
        "distances of at most ~1e-3 on the targeted suites. Stride 2, padding 1 and output padding 1 are "
        "model constants; the output padding only sets the output size.",
    )
