"""KernelBench level 1, problem 83_conv_depthwise_2D_square_input_asymmetric_kernel: a (3, 1) depthwise conv.

Model(8, 3, 1, 0, 1) builds nn.Conv2d(8, 8, kernel_size=(3, 1), stride=1, padding=0, dilation=1,
groups=8, bias=False) (Model's default bias=False): a depthwise conv whose weight [8, 1, 3, 1] is
the only parameter; each channel is convolved with its own 3-tap vertical filter. x =
torch.rand(64, 8, 512, 512) (batch, channels, height, width); the output is 64 x 8 x 510 x 512
(134 M elements; flat indices and offsets are 64-bit).

One kernel, one thread per output element (n, c, oh, ow) with ow fastest. Each thread loops over
the KH x KW window (sizes taken from the weight's shape) at ih = oh * stride + kh * dilation,
iw = ow * stride + kw * dilation of input channel c only, and accumulates in fp32. Stride and
dilation are model constants passed as kernel arguments; the padding is 0, so every tap is inside
the input and the kernel has no padding guards.

Cost: memory bound: x (537 MB) read, the output (535 MB) written, 3 multiply-adds per output;
about 0.3-1 ms per forward on an H200 (cuDNN reference: 1.44 ms).
"""

CUDA = r"""
extern "C" __global__ void depthwise_conv2d_kernel(
    const float* __restrict__ x,        // [N, C, H, W]
    const float* __restrict__ w,        // [C, 1, KH, KW]
    float* __restrict__ out,            // [N, C, OH, OW]
    int N, int C, int H, int W, int KH, int KW, int OH, int OW, int stride, int dilation)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int c = (int)((i / ((long long)OW * OH)) % C);
    int n = (int)(i / ((long long)OW * OH * C));

    float acc = 0.0f;
    for (int kh = 0; kh < KH; ++kh) {
        for (int kw = 0; kw < KW; ++kw) {
            int ih = oh * stride + kh * dilation;
            int iw = ow * stride + kw * dilation;
            float xv = x[(((long long)n * C + c) * H + ih) * W + iw];
            float wv = w[((long long)c * KH + kh) * KW + kw];
            acc += xv * wv;
        }
    }
    out[i] = acc;
}
"""

BLOCK = 256
CHANNELS = 8          # fixed by the weight [8, 1, 3, 1]
KERNEL_H = 3
STRIDE = 1            # nn.Conv2d(8, 8, (3, 1), stride=1, padding=0, dilation=1, groups=8, bias=False)
PADDING = 0
DILATION = 1


def register(K, torch, ctypes):
    def build(torch):
        # Model(8, 3, 1, 0, 1).__init__: one nn.Conv2d with groups=in_channels and bias=False
        # (Model's default): only the weight is drawn.
        conv2d = torch.nn.Conv2d(
            CHANNELS,
            CHANNELS,
            kernel_size=(KERNEL_H, 1),
            stride=STRIDE,
            padding=PADDING,
            dilation=DILATION,
            groups=CHANNELS,
            bias=False,
        )
        return {"w": conv2d.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C, H, W_in = x.shape
        _, _, KH, KW = w["w"].shape
        OH = (H + 2 * PADDING - DILATION * (KH - 1) - 1) // STRIDE + 1
        OW = (W_in + 2 * PADDING - DILATION * (KW - 1) - 1) // STRIDE + 1
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C * OH * OW
        return (
            "depthwise_conv2d_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, DILATION),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv2d(
            x, w["w"], None, stride=STRIDE, padding=PADDING, dilation=DILATION, groups=CHANNELS
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 8): outputs 8x the official ones.
        return [torch.rand(s["batch"], CHANNELS, s["height"], s["width"]) * 8.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 10% of the pixels set to U[1, 17).
        shape = (s["batch"], CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.1
        spikes = 1.0 + torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p83_depthwise_conv2d",
        level=1,
        problem="83_conv_depthwise_2D_square_input_asymmetric_kernel",
        cuda=CUDA,
        kernel_name="depthwise_conv2d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(64),
            "height": K.dim(512, min=KERNEL_H),
            "width": K.dim(512),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 11, "width": 37},
                small=True,
                purpose="output 3 x 8 x 9 x 37 = 7992 = 31 blocks of 256 + 56, so the tail block's guard matters "
                "(the official output count is a multiple of 256); OH = 9 != OW = 37 and H != W, so swapped "
                "H/W strides or divisors, or a window laid along W instead of H (which also changes the output "
                "shape), show; with 9 output rows the last window ends on the last input row, so an off-by-one "
                "window bound reads past a channel; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 67, "width": 129},
                purpose="same-sign U[0,8) inputs (x8): outputs of mean about 1.5 and std about 2 up to about 7 "
                "(0.25 and 0.92 on the official inputs), so a dropped tap, a wrong weight index or a dropped "
                "row of the window moves outputs by far more than 1e-2 relative; a correct fp32 kernel (3-term "
                "sums) stays near 1e-7 of the exact result; kept at x8 because with 3-term sums TF32's relative "
                "error does not average out: a CPU emulation of TF32 rounding (in case cuDNN picked a TF32 "
                "algorithm; Appendix A does not flag this problem) puts a TF32 reference 2.4e-3 from the exact "
                "result here, and x64 would exceed 1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 45, "width": 70},
                purpose="about 10% isolated U[1,17) spikes on exact zeros: most nonzero outputs come from a single "
                "spike times a single weight of its own channel (73% of the outputs are exactly 0), so a flipped "
                "filter, a weight or input taken from another channel, a window shifted by one row or a "
                "column offset moves outputs far beyond 1e-2 instead of averaging out as over U[0,1) inputs; "
                "an emulated TF32 reference would stay within about 2.9e-3 of the exact result",
            ),
        ],
        notes="Model's default bias=False: no bias. Padding is 0, stride and dilation 1: every window lies "
        "inside the input, so the kernel has no padding guards; the kernel width KW is 1, so a kw loop bound "
        "or a kw index fault matters only where it reads another column. The official output count "
        "64 x 8 x 510 x 512 is a multiple of the 256-thread block, so only the targeted suites leave a "
        "partial tail block. Appendix A does not flag TF32 for this problem (depthwise convs stay within "
        "1e-4 of the exact result).",
    )
