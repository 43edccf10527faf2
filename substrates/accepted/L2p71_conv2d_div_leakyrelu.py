"""KernelBench level 2, problem 71_Conv2d_Divide_LeakyReLU: conv2d 8 -> 64 (3x3), / 2, LeakyReLU(0.01).

x is 128 x 8 x 128 x 128; the convolution has stride 1, no padding and its own bias, so the output
is 128 x 64 x 126 x 126 (130 M elements). The divisor is the Python int 2 (x / 2 is a true
division) and the LeakyReLU slope is 0.01; both are model constants, named in the kernel.

One kernel, one thread per output element (n, co, oh, ow) with ow fastest. Each thread loops over
the input channels and the 3x3 window (sizes taken from the weight's shape), accumulates in fp32,
then applies the fused epilogue: conv bias, division, LeakyReLU. Flat indices are 64-bit.

Cost: 130 M outputs x 72 multiply-adds = 9.4 G MAC (19 GFLOP), about 10 ms at the 2.6 TFLOP/s the
accepted L2p1 kernel reached (the output alone is 520 MB of stores); the cuDNN reference takes 1.6 ms.
"""

CUDA = r"""
extern "C" __global__ void conv2d_div_leakyrelu_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const float divisor = 2.0f;         // Model.divisor
    const float negative_slope = 0.01f; // leaky_relu(negative_slope=0.01)

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            for (int kw = 0; kw < KW; ++kw) {
                int ih = oh + kh;
                int iw = ow + kw;
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + conv_b[co];
    v = v / divisor;
    out[i] = v > 0.0f ? v : v * negative_slope;
}
"""

BLOCK = 256
IN_CHANNELS = 8       # fixed by the conv weight [64, 8, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(in_channels=8, out_channels=64, kernel_size=3, divisor=2): one nn.Conv2d.
        nn = torch.nn
        conv = nn.Conv2d(8, 64, 3)
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
        total = N * C_out * OH * OW
        return (
            "conv2d_div_leakyrelu_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
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
        y = y / 2
        return torch.nn.functional.leaky_relu(y, negative_slope=0.01)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 10): conv outputs of std about 3.4, half of them negative.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 10.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 3% of the pixels set to U[0, 10).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.03
        spikes = torch.rand(shape) * 10.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p71_conv2d_div_leakyrelu",
        level=2,
        problem="71_Conv2d_Divide_LeakyReLU",
        cuda=CUDA,
        kernel_name="conv2d_div_leakyrelu_kernel",
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
                purpose="output 3 x 64 x 11 x 15 = 31680 elements, not a multiple of the 256-thread block, so the "
                "tail block's guard matters; OH=11 != OW=15 and neither a power of two, so swapped H/W strides, "
                "a wrong output-width divisor or an off-by-one window bound change the result",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 64, "width": 96},
                purpose="same-sign U[0,10) inputs (x10): conv outputs of std about 3.4 over -15..+14, half of "
                "them negative, so the negative branch gives outputs down to about -0.08 and a wrong slope, a "
                "dropped division or a flipped comparison moves them by far more than 1e-2, while positive "
                "outputs reach about 7; with only 72 taps the TF32 reference stays close: a CPU emulation of "
                "TF32 rounding (round-to-nearest and truncation) puts it at an allclose distance of about 2e-3 "
                "from the exact result, 5x inside 1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 33, "width": 40},
                purpose="about 3% isolated U[0,10) spikes on exact zeros (about 2 of the 72 taps of a window): "
                "without the large mean of U[0,1) inputs each output depends on a few specific taps, so kh/kw "
                "swaps, transposed weights or wrong channel strides show; about 11% of the windows hold no "
                "spike and give exactly leaky_relu(conv_bias / 2), isolating the epilogue",
            ),
        ],
        notes="Exact fp32 convolution; the reference's cuDNN convolution may use TF32 (allowed by default): "
        "with 72 taps per output a CPU emulation of TF32 rounding stays about 2e-4 from the exact result on "
        "the official inputs and 2e-3 on the x10 suite, so suites pass at the v0.1 tolerance 1e-2. "
        "LeakyReLU is written as v > 0 ? v : v * 0.01, which agrees with torch for every finite input.",
    )
