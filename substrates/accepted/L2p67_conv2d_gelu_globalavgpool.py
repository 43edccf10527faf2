"""KernelBench level 2, problem 67_Conv2d_GELU_GlobalAvgPool: conv2d 8 -> 64 (3x3), GELU, global mean.

x is 128 x 8 x 256 x 256; the convolution (stride 1, no padding, with bias) gives 128 x 64 x 254 x 254,
GELU is the exact erf form, adaptive_avg_pool2d(., 1) averages each 254 x 254 plane and the two
squeezes leave a 128 x 64 output.

One kernel, one 256-thread block per (n, co) output. The block computes the convolution outputs of
its plane itself: each thread strides over the OH * OW positions (p = tid, tid + 256, ...), runs the
fp32 loop over the input channels and the 3x3 window, applies conv bias and GELU, and adds the
result to its own fp32 partial sum. The partial sums are reduced through a shared-memory tree (a
__syncthreads() after the write and after every level), and thread 0 divides by OH * OW and writes
the output. Offsets into x are 64-bit.

Cost: 128 x 64 x 64516 conv outputs x 72 multiply-adds = 38 G MAC (76 GFLOP) plus 528 M erff; at the
2-2.6 TFLOP/s a naive conv reaches (the accepted L2p1 kernel) about 30-40 ms per forward on an H200
(cuDNN reference: 5.9 ms). 8192 blocks keep the GPU full.
"""

CUDA = r"""
const int GAP_BLOCK = 256;                  // threads per block; one block per (n, co) plane

extern "C" __global__ void conv2d_gelu_globalavgpool_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, C_out]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const float inv_sqrt2 = 0.70710678118654752f;   // gelu(v) = 0.5 * v * (1 + erf(v / sqrt(2)))

    __shared__ float red[GAP_BLOCK];
    int g = blockIdx.x;                 // output index n * C_out + co
    if (g >= N * C_out) return;
    int co = g % C_out;
    int n = g / C_out;
    int tid = threadIdx.x;
    int plane = OH * OW;

    // Phase 1: each thread convolves a strided slice of the plane and sums GELU of the results.
    float thread_sum = 0.0f;
    for (int p = tid; p < plane; p += blockDim.x) {
        int oh = p / OW;
        int ow = p % OW;
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
        float gelu = 0.5f * v * (1.0f + erff(v * inv_sqrt2));
        thread_sum += gelu;
    }

    // Phase 2: tree reduction of the partial sums in shared memory.
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }

    // Phase 3: the mean over the plane.
    if (tid == 0) {
        out[g] = red[0] / (float)plane;
    }
}
"""

BLOCK = 256           # must equal GAP_BLOCK (the shared buffer size) and be a power of two
GROUPS_PER_BLOCK = 1  # one block reduces one (n, co) plane
IN_CHANNELS = 8       # fixed by the conv weight [64, 8, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(in_channels=8, out_channels=64, kernel_size=3): one nn.Conv2d.
        nn = torch.nn
        conv = nn.Conv2d(8, 64, 3)
        return {"conv_w": conv.weight, "conv_b": conv.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w["conv_w"].shape
        OH = H - KH + 1
        OW = W_in - KW + 1
        out = torch.empty((N, C_out), device=x.device, dtype=x.dtype)
        groups = N * C_out
        return (
            "conv2d_gelu_globalavgpool_kernel",
            (K.cdiv(groups, GROUPS_PER_BLOCK), 1, 1),
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
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        y = torch.nn.functional.gelu(y)
        y = torch.nn.functional.adaptive_avg_pool2d(y, 1)
        return y.squeeze(-1).squeeze(-1)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def channel_scaled_inputs(torch, s):
        # Same sign, each (image, input channel) plane scaled by its own factor in [0, 8).
        x = torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])
        scale = torch.rand(s["batch"], IN_CHANNELS, 1, 1) * 8.0
        return [x * scale]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 50).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 50.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p67_conv2d_gelu_globalavgpool",
        level=2,
        problem="67_Conv2d_GELU_GlobalAvgPool",
        cuda=CUDA,
        kernel_name="conv2d_gelu_globalavgpool_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(256, min=3),
            "width": K.dim(256, min=3),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 23, "width": 29},
                small=True,
                purpose="planes of 21 x 27 = 567 = 2 x 256 + 55 positions: the last stride covers only 55 "
                "threads (the plane's last two rows), so the p < plane guard and the tail positions matter "
                "(dropping the partial stride moves outputs by about 0.2); the mean over 567 positions is "
                "far more input-sensitive than over 64516, so the official U[0,1) values already separate "
                "images; 192 blocks; OH=21 != OW=27 catches a wrong plane-to-(oh, ow) split",
            ),
            K.suite(
                "T2_large_same_sign",
                channel_scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 8, "height": 40, "width": 52},
                purpose="same-sign inputs with each (image, input channel) plane scaled by its own factor in "
                "[0, 8): outputs spread over about -0.12..3.7 (std about 0.7 across (n, co) instead of 0.15), "
                "so every output depends on its image's channel mix and a wrong n, ci or co offset, a block "
                "reducing another block's plane or a tap-index swap moves it far beyond 1e-2; GELU sees both "
                "its negative dip and its linear regime; planes of 38 x 50 = 1900 = 7 x 256 + 108; with 72 "
                "taps the TF32 reference stays within about 7e-4 of the exact result (CPU emulation of TF32 "
                "rounding and truncation)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 6, "height": 20, "width": 37},
                purpose="about 1% isolated U[0,50) spikes on exact zeros: about half of the 18 x 35 = 630 conv "
                "windows hold a spike, so each plane mixes exact GELU(conv_bias) values with a few large "
                "ones (up to about 6) at specific places; a kh/kw swap, a transposed weight or a wrong "
                "channel stride changes which windows light up and moves the means by far more than 1e-2; "
                "630 = 2 x 256 + 118 leaves a partial last stride",
            ),
        ],
        notes="Nearly input-insensitive at the official sizes (Appendix B flags it at 1e-2): each output is "
        "the mean of GELU over 254 x 254 = 64516 conv outputs of U[0,1) inputs, so it barely depends on the "
        "particular draw: over the five official trials (16 images each, measured on the CPU) outputs "
        "differ by at most 3.1e-3, and a kernel that returns a fixed per-channel constant (the mean over the "
        "images of one draw) stays within an allclose distance of 1.7e-3 of every trial, far inside 1e-2. T0_original therefore cannot "
        "see faults that shift the output by a constant or ignore the input; the targeted suites use small "
        "planes, per-channel scales and sparse spikes instead. The reference convolution may run in TF32 "
        "(cuDNN default); with 72 taps per output and a 64516-way average its error is far below 1e-2.",
    )
