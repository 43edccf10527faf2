"""KernelBench level 1, problem 50_conv_standard_2D__square_input__square_kernel: AlexNet's first conv.

nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2) with bias on x = 256 x 3 x 224 x 224; the
output is 256 x 96 x 55 x 55 (74 M elements), OH = (H + 2 * 2 - 11) / 4 + 1 (floor). Model's
__init__ takes num_classes=1000 (get_init_inputs() = [1000]) and never uses it: the conv is the
only module and draws the only parameters (weight, then bias).

One kernel, one thread per output element (n, co, oh, ow) with ow fastest. Each thread loops over
the input channels and the 11 x 11 window (sizes taken from the weight's shape); a tap at
ih = oh * stride - pad + kh (likewise iw) outside the input is skipped (zero padding); fp32
accumulation, then the conv bias. Stride and padding are model constants passed as kernel
arguments. Flat indices and offsets are 64-bit.

Cost: 74 M outputs x 363 multiply-adds = 27 G MAC (54 GFLOP); at 1-3 TFLOP/s for a naive fp32
conv about 20-55 ms per forward on an H200 (cuDNN reference: 2.08 ms).
"""

CUDA = r"""
extern "C" __global__ void conv2d_alexnet_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ b,        // [C_out]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
{
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
            int ih = oh * stride - pad + kh;
            if (ih < 0 || ih >= H) continue;        // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow * stride - pad + kw;
                if (iw < 0 || iw >= W) continue;    // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }
    out[i] = acc + b[co];
}
"""

BLOCK = 256
IN_CHANNELS = 3       # fixed by the conv weight [96, 3, 11, 11]
STRIDE = 4            # nn.Conv2d(3, 96, kernel_size=11, stride=4, padding=2)
PADDING = 2
KERNEL = 11


def register(K, torch, ctypes):
    def build(torch):
        # Model(num_classes=1000).__init__: self.conv1 = nn.Conv2d(3, 96, 11, stride=4, padding=2)
        # (with bias); num_classes is stored nowhere and draws nothing.
        conv1 = torch.nn.Conv2d(in_channels=3, out_channels=96, kernel_size=11, stride=STRIDE, padding=PADDING)
        return {"w": conv1.weight, "b": conv1.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w["w"].shape
        OH = (H + 2 * PADDING - KH) // STRIDE + 1
        OW = (W_in + 2 * PADDING - KW) // STRIDE + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OH * OW
        return (
            "conv2d_alexnet_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], out],
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
        return torch.nn.functional.conv2d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, 224, 224)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 8): conv outputs and the TF32 reference's error grow about 8x.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 8.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 16).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p50_conv2d_alexnet",
        level=1,
        problem="50_conv_standard_2D__square_input__square_kernel",
        cuda=CUDA,
        kernel_name="conv2d_alexnet_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(256),
            "height": K.dim(224, min=KERNEL - 2 * PADDING),
            "width": K.dim(224, min=KERNEL - 2 * PADDING),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 31, "width": 42},
                small=True,
                purpose="output 3 x 96 x 7 x 9 = 18144 = 70 blocks of 256 + 224, so the tail block's guard matters; "
                "H = 31 makes the last window end at ih = 32 = H + 1 (both bottom padding rows are taps) while "
                "W = 42 leaves the last 3 input columns outside every window (the floor in OW), and with 7 x 9 "
                "outputs about 37% of the windows overlap the zero padding, so a dropped or shifted "
                "padding guard, a wrong pad or stride, swapped H/W (OH != OW) or a ceil in the output size "
                "shows; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 64, "width": 81},
                purpose="same-sign U[0,8) inputs (x8): outputs of std about 2.6 up to about 10.5, so a dropped "
                "input channel, a lost row of taps, a truncated accumulator or a dropped bias moves outputs far "
                "beyond 1e-2; kept at x8 because the reference convolution is TF32: a CPU emulation of TF32 "
                "rounding (round-to-nearest and truncation) puts the reference within about 3e-3 of the exact "
                "result here (4.5e-4 on the official inputs); 64 and 81 give 15 x 19 outputs with (H + 4 - 11) % 4 = 1 "
                "as in the official 224 and 2 for the width",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 63, "width": 56},
                purpose="about 1% isolated U[0,16) spikes on exact zeros (about 3.6 of the 363 taps of a window): "
                "without the large mean of U[0,1) inputs each output depends on a few specific taps, so kh/kw "
                "swaps, a transposed or flipped kernel, a wrong channel stride or a tap shifted by the stride or "
                "the padding shows; about 3% of the windows hold no spike and give exactly the bias; "
                "H = 63 (rem 0: two bottom padding rows used) and W = 56 (rem 1), output 15 x 13",
            ),
        ],
        notes="The reference runs nn.Conv2d through cuDNN with TF32 enabled (torch's default, never changed by "
        "the harness; Appendix A flags this problem ref != exact at 1e-4), so this exact fp32 kernel differs "
        "from the reference beyond 1e-4 but passes the v0.1 tolerance 1e-2; the large-magnitude suites stay "
        "modest for that reason. get_init_inputs() = [1000] is Model's num_classes, which the model ignores. "
        "On the official 224 x 224 input the last window row ends at ih = 224 (one bottom padding row used); "
        "the 74 M outputs are an exact multiple of the 256-thread block, so only T1 exercises the tail guard.",
    )
