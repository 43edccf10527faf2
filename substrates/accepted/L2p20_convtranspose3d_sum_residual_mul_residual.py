"""KernelBench level 2, problem 20_ConvTranspose3d_Sum_ResidualAdd_Multiply_ResidualAdd.

ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1) with bias, then with
original = conv output (a detached clone): v = original + bias[co] (bias is a (64, 1, 1, 1)
nn.Parameter), v = v + original, v = v * original, v = v + original. x is 16 x 32 x 16 x 32 x 32;
each output size is (S - 1) * 2 - 2 * 1 + 3 + 1 = 2S, so the output is 16 x 64 x 32 x 64 x 64
(134 M elements; flat indices and offsets are 64-bit).

One kernel, one thread per output element (n, co, od, oh, ow) with ow fastest, in gather form: an
input voxel (id, ih, iw) feeds output (id * stride - pad + kd, ...), so the thread visits every tap
(kd, kh, kw), keeps it only where od + pad - kd (likewise for h and w) is a non-negative multiple of
the stride whose quotient lies inside the input, and sums x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw]
over the input channels (the ConvTranspose3d weight is [C_in, C_out, KD, KH, KW]) in fp32. The
epilogue keeps the conv output (plus conv bias) as `original` and applies the four steps in the
model's order. Stride and padding are model constants passed as kernel arguments; output_padding only
sets the output size.

The block has 192 threads (6 warps), not 256: every output count of this problem is
N * 64 * 2D * 2H * 2W, a multiple of 512, so a 256-thread block would never leave a partial tail
block and the bounds guard and the ceil-division could never matter; with 192 a tail remains unless
3 divides N * D * H * W (none of the suites, nor the official 16 x 16 x 32 x 32).

Cost: 134 M outputs; about 3.4 of the 27 taps hit per output (108 multiply-adds), but neighbouring
threads of a warp alternate kw parity, so a warp steps through about 2.25 x 3 = 6.75 taps x 32
channels: about 29 G MAC slots, roughly 25-40 ms per forward on an H200 at the 2-2.6 TFLOP/s of the
accepted L2p1 naive conv (cuDNN reference: 2.75 ms).
"""

CUDA = r"""
extern "C" __global__ void convtranspose3d_sum_residual_mul_residual_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [C_out, 1, 1, 1]
    float* __restrict__ out,            // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad)
{
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

    float original = acc + conv_b[co];      // original_x = x.clone().detach()
    float v = original + bias[co];          // x = x + self.bias
    v = v + original;                       // x = x + original_x
    v = v * original;                       // x = x * original_x
    v = v + original;                       // x = x + original_x
    out[i] = v;
}
"""

BLOCK = 192           # 6 warps; see the docstring for why not 256
STRIDE = 2            # ConvTranspose3d(stride=2, padding=1, output_padding=1)
PADDING = 1
OUTPUT_PADDING = 1
IN_CHANNELS = 32      # fixed by the weight [32, 64, 3, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(32, 64, 3, 2, 1, 1, bias_shape=(64, 1, 1, 1)): nn.ConvTranspose3d, then
        # self.bias = nn.Parameter(torch.randn(bias_shape)).
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(32, 64, 3, stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING)
        bias = nn.Parameter(torch.randn((64, 1, 1, 1)))
        return {"w": conv_t.weight, "b": conv_t.bias, "bias": bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD + OUTPUT_PADDING
        OH = (H - 1) * STRIDE - 2 * PADDING + KH + OUTPUT_PADDING
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW + OUTPUT_PADDING
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OD * OH * OW
        return (
            "convtranspose3d_sum_residual_mul_residual_kernel",
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
        y = torch.nn.functional.conv_transpose3d(
            x, w["w"], w["b"], stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING
        )
        original = y.clone().detach()
        y = y + w["bias"]
        y = y + original
        y = y * original
        y = y + original
        return y

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): conv outputs of std about 0.32 over about -1.7..+1.7.
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the voxels set to U[0, 20).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 20.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p20_convtranspose3d_sum_residual_mul_residual",
        level=2,
        problem="20_ConvTranspose3d_Sum_ResidualAdd_Multiply_ResidualAdd",
        cuda=CUDA,
        kernel_name="convtranspose3d_sum_residual_mul_residual_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "depth": K.dim(16),
            "height": K.dim(32),
            "width": K.dim(32),
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
                "parity test or a wrong padding shows; OD, OH, OW all differ, so swapped axes show; "
                "official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 5, "height": 11, "width": 13},
                purpose="same-sign U[0,4) inputs (x4): conv outputs of std about 0.32 over about -1.7..+1.7 "
                "(0.08 on the official inputs), so the quadratic term 2 * original^2 matters as much as "
                "the linear one and outputs reach about 9 (std 0.49): a dropped residual add, a wrong "
                "product or a bias/channel mix-up moves them far beyond 1e-2; kept at x4 because the "
                "epilogue squares the TF32 conv error's relative size: a CPU emulation of TF32 rounding "
                "puts the reference within 1.3e-3 (round-to-nearest) to 2.1e-3 (truncation) of the exact "
                "result (x8 would reach 4e-3)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 7, "height": 8, "width": 10},
                purpose="about 1% isolated U[0,20) spikes on exact zeros (about one of the ~108 live terms "
                "of an output): each spike lands on the 3 x 3 x 3 block of outputs its taps reach, with a "
                "different weight at each, so a flipped kernel, a wrong stride/parity test, a wrong "
                "padding offset or an [C_out, C_in] weight transpose moves outputs (up to about 5.7) by "
                "far more than 1e-2; outputs without a spike are exactly (2 * conv_b + bias) * conv_b + "
                "conv_b, isolating the epilogue; spikes are capped at 20 because with one or two terms "
                "per output TF32's relative error does not average out (U[0,40) spikes put the emulated "
                "reference 4.6e-3 from the exact result; U[0,20) keeps it within 2e-3)",
            ),
        ],
        notes="The reference runs nn.ConvTranspose3d through cuDNN with TF32 enabled (torch's default, never "
        "changed by the harness; Appendix B flags it ref != exact at 1e-4), so this exact fp32 kernel "
        "differs from the reference beyond 1e-4 but passes the v0.1 tolerance 1e-2. The epilogue computes "
        "(2 * original + bias) * original + original, so the output is quadratic in the conv output and "
        "the TF32 error's relative size roughly doubles: large-magnitude suites stay modest. On the "
        "official inputs the conv outputs are small (std 0.08) and the output is nearly linear in them "
        "(about (bias + 1) * original), |out| up to about 1.5.",
    )
