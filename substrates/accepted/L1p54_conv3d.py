"""KernelBench level 1, problem 54_conv_standard_3D__square_input__square_kernel: conv3d 3 -> 64 (3x3x3).

Model(3, 64, 3) builds nn.Conv3d(3, 64, (3, 3, 3), stride=1, padding=0, dilation=1, groups=1,
bias=False): Model's own default is bias=False, so the weight [64, 3, 3, 3, 3] is the only
parameter. x = torch.rand(16, 3, 64, 64, 64), whose spatial axes the official file names
(depth, width, height) in that order; the kernel calls axes 2, 3, 4 D, H, W. The output is
16 x 64 x 62 x 62 x 62 (244 M elements, under 2^31; flat indices and offsets are 64-bit anyway).

One kernel, one thread per output element (n, co, od, oh, ow) with ow fastest. Each thread loops
over the input channels and the 3x3x3 window (sizes taken from the weight's shape) and accumulates
in fp32; no bias, no padding.

Cost: 244 M outputs x 81 multiply-adds = 19.8 G MAC (40 GFLOP); at 1-3 TFLOP/s for a naive fp32
conv about 15-40 ms per forward on an H200 (cuDNN reference: 1.91 ms).
"""

CUDA = r"""
extern "C" __global__ void conv3d_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    float* __restrict__ out,            // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW, int OD, int OH, int OW)
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
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kd = 0; kd < KD; ++kd) {
            for (int kh = 0; kh < KH; ++kh) {
                for (int kw = 0; kw < KW; ++kw) {
                    int id = od + kd;
                    int ih = oh + kh;
                    int iw = ow + kw;
                    float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                    float wv = w[((((long long)co * C_in + ci) * KD + kd) * KH + kh) * KW + kw];
                    acc += xv * wv;
                }
            }
        }
    }
    out[i] = acc;
}
"""

BLOCK = 256
IN_CHANNELS = 3       # fixed by the conv weight [64, 3, 3, 3, 3]
KERNEL = 3


def register(K, torch, ctypes):
    def build(torch):
        # Model(3, 64, 3).__init__: nn.Conv3d(3, 64, (3, 3, 3), stride=1, padding=0, dilation=1,
        # groups=1, bias=False): one kaiming-uniform weight, no bias drawn.
        conv3d = torch.nn.Conv3d(3, 64, (3, 3, 3), stride=1, padding=0, dilation=1, groups=1, bias=False)
        return {"w": conv3d.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["w"].shape
        OD = D - KD + 1
        OH = H - KH + 1
        OW = W_in - KW + 1
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OD * OH * OW
        return (
            "conv3d_kernel",
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
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv3d(x, w["w"], None, stride=1, padding=0, dilation=1, groups=1)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, width, height)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["width"], s["height"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 8): outputs 8x the official ones (std about 2.9).
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["width"], s["height"]) * 8.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 3% of the voxels set to U[0, 16).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["width"], s["height"])
        mask = torch.rand(shape) < 0.03
        spikes = torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p54_conv3d",
        level=1,
        problem="54_conv_standard_3D__square_input__square_kernel",
        cuda=CUDA,
        kernel_name="conv3d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "depth": K.dim(64, min=KERNEL),
            "width": K.dim(64, min=KERNEL),
            "height": K.dim(64, min=KERNEL),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 7, "width": 9, "height": 13},
                small=True,
                purpose="output 2 x 64 x 5 x 7 x 11 = 49280 = 192.5 blocks of 256, so the tail block's guard "
                "matters (every official-size output count is a multiple of 256); the three spatial sizes are "
                "distinct and odd where the official ones are all 64, so swapped D/H/W strides or divisors in "
                "the index split, which are invisible on the cubic official input, and off-by-one window "
                "bounds change the result; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 10, "width": 23, "height": 19},
                purpose="same-sign U[0,8) inputs (x8): outputs of std about 2.9 up to about 11, so a dropped "
                "input channel, a lost tap row or a truncated accumulator moves outputs far beyond 1e-2; with "
                "only 81 taps a correct fp32 kernel stays near 1e-6 of the exact result, and a CPU emulation of "
                "TF32 rounding (in case cuDNN picks a TF32 algorithm at these sizes; Appendix A does not flag "
                "this problem) puts a TF32 reference within about 2.8e-3 of the exact result (x16 would reach "
                "5.5e-3); non-cubic sizes again",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 12, "width": 17, "height": 21},
                purpose="about 3% isolated U[0,16) spikes on exact zeros (about 2.4 of the 81 taps of a window): "
                "without the large mean of U[0,1) inputs each output depends on a few specific taps, so "
                "kd/kh/kw swaps, a flipped or transposed kernel, a wrong channel stride or a wrong C_in/C_out "
                "order in the weight index shows; about 8% of the windows hold no spike and give exactly 0; an emulated TF32 reference stays within about 1.5e-3 of the exact result",
            ),
        ],
        notes="Model's default bias=False: the conv has no bias. The official input is cubic (64^3), so "
        "faults that swap the depth/width/height sizes in the index split or output shape are equivalent on "
        "T0_original; the targeted suites use three distinct sizes. With C_in = 3 (81 taps) the reference "
        "stays within 1e-4 of the exact result on the official inputs (Appendix A: no TF32 flag). The "
        "official output count 16 x 64 x 62^3 is a multiple of the 256-thread block, so only the targeted "
        "suites leave a partial tail block.",
    )
