"""KernelBench level 2, problem 8_Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum.

conv3d 8 -> 16 (3x3x3, stride 1, no padding, with bias), / 2.0, MaxPool3d((2, 2, 2)) (stride 2, floor
mode), AdaptiveAvgPool3d((1, 1, 1)), + bias (16, 1, 1, 1), sum over dim 1. x is 128 x 8 x 16 x 64 x 64;
the convolution gives 128 x 16 x 14 x 62 x 62, the max pool 7 x 31 x 31, the global average
128 x 16 x 1 x 1 x 1, and the channel sum leaves a 128 x 1 x 1 x 1 output: one number per image,
sum over c of (mean of the pooled plane c + bias[c]).

One kernel, one 512-thread block per image (the reduced group). The block walks the 16 channels in
order; for each, every thread strides over the pooled positions (p = tid, tid + 512, ...), computes
the eight conv outputs of the 2x2x2 pool window itself (fp32 loop over the 8 input channels and the
3x3x3 window), adds the conv bias, divides, keeps the window max and adds it to its fp32 partial
sum. A shared-memory tree (a __syncthreads() after the write and after every level) reduces the
partial sums; thread 0 turns the total into the channel mean, adds bias[c] and accumulates the
channel sum in a register; a last __syncthreads() keeps the next channel from overwriting the
buffer before thread 0 has read it. Thread 0 writes the image's output at the end.

Cost: 128 x 16 x 6727 pooled outputs x 8 conv outputs x 216 multiply-adds = 23.8 G MAC (48 GFLOP).
Only 128 blocks (one per image) run, about one per SM, so the naive loop runs well below the
2-2.6 TFLOP/s of the accepted L2p1 kernel: roughly 20-60 ms per forward on an H200 (cuDNN: 2.4 ms).
"""

CUDA = r"""
const int GAP_BLOCK = 512;                  // threads per block; one block per image

extern "C" __global__ void conv3d_div_max_gap_bias_sum_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [C_out, 1, 1, 1]
    float* __restrict__ out,            // [N, 1, 1, 1]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int PD, int PH, int PW)
{
    const int POOL = 2;                     // MaxPool3d((2, 2, 2)): kernel 2, stride 2
    const float divisor = 2.0f;             // Model.divisor
    const float LOWEST = -3.402823466e+38f; // -FLT_MAX: identity of the max

    __shared__ float red[GAP_BLOCK];
    int n = blockIdx.x;
    if (n >= N) return;
    int tid = threadIdx.x;
    int plane = PD * PH * PW;               // pooled positions per channel

    float channel_total = 0.0f;             // sum over channels of (mean + bias); kept by thread 0
    for (int c = 0; c < C_out; ++c) {
        // Phase 1: each thread sums the pooled values of a strided slice of the plane.
        float thread_sum = 0.0f;
        for (int p = tid; p < plane; p += blockDim.x) {
            int pw = p % PW;
            int ph = (p / PW) % PH;
            int pd = p / (PW * PH);
            float m = LOWEST;
            for (int dz = 0; dz < POOL; ++dz) {
                for (int dy = 0; dy < POOL; ++dy) {
                    for (int dx = 0; dx < POOL; ++dx) {
                        int od = pd * POOL + dz;    // conv output coordinates
                        int oh = ph * POOL + dy;
                        int ow = pw * POOL + dx;
                        float acc = 0.0f;
                        for (int ci = 0; ci < C_in; ++ci) {
                            for (int kd = 0; kd < KD; ++kd) {
                                for (int kh = 0; kh < KH; ++kh) {
                                    for (int kw = 0; kw < KW; ++kw) {
                                        int id = od + kd;
                                        int ih = oh + kh;
                                        int iw = ow + kw;
                                        float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                                        float wv = w[((((long long)c * C_in + ci) * KD + kd) * KH + kh) * KW + kw];
                                        acc += xv * wv;
                                    }
                                }
                            }
                        }
                        float v = (acc + conv_b[c]) / divisor;
                        if (v > m) m = v;
                    }
                }
            }
            thread_sum += m;
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

        // Phase 3: global average of channel c, bias add, running channel sum.
        if (tid == 0) {
            float mean = red[0] / (float)plane;
            channel_total += mean + bias[c];
        }
        __syncthreads();    // thread 0 has read red[0] before the next channel overwrites it
    }

    if (tid == 0) {
        out[n] = channel_total;
    }
}
"""

BLOCK = 512           # must equal GAP_BLOCK (the shared buffer size) and be a power of two
POOL = 2              # MaxPool3d(pool_size=(2, 2, 2)); must equal POOL in the CUDA source
IMAGES_PER_BLOCK = 1  # one block reduces one image
IN_CHANNELS = 8       # fixed by the conv weight [16, 8, 3, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8, 16, (3, 3, 3), 2.0, (2, 2, 2), (16, 1, 1, 1), 1): nn.Conv3d, two parameterless
        # pools, then self.bias = nn.Parameter(torch.randn(bias_shape)).
        nn = torch.nn
        conv = nn.Conv3d(8, 16, (3, 3, 3))
        bias = nn.Parameter(torch.randn((16, 1, 1, 1)))
        return {"conv_w": conv.weight, "conv_b": conv.bias, "bias": bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["conv_w"].shape
        OD, OH, OW = D - KD + 1, H - KH + 1, W_in - KW + 1
        PD = (OD - POOL) // POOL + 1
        PH = (OH - POOL) // POOL + 1
        PW = (OW - POOL) // POOL + 1
        out = torch.empty((N, 1, 1, 1), device=x.device, dtype=x.dtype)
        return (
            "conv3d_div_max_gap_bias_sum_kernel",
            (K.cdiv(N, IMAGES_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], w["bias"], out],
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
                (ctypes.c_int, PD),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv3d(x, w["conv_w"], w["conv_b"])
        y = y / 2.0
        y = torch.nn.functional.max_pool3d(y, (POOL, POOL, POOL))
        y = torch.nn.functional.adaptive_avg_pool3d(y, (1, 1, 1))
        y = y + w["bias"]
        return torch.sum(y, dim=1)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def channel_scaled(top):
        # Same sign, each (image, input channel) volume scaled by its own factor in [0, top).
        def gen(torch, s):
            x = torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
            scale = torch.rand(s["batch"], IN_CHANNELS, 1, 1, 1) * top
            return [x * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the voxels set to U[0, 40).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 40.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p8_conv3d_div_max_gap_bias_sum",
        level=2,
        problem="8_Conv3d_Divide_Max_GlobalAvgPool_BiasAdd_Sum",
        cuda=CUDA,
        kernel_name="conv3d_div_max_gap_bias_sum_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "depth": K.dim(16, min=4),
            "height": K.dim(64, min=4),
            "width": K.dim(64, min=4),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                channel_scaled(8.0),
                seeds=[1, 2],
                sizes={"batch": 3, "depth": 9, "height": 33, "width": 29},
                small=True,
                purpose="conv output 7 x 31 x 27 (all odd: floor-mode pooling drops the last conv slice, row "
                "and column) pooled to 3 x 15 x 13 = 585 = 512 + 73 positions per channel, so the last "
                "stride covers 73 threads and the p < plane guard, the tail positions and the pooled-size "
                "formula matter; inputs scaled per (image, input channel) by factors in [0, 8), so each "
                "image's output (about 4..9) depends on its own channel mix, unlike the official inputs "
                "whose outputs are all about 0.894",
            ),
            K.suite(
                "T2_large_same_sign",
                channel_scaled(32.0),
                seeds=[3, 4],
                sizes={"batch": 6, "depth": 10, "height": 24, "width": 30},
                purpose="same-sign inputs scaled per (image, input channel) by factors in [0, 32): outputs of "
                "about 12..38 that differ between images, so a wrong image or channel offset, a dropped "
                "channel, a wrong divisor or a lost partial sum moves them by far more than 1e-2 relative; "
                "even conv sizes 8 x 22 x 28 (no floor-mode drop), 4 x 11 x 14 = 616 pooled positions; "
                "with 216 taps a CPU emulation of TF32 rounding (round-to-nearest and truncation) puts the "
                "reference within about 6e-4 of the exact result",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 5, "depth": 8, "height": 19, "width": 22},
                purpose="about 1% isolated U[0,40) spikes on exact zeros (about 2 of the 216 taps of a conv "
                "window): the window max picks the conv positions a spike lifts, so each pooled value "
                "depends on specific taps and pool offsets (kd/kh/kw swaps, wrong pool-window origins and "
                "channel strides show), and each image's output (about 11.4..15.2) on where its spikes fall; "
                "conv height 17 is odd (floor mode)",
            ),
        ],
        notes="Degenerate at the official inputs (Appendix B: const-pass and input-insensitive at 1e-2): "
        "each output is sum over 16 channels of (mean of 6727 max-pooled conv values + bias), and with "
        "U[0,1) inputs these means hardly depend on the draw: every image of every trial gives about 0.894 "
        "(0.887..0.903 over all five trials), so a kernel that writes the constant 0.894 stays within an allclose distance of "
        "4.8e-3 of every official trial, and T0_original cannot see faults that keep the output near that "
        "constant (e.g. most wrong spatial offsets). The targeted suites scale inputs per (image, channel) "
        "or use sparse spikes so outputs differ between images. The reference convolution may run in TF32 "
        "(cuDNN default); with 216 taps and a 6727-way average its error stays far below 1e-2.",
    )
