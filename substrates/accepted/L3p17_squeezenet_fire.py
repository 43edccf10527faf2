"""KernelBench level 3, problem 17_SqueezeNetFireModule: a SqueezeNet Fire module on x 128 x 3 x 256 x 256.

    squeeze    Conv2d(3, 6, 1) + ReLU                   [N,3,H,W]  -> s  [N,6,H,W]
    expand1x1  Conv2d(6, 64, 1) + ReLU                  s          -> e1 [N,64,H,W]
    expand3x3  Conv2d(6, 64, 3, padding=1) + ReLU       s          -> e3 [N,64,H,W]
    torch.cat([e1, e3], 1)                                          -> out [N,128,H,W]

A pipeline of four kernels, one per layer; each ReLU is fused into its convolution's epilogue. The
two expand convolutions write their own buffers and a fourth kernel copies both into the
concatenated output (channels 0..63 from e1, 64..127 from e3), so every step writes all of its
output. The convolutions run one thread per output element on a 3D grid (pixels of one plane along
x with 256-thread blocks, output channel along y, image along z) and accumulate in fp32; the 3x3
expand guards its zero padding explicitly. The concatenation runs over a flat 64-bit index (the
official output has 1.07e9 elements, 4.3 GB).

Cost on the official input: 29.0 G multiply-adds in expand3x3, 3.2 G in expand1x1, 0.15 G in the
squeeze; about 13 GB of memory traffic (the two 2.1 GB expand outputs are written, then read and
written again as the 4.3 GB concatenation). About 30-50 ms per forward on an H200.
"""

CUDA = r"""
// squeeze: Conv2d(3, 6, kernel_size=1) + ReLU
extern "C" __global__ void fire_squeeze_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, H, W]
    int N, int C_in, int HW, int C_out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // pixel: h * W + w
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= HW || co >= C_out || n >= N) return;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        acc += x[((long long)n * C_in + ci) * HW + p] * w[(long long)co * C_in + ci];
    }
    float v = acc + b[co];
    out[((long long)n * C_out + co) * HW + p] = v > 0.0f ? v : 0.0f;
}

// expand1x1: Conv2d(6, 64, kernel_size=1) + ReLU
extern "C" __global__ void fire_expand1x1_relu_kernel(
    const float* __restrict__ s,    // [N, C_in, H, W]  (squeeze output)
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, H, W]
    int N, int C_in, int HW, int C_out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // pixel: h * W + w
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= HW || co >= C_out || n >= N) return;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        acc += s[((long long)n * C_in + ci) * HW + p] * w[(long long)co * C_in + ci];
    }
    float v = acc + b[co];
    out[((long long)n * C_out + co) * HW + p] = v > 0.0f ? v : 0.0f;
}

// expand3x3: Conv2d(6, 64, kernel_size=3, padding=1) + ReLU
extern "C" __global__ void fire_expand3x3_relu_kernel(
    const float* __restrict__ s,    // [N, C_in, H, W]  (squeeze output)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float sv = s[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += sv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// torch.cat([e1, e3], dim=1)
extern "C" __global__ void fire_concat_kernel(
    const float* __restrict__ e1,   // [N, C1, H, W]
    const float* __restrict__ e3,   // [N, C2, H, W]
    float* __restrict__ out,        // [N, C1 + C2, H, W]
    int N, int C1, int C2, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int C = C1 + C2;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int p = (int)(i % HW);
    int c = (int)((i / HW) % C);
    int n = (int)(i / ((long long)HW * C));

    float v;
    if (c < C1) {
        v = e1[((long long)n * C1 + c) * HW + p];
    } else {
        v = e3[((long long)n * C2 + (c - C1)) * HW + p];
    }
    out[i] = v;
}
"""

KERNELS = [
    "fire_squeeze_relu_kernel",
    "fire_expand1x1_relu_kernel",
    "fire_expand3x3_relu_kernel",
    "fire_concat_kernel",
]

BLOCK = 256             # threads per block in every kernel
PAD = 1                 # expand3x3: padding=1, stride 1 (must equal PAD in the kernel)
IN_CHANNELS = 3         # get_init_inputs() = [3, 6, 64, 64]: fixed by the weights
SQUEEZE = 6
EXPAND1X1 = 64
EXPAND3X3 = 64
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the convolutions
LARGE_SCALE = 4.0       # T2: x = U[0, 4)
SPIKE_FRACTION = 0.02   # T3: about 2% of the input values are spikes
SPIKE_SCALE = 8.0       # T3: spikes are U[0, 8)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 6, 64, 64): squeeze, expand1x1, expand3x3 Conv2d layers in this order
        # (the ReLU modules in between draw nothing).
        nn = torch.nn
        squeeze = nn.Conv2d(IN_CHANNELS, SQUEEZE, kernel_size=1)
        expand1x1 = nn.Conv2d(SQUEEZE, EXPAND1X1, kernel_size=1)
        expand3x3 = nn.Conv2d(SQUEEZE, EXPAND3X3, kernel_size=3, padding=PAD)
        return {
            "sq_w": squeeze.weight, "sq_b": squeeze.bias,
            "e1_w": expand1x1.weight, "e1_b": expand1x1.bias,
            "e3_w": expand3x3.weight, "e3_b": expand3x3.bias,
        }

    W = K.weights(build)

    def conv1x1_step(name, x, w, b, torch):
        N, C_in, H, W_in = x.shape
        C_out = w.shape[0]
        HW = H * W_in
        out = torch.empty((N, C_out, H, W_in), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(HW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, b, out],
            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, HW), (ctypes.c_int, C_out)],
        )
        return step, out

    def conv3x3_step(name, x, w, b, torch):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = H + 2 * PAD - KH + 1
        OW = W_in + 2 * PAD - KW + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, b, out],
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
            ],
        )
        return step, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        s1, sq = conv1x1_step("fire_squeeze_relu_kernel", x, w["sq_w"], w["sq_b"], torch)
        s2, e1 = conv1x1_step("fire_expand1x1_relu_kernel", sq, w["e1_w"], w["e1_b"], torch)
        s3, e3 = conv3x3_step("fire_expand3x3_relu_kernel", sq, w["e3_w"], w["e3_b"], torch)
        N, C1, H, W_in = e1.shape
        C2 = e3.shape[1]
        out = torch.empty((N, C1 + C2, H, W_in), device=x.device, dtype=x.dtype)
        s4 = (
            "fire_concat_kernel",
            (K.cdiv(N * (C1 + C2) * H * W_in, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [e1, e3, out],
            [(ctypes.c_int, N), (ctypes.c_int, C1), (ctypes.c_int, C2), (ctypes.c_int, H * W_in)],
        )
        return {"seq": [s1, s2, s3, s4], "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        s = F.relu(F.conv2d(x, w["sq_w"], w["sq_b"]))
        e1 = F.relu(F.conv2d(s, w["e1_w"], w["e1_b"]))
        e3 = F.relu(F.conv2d(s, w["e3_w"], w["e3_b"], padding=PAD))
        return torch.cat([e1, e3], 1)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, num_input_features, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same sign, U[0, 4).
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * LARGE_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the values set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p17_squeezenet_fire",
        level=3,
        problem="17_SqueezeNetFireModule",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128, max=MAX_GRID_Z),
            "height": K.dim(256),
            "width": K.dim(256),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 13, "width": 17},
                small=True,
                purpose="3 x 3 x 13 x 17: a plane of 221 pixels, so every convolution block has 35 dead threads "
                "and the pixel guard matters, and the concatenation's 3 x 128 x 221 = 84864 = 331.5 x 256 "
                "elements end in a partial block; H 13 != W 17 and neither a power of two, so swapped H/W "
                "strides or a wrong row length in the 3x3 window change the result; a quarter (56 of 221) "
                "of the expand3x3 outputs touch the zero padding; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 50, "width": 77},
                purpose="same-sign U[0,4): every convolution's accumulated terms grow 4x against its fixed bias "
                "(outputs up to 2.8, mean 0.27, against 0.76 and 0.098 at U[0,1)), so a dropped channel, tap or "
                "partial sum moves the outputs about 4x further; the reference's TF32 error grows linearly with "
                "the scale: a CPU emulation of its convolutions (operands rounded to 10 mantissa bits at every "
                "conv, exact accumulation) gave allclose distances to the exact result of 1.2-1.5e-3 "
                "(round-to-nearest) and 2.0-2.3e-3 (truncation) on this suite, against about 3e-3 at x8 and "
                "1.1e-2 at x32, so x4 keeps a correct fp32 kernel, and the fp32 reference against fp64, about "
                "4x inside 1e-2; a 50 x 77 "
                "plane is 3850 = 15 x 256 + 10 pixels",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 5, "height": 33, "width": 40},
                purpose="about 2% of the input values are U[0,8) spikes on exact zeros: wherever a pixel holds no "
                "spike (94% of pixels, three values each) the squeeze output is exactly relu(bias), so expand1x1 "
                "is a per-channel constant there and each expand3x3 output departs from its constant only "
                "through the taps that hold a spiked pixel, so kh/kw swaps, transposed weight indices, wrong "
                "padding offsets and input-channel stride faults move specific outputs by up to about 4; "
                "emulated TF32 error 1.0-1.1e-3 (round-to-nearest) and 1.8e-3 (truncation)",
            ),
        ],
        notes="The reference's three convolutions run through cuDNN with TF32 (torch's default): at the "
        "official U[0,1) scale a CPU emulation puts the TF32 reference 3-4e-4 (round-to-nearest) to 7e-4 "
        "(truncation) from the exact result, so this exact fp32 pipeline passes 1e-2 easily but would miss "
        "1e-4. Memory: the official output is 4.3 GB (8.6 GB for the gate's fp64 reference, which also holds "
        "both expand outputs before the cat); one forward also allocates 0.2 GB for the squeeze output and "
        "2 x 2.1 GB for the expand outputs. The official planes (65536 pixels) fill whole 256-thread blocks; "
        "T1_remainder, T2 and T3 leave partial ones. ReLU (v > 0 ? v : 0) maps NaN to 0 where torch "
        "propagates it; finite inputs are unaffected.",
    )
