"""KernelBench level 2, problem 92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp.

conv2d 8 -> 64 (3x3, stride 1, no padding, with bias) gives x_conv; GroupNorm(16 groups of 4 channels,
eps 1e-5, affine weight ones and bias zeros), tanh, HardSwish; the residual x_conv + hardswish; then
logsumexp over the 64 channels (keepdim). x is 128 x 8 x 128 x 128; the conv output is
128 x 64 x 126 x 126 and the output 128 x 1 x 126 x 126.

One kernel, one 1024-thread block per sample; the conv output is never stored. For each of the 16
groups, pass 1: the threads stride over the group's 4 x 126 x 126 = 63,504 conv outputs, each
computes its convolution (fp32 loop over the 8 input channels and the 3x3 window) plus the conv bias
and adds it to a per-thread sum; a shared-memory tree gives the group mean. Pass 2 recomputes the same
values and sums their squared deviations; a second tree gives the biased variance. Thread 0 keeps
each group's mean and 1 / sqrtf(var + eps) in shared memory. Pass 3: the threads stride over the
126 x 126 pixels; each recomputes the pixel's 64 conv values, normalises each with its group's
statistics and the channel's GroupNorm weight and bias, applies tanh and HardSwish (t * min(max(t + 3,
0), 6) / 6), adds the conv value back, keeps the 64 results in a local array with their maximum, and
stores max + logf(sum of expf(r - max)). A __syncthreads() follows every shared-memory write phase and
every tree level. In-sample indices are 64-bit.

Cost: 128 samples x 3 x 1,016,064 conv evaluations x 72 multiply-adds = 28 G MAC plus 130 M tanhf/expf;
128 blocks of 1024 threads (one per SM, half occupancy), roughly 30-50 ms per forward on an H200
(cuDNN reference 3.5 ms).
"""

CUDA = r"""
const int GN_BLOCK = 1024;      // threads per block; one block per sample (power of two)
const float GN_EPS = 1e-5f;     // nn.GroupNorm eps
const int MAX_GROUPS = 16;      // NUM_GROUPS, fixed by the model (sizes the statistics arrays)
const int MAX_CHANNELS = 64;    // C_out, fixed by the conv weight (sizes the per-pixel array)
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

extern "C" __global__ void conv2d_groupnorm_tanh_hardswish_residualadd_logsumexp_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ gn_w,     // [C_out]
    const float* __restrict__ gn_b,     // [C_out]
    float* __restrict__ out,            // [N, 1, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int G)
{
    const float hs_offset = 3.0f;       // hardswish(t) = t * min(max(t + 3, 0), 6) / 6
    const float hs_cap = 6.0f;

    __shared__ float red[GN_BLOCK];
    __shared__ float g_mean[MAX_GROUPS];
    __shared__ float g_inv_std[MAX_GROUPS];
    int n = blockIdx.x;
    if (n >= N) return;
    int tid = threadIdx.x;
    int cpg = C_out / G;                // channels per group
    long long plane = (long long)OH * OW;
    long long count = (long long)cpg * plane;   // conv outputs of one group

    for (int g = 0; g < G; ++g) {
        // Pass 1: the group sum.
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
        if (tid == 0) {
            float var = red[0] / (float)count;  // biased, as group_norm
            g_mean[g] = mean;
            g_inv_std[g] = 1.0f / sqrtf(var + GN_EPS);
        }
        __syncthreads();    // red[0] is read and the group's statistics are stored
    }

    // Pass 3: every pixel: the residual x_conv + hardswish(tanh(groupnorm(x_conv))) of its 64 channels,
    // then their logsumexp.
    for (long long p = tid; p < plane; p += blockDim.x) {
        int ow = (int)(p % OW);
        int oh = (int)(p / OW);
        float res[MAX_CHANNELS];
        float r_max = NEG_SENTINEL;
        for (int co = 0; co < C_out; ++co) {
            int gi = co / cpg;
            float v = conv2d_at(x, w, conv_b, n, co, oh, ow, C_in, H, W, KH, KW);
            float xn = (v - g_mean[gi]) * g_inv_std[gi] * gn_w[co] + gn_b[co];
            float t = tanhf(xn);
            float gate = fminf(fmaxf(t + hs_offset, 0.0f), hs_cap);
            float r = v + t * gate / hs_cap;
            res[co] = r;
            r_max = fmaxf(r_max, r);
        }
        float sum = 0.0f;
        for (int co = 0; co < C_out; ++co) {
            sum += expf(res[co] - r_max);
        }
        out[(long long)n * plane + p] = r_max + logf(sum);
    }
}
"""

BLOCK = 1024            # must equal GN_BLOCK (the shared buffer size), a power of two
SAMPLES_PER_BLOCK = 1   # one block per sample
IN_CHANNELS = 8         # fixed by the conv weight [64, 8, 3, 3]
OUT_CHANNELS = 64       # must be <= MAX_CHANNELS in the CUDA source
NUM_GROUPS = 16         # must be <= MAX_GROUPS in the CUDA source
GN_EPS = 1e-5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8, 64, 3, 16, eps=1e-5): nn.Conv2d(8, 64, 3), nn.GroupNorm(16, 64, eps=1e-5)
        # (weight ones, bias zeros; it draws nothing); Tanh and Hardswish have no parameters.
        nn = torch.nn
        conv = nn.Conv2d(IN_CHANNELS, OUT_CHANNELS, 3)
        gn = nn.GroupNorm(NUM_GROUPS, OUT_CHANNELS, eps=GN_EPS)
        return {"conv_w": conv.weight, "conv_b": conv.bias, "gn_w": gn.weight, "gn_b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w["conv_w"].shape
        OH = H - KH + 1
        OW = W_in - KW + 1
        out = torch.empty((N, 1, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "conv2d_groupnorm_tanh_hardswish_residualadd_logsumexp_kernel",
            (K.cdiv(N, SAMPLES_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], w["gn_w"], w["gn_b"], out],
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
                (ctypes.c_int, NUM_GROUPS),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        x_conv = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        x_norm = torch.nn.functional.group_norm(x_conv, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)
        x_tanh = torch.tanh(x_norm)
        x_hard_swish = torch.nn.functional.hardswish(x_tanh)
        x_res = x_conv + x_hard_swish
        return torch.logsumexp(x_res, dim=1, keepdim=True)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def per_sample_inputs(torch, s):
        # Sample n is (0.5 + n) * U[0,1) - 0.5 * n: every sample with its own mean and spread.
        n = torch.arange(s["batch"], dtype=torch.float32).view(-1, 1, 1, 1)
        u = torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])
        return [(0.5 + n) * u - 0.5 * n]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 16).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p92_conv2d_groupnorm_tanh_hardswish_residualadd_logsumexp",
        level=2,
        problem="92_Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp",
        cuda=CUDA,
        kernel_name="conv2d_groupnorm_tanh_hardswish_residualadd_logsumexp_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(128, min=3),
            "width": K.dim(128, min=3),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 20, "width": 27},
                small=True,
                purpose="output 18 x 25 = 450 pixels < 1024 (574 threads idle in pass 3) and groups of 4 x 450 "
                "= 1800 = 1024 + 776 conv outputs (a partial second stride), so the e < count and p < plane "
                "guards and the reduction identity matter; OH=18 != OW=25, so swapped H/W strides show; "
                "official U[0,1) values",
            ),
            K.suite(
                "T2_per_sample_shift_scale",
                per_sample_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "height": 23, "width": 18},
                purpose="sample n = (0.5 + n) * U[0,1) - 0.5 n (ranges [0, 0.5), [-0.5, 1), [-1, 1.5)): every "
                "sample has its own mean and spread, which move each channel's conv output by its own "
                "amount, so group statistics differ by sample and group and the conv values spread wider "
                "(the logsumexp is less dominated by one channel): a block that uses another sample's or "
                "group's statistics or a wrong group index per channel shows",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 21, "width": 26},
                purpose="about 1% isolated U[0,16) spikes on exact zeros: most conv outputs are exactly conv_b, "
                "so the normalised values are per-channel constants with rare large outliers and the "
                "logsumexp at a spike is dominated by the channels whose weights meet it: kh/kw swaps, "
                "transposed weights or wrong channel strides move those pixels",
            ),
        ],
        notes="GroupNorm's affine parameters are its init, weight ones and bias zeros, and no suite can change "
        "them: a kernel that skips the affine or reads gn_w/gn_b at a wrong in-range channel passes. tanh "
        "keeps the HardSwish input in (-1, 1), so t + 3 lies in (2, 4) and neither of HardSwish's clamps "
        "ever acts: mutants that only drop the fminf/fmaxf or change the 0.0f bound are equivalent "
        "(hs_cap is also the divisor, so its mutants are not). The residual adds the "
        "raw conv value, so the output is dominated by logsumexp(x_conv) and the normalised branch "
        "contributes between -1/3 and 2/3 per channel. Outputs sit near log(64) = 4.16 (official inputs: "
        "4.17..4.61, std 0.056, CPU reference): a constant output equal to their mean misses the "
        "reference by tau* = 0.044 (two official samples), so the official suite resolves faults only "
        "down to about a quarter of the output's own spread; T3's spikes widen it (4.1..6.3). The logsumexp's max subtraction is equivalent on "
        "every suite (values stay far below expf's overflow). The reference convolution runs through "
        "cuDNN (facts: within 1e-4 of exact for this problem).",
    )
