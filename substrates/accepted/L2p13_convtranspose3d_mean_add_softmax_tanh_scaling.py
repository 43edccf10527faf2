"""KernelBench level 2, problem 13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling.

2.0 * tanh(softmax(mean_d(conv_t(x)) + bias, dim=1)): x is 16 x 16 x 32 x 128 x 128;
nn.ConvTranspose3d(16, 64, 3, stride=1, padding=1) with bias keeps the spatial size (16 x 64 x 32 x
128 x 128); the mean over depth (keepdim) leaves 16 x 64 x 1 x 128 x 128; bias is
nn.Parameter(torch.randn(1, 64, 1, 1, 1)) drawn after the convolution; then a softmax over the 64
channels, tanh, and scaling_factor = 2.0.

One kernel, one thread per output position (n, oh, ow) with ow fastest. For each of the 64 channels
the thread averages its transposed-convolution outputs over the depth: each output is computed in
gather form, visiting every tap (kd, kh, kw), keeping it only where od + pad - kd (likewise for h and
w) is a non-negative multiple of the stride whose quotient lies inside the input, and summing
x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw] over the input channels (the ConvTranspose3d weight is
[C_in, C_out, KD, KH, KW]) in fp32, plus the conv bias; the depth mean plus the channel's bias goes
into a local array with a running max. A second loop replaces each value by expf(v - max) and sums
them, and a third writes 2 * tanh(e / sum) for every channel (neighbouring threads write neighbouring
positions of a channel plane). Flat indices and offsets are 64-bit.

Cost: 262 K threads, each 64 channels x 32 depths x 27 taps x 16 input channels = 885 K multiply-adds:
232 G multiply-adds (464 GFLOP) in all, with neighbouring threads reading neighbouring inputs and the
same weight (a broadcast); at roughly 1.5-2.5 TFLOP/s on an H200 one forward takes about 0.2-0.3 s
(reference 8.45 ms).
"""

CUDA = r"""
const int OUT_CHANNELS = 64;    // ConvTranspose3d out_channels (fixed by the weights): the softmax width

extern "C" __global__ void convtranspose3d_mean_add_softmax_tanh_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [1, C_out, 1, 1, 1]
    float* __restrict__ out,            // [N, C_out, 1, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad)
{
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    const float SCALING_FACTOR = 2.0f;              // scaling_factor

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;     // position (n, oh, ow)
    long long total = (long long)N * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int n = (int)(i / ((long long)OW * OH));

    float vals[OUT_CHANNELS];
    float vmax = NEG_SENTINEL;
    for (int co = 0; co < C_out; ++co) {
        float depth_sum = 0.0f;
        for (int od = 0; od < OD; ++od) {
            float acc = 0.0f;
            for (int kd = 0; kd < KD; ++kd) {
                int td = od + pad - kd;                 // = id * stride when the tap hits
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
            depth_sum += acc + conv_b[co];
        }
        float v = depth_sum / (float)OD + bias[co];     // mean over depth, then the bias
        vals[co] = v;
        vmax = fmaxf(vmax, v);
    }

    // Softmax over the channels, stabilised by the channel max, then tanh and the scale.
    float sum = 0.0f;
    for (int co = 0; co < C_out; ++co) {
        float e = expf(vals[co] - vmax);
        vals[co] = e;
        sum += e;
    }
    long long plane = (long long)OH * OW;
    long long base = (long long)n * C_out * plane + (long long)oh * OW + ow;
    for (int co = 0; co < C_out; ++co) {
        out[base + co * plane] = tanhf(vals[co] / sum) * SCALING_FACTOR;
    }
}
"""

BLOCK = 256               # 1D blocks over the flat position index
IN_CHANNELS = 16          # fixed by the weight [16, 64, 3, 3, 3]
OUT_CHANNELS = 64         # must equal OUT_CHANNELS in the CUDA source (the local array size)
KERNEL_SIZE = 3
STRIDE = 1                # ConvTranspose3d(stride=1, padding=1): the output keeps the input size
PADDING = 1
SCALING_FACTOR = 2.0
SCALED = 30.0             # T2: x = U[0, 30)
SPIKE = 30.0              # T3: spikes U[0, 30)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(16, 64, 3, 1, 1, 2.0): conv_transpose (with bias), then bias = randn(1, 64, 1, 1, 1)
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING)
        bias = nn.Parameter(torch.randn(1, OUT_CHANNELS, 1, 1, 1))
        return {"w": conv_t.weight, "b": conv_t.bias, "bias": bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD
        OH = (H - 1) * STRIDE - 2 * PADDING + KH
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW
        out = torch.empty((N, C_out, 1, OH, OW), device=x.device, dtype=x.dtype)
        positions = N * OH * OW
        return (
            "convtranspose3d_mean_add_softmax_tanh_kernel",
            (K.cdiv(positions, BLOCK), 1, 1),
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
        y = torch.nn.functional.conv_transpose3d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING)
        y = y.mean(dim=2, keepdim=True)
        y = y + w["bias"]
        y = torch.softmax(y, dim=1)
        y = torch.tanh(y)
        return y * SCALING_FACTOR

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def scaled_inputs(torch, s):
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * SCALED]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the voxels set to U[0, SPIKE).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape) * SPIKE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p13_convtranspose3d_mean_add_softmax_tanh_scaling",
        level=2,
        problem="13_ConvTranspose3d_Mean_Add_Softmax_Tanh_Scaling",
        cuda=CUDA,
        kernel_name="convtranspose3d_mean_add_softmax_tanh_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "depth": K.dim(32),
            "height": K.dim(128),
            "width": K.dim(128),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 3, "height": 5, "width": 7},
                small=True,
                purpose="2 x 5 x 7 = 70 positions, fewer than one 256-thread block, so the tail guard matters; "
                "D, H, W all differ, so swapped strides or divisors show; with 3 depth planes two of the three "
                "convolution outputs averaged touch the zero padding in depth, and the depth mean's divisor "
                "(3, not the official 32) is exercised",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 6, "height": 12, "width": 10},
                purpose="x = U[0,30): same-sign larger magnitudes, so the depth means of the 64 channels "
                "spread over several units and the channel softmax is peaked (median largest probability ~0.6, outputs up to 1.49; 76% of the outputs move beyond the tolerance from their zero-input value, measured on the CPU) instead of set by the "
                "bias alone; a wrong channel, tap, depth range, divisor, max, sum or bias moves outputs beyond "
                "1e-2",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 5, "height": 11, "width": 9},
                purpose="about 2% isolated U[0,30) spikes on exact zeros: a position's depth means see "
                "a few spikes through specific taps, so kd/kh/kw swaps, transposed weight indices, wrong "
                "padding offsets or wrong channel strides move them; spikes on the border planes test the "
                "padding guards",
            ),
        ],
        notes="Nearly input-insensitive at the official inputs: the depth mean averages 32 transposed-convolution "
        "outputs, so a position's 64 channel values differ mainly by the randn bias, the softmax is about the "
        "same pattern everywhere (largest probability ~0.09) and the outputs stay small (2 tanh(p): |out| mean "
        "0.031, max 0.19); measured on the CPU (batch 1, official spatial size), two official seeds' outputs "
        "differ by at most 0.0126 (allclose distance 0.011, just above 1e-2), so faults that move outputs by "
        "less than ~1e-2 pass T0_original; T2 and T3 make the softmax input-dependent. The local array holds the 64 output channels fixed by the weights (C_out is passed but "
        "must be 64). Stride 1 and padding 1 are model constants passed as kernel arguments, so stride "
        "mutants are equivalent. The reference runs ConvTranspose3d through cuDNN, perhaps with TF32 (the "
        "facts file measured this problem's reference within 1e-4 of fp64 on T0); a CPU emulation of TF32 "
        "operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose distances of at most "
        "~8.4e-4 on the targeted suites.",
    )
