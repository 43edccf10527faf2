"""KernelBench level 2, problem 47_Conv3d_Mish_Tanh: conv3d 32 -> 64 (3x3x3), Mish, then tanh.

x is 16 x 32 x 32 x 64 x 64; the convolution (stride 1, padding 0 as the defaults of Model.__init__,
with bias) gives 16 x 64 x 30 x 62 x 62 (118 M elements; flat indices are 64-bit anyway). Mish is
v * tanh(log1p(exp(v))), as torch computes it; tanh follows.

One kernel, one thread per output element (n, co, od, oh, ow) with ow fastest. Each thread loops
over the input channels and the 3x3x3 window (sizes taken from the weight's shape), accumulates in
fp32, then applies the fused epilogue: conv bias, Mish, tanh.

Cost: 118 M outputs x 864 multiply-adds = 102 G MAC (204 GFLOP); at the 2-2.6 TFLOP/s of the
accepted L2p1 naive conv about 80-100 ms per forward on an H200 (cuDNN reference: 2.4 ms).
"""

CUDA = r"""
extern "C" __global__ void conv3d_mish_tanh_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
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

    float v = acc + conv_b[co];

    // Mish: v * tanh(log1p(exp(v))).
    float sp = log1pf(expf(v));
    v = v * tanhf(sp);

    // tanh of the Mish output.
    out[i] = tanhf(v);
}
"""

BLOCK = 256
IN_CHANNELS = 32      # fixed by the conv weight [64, 32, 3, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(in_channels=32, out_channels=64, kernel_size=3) (stride=1, padding=0): one nn.Conv3d.
        nn = torch.nn
        conv = nn.Conv3d(32, 64, 3, stride=1, padding=0)
        return {"conv_w": conv.weight, "conv_b": conv.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["conv_w"].shape
        OD = D - KD + 1
        OH = H - KH + 1
        OW = W_in - KW + 1
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OD * OH * OW
        return (
            "conv3d_mish_tanh_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], out],
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
        y = torch.nn.functional.conv3d(x, w["conv_w"], w["conv_b"], stride=1, padding=0)
        y = torch.nn.functional.mish(y)
        return torch.tanh(y)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, D, H, W)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): conv outputs of std about 1.26 over about -4.6..+4.9.
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 0.3% of the voxels set to U[0, 40).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.003
        spikes = torch.rand(shape) * 40.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p47_conv3d_mish_tanh",
        level=2,
        problem="47_Conv3d_Mish_Tanh",
        cuda=CUDA,
        kernel_name="conv3d_mish_tanh_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "depth": K.dim(32, min=3),
            "height": K.dim(64, min=3),
            "width": K.dim(64, min=3),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 7, "height": 9, "width": 13},
                small=True,
                purpose="output 2 x 64 x 5 x 7 x 11 = 49280 elements = 192.5 blocks of 256, so the tail block's "
                "guard matters; OD=5, OH=7, OW=11 are distinct and odd, so swapped D/H/W strides, a wrong "
                "divisor in the index split or an off-by-one window bound change the result; official "
                "U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 10, "height": 20, "width": 24},
                purpose="same-sign U[0,4) inputs (x4): conv outputs of std about 1.26 over about -4.6..+4.9 "
                "(0.31 on the official inputs), so the epilogue runs from Mish's negative dip (output about "
                "-0.3) to tanh's saturation (output 1), and accumulation faults are amplified where the "
                "slope is large; kept at x4 because the reference convolution is TF32 with 864 taps: a CPU "
                "emulation of TF32 rounding (round-to-nearest and truncation) puts the reference within "
                "1.2e-3 of the exact result",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 9, "height": 17, "width": 22},
                purpose="about 0.3% isolated U[0,40) spikes on exact zeros (about 2.6 of the 864 taps of a "
                "window): without the large mean of U[0,1) inputs each output depends on a few specific "
                "taps, so kd/kh/kw swaps, transposed weights or wrong channel strides show (outputs spread "
                "over -0.3..1 with std 0.34); about 7% of the windows hold no spike and give exactly "
                "tanh(mish(conv_bias)); the TF32 reference stays within about 1.4e-3 of the exact result",
            ),
        ],
        notes="The reference runs nn.Conv3d through cuDNN with TF32 enabled (torch's default, never changed by "
        "the harness; Appendix B flags this problem ref != exact at 1e-4), so this exact fp32 kernel differs "
        "from the reference beyond 1e-4 but passes the v0.1 tolerance 1e-2; large-magnitude suites stay "
        "modest for that reason. The output is bounded in [-0.30, 1): tanh saturates for conv outputs above "
        "about 3, so faults there are damped. Mish is v * tanhf(log1pf(expf(v))) like torch.",
    )
