"""KernelBench level 2, problem 16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling.

ConvTranspose2d(64, 64, 3, stride=2, padding=1, output_padding=1) with bias, Mish, + 0.5,
Hardtanh(-1, 1), * 2. x is 128 x 64 x 128 x 128; the output size is (H - 1) * 2 - 2 * 1 + 3 + 1 = 2H,
so the output is 128 x 64 x 256 x 256 (537 M elements; flat indices and offsets are 64-bit).

One kernel, one thread per output element (n, co, oh, ow) with ow fastest, in gather form: an input
pixel (ih, iw) feeds output (ih * stride - pad + kh, iw * stride - pad + kw), so the thread visits
every tap (kh, kw), keeps it only where oh + pad - kh (and ow + pad - kw) is a non-negative multiple
of the stride whose quotient lies inside the input, and sums x[n, ci, ih, iw] * w[ci, co, kh, kw] over
the input channels (the ConvTranspose2d weight is [C_in, C_out, KH, KW]) in fp32. Then the fused
epilogue: bias, Mish (v * tanh(log1p(exp(v))), as torch), + 0.5, clamp to [-1, 1], * 2. Stride and
padding are model constants passed as kernel arguments; output_padding only sets the output size.

The block has 192 threads (6 warps), not 256: every output count of this problem is N * 64 * 2H * 2W,
a multiple of 256, so a 256-thread block would never leave a partial tail block and the bounds guard
and the ceil-division could never matter; with 192 a tail remains unless 3 divides N * H * W (none of
the suites, nor the official 128 x 128 x 128).

Cost: 537 M outputs; about 2.25 of the 9 taps hit per output (144 multiply-adds), but neighbouring
threads of a warp alternate kw parity, so a warp steps through about 4.5 taps x 64 channels: about
155 G MAC slots, roughly 0.1-0.15 s per forward on an H200 at the 2-2.6 TFLOP/s of the accepted L2p1
naive conv (cuDNN reference: 8.4 ms).
"""

CUDA = r"""
extern "C" __global__ void convtranspose2d_mish_add_hardtanh_scale_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
{
    const float add_value = 0.5f;       // Model.add_value
    const float ht_min = -1.0f;         // hardtanh(min_val=-1, max_val=1)
    const float ht_max = 1.0f;
    const float scale = 2.0f;           // Model.scale

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    float acc = 0.0f;
    for (int kh = 0; kh < KH; ++kh) {
        int th = oh + pad - kh;                     // = ih * stride when the tap hits
        if (th < 0 || th % stride != 0) continue;
        int ih = th / stride;
        if (ih >= H) continue;
        for (int kw = 0; kw < KW; ++kw) {
            int tw = ow + pad - kw;                 // = iw * stride when the tap hits
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

    // Mish: v * tanh(log1p(exp(v))).
    float sp = log1pf(expf(v));
    v = v * tanhf(sp);

    v = v + add_value;
    v = fminf(fmaxf(v, ht_min), ht_max);
    out[i] = v * scale;
}
"""

BLOCK = 192           # 6 warps; see the docstring for why not 256
STRIDE = 2            # ConvTranspose2d(stride=2, padding=1, output_padding=1)
PADDING = 1
OUTPUT_PADDING = 1
IN_CHANNELS = 64      # fixed by the weight [64, 64, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 64, 3, 2, 1, 1, add_value=0.5, scale=2): one nn.ConvTranspose2d.
        nn = torch.nn
        conv_t = nn.ConvTranspose2d(64, 64, 3, STRIDE, PADDING, OUTPUT_PADDING)
        return {"w": conv_t.weight, "b": conv_t.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        _, C_out, KH, KW = w["w"].shape
        OH = (H - 1) * STRIDE - 2 * PADDING + KH + OUTPUT_PADDING
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW + OUTPUT_PADDING
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OH * OW
        return (
            "convtranspose2d_mish_add_hardtanh_scale_kernel",
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
        y = torch.nn.functional.conv_transpose2d(
            x, w["w"], w["b"], stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING
        )
        y = torch.nn.functional.mish(y)
        y = y + 0.5
        y = torch.nn.functional.hardtanh(y, min_val=-1, max_val=1)
        return y * 2

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): conv outputs of std about 0.67 over about -3.3..+4.1.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 16).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p16_convtranspose2d_mish_add_hardtanh_scale",
        level=2,
        problem="16_ConvTranspose2d_Mish_Add_Hardtanh_Scaling",
        cuda=CUDA,
        kernel_name="convtranspose2d_mish_add_hardtanh_scale_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(128),
            "width": K.dim(128),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 5, "width": 7},
                small=True,
                purpose="output 2 x 64 x 10 x 14 = 17920 = 93 blocks of 192 + 64, so the tail block's guard "
                "matters; with H=5 and W=7 the first output row/column (whose kh=2/kw=2 tap falls before the "
                "input) and the last (output_padding: its kh=0/kw=0 tap falls past the input) hold about "
                "30% of the output, so a dropped or shifted bound, a wrong parity test or a wrong padding "
                "shows; OH=10 != OW=14 catches swapped H/W indexing; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 20, "width": 26},
                purpose="same-sign U[0,4) inputs (x4): conv outputs of std about 0.67 over about -3.3..+4.1 "
                "(std 0.17 on the official inputs), so the epilogue covers Mish's negative dip, its middle "
                "and the upper Hardtanh clamp (about 14% of the outputs at 2, the rest spread over "
                "0.38..2, std 0.55) instead of sitting near 1; with about 144 terms per output a CPU "
                "emulation of TF32 rounding (round-to-nearest and truncation) puts the reference within "
                "about 8e-4 of the exact result",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 17, "width": 11},
                purpose="about 1% isolated U[0,16) spikes on exact zeros (about 1.4 of the ~144 live terms "
                "of an output): each spike lands on the 3 x 3 block of outputs its taps reach, with a "
                "different weight at each, so a flipped kernel, a wrong stride/parity test, a wrong "
                "padding offset or an [C_out, C_in] weight transpose moves outputs by up to about 1; "
                "outputs without a spike give exactly 2 * (mish(conv_bias) + 0.5), isolating the epilogue "
                "constants; the TF32 reference stays within about 6e-4 of the exact result",
            ),
        ],
        notes="The reference runs nn.ConvTranspose2d through cuDNN with TF32 enabled (torch's default, never "
        "changed by the harness; Appendix B flags it ref != exact at 1e-4), so this exact fp32 kernel "
        "differs from the reference beyond 1e-4 but passes the v0.1 tolerance 1e-2. The lower Hardtanh "
        "bound never acts: Mish is at least -0.309, so mish(v) + 0.5 >= 0.19 > -1 and outputs lie in "
        "[0.38, 2]; mutants of ht_min (or dropping the fmaxf) are equivalent on every input. On the "
        "official inputs conv outputs have std 0.17 and outputs sit near 1 (std about 0.2, about 0.2% clamped "
        "at 2). Mish is v * tanhf(log1pf(expf(v))) like torch.",
    )
