"""KernelBench level 1, problem 77: ConvTranspose3d 32 -> 64, kernel 3, stride 2, padding 1, dilation 2.

Model(32, 64, 3, 2, 1, 2) builds nn.ConvTranspose3d(32, 64, (3, 3, 3), stride=2, padding=1,
dilation=2, bias=False) (Model's default bias=False; no output_padding), whose weight
[32, 64, 3, 3, 3] = [C_in, C_out, KD, KH, KW] is the only parameter. x = torch.rand(16, 32, 16, 32,
32); each output size is (S - 1) * 2 - 2 * 1 + 2 * (3 - 1) + 1 = 2 S + 1, so the output is
16 x 64 x 33 x 65 x 65 (143 M elements; flat indices and offsets are 64-bit).

One kernel, one thread per output element (n, co, od, oh, ow) with ow fastest, in gather form: an
input voxel (id, ih, iw) feeds output (id * stride - pad + kd * dilation, ...), so the thread visits
every tap (kd, kh, kw), keeps it only where od + pad - kd * dilation (likewise for h and w) is a
non-negative multiple of the stride whose quotient lies inside the input, and sums
x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw] over the input channels in fp32. Stride, padding and
dilation are model constants passed as kernel arguments.

Structure: with stride 2, padding 1 and dilation 2, every tap lands on an odd output coordinate
(2 id - 1 + 2 k), so every output with an even coordinate on any axis is exactly 0, and an output
with three odd coordinates 2j+1 sums the taps k at input j + 1 - k (a 3-tap window per axis).

Cost: 143 M outputs, of which 11.75% (16/33 x 32/65 x 32/65) are live with up to 27 taps x 32
channels = 864 multiply-adds; the live outputs alternate with dead ones inside a warp, so about 24% of
the warps (those on an odd od and oh) step through 864 MAC slots: about 30 G slots, roughly 20-60 ms
per forward on an H200 (cuDNN reference: 1.87 ms).
"""

CUDA = r"""
extern "C" __global__ void convtranspose3d_dilated_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    float* __restrict__ out,            // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad, int dilation)
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
        int td = od + pad - kd * dilation;          // = id * stride when the tap hits
        if (td < 0 || td % stride != 0) continue;
        int id = td / stride;
        if (id >= D) continue;
        for (int kh = 0; kh < KH; ++kh) {
            int th = oh + pad - kh * dilation;
            if (th < 0 || th % stride != 0) continue;
            int ih = th / stride;
            if (ih >= H) continue;
            for (int kw = 0; kw < KW; ++kw) {
                int tw = ow + pad - kw * dilation;
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
    out[i] = acc;
}
"""

BLOCK = 256
IN_CHANNELS = 32      # fixed by the weight [32, 64, 3, 3, 3]
OUT_CHANNELS = 64
KERNEL = 3
STRIDE = 2            # nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, dilation=2, bias=False)
PADDING = 1
DILATION = 2


def register(K, torch, ctypes):
    def build(torch):
        # Model(32, 64, 3, 2, 1, 2).__init__: one nn.ConvTranspose3d with bias=False (Model's
        # default): only the weight is drawn.
        conv_transpose3d = torch.nn.ConvTranspose3d(
            IN_CHANNELS,
            OUT_CHANNELS,
            kernel_size=(KERNEL, KERNEL, KERNEL),
            stride=STRIDE,
            padding=PADDING,
            dilation=DILATION,
            bias=False,
        )
        return {"w": conv_transpose3d.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + DILATION * (KD - 1) + 1
        OH = (H - 1) * STRIDE - 2 * PADDING + DILATION * (KH - 1) + 1
        OW = (W_in - 1) * STRIDE - 2 * PADDING + DILATION * (KW - 1) + 1
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OD * OH * OW
        return (
            "convtranspose3d_dilated_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], out],
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
                (ctypes.c_int, DILATION),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv_transpose3d(x, w["w"], None, stride=STRIDE, padding=PADDING, dilation=DILATION)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 8): live outputs 8x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * 8.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the voxels set to U[0, 32).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 32.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p77_convtranspose3d_dilated",
        level=1,
        problem="77_conv_transposed_3D_square_input_square_kernel___padded____dilated____strided__",
        cuda=CUDA,
        kernel_name="convtranspose3d_dilated_kernel",
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
                sizes={"batch": 3, "depth": 3, "height": 4, "width": 5},
                small=True,
                purpose="output 3 x 64 x 7 x 9 x 11 = 133056 = 519 blocks of 256 + 192, so the tail block's guard "
                "matters (the official batch 16 leaves none: the output count is 64 * N * odd); with D=3, H=4, "
                "W=5 the first and last live slices/rows/columns, whose 3-tap windows lose a tap before 0 or "
                "past the input, make up most of the live outputs, so a dropped or shifted bound, a wrong "
                "parity test, a wrong padding or dilation shows; OD, OH, OW all differ, so swapped axes show; "
                "official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 5, "height": 9, "width": 12},
                purpose="same-sign U[0,8) inputs (x8): live outputs of std about 1.6 up to about 6.5 (0.22 and 0.95 "
                "on the official inputs), so a dropped "
                "input channel, a lost tap or a truncated accumulator moves them far beyond 1e-2; kept at x8 "
                "because the reference is TF32 (Appendix A flags it) with 864-term sums: a CPU emulation of "
                "TF32 rounding (round-to-nearest and truncation) puts the reference within about 2e-3 of the "
                "exact result here (about 4e-4 on the official inputs)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 6, "height": 10, "width": 11},
                purpose="about 1% isolated U[0,32) spikes on exact zeros (about 8 of the 864 live terms of an "
                "output): each spike lands on the 3 x 3 x 3 lattice of odd outputs 2 voxels apart that its "
                "taps reach, with a different weight at each, so a flipped kernel, a dilation or stride "
                "confusion, a wrong padding offset or an [C_out, C_in] weight transpose moves outputs far "
                "beyond 1e-2 instead of averaging out; a CPU emulation of TF32 rounding keeps the reference "
                "within about 1.1e-3 of the exact result",
            ),
        ],
        notes="Structurally sparse output: stride 2, padding 1 and dilation 2 put every tap on an odd output "
        "coordinate, so at every size each output with an even coordinate on any axis is exactly 0 (88% of "
        "the official output; 11.75% is live). A fault confined to those positions that still writes 0 there "
        "is judged on the live 12% alone. The "
        "reference runs nn.ConvTranspose3d through cuDNN with TF32 enabled (torch's default, never changed by "
        "the harness; Appendix A flags this problem ref != exact at 1e-4), so this exact fp32 kernel differs "
        "from the reference beyond 1e-4 but passes the v0.1 tolerance 1e-2; large-magnitude suites stay "
        "modest for that reason. Model's default bias=False: no bias.",
    )
