"""KernelBench level 2, problem 43_Conv3d_Max_LogSumExp_ReLU: relu(logsumexp(maxpool(conv3d(x)), dim=1)).

x is 4 x 32 x 32 x 128 x 128; nn.Conv3d(32, 64, 3, stride=1, padding=1) with bias keeps the spatial
size (4 x 64 x 32 x 128 x 128); nn.MaxPool3d(kernel_size=2, stride=2) (floor mode) halves it to
4 x 64 x 16 x 64 x 64; the logsumexp over the 64 channels (keepdim) and a ReLU give 4 x 1 x 16 x 64 x 64.

One kernel, one thread per output element (n, pd, ph, pw) with pw fastest. For each of the 64
channels the thread takes the max over its 2 x 2 x 2 pooling window of convolution values, each a
loop over the 32 input channels and the 3 x 3 x 3 window with an explicit bounds test on every tap
for the zero padding, accumulated in fp32, plus the bias; the 64 pooled values sit in a local array
with a running max, a second loop sums expf(v - max), and the thread stores relu(max + logf(sum)).
Flat indices and input offsets are 64-bit.

Cost: 262 K threads, each 64 channels x 8 window positions x 864 multiply-adds = 442 K: 116 G
multiply-adds (232 GFLOP) in all; neighbouring threads read neighbouring inputs (coalesced) and the
same weight (a broadcast), so at roughly 1-2.5 TFLOP/s on an H200 one forward takes about 0.1-0.25 s
(reference 2.65 ms).
"""

CUDA = r"""
const int OUT_CHANNELS = 64;    // Conv3d out_channels (fixed by the weights): the logsumexp width

extern "C" __global__ void conv3d_maxpool_logsumexp_relu_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, 1, PD, PH, PW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int PD, int PH, int PW, int pad)
{
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    const int POOL = 2;                             // MaxPool3d(kernel_size=2, stride=2)

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * PD * PH * PW;
    if (i >= total) return;

    int pw = (int)(i % PW);
    int ph = (int)((i / PW) % PH);
    int pd = (int)((i / ((long long)PW * PH)) % PD);
    int n = (int)(i / ((long long)PW * PH * PD));

    float vals[OUT_CHANNELS];                       // max-pooled convolution value per channel
    float vmax = NEG_SENTINEL;
    for (int co = 0; co < C_out; ++co) {
        float pooled = NEG_SENTINEL;
        for (int a = 0; a < POOL; ++a) {
            for (int e = 0; e < POOL; ++e) {
                for (int f = 0; f < POOL; ++f) {
                    int od = pd * POOL + a;         // convolution output in the window (stride 1: OD = D)
                    int oh = ph * POOL + e;
                    int ow = pw * POOL + f;
                    float acc = 0.0f;
                    for (int ci = 0; ci < C_in; ++ci) {
                        for (int kd = 0; kd < KD; ++kd) {
                            int id = od - pad + kd;
                            if (id < 0 || id >= D) continue;        // zero padding in depth
                            for (int kh = 0; kh < KH; ++kh) {
                                int ih = oh - pad + kh;
                                if (ih < 0 || ih >= H) continue;    // zero padding in height
                                for (int kw = 0; kw < KW; ++kw) {
                                    int iw = ow - pad + kw;
                                    if (iw < 0 || iw >= W) continue;    // zero padding in width
                                    float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                                    float wv = w[((((long long)co * C_in + ci) * KD + kd) * KH + kh) * KW + kw];
                                    acc += xv * wv;
                                }
                            }
                        }
                    }
                    pooled = fmaxf(pooled, acc + conv_b[co]);
                }
            }
        }
        vals[co] = pooled;
        vmax = fmaxf(vmax, pooled);
    }

    // logsumexp over the channels, stabilised by the channel max, then ReLU.
    float sum = 0.0f;
    for (int co = 0; co < C_out; ++co) {
        sum += expf(vals[co] - vmax);
    }
    float v = vmax + logf(sum);
    out[i] = v > 0.0f ? v : 0.0f;
}
"""

BLOCK = 256               # 1D blocks over the flat output index
IN_CHANNELS = 32          # fixed by the weight [64, 32, 3, 3, 3]
OUT_CHANNELS = 64         # must equal OUT_CHANNELS in the CUDA source (the local array size)
KERNEL_SIZE = 3
PADDING = 1               # Conv3d(stride=1, padding=1): the output keeps the input size
POOL = 2                  # MaxPool3d(kernel_size=2, stride=2)
SCALED = 8.0              # T2: x = U[0, 8)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(32, 64, 3, 1, 1): conv (with bias), then max_pool (no parameters)
        conv = torch.nn.Conv3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=1, padding=PADDING)
        return {"w": conv.weight, "b": conv.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["w"].shape
        OD = D + 2 * PADDING - KD + 1
        OH = H + 2 * PADDING - KH + 1
        OW = W_in + 2 * PADDING - KW + 1
        PD, PH, PW = OD // POOL, OH // POOL, OW // POOL
        out = torch.empty((N, 1, PD, PH, PW), device=x.device, dtype=x.dtype)
        total = N * PD * PH * PW
        return (
            "conv3d_maxpool_logsumexp_relu_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], out],
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
                (ctypes.c_int, PD),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
                (ctypes.c_int, PADDING),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.conv3d(x, w["w"], w["b"], stride=1, padding=PADDING)
        y = F.max_pool3d(y, kernel_size=POOL, stride=POOL)
        y = torch.logsumexp(y, dim=1, keepdim=True)
        return torch.relu(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def scaled_inputs(torch, s):
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * SCALED]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the voxels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p43_conv3d_max_logsumexp_relu",
        level=2,
        problem="43_Conv3d_Max_LogSumExp_ReLU",
        cuda=CUDA,
        kernel_name="conv3d_maxpool_logsumexp_relu_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(4),
            "depth": K.dim(32, min=2),
            "height": K.dim(128, min=2),
            "width": K.dim(128, min=2),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 5, "height": 6, "width": 7},
                small=True,
                purpose="pooled output 2 x 2 x 3 x 3 = 36 elements, fewer than one 256-thread block, so the tail "
                "guard matters; depth 5 and width 7 are odd, so the floor of the max pool drops the last "
                "convolution plane and column and an off-by-one window reads them; D, H, W all differ, so "
                "swapped strides or divisors show, and with 5 to 7 positions per axis every pooled value "
                "touches the zero padding on some side",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 8, "height": 12, "width": 10},
                purpose="x = U[0,8): same-sign larger magnitudes, convolution values of std ~2.4, so the "
                "logsumexp follows the largest pooled channel (outputs 7.1 to 10.3, std 0.46) instead of sitting near "
                "log(64) + ~0.2 as on U[0,1), and a wrong channel, tap, padding bound or pooling window, or a "
                "logsumexp without its max add-back, moves it beyond the tolerance",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 6, "height": 10, "width": 11},
                purpose="about 1% isolated U[0,8) spikes on exact zeros: a pooled window's 8 convolutions see 864 "
                "taps each, about 9 spikes, so the largest channel depends on a few specific taps, and kd/kh/kw "
                "swaps, transposed weights, wrong padding offsets or wrong channel strides move it; spikes on "
                "the border planes test the padding guards",
            ),
        ],
        notes="Weak at the official inputs: with x = U[0,1) every channel's pooled value stays near its "
        "bias plus 0.5 * sum(w), so the logsumexp sits near log(64) + ~0.3; measured on the CPU (batch 1, "
        "two official seeds) the outputs lie in about 4.40-4.54 (mean 4.466) and the two seeds' outputs "
        "differ by at most 0.088 (allclose distance 0.016, just above the tolerance ~0.055), so most "
        "faults that shift the values a little pass T0_original and T1 (4.44-4.49); T2 and T3 spread them. "
        "The logsumexp of 64 channels is at least log(64) + their minimum and is positive on every "
        "suite, so the ReLU's zero branch never runs (mutants of it are equivalent). The local array holds "
        "the 64 output channels fixed by the weights (C_out is passed but must be 64). Stride 1 is implicit "
        "(the convolution keeps the input size; OD, OH, OW are passed for the output geometry only). The "
        "reference convolution may run through cuDNN with TF32 (the facts file measured this problem's "
        "reference within 1e-4 of fp64 on T0); a CPU emulation of TF32 operand rounding (round-to-nearest "
        "and truncation) gave fp32-vs-fp64 allclose distances of at most ~6e-4 on the targeted suites.",
    )
