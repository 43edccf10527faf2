"""KernelBench level 2, problem 26_ConvTranspose3d_Add_HardSwish (two inputs: x and add_input).

ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1) with bias, y = conv + add_input,
out = y * hardswish(y) (= y * y * min(max(y + 3, 0), 6) / 6). x is 128 x 32 x 16 x 16 x 16 and
add_input 128 x 64 x 32 x 32 x 32; each output size is (S - 1) * 2 - 2 * 1 + 3 + 1 = 2S, so the output
is 128 x 64 x 32 x 32 x 32 (268 M elements; flat indices and offsets are 64-bit). Model.__init__ also
draws self.bias = nn.Parameter(torch.randn(64, 1, 1, 1, 1)) after the convolution, but forward never
uses it: the builder draws it (the RNG order must match) and nothing reads it.

One kernel, one thread per output element (n, co, od, oh, ow) with ow fastest, in gather form: an
input voxel (id, ih, iw) feeds output (id * stride - pad + kd, ...), so the thread visits every tap
(kd, kh, kw), keeps it only where od + pad - kd (likewise for h and w) is a non-negative multiple of
the stride whose quotient lies inside the input, and sums x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw]
over the input channels (the ConvTranspose3d weight is [C_in, C_out, KD, KH, KW]) in fp32. The
epilogue adds the conv bias and add_input at the same flat index (add_input has the output's shape),
then y * hardswish(y). Stride and padding are model constants passed as kernel arguments;
output_padding only sets the output size.

The block has 192 threads (6 warps), not 256: every output count of this problem is
N * 64 * 2D * 2H * 2W, a multiple of 512, so a 256-thread block would never leave a partial tail
block and the bounds guard and the ceil-division could never matter; with 192 a tail remains unless
3 divides N * D * H * W (none of the suites, nor the official 128 x 16 x 16 x 16).

Cost: 268 M outputs; about 3.4 of the 27 taps hit per output (108 multiply-adds), but neighbouring
threads of a warp alternate kw parity, so a warp steps through about 6.75 taps x 32 channels: about
58 G MAC slots plus 2.1 GB of add_input reads and output writes, roughly 50-80 ms per forward on an
H200 at the 2-2.6 TFLOP/s of the accepted L2p1 naive conv (cuDNN reference: 4 ms).
"""

CUDA = r"""
extern "C" __global__ void convtranspose3d_add_hardswish_kernel(
    const float* __restrict__ x,            // [N, C_in, D, H, W]
    const float* __restrict__ w,            // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,       // [C_out]
    const float* __restrict__ add_input,    // [N, C_out, OD, OH, OW]
    float* __restrict__ out,                // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad)
{
    const float hs_offset = 3.0f;           // hardswish(y) = y * min(max(y + 3, 0), 6) / 6
    const float hs_cap = 6.0f;

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OD * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int od = (int)((i / ((long long)OW * OH)) % OD);
    int co = (int)((i / ((long long)OW * OH * OD)) % C_out);
    int n = (int)(i / ((long long)OW * OH * OD * C_out));

    float acc = 0.0f;
    for (int kd = 0; kd < KD; ++kd) {
        int td = od + pad - kd;                     // = id * stride when the tap hits
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

    float y = acc + conv_b[co];
    y = y + add_input[i];
    float gate = fminf(fmaxf(y + hs_offset, 0.0f), hs_cap);
    float hs = y * gate / hs_cap;           // hardswish(y)
    out[i] = y * hs;
}
"""

BLOCK = 192           # 6 warps; see the docstring for why not 256
STRIDE = 2            # ConvTranspose3d(stride=2, padding=1, output_padding=1)
PADDING = 1
OUTPUT_PADDING = 1
IN_CHANNELS = 32      # fixed by the weight [32, 64, 3, 3, 3]
OUT_CHANNELS = 64


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(32, 64, 3, 2, 1, 1, bias_shape=(64, 1, 1, 1, 1)): nn.ConvTranspose3d, then
        # self.bias = nn.Parameter(torch.randn(bias_shape)), which forward never uses.
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(32, 64, 3, stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING)
        unused_bias = nn.Parameter(torch.randn((64, 1, 1, 1, 1)))
        return {"w": conv_t.weight, "b": conv_t.bias, "unused_bias": unused_bias}

    W = K.weights(build)

    def launch(inputs, torch):
        x, add_input = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD + OUTPUT_PADDING
        OH = (H - 1) * STRIDE - 2 * PADDING + KH + OUTPUT_PADDING
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW + OUTPUT_PADDING
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OD * OH * OW
        return (
            "convtranspose3d_add_hardswish_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], add_input, out],
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
        x, add_input = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose3d(
            x, w["w"], w["b"], stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING
        )
        y = y + add_input
        return y * torch.nn.functional.hardswish(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, D, H, W),
        #                torch.rand(batch_size, out_channels, D*stride, H*stride, W*stride)]
        b, d, h, w_ = s["batch"], s["depth"], s["height"], s["width"]
        return [
            torch.rand(b, IN_CHANNELS, d, h, w_),
            torch.rand(b, OUT_CHANNELS, d * STRIDE, h * STRIDE, w_ * STRIDE),
        ]

    def clamp_inputs(torch, s):
        # x same-sign U[0, 4); add_input U[-5, 5), which reaches past both HardSwish kinks.
        b, d, h, w_ = s["batch"], s["depth"], s["height"], s["width"]
        x = torch.rand(b, IN_CHANNELS, d, h, w_) * 4.0
        add_input = torch.rand(b, OUT_CHANNELS, d * STRIDE, h * STRIDE, w_ * STRIDE) * 10.0 - 5.0
        return [x, add_input]

    def spiky_inputs(torch, s):
        # x: exact zeros with about 1% of the voxels set to U[0, 30); add_input: U[0, 1) as officially.
        b, d, h, w_ = s["batch"], s["depth"], s["height"], s["width"]
        shape = (b, IN_CHANNELS, d, h, w_)
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 30.0
        x = torch.where(mask, spikes, torch.zeros(shape))
        add_input = torch.rand(b, OUT_CHANNELS, d * STRIDE, h * STRIDE, w_ * STRIDE)
        return [x, add_input]

    return K.substrate(
        name="L2p26_convtranspose3d_add_hardswish",
        level=2,
        problem="26_ConvTranspose3d_Add_HardSwish",
        cuda=CUDA,
        kernel_name="convtranspose3d_add_hardswish_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "depth": K.dim(16),
            "height": K.dim(16),
            "width": K.dim(16),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 4, "height": 5, "width": 7},
                small=True,
                purpose="output 2 x 64 x 8 x 10 x 14 = 143360 = 746 blocks of 192 + 128, so the tail block's "
                "guard matters; with D=4, H=5, W=7 the first output slice/row/column of each axis (whose "
                "k=2 tap falls before the input) and the last (output_padding: its k=0 tap falls past "
                "the input) make up nearly half of the output, so a dropped or shifted bound, a wrong "
                "parity test or a wrong padding shows; OD, OH, OW all differ, so swapped axes (in the "
                "gather or in the add_input offset) show; official U[0,1) values for both inputs",
            ),
            K.suite(
                "T2_large_both_kinks",
                clamp_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 5, "height": 11, "width": 13},
                purpose="x same-sign U[0,4) (conv outputs of std about 0.32 instead of 0.08) and add_input "
                "U[-5,5): add_input is added once, not accumulated, so its sign costs no cancellation; "
                "y spans about -6.4..6.5 with about 20% below -3 (HardSwish gate 0: output exactly 0) "
                "and 20% above 3 (gate 1: output y^2, up to about 42), so both clamps, the offset 3 and "
                "the divisor 6 are exercised, none of which the official inputs reach (y stays in about "
                "-0.4..1.4 there); a CPU emulation of TF32 rounding (round-to-nearest and truncation) "
                "puts the reference within 1.4e-3 of the exact result",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 7, "height": 8, "width": 10},
                purpose="x: about 1% isolated U[0,30) spikes on exact zeros (about one of the ~108 live terms "
                "of an output), add_input U[0,1): each spike lands on the 3 x 3 x 3 block of outputs its "
                "taps reach, with a different weight at each, so a flipped kernel, a wrong stride/parity "
                "test, a wrong padding offset or an [C_out, C_in] weight transpose moves outputs (up to "
                "about 9) far beyond 1e-2, while outputs without a spike isolate conv bias + add_input; "
                "spikes are capped at 30 because with one or two terms per output TF32's relative error "
                "does not average out (U[0,50) spikes put the emulated reference 4.1e-3 from the exact "
                "result with truncation; U[0,30) keeps it within 1.6e-3)",
            ),
        ],
        notes="The reference runs nn.ConvTranspose3d through cuDNN with TF32 enabled (torch's default, never "
        "changed by the harness; Appendix B flags it ref != exact at 1e-4), so this exact fp32 kernel "
        "differs from the reference beyond 1e-4 but passes the v0.1 tolerance 1e-2. Model.bias (64, 1, 1, "
        "1, 1) is created (and drawn from the RNG) but never used by forward; the substrate builds it for "
        "the RNG order and passes it nowhere. On the official inputs y = conv + add_input lies in about "
        "-0.4..1.4, so neither HardSwish clamp acts there: faults in the clamp branches or the offset "
        "show only on T2. HardSwish is y * min(max(y + 3, 0), 6) / 6, as torch computes it.",
    )
