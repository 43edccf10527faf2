"""KernelBench level 2, problem 89_ConvTranspose3d_MaxPool_Softmax_Subtract_Swish_Max.

x is 128 x 3 x 16 x 32 x 32; nn.ConvTranspose3d(3, 16, 3, stride=2, padding=1, output_padding=1) with
bias, so each output size is (S - 1) * 2 - 2 * 1 + 3 + 1 = 2S (128 x 16 x 32 x 64 x 64);
nn.MaxPool3d(kernel_size=2, stride=2, padding=0) halves it back to 128 x 16 x 16 x 32 x 32; a softmax
over the 16 channels; minus a per-channel parameter subtract (nn.Parameter(torch.randn(16))); Swish
(sigmoid(z) * z); and the max over the channels: the output is 128 x 16 x 32 x 32.

One kernel, one thread per output element (n, pd, ph, pw) with pw fastest. For each of the 16
channels the thread takes the max over its 2 x 2 x 2 pooling window of transposed-convolution values,
each computed in gather form: it visits every tap (kd, kh, kw), keeps it only where od + pad - kd
(likewise for h and w) is a non-negative multiple of the stride whose quotient lies inside the input,
and sums x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw] over the input channels (the ConvTranspose3d
weight is [C_in, C_out, KD, KH, KW]) in fp32, plus the bias. The 16 pooled values sit in a local array
with a running max; a second loop sums expf(v - max), and a third forms each softmax value, subtracts
the channel's parameter, applies Swish and keeps the max. Flat indices are 64-bit.

Cost: 2.1 M threads, each 16 channels x 8 window positions x (27 tap tests, about 3.4 hits x 3 input
channels): about 2.7 G multiply-adds and 7 G tap tests, a few ms on an H200 (reference 5.23 ms).
"""

CUDA = r"""
const int OUT_CHANNELS = 16;    // ConvTranspose3d out_channels (fixed by the weights): the softmax width

extern "C" __global__ void convtranspose3d_maxpool_softmax_swish_max_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ subtract, // [C_out]
    float* __restrict__ out,            // [N, PD, PH, PW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int PD, int PH, int PW, int stride, int pad)
{
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    const int POOL = 2;                             // MaxPool3d(kernel_size=2, stride=2, padding=0)

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * PD * PH * PW;
    if (i >= total) return;

    int pw = (int)(i % PW);
    int ph = (int)((i / PW) % PH);
    int pd = (int)((i / ((long long)PW * PH)) % PD);
    int n = (int)(i / ((long long)PW * PH * PD));

    float vals[OUT_CHANNELS];                       // max-pooled transposed-convolution value per channel
    float vmax = NEG_SENTINEL;
    for (int co = 0; co < C_out; ++co) {
        float pooled = NEG_SENTINEL;
        for (int a = 0; a < POOL; ++a) {
            for (int e = 0; e < POOL; ++e) {
                for (int f = 0; f < POOL; ++f) {
                    int od = pd * POOL + a;
                    int oh = ph * POOL + e;
                    int ow = pw * POOL + f;
                    float acc = 0.0f;
                    for (int kd = 0; kd < KD; ++kd) {
                        int td = od + pad - kd;                 // = id * stride when the tap hits
                        if (td < 0 || td % stride != 0) continue;
                        int id = td / stride;
                        if (id >= D) continue;
                        for (int kh = 0; kh < KH; ++kh) {
                            int th = oh + pad - kh;
                            if (th < 0 || th % stride != 0) continue;
                            int ih = th / stride;
                            if (ih >= H) continue;
                            for (int kw = 0; kw < KW; ++kw) {
                                int tw = ow + pad - kw;
                                if (tw < 0 || tw % stride != 0) continue;
                                int iw = tw / stride;
                                if (iw >= W) continue;
                                for (int ci = 0; ci < C_in; ++ci) {
                                    float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                                    float wv = w[((((long long)ci * C_out + co) * KD + kd) * KH + kh) * KW + kw];
                                    acc += xv * wv;
                                }
                            }
                        }
                    }
                    pooled = fmaxf(pooled, acc + conv_b[co]);
                }
            }
        }
        vals[co] = pooled;
        vmax = fmaxf(vmax, pooled);
    }

    // Softmax over the channels (stabilised by the channel max), minus subtract, Swish, max.
    float sum = 0.0f;
    for (int co = 0; co < C_out; ++co) {
        sum += expf(vals[co] - vmax);
    }
    float best = NEG_SENTINEL;
    for (int co = 0; co < C_out; ++co) {
        float p = expf(vals[co] - vmax) / sum;
        float z = p - subtract[co];
        float sig = 1.0f / (1.0f + expf(-z));
        best = fmaxf(best, sig * z);
    }
    out[i] = best;
}
"""

BLOCK = 256               # 1D blocks over the flat output index
IN_CHANNELS = 3           # fixed by the weight [3, 16, 3, 3, 3]
OUT_CHANNELS = 16         # must equal OUT_CHANNELS in the CUDA source (the local array size)
KERNEL_SIZE = 3
STRIDE = 2                # ConvTranspose3d(stride=2, padding=1, output_padding=1)
PADDING = 1
OUTPUT_PADDING = 1
POOL = 2                  # MaxPool3d(kernel_size=2, stride=2, padding=0)
SCALED = 30.0             # T1: x = U[0, 30)
LARGE = 100.0             # T2: x = U[0, 100)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 16, 3, 2, 1, 1, 2, 2, 0): conv_transpose (with bias), max_pool (no
        # parameters), then subtract = randn(16)
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(
            IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING
        )
        subtract = nn.Parameter(torch.randn(OUT_CHANNELS))
        return {"w": conv_t.weight, "b": conv_t.bias, "subtract": subtract}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD + OUTPUT_PADDING
        OH = (H - 1) * STRIDE - 2 * PADDING + KH + OUTPUT_PADDING
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW + OUTPUT_PADDING
        PD, PH, PW = OD // POOL, OH // POOL, OW // POOL
        out = torch.empty((N, PD, PH, PW), device=x.device, dtype=x.dtype)
        total = N * PD * PH * PW
        return (
            "convtranspose3d_maxpool_softmax_swish_max_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], w["subtract"], out],
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
                (ctypes.c_int, PD),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.conv_transpose3d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING)
        y = F.max_pool3d(y, kernel_size=POOL, stride=POOL, padding=0)
        y = torch.softmax(y, dim=1)
        y = y - w["subtract"].view(1, -1, 1, 1, 1)
        y = torch.sigmoid(y) * y
        return torch.max(y, dim=1)[0]

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def scaled_inputs(scale):
        def gen(torch, s):
            return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 5% of the voxels set to U[0, 100).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.05
        spikes = torch.rand(shape) * 100.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p89_convtranspose3d_maxpool_softmax_subtract_swish_max",
        level=2,
        problem="89_ConvTranspose3d_MaxPool_Softmax_Subtract_Swish_Max",
        cuda=CUDA,
        kernel_name="convtranspose3d_maxpool_softmax_swish_max_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "depth": K.dim(16),
            "height": K.dim(32),
            "width": K.dim(32),
        },
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (outputs nearly constant: see notes)",
            ),
            K.suite(
                "T1_small_scaled",
                scaled_inputs(SCALED),
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 3, "height": 4, "width": 5},
                small=True,
                purpose="x = U[0,30) at 2 x 3 x 4 x 5 = 120 outputs, fewer than one 256-thread block, so the tail "
                "guard matters; PD, PH, PW all differ, so swapped strides or divisors and the border taps that "
                "fall outside the input show; the 30x scale sharpens the channel softmax (largest probabilities "
                "~0.9 against ~0.07 on U[0,1)), so 87-91% of the outputs move beyond the tolerance from their "
                "zero-input value (measured on the CPU) and a wrong channel, tap, pooling window, max, sum or "
                "subtraction shows",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(LARGE),
                seeds=[3, 4],
                sizes={"batch": 3, "depth": 6, "height": 10, "width": 12},
                purpose="x = U[0,100): same-sign large magnitudes, channel values up to ~100 apart, so the softmax "
                "is nearly one-hot (exact zeros and ones in fp32) and only a kernel that subtracts the channel "
                "max keeps expf finite where values exceed 88; the output then depends on which channel wins "
                "each pooling window, so a max pool over a wrong window or a wrong argmax channel shows",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 5, "height": 8, "width": 9},
                purpose="about 5% isolated U[0,100) spikes on exact zeros: each pooled value covers 8 "
                "transposed-convolution outputs of 3 to 24 input values each, so most windows see one or two "
                "spikes and the rest none (32-36% of the outputs move beyond the tolerance from the "
                "zero-input value); a wrong parity test, a transposed weight index, a swapped tap or a wrong "
                "channel stride moves the spiked ones",
            ),
        ],
        notes="Degenerate at the official inputs (facts file: const-pass@1e-2, input-insensitive@1e-2), and "
        "nearly so by construction: subtract[2] = -2.33 is far below every other entry (the next is -0.94), "
        "and softmax values lie in [0, 1], so the channel max is always channel 2's swish(p_2 + 2.33) and the "
        "output depends on the input only through p_2, the softmax weight of channel 2, within [2.12, 3.22]. "
        "On U[0,1) inputs p_2 ~ 1/16 everywhere; measured on the CPU over the 5 official seeds, every output "
        "lies in 2.187-2.204, a constant equal to the mean passes the 1e-2 check on all of them, and any two "
        "seeds' outputs agree within 0.015 (allclose distance ~4e-3). Faults confined to the other channels "
        "are seen only through the softmax denominator. The targeted suites scale x so the softmax is peaked. "
        "The local array holds the 16 output channels fixed by the weights (C_out is passed "
        "but must be 16). The reference runs ConvTranspose3d through cuDNN, perhaps with TF32 (the facts "
        "file measured this problem's reference within 1e-4 of fp64 on T0, where the outputs barely move); a "
        "CPU emulation of TF32 operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose "
        "distances of at most ~4e-4 on the targeted suites. Stride 2, padding 1, output padding 1 and "
        "the pool are model constants; the output padding only sets the output size, and the pool's output "
        "is exactly the input's spatial size.",
    )
