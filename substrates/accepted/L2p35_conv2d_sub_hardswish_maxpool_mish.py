"""KernelBench level 2, problem 35_Conv2d_Subtract_HardSwish_MaxPool_Mish.

conv2d 64 -> 128 (3x3, stride 1, no padding, with bias), - 0.5, HardSwish, MaxPool2d(2) (kernel 2,
stride 2, floor mode), Mish. x is 128 x 64 x 128 x 128, the convolution output 128 x 128 x 126 x 126
and the pooled output 128 x 128 x 63 x 63 (65 M elements; flat indices are 64-bit anyway).

One kernel, one thread per pooled output element (n, co, ph, pw) with pw fastest. The thread
computes the four convolution outputs of its 2x2 window itself (each an fp32 loop over the input
channels and the 3x3 window), applies conv bias, the subtraction and HardSwish to each, keeps the
running max, and finishes with Mish (x * tanh(log1p(exp(x))), as torch computes it). Floor mode
means conv rows/columns past 2 * PH (an odd conv size's last one) are never read.

Cost: 65 M pooled outputs x 4 x 576 multiply-adds = 150 G MAC (300 GFLOP), the same work as the
accepted L2p1 kernel, which ran 117 ms on an H200: about 0.12 s per forward (cuDNN: 4.5 ms).
"""

CUDA = r"""
extern "C" __global__ void conv2d_sub_hardswish_maxpool_mish_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, C_out, PH, PW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int PH, int PW)
{
    const int POOL = 2;                     // MaxPool2d(2): kernel 2, stride 2
    const float subtract_value = 0.5f;      // Model.subtract_value
    const float hs_offset = 3.0f;           // hardswish(v) = v * min(max(v + 3, 0), 6) / 6
    const float hs_cap = 6.0f;
    const float LOWEST = -3.402823466e+38f; // -FLT_MAX: identity of the max

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * PH * PW;
    if (i >= total) return;

    int pw = (int)(i % PW);
    int ph = (int)((i / PW) % PH);
    int co = (int)((i / ((long long)PW * PH)) % C_out);
    int n = (int)(i / ((long long)PW * PH * C_out));

    float m = LOWEST;
    for (int dh = 0; dh < POOL; ++dh) {
        for (int dw = 0; dw < POOL; ++dw) {
            int oh = ph * POOL + dh;    // conv output row (< OH in floor mode)
            int ow = pw * POOL + dw;    // conv output column (< OW)
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
            v = v - subtract_value;
            float gate = fminf(fmaxf(v + hs_offset, 0.0f), hs_cap);
            v = v * gate / hs_cap;
            if (v > m) m = v;
        }
    }

    // Mish on the pooled value.
    float sp = log1pf(expf(m));
    out[i] = m * tanhf(sp);
}
"""

BLOCK = 256
POOL = 2              # MaxPool2d(pool_kernel_size=2); must equal POOL in the CUDA source
IN_CHANNELS = 64      # fixed by the conv weight [128, 64, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 128, 3, subtract_value=0.5, pool_kernel_size=2): nn.Conv2d, then a
        # parameterless nn.MaxPool2d.
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
        PH = (OH - POOL) // POOL + 1
        PW = (OW - POOL) // POOL + 1
        out = torch.empty((N, C_out, PH, PW), device=x.device, dtype=x.dtype)
        total = N * C_out * PH * PW
        return (
            "conv2d_sub_hardswish_maxpool_mish_kernel",
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
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        y = y - 0.5
        y = torch.nn.functional.hardswish(y)
        y = torch.nn.functional.max_pool2d(y, POOL)
        return torch.nn.functional.mish(y)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): conv outputs over about -5..+5.7, across both HardSwish kinks.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 0.5% of the pixels set to U[0, 16).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.005
        spikes = torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p35_conv2d_sub_hardswish_maxpool_mish",
        level=2,
        problem="35_Conv2d_Subtract_HardSwish_MaxPool_Mish",
        cuda=CUDA,
        kernel_name="conv2d_sub_hardswish_maxpool_mish_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(128, min=4),
            "width": K.dim(128, min=4),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 17, "width": 13},
                small=True,
                purpose="conv output 15 x 11 (both odd: floor-mode pooling drops the last conv row and column) "
                "pooled to 7 x 5, so an output-size or window-offset error reads the wrong conv positions; "
                "3 x 128 x 7 x 5 = 13440 outputs, not a multiple of the 256-thread block, so the tail guard "
                "matters; PH=7 != PW=5 catches swapped H/W indexing",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 64, "width": 96},
                purpose="same-sign U[0,4) inputs (x4): conv outputs over about -5..+5.7 (std 1.33 instead of "
                "0.33), so after the subtraction HardSwish sees values beyond both kinks (-3: output 0, +3: "
                "identity) as well as its quadratic middle, the max picks among well-separated values and Mish "
                "gets inputs up to about 5.7; kept at x4 because the reference convolution is TF32 (10-bit "
                "mantissa): a CPU emulation of TF32 rounding puts the x4 reference at an allclose distance of "
                "1e-3 (round-to-nearest) to 1.6e-3 (truncation) from the exact result, well inside 1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 34, "width": 41},
                purpose="about 0.5% isolated U[0,16) spikes on exact zeros (about 5 of the 1024 input values "
                "a pooled output sees): each pooled output depends on a few specific taps and on which of "
                "its four conv positions holds the largest value, so kh/kw swaps, wrong window offsets or "
                "channel strides show; outputs reach about 1.6; windows without spikes give exactly "
                "mish(hardswish(conv_bias - 0.5)), about -0.1, isolating the epilogue constants; conv width "
                "39 is odd (floor mode); the TF32 reference stays within about 1.2e-3 of the exact result",
            ),
        ],
        notes="The reference runs nn.Conv2d through cuDNN with TF32 enabled (torch's default, never changed by "
        "the harness), so this exact fp32 kernel differs from the reference beyond 1e-4 on the official inputs "
        "but passes the v0.1 tolerance 1e-2; large-magnitude suites stay modest for that reason. On the "
        "official U[0,1) inputs the conv outputs lie in about -1.3..1.5, so after the subtraction HardSwish "
        "works only in its quadratic middle (its clamps at -3 and +3 never act) and the outputs are small "
        "(|out| up to about 0.5, mean -0.06): a fault in the clamp branches shows only on T2. "
        "HardSwish is v * min(max(v + 3, 0), 6) / 6 and Mish is m * tanh(log1p(exp(m))), as torch computes them.",
    )
