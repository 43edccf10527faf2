"""KernelBench level 1, problem 74_conv_transposed_1D_dilated: ConvTranspose1d(32, 64, 5, dilation=3).

Model(32, 64, 5, 1, 0, 3) builds nn.ConvTranspose1d(32, 64, 5, stride=1, padding=0, dilation=3,
bias=False) (Model's default bias=False): the weight [32, 64, 5] = [C_in, C_out, KW] is the only
parameter. x = torch.rand(32, 32, 131072); L_out = (L - 1) * 1 - 0 + 3 * (5 - 1) + 1 = L + 12, so
the output is 32 x 64 x 131084 (268 M elements; flat indices and offsets are 64-bit).

One kernel, one thread per output element (n, co, l) with l fastest, in gather form: with stride 1
and no padding, input sample i feeds output i + k * dilation through tap k, so the thread visits
every tap k, keeps it only where il = l - k * dilation lies inside the input (0 <= il < L), and sums
x[n, ci, il] * w[ci, co, k] over the input channels in fp32. The dilation is a model constant
passed as a kernel argument; stride 1 and padding 0 leave no parity test and no padding offset.

Cost: 268 M outputs x 160 multiply-adds = 43 G MAC (86 GFLOP); at 1-3 TFLOP/s for a naive fp32
conv about 30-90 ms per forward on an H200 (cuDNN reference: 1.72 ms).
"""

CUDA = r"""
extern "C" __global__ void convtranspose1d_dilated_kernel(
    const float* __restrict__ x,        // [N, C_in, L]
    const float* __restrict__ w,        // [C_in, C_out, KW]
    float* __restrict__ out,            // [N, C_out, L_out]
    int N, int C_in, int L, int C_out, int KW, int L_out, int dilation)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * L_out;
    if (i >= total) return;

    int l = (int)(i % L_out);
    int co = (int)((i / L_out) % C_out);
    int n = (int)(i / ((long long)L_out * C_out));

    float acc = 0.0f;
    for (int k = 0; k < KW; ++k) {
        int il = l - k * dilation;              // the input sample that reaches l through tap k
        if (il < 0 || il >= L) continue;        // outside the input: no contribution
        for (int ci = 0; ci < C_in; ++ci) {
            float xv = x[((long long)n * C_in + ci) * L + il];
            float wv = w[((long long)ci * C_out + co) * KW + k];
            acc += xv * wv;
        }
    }
    out[i] = acc;
}
"""

BLOCK = 256
IN_CHANNELS = 32      # fixed by the weight [32, 64, 5]
OUT_CHANNELS = 64
KERNEL = 5
DILATION = 3          # nn.ConvTranspose1d(32, 64, 5, stride=1, padding=0, dilation=3, bias=False)


def register(K, torch, ctypes):
    def build(torch):
        # Model(32, 64, 5, 1, 0, 3).__init__: nn.ConvTranspose1d(32, 64, 5, stride=1, padding=0,
        # dilation=3, bias=False): one weight, no bias drawn.
        conv1d_transpose = torch.nn.ConvTranspose1d(
            IN_CHANNELS, OUT_CHANNELS, KERNEL, stride=1, padding=0, dilation=DILATION, bias=False
        )
        return {"w": conv1d_transpose.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, L = x.shape
        _, C_out, KW = w["w"].shape
        L_out = L + DILATION * (KW - 1)
        out = torch.empty((N, C_out, L_out), device=x.device, dtype=x.dtype)
        total = N * C_out * L_out
        return (
            "convtranspose1d_dilated_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, L),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KW),
                (ctypes.c_int, L_out),
                (ctypes.c_int, DILATION),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv_transpose1d(x, w["w"], None, stride=1, padding=0, dilation=DILATION)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, length)
        return [torch.rand(s["batch"], IN_CHANNELS, s["length"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): outputs 4x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["length"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the samples set to U[1, 17).
        shape = (s["batch"], IN_CHANNELS, s["length"])
        mask = torch.rand(shape) < 0.02
        spikes = 1.0 + torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p74_convtranspose1d_dilated",
        level=1,
        problem="74_conv_transposed_1D_dilated",
        cuda=CUDA,
        kernel_name="convtranspose1d_dilated_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(32),
            "length": K.dim(131072),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "length": 23},
                small=True,
                purpose="output 2 x 64 x 35 = 4480 = 17 blocks of 256 + 128, so the tail block's guard matters "
                "(every official-size output count N x 64 x (L + 12) is a multiple of 256 when N x (L + 12) is "
                "a multiple of 4, as officially); with L = 23 the first and last 12 outputs of a row (24 of 35) "
                "lose taps below 0 or past the input, so a dropped or shifted border guard, a wrong dilation, a "
                "gather written as l + k * dilation (a plain conv) or L_out = L - 12 shows; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "length": 1001},
                purpose="same-sign U[0,4) inputs (x4): outputs of std about 1.0 up to about 3.7 (0.25 and 0.93 on the official inputs), so a "
                "dropped channel or tap or a truncated accumulator moves outputs far beyond 1e-2; kept at x4 "
                "because the reference conv is TF32 (Appendix A flags this problem): a CPU emulation of TF32 "
                "rounding keeps the reference within about 9e-4 (x8 would reach about 1.8e-3) of the exact result here; output "
                "2 x 64 x 1013 = 506.5 blocks",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "length": 611},
                purpose="about 2% isolated U[1,17) spikes on exact zeros: each input spike reaches 5 outputs 3 "
                "apart with a different weight at each, so a flipped kernel, a wrong dilation, a weight read as "
                "[C_out, C_in, KW] (the plain-conv layout) or a wrong channel stride changes outputs outright; "
                "about 4% of the outputs see no spike and give exactly 0; an emulated TF32 reference stays "
                "within about 1e-3 of the exact result; output 2 x 64 x 623 = 311.5 blocks",
            ),
        ],
        notes="Model's default bias=False: no bias; stride 1 and padding 0 (Model passes both), so the "
        "kernel has no parity test and no padding offset. The reference runs nn.ConvTranspose1d through "
        "cuDNN with TF32 (Appendix A: ref != exact at 1e-4), so this exact fp32 kernel differs from the "
        "reference beyond 1e-4 but passes 1e-2. The official output count 32 x 64 x 131084 is a multiple "
        "of the 256-thread block, so only the targeted suites leave a partial tail block.",
    )
