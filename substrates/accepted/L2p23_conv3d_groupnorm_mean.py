"""KernelBench level 2, problem 23_Conv3d_GroupNorm_Mean.

conv3d 3 -> 24 (3x3x3, stride 1, no padding, with bias), GroupNorm(8 groups of 3 channels, eps 1e-5,
affine weight ones and bias zeros), then the mean over everything but the batch. x is
128 x 3 x 24 x 32 x 32; the conv output is 128 x 24 x 22 x 30 x 30 and the output has shape (128,).

With the affine at its init (weight ones, bias zeros), every group's normalised values sum to zero,
so the output is zero up to rounding: DEGENERATE (see notes).

One kernel, one 1024-thread block per sample, looping over the 8 groups; the conv output is never
stored. For each group, pass 1: the threads stride over the group's 3 x 22 x 30 x 30 = 59,400
elements, each computes its element's convolution (fp32 loop over the 3 input channels and the 3x3x3
window) plus the conv bias and adds it to a per-thread sum; a shared-memory tree gives the group
mean. Pass 2 recomputes the same elements and sums their squared deviations; a second tree gives the
biased variance. Pass 3 recomputes them once more, normalises, (v - mean) / sqrtf(var + eps), applies
the channel's GroupNorm weight and bias, and adds the result to a per-thread total that runs over all
groups. After the last group a final tree gives the sample's total, which thread 0 divides by the
element count and stores. A __syncthreads() follows every shared-memory write phase and every tree
level. In-sample indices are 64-bit.

Cost: 128 samples x 475,200 conv outputs x 81 multiply-adds x 3 passes = 14.8 G MAC; 128 blocks of
1024 threads (one per SM, half occupancy), roughly 15-30 ms per forward on an H200 (cuDNN reference
1.2 ms).
"""

CUDA = r"""
const int GN_BLOCK = 1024;      // threads per block; one block per sample (power of two)
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

extern "C" __global__ void conv3d_groupnorm_mean_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ gn_w,     // [C_out]
    const float* __restrict__ gn_b,     // [C_out]
    float* __restrict__ out,            // [N]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int G)
{
    __shared__ float red[GN_BLOCK];
    int n = blockIdx.x;
    if (n >= N) return;
    int tid = threadIdx.x;
    int cpg = C_out / G;                // channels per group
    long long vol = (long long)OD * OH * OW;
    long long count = (long long)cpg * vol;     // elements of one group

    float thread_total = 0.0f;          // this thread's share of the sum of every normalised value
    for (int g = 0; g < G; ++g) {
        // Pass 1: the group sum.
        float thread_sum = 0.0f;
        for (long long e = tid; e < count; e += blockDim.x) {
            int ow = (int)(e % OW);
            int oh = (int)((e / OW) % OH);
            int od = (int)((e / ((long long)OW * OH)) % OD);
            int co = g * cpg + (int)(e / vol);
            thread_sum += conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW);
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
            int od = (int)((e / ((long long)OW * OH)) % OD);
            int co = g * cpg + (int)(e / vol);
            float d = conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW) - mean;
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
        __syncthreads();    // every thread has read red[0] before the next group overwrites it

        // Pass 3: the normalised values (with the channel's affine), added to the running total.
        for (long long e = tid; e < count; e += blockDim.x) {
            int ow = (int)(e % OW);
            int oh = (int)((e / OW) % OH);
            int od = (int)((e / ((long long)OW * OH)) % OD);
            int co = g * cpg + (int)(e / vol);
            float v = conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW);
            thread_total += (v - mean) * inv_std * gn_w[co] + gn_b[co];
        }
    }

    // The sample's total over every group, then the mean.
    red[tid] = thread_total;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[n] = red[0] / ((float)C_out * (float)vol);
    }
}
"""

BLOCK = 1024            # must equal GN_BLOCK (the shared buffer size), a power of two
SAMPLES_PER_BLOCK = 1   # one block per sample
IN_CHANNELS = 3         # fixed by the conv weight [24, 3, 3, 3, 3]
NUM_GROUPS = 8
GN_EPS = 1e-5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 24, 3, 8): nn.Conv3d(3, 24, 3), then nn.GroupNorm(8, 24) (weight ones, bias
        # zeros; it draws nothing).
        nn = torch.nn
        conv = nn.Conv3d(3, 24, 3)
        gn = nn.GroupNorm(NUM_GROUPS, 24)
        return {"conv_w": conv.weight, "conv_b": conv.bias, "gn_w": gn.weight, "gn_b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["conv_w"].shape
        OD, OH, OW = D - KD + 1, H - KH + 1, W_in - KW + 1
        out = torch.empty((N,), device=x.device, dtype=x.dtype)
        return (
            "conv3d_groupnorm_mean_kernel",
            (K.cdiv(N, SAMPLES_PER_BLOCK), 1, 1),
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
        y = torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)
        return y.mean(dim=[1, 2, 3, 4])

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, D, H, W)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def per_sample_inputs(torch, s):
        # Sample n is (0.5 + n) * U[0,1): same sign, every sample with its own mean and spread.
        n = torch.arange(s["batch"], dtype=torch.float32).view(-1, 1, 1, 1, 1)
        return [(0.5 + n) * torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the voxels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p23_conv3d_groupnorm_mean",
        level=2,
        problem="23_Conv3d_GroupNorm_Mean",
        cuda=CUDA,
        kernel_name="conv3d_groupnorm_mean_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "depth": K.dim(24, min=3),
            "height": K.dim(32, min=3),
            "width": K.dim(32, min=3),
        },
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (output zero up to rounding: see notes)",
            ),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "depth": 5, "height": 11, "width": 14},
                small=True,
                purpose="groups of 3 x 3 x 9 x 12 = 972 < 1024 elements: 52 threads hold no element and "
                "contribute zero partial sums, so the e < count guards and the reduction identity matter; "
                "OD, OH and OW all differ; 3 samples; official U[0,1) values",
            ),
            K.suite(
                "T2_per_sample_shift_scale",
                per_sample_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "depth": 8, "height": 13, "width": 17},
                purpose="sample n = (0.5 + n) * U[0,1): every sample and group with its own statistics; groups "
                "of 3 x 6 x 11 x 15 = 2970 = 2 x 1024 + 922 elements (a partial third stride); the output "
                "stays zero up to rounding (see notes), so only faults that break the cancellation (a wrong "
                "mean, count or affine) show",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 7, "height": 12, "width": 10},
                purpose="about 2% isolated U[0,8) spikes on exact zeros: most conv outputs are exactly conv_b, "
                "so each group is a few large outliers over per-channel constants; the output stays zero up "
                "to rounding (see notes)",
            ),
        ],
        notes="DEGENERATE (facts: zeros-pass@1e-4, INPUT-INSENSITIVE; |out| <= 3e-8): the GroupNorm weight "
        "and bias are ones and zeros, so each group's normalised values sum to exactly zero and the mean "
        "over all channels is rounding noise. Measured on the CPU fp32 reference: max |out| = 2.3e-8 "
        "(official inputs, batch cut to 2, first two trial seeds) and at most 3.2e-8 on the targeted "
        "suites (their first two seeds); fp64 gives about 1e-16. A kernel writing zeros passes every suite; only faults that break the "
        "cancellation (a mean over the wrong count, a wrong channel or group offset between the passes, "
        "a dropped element, a wrong affine read) or produce NaN/inf can be caught, and only where they "
        "move the output by more than 1e-2. The reference's TF32 convolution does not matter here.",
    )
