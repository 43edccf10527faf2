"""KernelBench level 2, problem 58_ConvTranspose3d_LogSumExp_HardSwish_Subtract_Clamp.

v = logsumexp(conv_t(x), dim=1, keepdim); out = clamp(v * sigmoid(v + 3) / 6 - bias, -1, 1).
x is 128 x 3 x 16 x 32 x 32; nn.ConvTranspose3d(3, 16, 3, stride=2, padding=1) with bias, so each
output size is (S - 1) * 2 - 2 * 1 + 3 = 2S - 1 and the transposed convolution gives
128 x 16 x 31 x 63 x 63; the logsumexp over the 16 channels leaves 128 x 1 x 31 x 63 x 63. The
"HardSwish" is written as v * sigmoid(v + 3) / 6 (a smooth variant, as the model computes it), bias is
nn.Parameter(torch.randn(1, 1, 1, 1)) drawn after the convolution, and the clamp bounds are -1 and 1.

One kernel, one thread per output element (n, od, oh, ow) with ow fastest. The thread computes the
16 transposed-convolution values of its position into a local array, in gather form: for each output
channel it visits every tap (kd, kh, kw), keeps it only where od + pad - kd (likewise for h and w) is
a non-negative multiple of the stride whose quotient lies inside the input, and sums
x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw] over the input channels (the ConvTranspose3d weight is
[C_in, C_out, KD, KH, KW]) in fp32, plus the bias; a running max gives the channel max, a second loop
the sum of expf(v - max), and the epilogue follows. Flat indices are 64-bit.

Cost: 15.7 M threads, each 16 channels x about 3.4 of 27 taps x 3 input channels (about 160
multiply-adds, plus 432 tap tests): about 2.5 G multiply-adds, a few ms on an H200 (reference 6 ms).
"""

CUDA = r"""
const int OUT_CHANNELS = 16;    // ConvTranspose3d out_channels (fixed by the weights): the logsumexp width

extern "C" __global__ void convtranspose3d_logsumexp_hardswish_clamp_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [1]  (the model's subtracted bias, shape (1, 1, 1, 1))
    float* __restrict__ out,            // [N, 1, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad)
{
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    const float HS_OFFSET = 3.0f;                   // v * sigmoid(v + 3) / 6
    const float HS_SCALE = 6.0f;
    const float CLAMP_MIN = -1.0f;
    const float CLAMP_MAX = 1.0f;

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * OD * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int od = (int)((i / ((long long)OW * OH)) % OD);
    int n = (int)(i / ((long long)OW * OH * OD));

    float vals[OUT_CHANNELS];
    float vmax = NEG_SENTINEL;
    for (int co = 0; co < C_out; ++co) {
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
        float v = acc + conv_b[co];
        vals[co] = v;
        vmax = fmaxf(vmax, v);
    }

    // logsumexp over the channels, stabilised by the channel max.
    float sum = 0.0f;
    for (int co = 0; co < C_out; ++co) {
        sum += expf(vals[co] - vmax);
    }
    float v = vmax + logf(sum);

    float sig = 1.0f / (1.0f + expf(-(v + HS_OFFSET)));
    v = v * sig / HS_SCALE;
    v = v - bias[0];
    out[i] = fminf(fmaxf(v, CLAMP_MIN), CLAMP_MAX);
}
"""

BLOCK = 256               # 1D blocks over the flat output index
IN_CHANNELS = 3           # fixed by the weight [3, 16, 3, 3, 3]
OUT_CHANNELS = 16         # must equal OUT_CHANNELS in the CUDA source (the local array size)
KERNEL_SIZE = 3
STRIDE = 2                # ConvTranspose3d(stride=2, padding=1)
PADDING = 1
SCALED = 30.0             # T1: x = U[0, 30)
LARGE = 100.0             # T2: x = U[0, 100)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 16, 3, 2, 1, (1, 1, 1, 1)): conv_transpose (with bias), then
        # bias = randn(1, 1, 1, 1) (the bias_shape argument is ignored for it)
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING)
        bias = nn.Parameter(torch.randn(1, 1, 1, 1))
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
        out = torch.empty((N, 1, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * OD * OH * OW
        return (
            "convtranspose3d_logsumexp_hardswish_clamp_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
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
        y = torch.logsumexp(y, dim=1, keepdim=True)
        y = y * torch.sigmoid(y + 3) / 6
        y = y - w["bias"]
        return torch.clamp(y, min=-1, max=1)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def scaled_inputs(scale):
        def gen(torch, s):
            return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 5% of the voxels set to U[0, 60).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.05
        spikes = torch.rand(shape) * 60.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p58_convtranspose3d_logsumexp_hardswish_subtract_clamp",
        level=2,
        problem="58_ConvTranspose3d_LogSumExp_HardSwish_Subtract_Clamp",
        cuda=CUDA,
        kernel_name="convtranspose3d_logsumexp_hardswish_clamp_kernel",
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
                purpose="x = U[0,30) at 2 x 5 x 7 x 9 = 630 outputs, not a multiple of the 256-thread block, so "
                "the tail guard matters; OD, OH, OW all differ and are odd, so swapped strides or divisors and "
                "the border taps that fall outside the input show; the 30x scale spreads the logsumexp (2.70-2.81 "
                "on U[0,1)) over several units, so the outputs span about -0.2 to 0.57 here (against "
                "-0.174 to -0.155) and a wrong channel, tap, max, sum or HardSwish moves them beyond 1e-2",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(LARGE),
                seeds=[3, 4],
                sizes={"batch": 3, "depth": 6, "height": 10, "width": 12},
                purpose="x = U[0,100): same-sign large magnitudes, logsumexps up to ~30, so about 40% of the "
                "outputs reach the upper clamp bound 1 exactly (measured on the CPU) (a dropped or misplaced clamp shows), the "
                "logsumexp is dominated by the largest channel, so a wrong channel or tap shows, and the "
                "unclamped rest test the HardSwish's near-linear range",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 5, "height": 8, "width": 9},
                purpose="about 5% isolated U[0,60) spikes on exact zeros: an output sees 3 to 24 input values (1 to "
                "8 voxels of 3 channels, by the parity of its coordinates), so about 65% see no spike (the logsumexp "
                "of the 16 biases, one constant) and the rest depend on one or two specific taps: a wrong parity "
                "test, a transposed weight index, a swapped tap or a wrong channel stride moves them",
            ),
        ],
        notes="Degenerate at the official inputs (facts file: const-pass@1e-2, input-insensitive@1e-2): the "
        "16 channel values vary little with U[0,1) inputs, so the logsumexp stays within 2.70-2.81; measured "
        "on the CPU over the 5 official seeds, every output lies in -0.174..-0.155 (|out| mean 0.1625), a "
        "constant equal to the mean passes the 1e-2 check on 4 of the 5 seeds, and any two seeds' outputs "
        "agree within 0.011 (allclose distance < 1e-2). The targeted suites scale x up so the outputs move. "
        "The lower clamp bound -1 is never reached on any suite (the output is at least about -0.24), so "
        "mutants of it are equivalent. The local array holds the 16 output channels fixed by the weights (C_out is passed "
        "but must be 16). The reference runs ConvTranspose3d through cuDNN, perhaps with TF32 (the facts "
        "file measured this problem's reference within 1e-4 of fp64 on T0, where the outputs barely move); a "
        "CPU emulation of TF32 operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose "
        "distances of at most ~1.1e-3 on the targeted suites. Stride 2 and padding 1 are model constants "
        "passed as kernel arguments.",
    )
