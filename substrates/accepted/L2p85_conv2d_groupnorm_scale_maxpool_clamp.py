"""KernelBench level 2, problem 85_Conv2d_GroupNorm_Scale_MaxPool_Clamp.

conv2d 8 -> 64 (3x3, stride 1, no padding, with bias), GroupNorm(16 groups of 4 channels, eps 1e-5,
affine weight ones and bias zeros), * scale (64, 1, 1) (torch.ones, so ones), MaxPool2d(4) (kernel 4,
stride 4, floor mode), clamp to [0, 1]. x is 128 x 8 x 128 x 128; the conv output is
128 x 64 x 126 x 126 and the output 128 x 64 x 31 x 31 (pool rows and columns 124 and 125 of the conv
output are dropped by the floor mode, but they still enter the GroupNorm statistics).

One kernel, one 256-thread block per (sample, group); the conv output is never stored. Pass 1: the
threads stride over the group's 4 x 126 x 126 = 63,504 conv outputs, each computes its convolution
(fp32 loop over the 8 input channels and the 3x3 window) plus the conv bias and adds it to a
per-thread sum; a shared-memory tree gives the group mean. Pass 2 recomputes the same values and sums
their squared deviations; a second tree gives the biased variance. Pass 3: the threads stride over the
group's 4 x 31 x 31 pooled outputs; each recomputes the 16 conv values of its 4 x 4 window, normalises
each, (v - mean) / sqrtf(var + eps), applies the channel's GroupNorm weight and bias and the scale,
takes the maximum, clamps it to [0, 1] and stores it. A __syncthreads() follows every shared-memory
write phase and every tree level. In-group indices are 64-bit.

Cost: 2048 blocks x (2 x 63,504 + 61,504) conv evaluations x 72 multiply-adds = 27.8 G MAC, roughly
25-35 ms per forward on an H200 at the 2-2.6 TFLOP/s of the accepted naive convolutions (cuDNN
reference 2.3 ms).
"""

CUDA = r"""
const int GN_BLOCK = 256;       // threads per block; one block per (sample, group) (power of two)
const float GN_EPS = 1e-5f;     // nn.GroupNorm default eps
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max

__device__ float conv2d_at(
    const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ conv_b,
    int n, int co, int oh, int ow, int C_in, int H, int W, int KH, int KW)
{
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
    return acc + conv_b[co];
}

extern "C" __global__ void conv2d_groupnorm_scale_maxpool_clamp_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ gn_w,     // [C_out]
    const float* __restrict__ gn_b,     // [C_out]
    const float* __restrict__ scale,    // [C_out, 1, 1]
    float* __restrict__ out,            // [N, C_out, PH, PW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW,
    int PH, int PW, int pool, int G)
{
    const float clamp_min = 0.0f;       // torch.clamp(x, clamp_min, clamp_max)
    const float clamp_max = 1.0f;

    __shared__ float red[GN_BLOCK];
    int blk = blockIdx.x;               // n * G + g
    if (blk >= N * G) return;
    int g = blk % G;
    int n = blk / G;
    int tid = threadIdx.x;
    int cpg = C_out / G;                // channels per group
    long long plane = (long long)OH * OW;
    long long count = (long long)cpg * plane;   // conv outputs of the group

    // Pass 1: the group sum over every conv output (the pool's dropped rows and columns included).
    float thread_sum = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)((e / OW) % OH);
        int co = g * cpg + (int)(e / plane);
        thread_sum += conv2d_at(x, w, conv_b, n, co, oh, ow, C_in, H, W, KH, KW);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)count;
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of squared deviations from the mean, recomputing the conv.
    float thread_sq = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)((e / OW) % OH);
        int co = g * cpg + (int)(e / plane);
        float d = conv2d_at(x, w, conv_b, n, co, oh, ow, C_in, H, W, KH, KW) - mean;
        thread_sq += d * d;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float var = red[0] / (float)count;  // biased, as group_norm
    float inv_std = 1.0f / sqrtf(var + GN_EPS);

    // Pass 3: every pooled output of the group: the max over its pool x pool window of the
    // normalised, affine-transformed and scaled conv values, then the clamp.
    long long pplane = (long long)PH * PW;
    long long pcount = (long long)cpg * pplane;
    for (long long e = tid; e < pcount; e += blockDim.x) {
        int pw = (int)(e % PW);
        int ph = (int)((e / PW) % PH);
        int co = g * cpg + (int)(e / pplane);
        float m = NEG_SENTINEL;
        for (int dy = 0; dy < pool; ++dy) {
            for (int dx = 0; dx < pool; ++dx) {
                int oh = ph * pool + dy;
                int ow = pw * pool + dx;
                float v = conv2d_at(x, w, conv_b, n, co, oh, ow, C_in, H, W, KH, KW);
                v = (v - mean) * inv_std * gn_w[co] + gn_b[co];
                v = v * scale[co];
                m = fmaxf(m, v);
            }
        }
        m = fminf(fmaxf(m, clamp_min), clamp_max);
        out[((long long)n * C_out + co) * pplane + (long long)ph * PW + pw] = m;
    }
}
"""

BLOCK = 256             # must equal GN_BLOCK (the shared buffer size), a power of two
GROUPS_PER_BLOCK = 1    # one block per (sample, group)
IN_CHANNELS = 8         # fixed by the conv weight [64, 8, 3, 3]
NUM_GROUPS = 16
GN_EPS = 1e-5
POOL = 4                # nn.MaxPool2d(kernel_size=4): stride 4, floor mode
CLAMP_MIN, CLAMP_MAX = 0.0, 1.0


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8, 64, 3, 16, (64, 1, 1), 4, 0.0, 1.0): nn.Conv2d(8, 64, 3), nn.GroupNorm(16, 64)
        # (weight ones, bias zeros), scale = torch.ones((64, 1, 1)); nothing but the conv draws.
        nn = torch.nn
        conv = nn.Conv2d(8, 64, 3)
        gn = nn.GroupNorm(NUM_GROUPS, 64)
        scale = nn.Parameter(torch.ones((64, 1, 1)))
        return {"conv_w": conv.weight, "conv_b": conv.bias, "gn_w": gn.weight, "gn_b": gn.bias, "scale": scale}

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
        return (
            "conv2d_groupnorm_scale_maxpool_clamp_kernel",
            (K.cdiv(N * NUM_GROUPS, GROUPS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], w["gn_w"], w["gn_b"], w["scale"], out],
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
                (ctypes.c_int, POOL),
                (ctypes.c_int, NUM_GROUPS),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        y = torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)
        y = y * w["scale"]
        y = torch.nn.functional.max_pool2d(y, kernel_size=POOL)
        return torch.clamp(y, CLAMP_MIN, CLAMP_MAX)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def per_sample_inputs(torch, s):
        # Sample n is (0.5 + n) * U[0,1) - 0.5 * n: every sample with its own mean and spread.
        n = torch.arange(s["batch"], dtype=torch.float32).view(-1, 1, 1, 1)
        u = torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])
        return [(0.5 + n) * u - 0.5 * n]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p85_conv2d_groupnorm_scale_maxpool_clamp",
        level=2,
        problem="85_Conv2d_GroupNorm_Scale_MaxPool_Clamp",
        cuda=CUDA,
        kernel_name="conv2d_groupnorm_scale_maxpool_clamp_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(128, min=6),
            "width": K.dim(128, min=6),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 13, "width": 19},
                small=True,
                purpose="conv output 11 x 17, pooled 2 x 4: floor mode drops conv rows 8..10 and column 16, "
                "which still enter the statistics, so a ceil-mode size, a window origin error or statistics "
                "taken over the pooled area only show; groups of 4 x 187 = 748 = 2 x 256 + 236 conv outputs "
                "(a partial third stride) and 32 pooled outputs (224 idle threads in pass 3); official "
                "U[0,1) values",
            ),
            K.suite(
                "T2_per_sample_shift_scale",
                per_sample_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "height": 22, "width": 27},
                purpose="sample n = (0.5 + n) * U[0,1) - 0.5 n (ranges [0, 0.5), [-0.5, 1), [-1, 1.5)): every "
                "sample has its own mean and spread, which move each channel's conv output by its own "
                "amount, so group statistics differ by sample and group, and the clamp window [0, 1] cuts "
                "the normalised values at different places: a block that uses another sample's or group's "
                "statistics shows",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 25, "width": 21},
                purpose="about 1% isolated U[0,8) spikes on exact zeros: most conv outputs are exactly conv_b, "
                "so normalised values are a constant per channel with rare large outliers, and the pool max "
                "of a window is either that constant or a spike's value (often clamped at 1): a window "
                "origin or size error, kh/kw swaps or a wrong pooled index move the outliers",
            ),
        ],
        notes="GroupNorm's affine parameters and the scale are their inits (weight ones, bias zeros, scale "
        "ones), and no suite can change them: a kernel that skips them or reads them at a wrong in-range "
        "channel passes. The clamp to [0, 1] after the pool hides every normalised value below 0 or "
        "above 1 (measured on the CPU reference, official inputs, 2 samples: 16.5% of the outputs are "
        "clamped at 0, 52% at 1 and 32% lie in between; T2: 7% / 71% / 22%), so faults that only change "
        "values outside [0, 1] are invisible. The reference convolution runs "
        "through cuDNN (facts: within 1e-4 of exact for this problem).",
    )
