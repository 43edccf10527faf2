"""KernelBench level 2, problem 79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max.

conv3d 3 -> 16 (3x3x3, stride 1, no padding, with bias), * multiplier (16, 1, 1, 1) (randn),
InstanceNorm3d(16) (no affine, no running statistics, eps 1e-5), clamp to [-1, 1], * multiplier,
then the maximum over the channels (torch.max(x, dim=1)[0]). x is 128 x 3 x 16 x 32 x 32; the conv
output is 128 x 16 x 14 x 30 x 30 and the output 128 x 14 x 30 x 30.

One kernel, one 1024-thread block per sample; the conv output is never stored. For each of the 16
channels, pass 1: the threads stride over the channel's 14 x 30 x 30 = 12,600 positions, each
computes its convolution (fp32 loop over the 3 input channels and the 3x3x3 window) plus the conv
bias, times the channel's multiplier, and adds it to a per-thread sum; a shared-memory tree gives the
instance mean. Pass 2 recomputes the same values and sums their squared deviations; a second tree
gives the biased variance. Thread 0 keeps each channel's mean and 1 / sqrtf(var + eps) in shared
memory. Pass 3: the threads stride over the positions; each recomputes the position's 16 values,
normalises each with its channel's statistics, clamps to [-1, 1], multiplies by the multiplier and
stores the maximum over the channels. A __syncthreads() follows every shared-memory write phase and
every tree level. In-sample indices are 64-bit.

Cost: 128 samples x 3 x 201,600 conv evaluations x 81 multiply-adds = 6.3 G MAC; 128 blocks of 1024
threads (one per SM, half occupancy), roughly 5-15 ms per forward on an H200 (cuDNN reference
0.93 ms).
"""

CUDA = r"""
const int IN_BLOCK = 1024;      // threads per block; one block per sample (power of two)
const float IN_EPS = 1e-5f;     // nn.InstanceNorm3d default eps
const int MAX_CHANNELS = 16;    // C_out, fixed by the conv weight (sizes the statistics arrays)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max

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

extern "C" __global__ void conv3d_multiply_instancenorm_clamp_multiply_max_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ mult,     // [C_out, 1, 1, 1]
    float* __restrict__ out,            // [N, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW)
{
    const float clamp_min = -1.0f;      // torch.clamp(x, clamp_min, clamp_max)
    const float clamp_max = 1.0f;

    __shared__ float red[IN_BLOCK];
    __shared__ float c_mean[MAX_CHANNELS];
    __shared__ float c_inv_std[MAX_CHANNELS];
    int n = blockIdx.x;
    if (n >= N) return;
    int tid = threadIdx.x;
    long long vol = (long long)OD * OH * OW;

    for (int co = 0; co < C_out; ++co) {
        // Pass 1: the instance sum of conv * multiplier.
        float thread_sum = 0.0f;
        for (long long p = tid; p < vol; p += blockDim.x) {
            int ow = (int)(p % OW);
            int oh = (int)((p / OW) % OH);
            int od = (int)(p / ((long long)OW * OH));
            float v = conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW);
            thread_sum += v * mult[co];
        }
        red[tid] = thread_sum;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s) {
                red[tid] = red[tid] + red[tid + s];
            }
            __syncthreads();
        }
        float mean = red[0] / (float)vol;
        __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

        // Pass 2: the sum of squared deviations from the mean, recomputing the conv.
        float thread_sq = 0.0f;
        for (long long p = tid; p < vol; p += blockDim.x) {
            int ow = (int)(p % OW);
            int oh = (int)((p / OW) % OH);
            int od = (int)(p / ((long long)OW * OH));
            float v = conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW);
            float d = v * mult[co] - mean;
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
            float var = red[0] / (float)vol;    // biased, as instance_norm
            c_mean[co] = mean;
            c_inv_std[co] = 1.0f / sqrtf(var + IN_EPS);
        }
        __syncthreads();    // red[0] is read and the channel's statistics are stored
    }

    // Pass 3: every position: the max over the channels of clamp(normalised) * multiplier.
    for (long long p = tid; p < vol; p += blockDim.x) {
        int ow = (int)(p % OW);
        int oh = (int)((p / OW) % OH);
        int od = (int)(p / ((long long)OW * OH));
        float m = NEG_SENTINEL;
        for (int co = 0; co < C_out; ++co) {
            float v = conv3d_at(x, w, conv_b, n, co, od, oh, ow, C_in, D, H, W, KD, KH, KW);
            v = v * mult[co];
            v = (v - c_mean[co]) * c_inv_std[co];
            v = fminf(fmaxf(v, clamp_min), clamp_max);
            v = v * mult[co];
            m = fmaxf(m, v);
        }
        out[(long long)n * vol + p] = m;
    }
}
"""

BLOCK = 1024            # must equal IN_BLOCK (the shared buffer size), a power of two
SAMPLES_PER_BLOCK = 1   # one block per sample
IN_CHANNELS = 3         # fixed by the conv weight [16, 3, 3, 3, 3]
OUT_CHANNELS = 16       # must be <= MAX_CHANNELS in the CUDA source
IN_EPS = 1e-5
CLAMP_MIN, CLAMP_MAX = -1.0, 1.0


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 16, 3, (16, 1, 1, 1), -1.0, 1.0): nn.Conv3d(3, 16, 3), multiplier =
        # randn(16, 1, 1, 1), then nn.InstanceNorm3d(16) (affine=False: no parameters, nothing drawn).
        nn = torch.nn
        conv = nn.Conv3d(IN_CHANNELS, OUT_CHANNELS, 3)
        multiplier = nn.Parameter(torch.randn((OUT_CHANNELS, 1, 1, 1)))
        return {"conv_w": conv.weight, "conv_b": conv.bias, "mult": multiplier}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["conv_w"].shape
        OD, OH, OW = D - KD + 1, H - KH + 1, W_in - KW + 1
        out = torch.empty((N, OD, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "conv3d_multiply_instancenorm_clamp_multiply_max_kernel",
            (K.cdiv(N, SAMPLES_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], w["mult"], out],
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
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv3d(x, w["conv_w"], w["conv_b"])
        y = y * w["mult"]
        y = torch.nn.functional.instance_norm(y, eps=IN_EPS)
        y = torch.clamp(y, CLAMP_MIN, CLAMP_MAX)
        y = y * w["mult"]
        return torch.max(y, dim=1)[0]

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def small_var_inputs(torch, s):
        # U[0, 0.01): each instance's variance (about 2.8e-6 times the multiplier squared) is near eps.
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * 0.01]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the voxels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p79_conv3d_multiply_instancenorm_clamp_multiply_max",
        level=2,
        problem="79_Conv3d_Multiply_InstanceNorm_Clamp_Multiply_Max",
        cuda=CUDA,
        kernel_name="conv3d_multiply_instancenorm_clamp_multiply_max_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "depth": K.dim(16, min=3),
            "height": K.dim(32, min=3),
            "width": K.dim(32, min=3),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 8, "height": 15, "width": 16},
                small=True,
                purpose="instances of 6 x 13 x 14 = 1092 = 1024 + 68 positions: the second stride is partial, "
                "so the p < vol guards and the idle threads' zero partial sums matter; OD, OH and OW all "
                "differ, so swapped axes show; official U[0,1) values",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 7, "height": 12, "width": 11},
                purpose="x = U[0,0.01): each instance's variance (1e-8..1.6e-5, the multiplier squared times "
                "about 3e-6) is comparable to or below eps = 1e-5, so a dropped or perturbed eps, an eps added "
                "after the sqrt or a variance over the wrong count changes the normalised values by tens of "
                "percent (outputs by up to 0.56; only 2.8% of the values reach the clamp); on U[0,1) eps "
                "moves outputs by at most 5.6e-4",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 9, "height": 10, "width": 13},
                purpose="about 2% isolated U[0,8) spikes on exact zeros: most conv outputs are exactly conv_b, "
                "so each instance is a constant with rare large outliers (normalised far beyond the clamp), "
                "and the channel max at a spike depends on which channels' weights meet it: kd/kh/kw swaps "
                "or wrong window origins move those positions",
            ),
        ],
        notes="The multiplier (randn, |m| from 0.06 to 2.33) enters twice, and its sign cancels: "
        "instance_norm(m * v) = m (v - mean) / sqrt(m^2 var + eps) and the clamp is symmetric, so "
        "clamp(.) * m = |m| * clamp((v - mean) / sqrt(var + eps / m^2)); the output is the channel max of "
        "|m_c|-weighted clamped values (at most 2.33, where channel 2 saturates). On the official inputs "
        "31.6% of the normalised values reach the clamp and eps moves outputs by at most 5.6e-4; on T2 "
        "(instance variances 1e-8..1.6e-5) only 2.8% do and eps moves outputs by up to 0.56 (CPU "
        "reference). InstanceNorm3d has no affine parameters and no running statistics here (its "
        "defaults). The reference's convolution runs through cuDNN (facts: within 1e-4 of exact for "
        "this problem).",
    )
