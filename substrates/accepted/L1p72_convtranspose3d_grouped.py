"""KernelBench level 1, problem 72: grouped, strided, padded ConvTranspose3d with an asymmetric kernel.

Model(32, 32, (3, 5, 7), (2, 2, 2), (1, 2, 3), (1, 1, 1), 4) builds nn.ConvTranspose3d(32, 32,
(3, 5, 7), stride=(2, 2, 2), padding=(1, 2, 3), output_padding=(1, 1, 1), groups=4, bias=False)
(Model's default bias=False), whose weight [32, 8, 3, 5, 7] = [C_in, C_out / groups, KD, KH, KW]
is the only parameter. x = torch.rand(8, 32, 12, 24, 48); each output size is
(S - 1) * 2 - 2 * pad + K + 1 = 2 S on every axis, so the output is 8 x 32 x 24 x 48 x 96 (28 M
elements; flat indices and offsets are 64-bit anyway).

One kernel, one thread per output element (n, co, od, oh, ow) with ow fastest, in gather form: an
input voxel (id, ih, iw) feeds output (id * stride - pad + kd, ...), so the thread visits every tap
(kd, kh, kw), keeps it only where od + pad - kd (likewise for h and w) is a non-negative multiple of
the stride whose quotient lies inside the input, and sums x[n, ci, id, ih, iw] * w[ci, co_g, kd, kh,
kw] over the C_in / groups input channels ci of output channel co's group g = co / (C_out / groups),
with co_g = co % (C_out / groups), in fp32. Strides, paddings and groups are model constants passed
as kernel arguments; output_padding only sets the output size.

The block has 192 threads (6 warps), not 256: every output count of this problem is
N * 32 * 2D * 2H * 2W = 256 * N * D * H * W, so a 256-thread block would never leave a partial tail
block; with 192 a tail remains unless 3 divides N * D * H * W (true of the official 8 x 12 x 24 x 48,
false for every targeted suite).

Cost: 28 M outputs; about 1.5 x 2.5 x 3.5 = 13 of the 105 taps hit per output (105 multiply-adds
over 8 channels), but neighbouring threads of a warp alternate ow parity, so a warp steps through
about 1.5 x 2.5 x 7 taps x 8 channels = 210 MAC slots per output: about 6 G slots, roughly 3-10 ms
per forward on an H200 (cuDNN reference: 2.43 ms).
"""

CUDA = r"""
extern "C" __global__ void convtranspose3d_grouped_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out / groups, KD, KH, KW]
    float* __restrict__ out,            // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride_d, int stride_h, int stride_w,
    int pad_d, int pad_h, int pad_w, int groups)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OD * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int od = (int)((i / ((long long)OW * OH)) % OD);
    int co = (int)((i / ((long long)OW * OH * OD)) % C_out);
    int n = (int)(i / ((long long)OW * OH * OD * C_out));

    int cin_per_group = C_in / groups;
    int cout_per_group = C_out / groups;
    int g = co / cout_per_group;            // this output channel's group
    int co_g = co % cout_per_group;         // its index inside the group (the weight's dim 1)

    float acc = 0.0f;
    for (int kd = 0; kd < KD; ++kd) {
        int td = od + pad_d - kd;                   // = id * stride_d when the tap hits
        if (td < 0 || td % stride_d != 0) continue;
        int id = td / stride_d;
        if (id >= D) continue;
        for (int kh = 0; kh < KH; ++kh) {
            int th = oh + pad_h - kh;
            if (th < 0 || th % stride_h != 0) continue;
            int ih = th / stride_h;
            if (ih >= H) continue;
            for (int kw = 0; kw < KW; ++kw) {
                int tw = ow + pad_w - kw;
                if (tw < 0 || tw % stride_w != 0) continue;
                int iw = tw / stride_w;
                if (iw >= W) continue;
                for (int cg = 0; cg < cin_per_group; ++cg) {
                    int ci = g * cin_per_group + cg;
                    float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                    float wv = w[((((long long)ci * cout_per_group + co_g) * KD + kd) * KH + kh) * KW + kw];
                    acc += xv * wv;
                }
            }
        }
    }
    out[i] = acc;
}
"""

BLOCK = 192                     # 6 warps; see the docstring for why not 256
IN_CHANNELS = 32                # fixed by the weight [32, 8, 3, 5, 7]
OUT_CHANNELS = 32
KERNEL = (3, 5, 7)
STRIDE = (2, 2, 2)
PADDING = (1, 2, 3)
OUTPUT_PADDING = (1, 1, 1)
GROUPS = 4


def register(K, torch, ctypes):
    def build(torch):
        # Model(32, 32, (3, 5, 7), (2, 2, 2), (1, 2, 3), (1, 1, 1), 4).__init__: one
        # nn.ConvTranspose3d with bias=False (Model's default): only the weight is drawn.
        conv_transpose3d = torch.nn.ConvTranspose3d(
            IN_CHANNELS,
            OUT_CHANNELS,
            KERNEL,
            stride=STRIDE,
            padding=PADDING,
            output_padding=OUTPUT_PADDING,
            groups=GROUPS,
            bias=False,
        )
        return {"w": conv_transpose3d.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, cout_per_group, KD, KH, KW = w["w"].shape
        C_out = cout_per_group * GROUPS
        OD = (D - 1) * STRIDE[0] - 2 * PADDING[0] + KD + OUTPUT_PADDING[0]
        OH = (H - 1) * STRIDE[1] - 2 * PADDING[1] + KH + OUTPUT_PADDING[1]
        OW = (W_in - 1) * STRIDE[2] - 2 * PADDING[2] + KW + OUTPUT_PADDING[2]
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OD * OH * OW
        return (
            "convtranspose3d_grouped_kernel",
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
                (ctypes.c_int, STRIDE[0]),
                (ctypes.c_int, STRIDE[1]),
                (ctypes.c_int, STRIDE[2]),
                (ctypes.c_int, PADDING[0]),
                (ctypes.c_int, PADDING[1]),
                (ctypes.c_int, PADDING[2]),
                (ctypes.c_int, GROUPS),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv_transpose3d(
            x, w["w"], None, stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING, groups=GROUPS
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 16): outputs 16x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * 16.0]

    def group_spiky_inputs(torch, s):
        # Exact zeros with about 3% of the voxels set to U[0, 16), only in the input channels of
        # groups 1 and 3 (channels 8..15 and 24..31); groups 0 and 2 are all zero.
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.03
        spikes = torch.rand(shape) * 16.0
        x = torch.where(mask, spikes, torch.zeros(shape))
        cin_per_group = IN_CHANNELS // GROUPS
        x[:, 0:cin_per_group] = 0.0
        x[:, 2 * cin_per_group : 3 * cin_per_group] = 0.0
        return [x]

    return K.substrate(
        name="L1p72_convtranspose3d_grouped",
        level=1,
        problem="72_conv_transposed_3D_asymmetric_input_asymmetric_kernel___strided_padded_grouped_",
        cuda=CUDA,
        kernel_name="convtranspose3d_grouped_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(8),
            "depth": K.dim(12),
            "height": K.dim(24),
            "width": K.dim(48),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 4, "height": 5, "width": 7},
                small=True,
                purpose="output 2 x 32 x 8 x 10 x 14 = 71680 = 373 blocks of 192 + 64, so the tail block's guard "
                "matters; with D=4, H=5, W=7 the outputs near the edges, whose windows lose taps below 0 or "
                "past the input (pads 1, 2, 3 against kernels 3, 5, 7), make up about 60% of the output, so a dropped or shifted bound, a wrong parity test or a padding taken from the wrong "
                "axis shows; OD, OH, OW all differ, so swapped axes show; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 5, "height": 11, "width": 13},
                purpose="same-sign U[0,16) inputs (x16): outputs of std about 1.7 up to about 11 (0.12 and 0.78 on "
                "the official inputs), so a dropped channel of the group, a lost tap or a truncated accumulator "
                "moves outputs far beyond 1e-2; a correct fp32 kernel (about 105 live terms) stays near 1e-6 of "
                "the exact result, and a CPU emulation of TF32 rounding (in case cuDNN picks a TF32 algorithm "
                "here; Appendix A does not flag this problem) keeps a TF32 reference within about 2.8e-3 (x32 would reach 5.5e-3); "
                "N * D * H * W = 1430 is not a multiple of 3, so a tail block remains",
            ),
            K.suite(
                "T3_group_sparse",
                group_spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 7, "height": 8, "width": 10},
                purpose="about 3% isolated U[0,16) spikes on exact zeros, only in the input channels of groups 1 "
                "and 3: the output channels of groups 0 and 2 must be exactly 0, so a kernel that sums over "
                "the wrong group's (or all) input channels, or takes the group from the wrong index, puts "
                "values there or loses them; each spike lands on the 3 x 5 x 7 block of outputs its taps reach "
                "with a different weight at each, so a flipped kernel, a wrong stride/parity test, a wrong "
                "padding offset or a weight index with C_in and C_out / groups swapped moves outputs far "
                "beyond 1e-2; about 13% of the outputs of groups 1 and 3 see no spike and are exactly 0 too",
            ),
        ],
        notes="Model's default bias=False: no bias. C_in / groups = C_out / groups = 8, so a fault that "
        "confuses the two per-group counts is equivalent at every size (the weights fix the channels). "
        "Every output count is 256 * N * D * H * W (each output size is exactly 2 S), hence the 192-thread "
        "block; the official N * D * H * W is a multiple of 3, so T0_original has no partial tail block. "
        "Appendix A does not flag TF32 for this problem: the grouped reference stays within 1e-4 of the "
        "exact result on the official inputs.",
    )
