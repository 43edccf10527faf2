"""KernelBench level 1, problem 79: ConvTranspose1d(32, 64, 3, stride=2, padding=1, dilation=2).

Model(32, 64, 3, 2, 1, 2) builds nn.ConvTranspose1d(32, 64, 3, stride=2, padding=1, dilation=2,
bias=False) (Model's default bias=False; no output_padding): the weight [32, 64, 3] = [C_in, C_out,
KW] is the only parameter. x = torch.rand(16, 32, 131072); L_out = (L - 1) * 2 - 2 * 1 + 2 * (3 - 1)
+ 1 = 2 L + 1, so the output is 16 x 64 x 262145 (268 M elements; flat indices and offsets are
64-bit).

One kernel, one thread per output element (n, co, l) with l fastest, in gather form: input sample i
feeds output i * stride - pad + k * dilation through tap k, so the thread visits every tap k, keeps
it only where t = l + pad - k * dilation is a non-negative multiple of the stride whose quotient
il = t / stride lies inside the input, and sums x[n, ci, il] * w[ci, co, k] over the input channels
in fp32. Stride, padding and dilation are model constants passed as kernel arguments.

Structure: with stride 2, padding 1 and dilation 2 every tap lands on an odd output (2 i - 1 + 2 k),
so every even output is exactly 0, and output 2 j + 1 sums the taps k at input j + 1 - k (a 3-tap
window, cut at both ends of the signal).

Cost: 268 M outputs, half of them live with 3 taps x 32 channels = 96 multiply-adds; live and dead
outputs alternate inside a warp, so every warp steps through 96 MAC slots per output: about 26 G
slots, roughly 15-50 ms per forward on an H200 (cuDNN reference: 1.65 ms).
"""

CUDA = r"""
extern "C" __global__ void convtranspose1d_strided_dilated_kernel(
    const float* __restrict__ x,        // [N, C_in, L]
    const float* __restrict__ w,        // [C_in, C_out, KW]
    float* __restrict__ out,            // [N, C_out, L_out]
    int N, int C_in, int L, int C_out, int KW, int L_out, int stride, int pad, int dilation)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * L_out;
    if (i >= total) return;

    int l = (int)(i % L_out);
    int co = (int)((i / L_out) % C_out);
    int n = (int)(i / ((long long)L_out * C_out));

    float acc = 0.0f;
    for (int k = 0; k < KW; ++k) {
        int t = l + pad - k * dilation;         // = il * stride when the tap hits
        if (t < 0 || t % stride != 0) continue;
        int il = t / stride;
        if (il >= L) continue;                  // past the input: no contribution
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
IN_CHANNELS = 32      # fixed by the weight [32, 64, 3]
OUT_CHANNELS = 64
KERNEL = 3
STRIDE = 2            # nn.ConvTranspose1d(32, 64, 3, stride=2, padding=1, dilation=2, bias=False)
PADDING = 1
DILATION = 2


def register(K, torch, ctypes):
    def build(torch):
        # Model(32, 64, 3, 2, 1, 2).__init__: nn.ConvTranspose1d(32, 64, 3, stride=2, padding=1,
        # dilation=2, bias=False): one weight, no bias drawn.
        conv1d_transpose = torch.nn.ConvTranspose1d(
            IN_CHANNELS, OUT_CHANNELS, KERNEL, stride=STRIDE, padding=PADDING, dilation=DILATION, bias=False
        )
        return {"w": conv1d_transpose.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, L = x.shape
        _, C_out, KW = w["w"].shape
        L_out = (L - 1) * STRIDE - 2 * PADDING + DILATION * (KW - 1) + 1
        out = torch.empty((N, C_out, L_out), device=x.device, dtype=x.dtype)
        total = N * C_out * L_out
        return (
            "convtranspose1d_strided_dilated_kernel",
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
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
                (ctypes.c_int, DILATION),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv_transpose1d(
            x, w["w"], None, stride=STRIDE, padding=PADDING, dilation=DILATION
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, length)
        return [torch.rand(s["batch"], IN_CHANNELS, s["length"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): outputs 4x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["length"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 3% of the samples set to U[1, 17).
        shape = (s["batch"], IN_CHANNELS, s["length"])
        mask = torch.rand(shape) < 0.03
        spikes = 1.0 + torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p79_convtranspose1d_strided_dilated",
        level=1,
        problem="79_conv_transposed_1D_asymmetric_input_square_kernel___padded____strided____dilated__",
        cuda=CUDA,
        kernel_name="convtranspose1d_strided_dilated_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "length": K.dim(131072),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "length": 17},
                small=True,
                purpose="output 2 x 64 x 35 = 4480 = 17 blocks of 256 + 128, so the tail block's guard matters "
                "(the official count is a multiple of 256); on 17 samples the first live output (l = 1, taps "
                "k = 0, 1 only) and the last (l = 33, input 17 for k = 0 is past the end) are cut windows, and "
                "the zero even outputs sit between live odd ones, so a dropped t < 0, parity or il < L guard, a "
                "wrong stride, padding or dilation, or a wrong L_out shows; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "length": 500},
                purpose="same-sign U[0,4) inputs (x4): outputs up to about 3.3 (0.89 on the official inputs), so a "
                "dropped channel or tap or a truncated accumulator moves outputs far beyond 1e-2; with only 96 "
                "terms per output a CPU emulation of TF32 rounding (the reference conv is TF32; Appendix A "
                "flags this problem) keeps the reference within about 1.2e-3 of the exact result at x4 (x8 would reach 2.2e-3); "
                "output 2 x 64 x 1001 = 500.5 blocks",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "length": 300},
                purpose="about 3% isolated U[1,17) spikes on exact zeros: each input spike reaches 3 odd outputs "
                "4 apart with a different weight at each, so a flipped kernel, a wrong dilation or padding "
                "offset (which moves the taps onto other inputs or the even outputs), a weight read as "
                "[C_out, C_in, KW] (the plain-conv layout) or a wrong channel stride changes outputs outright; "
                "about 5% of the live outputs see no spike and give exactly 0; an emulated TF32 reference stays "
                "within about 1.2e-3 of the exact result; output 2 x 64 x 601 = 300.5 blocks",
            ),
        ],
        notes="Model's default bias=False: no bias. Every even output is exactly 0 at every size (stride 2, "
        "padding 1 and dilation 2 put every tap on an odd output), so faults confined to even outputs that "
        "still write 0 there are invisible, and a kernel that skips them must still write their zeros "
        "(the gate's NaN fill checks it). The reference runs nn.ConvTranspose1d through cuDNN with TF32 "
        "(Appendix A: ref != exact at 1e-4), so this exact fp32 kernel differs from the reference beyond "
        "1e-4 but passes 1e-2. The official output count 16 x 64 x 262145 is a multiple of the 256-thread "
        "block, so only the targeted suites leave a partial tail block.",
    )
