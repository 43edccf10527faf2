"""KernelBench level 2, problem 5_ConvTranspose2d_Subtract_Tanh: tanh(conv_transpose2d(x) - bias).

x is 32 x 64 x 256 x 256. The transposed convolution is 64 -> 64 channels, 4 x 4 kernel, stride 2,
padding 1, output_padding 1, with its own bias, so the output is 32 x 64 x 513 x 513
(OH = (H - 1) * 2 - 2 * 1 + 4 + 1 = 2H + 1). The extra bias has shape (64, 1, 1) and broadcasts over
H and W.

One kernel in gather form, one thread per output element (n, co, oh, ow) with ow fastest. Each
thread walks the 4 x 4 kernel window; a tap (kh, kw) contributes only where oh + padding - kh is a
non-negative multiple of the stride whose quotient ih lies inside the input (likewise iw), and then
sums x[n, ci, ih, iw] * w[ci, co, kh, kw] over the 64 input channels (ConvTranspose2d weights are
[C_in, C_out, KH, KW]). fp32 accumulation, then the fused epilogue: conv bias, minus the extra
bias, tanhf. The output has 539 M elements (under 2^31), but flat indices and offsets are 64-bit.

Cost: 539 M outputs x 256 live taps x 2 = 276 GFLOP; the stride-2 parity makes half of each warp
idle per tap, so at ~1-3 TFLOP/s effective about 0.1-0.3 s on an H200 (cuDNN reference 7.55 ms).
"""

CUDA = r"""
const int STRIDE = 2;       // ConvTranspose2d stride
const int PADDING = 1;      // ConvTranspose2d padding (output_padding only enlarges OH/OW, computed on the host)

extern "C" __global__ void convtranspose2d_sub_tanh_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [C_out, 1, 1]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    float acc = 0.0f;
    for (int kh = 0; kh < KH; ++kh) {
        int ih_num = oh + PADDING - kh;         // = ih * STRIDE for a contributing input row
        if (ih_num < 0) continue;
        if (ih_num % STRIDE != 0) continue;
        int ih = ih_num / STRIDE;
        if (ih >= H) continue;
        for (int kw = 0; kw < KW; ++kw) {
            int iw_num = ow + PADDING - kw;     // = iw * STRIDE for a contributing input column
            if (iw_num < 0) continue;
            if (iw_num % STRIDE != 0) continue;
            int iw = iw_num / STRIDE;
            if (iw >= W) continue;
            for (int ci = 0; ci < C_in; ++ci) {
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)ci * C_out + co) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + conv_b[co];
    v = v - bias[co];
    out[i] = tanhf(v);
}
"""

BLOCK = 256
IN_CHANNELS = 64          # fixed by the weight [64, 64, 4, 4]
STRIDE = 2                # must equal the CUDA constants
PADDING = 1
OUTPUT_PADDING = 1


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 64, 4, (64, 1, 1)) with the defaults stride=2, padding=1, output_padding=1
        nn = torch.nn
        conv_transpose = nn.ConvTranspose2d(64, 64, 4, stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING)
        bias = nn.Parameter(torch.randn((64, 1, 1)))
        return {"conv_w": conv_transpose.weight, "conv_b": conv_transpose.bias, "bias": bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        _, C_out, KH, KW = w["conv_w"].shape
        OH = (H - 1) * STRIDE - 2 * PADDING + KH + OUTPUT_PADDING
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW + OUTPUT_PADDING
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OH * OW
        return (
            "convtranspose2d_sub_tanh_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
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
        y = torch.nn.functional.conv_transpose2d(
            x, w["conv_w"], w["conv_b"], stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING
        )
        y = y - w["bias"]
        return torch.tanh(y)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): transposed-conv outputs (and the TF32 reference's error) grow about 4x.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 4).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 4.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p5_convtranspose2d_sub_tanh",
        level=2,
        problem="5_ConvTranspose2d_Subtract_Tanh",
        cuda=CUDA,
        kernel_name="convtranspose2d_sub_tanh_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(32),
            "height": K.dim(256),
            "width": K.dim(256),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 7, "width": 10},
                small=True,
                purpose="output 2 x 64 x 15 x 21 = 40320 elements, not a multiple of the 256-thread block, so the "
                "tail block's guard matters; OH=15 != OW=21 and both odd, so swapped H/W strides, a wrong "
                "output-width divisor, a wrong stride-parity test or a dropped ih < H / iw < W bound (the "
                "output_padding row and column at 2H and 2W get their only taps from kh = 3 / kw = 3, and "
                "kh = 1 would read row H) change the result",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 24, "width": 40},
                purpose="same-sign U[0,4) inputs (x4): pre-activations of std ~0.7 before the N(0,1) bias, so "
                "accumulation and epilogue faults move the tanh well off its saturation; the reference "
                "transposed convolution is TF32 (10-bit mantissa), whose error grows linearly with the input "
                "scale: a CPU emulation of TF32 rounding (round-to-nearest and truncation) gave allclose "
                "distances to the exact result of 1.7e-4 / 5e-4 at x1, 8.3e-4 / 1.5e-3 at x4 and "
                "1.5e-3 / 2.5e-3 at x8, so x4 keeps a correct fp32 kernel (and the fp32 reference against "
                "fp64) about 7x inside 1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 20, "width": 23},
                purpose="about 1% isolated U[0,4) spikes on exact zeros (about 2.5 of the 256 live taps of an "
                "output): without the large mean of U[0,1) inputs each output depends on a few specific "
                "(ci, kh, kw) taps, so kh/kw swaps, a flipped kernel (kh instead of KH - 1 - kh), transposed "
                "C_in/C_out weight strides or wrong channel strides show; about 8% of the outputs see no "
                "spike and equal exactly tanh(conv_bias - bias), isolating the epilogue",
            ),
        ],
        notes="The reference runs nn.ConvTranspose2d through cuDNN with TF32 enabled (torch's default, never "
        "changed by the harness), so this exact fp32 kernel differs from the reference beyond 1e-4 on the "
        "official inputs (facts file: ref != exact at 1e-4) but passes the v0.1 tolerance 1e-2. "
        "Large-magnitude suites must stay modest for the same reason; tanh (slope <= 1) never amplifies "
        "the error. Stride and padding are CUDA constants; output_padding only sets OH/OW on the host. "
        "Only batch, height and width are declared; channels and the 4x4 kernel are fixed by the weights.",
    )
