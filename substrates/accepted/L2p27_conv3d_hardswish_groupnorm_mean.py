"""KernelBench level 2, problem 27_Conv3d_HardSwish_GroupNorm_Mean.

conv3d 3 -> 16 (4x4x4, stride 1, no padding, with bias), HardSwish, GroupNorm(4 groups of 4 channels,
eps 1e-5, affine weight ones and bias zeros), then the mean over the spatial dims. x is
1024 x 3 x 16 x 32 x 32; the conv output is 1024 x 16 x 13 x 29 x 29 and the output is 1024 x 16.

One kernel, one 256-thread block per (sample, group); the conv output is never stored. Pass 1: the
threads stride over the group's 4 x 13 x 29 x 29 = 43,732 elements, each computes its element's
convolution (fp32 loop over the 3 input channels and the 4x4x4 window) plus the conv bias, applies
HardSwish (v * min(max(v + 3, 0), 6) / 6) and adds it to a per-thread sum; a shared-memory tree gives
the group mean. Pass 2 recomputes the same values and sums their squared deviations; a second tree
gives the biased variance. Pass 3, for each channel of the group in turn, recomputes its values,
normalises them, (v - mean) / sqrtf(var + eps), applies the channel's GroupNorm weight and bias and
sums them; a tree gives the channel's total, which thread 0 divides by the spatial size and stores.
A __syncthreads() follows every shared-memory write phase and every tree level. In-group indices are
64-bit.

Cost: 1024 x 16 x 10,933 conv outputs x 192 multiply-adds x 3 passes = 103 G MAC, roughly 80-100 ms
per forward on an H200 at the 2-2.6 TFLOP/s of the accepted naive convolutions (cuDNN reference
11.8 ms). 4096 blocks of 256 threads.
"""

CUDA = r"""
const int GN_BLOCK = 256;       // threads per block; one block per (sample, group) (power of two)
const float GN_EPS = 1e-5f;     // nn.GroupNorm default eps

__device__ float conv3d_at(
    const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ conv_b,
    int n, int co, int od, int oh, int ow, int C_in, int D, int H, int W, int KD, int KH, int KW)
{
    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kd = 0; kd < KD; ++kd) {
            for (int kh = 0; kh < KH; ++kh) {
                for (int kw = 0; kw < KW; ++kw) {
                    int id = od + kd;
                    int ih = oh + kh;
                    int iw = ow + kw;
                    float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                    float wv = w[((((long long)co * C_in + ci) * KD + kd) * KH + kh) * KW + kw];
                    acc += xv * wv;
                }
            }
        }
    }
    return acc + conv_b[co];
}

__device__ float hardswish_conv3d_at(
    const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ conv_b,
    int n, int co, int od, int oh, int ow, int C_in, int D, int H, int W, int KD, int KH, int KW)
{
    const float hs_offset = 3.0f;       // hardswish(v) = v * min(max(v + 3, 0), 6) / 6
    const float hs_cap = 6.0f;
    float v = conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW);
    float gate = fminf(fmaxf(v + hs_offset, 0.0f), hs_cap);
    return v * gate / hs_cap;
}

extern "C" __global__ void conv3d_hardswish_groupnorm_mean_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ gn_w,     // [C_out]
    const float* __restrict__ gn_b,     // [C_out]
    float* __restrict__ out,            // [N, C_out]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int G)
{
    __shared__ float red[GN_BLOCK];
    int blk = blockIdx.x;               // n * G + g
    if (blk >= N * G) return;
    int g = blk % G;
    int n = blk / G;
    int tid = threadIdx.x;
    int cpg = C_out / G;                // channels per group
    long long vol = (long long)OD * OH * OW;
    long long count = (long long)cpg * vol;     // elements of the group

    // Pass 1: the group sum.
    float thread_sum = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)((e / OW) % OH);
        int od = (int)((e / ((long long)OW * OH)) % OD);
        int co = g * cpg + (int)(e / vol);
        thread_sum += hardswish_conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW);
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

    // Pass 2: the sum of squared deviations from the mean, recomputing the values.
    float thread_sq = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)((e / OW) % OH);
        int od = (int)((e / ((long long)OW * OH)) % OD);
        int co = g * cpg + (int)(e / vol);
        float d = hardswish_conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW) - mean;
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
    __syncthreads();    // every thread has read red[0] before pass 3 overwrites it

    // Pass 3: per channel, the spatial mean of the normalised values (with the channel's affine).
    for (int cl = 0; cl < cpg; ++cl) {
        int co = g * cpg + cl;
        float thread_chan = 0.0f;
        for (long long p = tid; p < vol; p += blockDim.x) {
            int ow = (int)(p % OW);
            int oh = (int)((p / OW) % OH);
            int od = (int)(p / ((long long)OW * OH));
            float v = hardswish_conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW);
            thread_chan += (v - mean) * inv_std * gn_w[co] + gn_b[co];
        }
        red[tid] = thread_chan;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s) {
                red[tid] = red[tid] + red[tid + s];
            }
            __syncthreads();
        }
        if (tid == 0) {
            out[(long long)n * C_out + co] = red[0] / (float)vol;
        }
        __syncthreads();    // thread 0 has read red[0] before the next channel overwrites it
    }
}
"""

BLOCK = 256             # must equal GN_BLOCK (the shared buffer size), a power of two
GROUPS_PER_BLOCK = 1    # one block per (sample, group)
IN_CHANNELS = 3         # fixed by the conv weight [16, 3, 4, 4, 4]
NUM_GROUPS = 4          # Model.__init__ default num_groups=4
GN_EPS = 1e-5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 16, 4) (num_groups=4, bias=True): nn.Conv3d(3, 16, 4), then nn.GroupNorm(4, 16)
        # (weight ones, bias zeros; it draws nothing).
        nn = torch.nn
        conv = nn.Conv3d(3, 16, 4, bias=True)
        gn = nn.GroupNorm(NUM_GROUPS, 16)
        return {"conv_w": conv.weight, "conv_b": conv.bias, "gn_w": gn.weight, "gn_b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["conv_w"].shape
        OD, OH, OW = D - KD + 1, H - KH + 1, W_in - KW + 1
        out = torch.empty((N, C_out), device=x.device, dtype=x.dtype)
        return (
            "conv3d_hardswish_groupnorm_mean_kernel",
            (K.cdiv(N * NUM_GROUPS, GROUPS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], w["gn_w"], w["gn_b"], out],
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
                (ctypes.c_int, NUM_GROUPS),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv3d(x, w["conv_w"], w["conv_b"])
        y = torch.nn.functional.hardswish(y)
        y = torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)
        return torch.mean(y, dim=[2, 3, 4])

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def per_sample_inputs(torch, s):
        # Sample n is (0.5 + n) * U[0,1) - 0.5 * n: every sample with its own mean and spread.
        n = torch.arange(s["batch"], dtype=torch.float32).view(-1, 1, 1, 1, 1)
        u = torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        return [(0.5 + n) * u - 0.5 * n]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the voxels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p27_conv3d_hardswish_groupnorm_mean",
        level=2,
        problem="27_Conv3d_HardSwish_GroupNorm_Mean",
        cuda=CUDA,
        kernel_name="conv3d_hardswish_groupnorm_mean_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(1024),
            "depth": K.dim(16, min=4),
            "height": K.dim(32, min=4),
            "width": K.dim(32, min=4),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 5, "height": 9, "width": 12},
                small=True,
                purpose="channel volumes of 2 x 6 x 9 = 108 < 256 and groups of 4 x 108 = 432 = 256 + 176: "
                "the group strides end partially and 148 threads hold no element of a channel, so the "
                "e < count and p < vol guards and the reduction identity matter; OD, OH and OW all differ; "
                "official U[0,1) values",
            ),
            K.suite(
                "T2_per_sample_shift_scale",
                per_sample_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "depth": 7, "height": 10, "width": 13},
                purpose="sample n = (0.5 + n) * U[0,1) - 0.5 n (ranges [0, 0.5), [-0.5, 1), [-1, 1.5)): every "
                "sample has its own mean and spread, which move each channel's conv output by its own "
                "amount, and HardSwish is nonlinear (its flat part below -3 and its quadratic part), so "
                "channel means and group statistics differ by sample and group: a block that uses another "
                "sample's or group's statistics or writes another channel's mean shows",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 8, "height": 11, "width": 9},
                purpose="about 2% isolated U[0,8) spikes on exact zeros (about 3.8 of the 192 taps of a "
                "window): most conv outputs are exactly conv_b, so each channel's mean is set by how many "
                "windows hold a spike and with which weights; kd/kh/kw swaps or wrong window origins change "
                "which taps meet the spikes",
            ),
        ],
        notes="Each output is a channel's spatial mean of its normalised values, (mean_c - mean_g) / std_g "
        "(with the GroupNorm affine at its init, weight ones and bias zeros): it measures how the "
        "channel's mean sits within its group, and the four outputs of a group sum to zero. On the "
        "official inputs the channel means are set mostly by the weights (U[0,1) inputs average out over "
        "the 192 taps and 10,933 positions), so the problem is nearly input-insensitive there: measured "
        "on the CPU reference, each channel's output varies by at most 0.028 across 4 official samples, "
        "against a tolerance of about 0.016 at |out| ~ 0.6; T2 (spread 0.91) and T3 (0.14) are not. "
        "Faults that shift every element of a channel alike show, faults that only scramble spatial "
        "positions within a channel mostly do not. The "
        "reference's convolution runs through cuDNN (facts: within 1e-4 of exact for this problem).",
    )
