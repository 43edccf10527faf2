"""KernelBench level 2, problem 4_Conv2d_Mish_Mish: conv2d 64 -> 128 (3x3), then Mish applied twice.

x is 64 x 64 x 256 x 256; the convolution has stride 1, no padding and its own bias, so the output
is 64 x 128 x 254 x 254 (528 M elements, under 2^31; flat indices and offsets are 64-bit anyway).
Mish is x * tanh(softplus(x)) with softplus(x) = log1p(exp(x)), as torch computes it (no threshold).

One kernel, one thread per output element (n, co, oh, ow) with ow fastest. Each thread loops over
the input channels and the 3x3 window (sizes taken from the weight's shape), accumulates in fp32,
then applies the fused epilogue: conv bias, Mish, Mish. Each Mish is written out in full so that
each has its own sites.

Cost: 528 M outputs x 576 multiply-adds = 304 G MAC (609 GFLOP). The accepted L2p1 kernel (the same
loop, 300 GFLOP) ran 117 ms on an H200 (about 2.6 TFLOP/s), so one forward here should take about
0.25 s (the cuDNN reference takes 7.4 ms).
"""

CUDA = r"""
extern "C" __global__ void conv2d_mish_mish_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
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

    // First Mish: v * tanh(log1p(exp(v))).
    float sp1 = log1pf(expf(v));
    v = v * tanhf(sp1);

    // Second Mish on the result of the first.
    float sp2 = log1pf(expf(v));
    v = v * tanhf(sp2);

    out[i] = v;
}
"""

BLOCK = 256
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
        total = N * C_out * OH * OW
        return (
            "conv2d_mish_mish_kernel",
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
        "still gives v (tanh(inf) = 1).",
    )
