"""KernelBench level 2, problem 21_Conv2d_Add_Scale_Sigmoid_GroupNorm.

conv2d 8 -> 32 (3x3, stride 1, no padding, with bias), + bias (32, 1, 1), * scale (32, 1, 1), sigmoid,
then GroupNorm(8 groups of 4 channels, eps 1e-5, affine weight ones and bias zeros). x is
128 x 8 x 256 x 256; the output is 128 x 32 x 254 x 254 (264 M elements).

One kernel, one 256-thread block per (sample, group): the block owns the group's 4 x 254 x 254 =
258,064 outputs, a contiguous range of the output. Pass 1: the threads stride over the group, each
computes its element's convolution (fp32 loop over the 8 input channels and the 3x3 window) and the
pre-norm epilogue (conv bias, + bias, * scale, sigmoid), stores it in the output (as scratch) and adds
it to a per-thread sum; a shared-memory tree reduces the sums to the group mean. Pass 2: the same
threads read back the values they stored and sum their squared deviations from the mean; a second
tree gives the biased variance. Pass 3: each value is normalised, (v - mean) / sqrtf(var + eps),
and scaled and shifted by its channel's GroupNorm weight and bias, in place. A __syncthreads()
follows every shared-memory write phase and every tree level. In-group indices and offsets are
64-bit.

Cost: 264 M outputs x 72 multiply-adds = 19 G MAC, roughly 15-25 ms per forward on an H200 at the
2-2.6 TFLOP/s of the accepted naive convolutions, plus three passes over the 1 GB output (reference
5.9 ms). 1024 blocks of 256 threads.
"""

CUDA = r"""
const int GN_BLOCK = 256;       // threads per block; one block per (sample, group) (power of two)
const float GN_EPS = 1e-5f;     // nn.GroupNorm default eps

extern "C" __global__ void conv2d_add_scale_sigmoid_groupnorm_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ bias,     // [C_out, 1, 1]
    const float* __restrict__ scale,    // [C_out, 1, 1]
    const float* __restrict__ gn_w,     // [C_out]
    const float* __restrict__ gn_b,     // [C_out]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int G)
{
    __shared__ float red[GN_BLOCK];
    int blk = blockIdx.x;               // n * G + g
    if (blk >= N * G) return;
    int g = blk % G;
    int n = blk / G;
    int tid = threadIdx.x;
    int cpg = C_out / G;                // channels per group
    long long plane = (long long)OH * OW;
    long long count = (long long)cpg * plane;
    float* out_group = out + ((long long)n * C_out + (long long)g * cpg) * plane;

    // Pass 1: sigmoid((conv + conv_b + bias) * scale) for every element of the group, into out; the sum.
    float thread_sum = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)((e / OW) % OH);
        int co = g * cpg + (int)(e / plane);
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
        v = v + bias[co];
        v = v * scale[co];
        v = 1.0f / (1.0f + expf(-v));
        out_group[e] = v;
        thread_sum += v;
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

    // Pass 2: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        float d = out_group[e] - mean;
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

    // Pass 3: normalise and apply the channel's affine, in place.
    for (long long e = tid; e < count; e += blockDim.x) {
        int co = g * cpg + (int)(e / plane);
        out_group[e] = (out_group[e] - mean) * inv_std * gn_w[co] + gn_b[co];
    }
}
"""

BLOCK = 256             # must equal GN_BLOCK (the shared buffer size), a power of two
GROUPS_PER_BLOCK = 1    # one block normalises one (sample, group)
IN_CHANNELS = 8         # fixed by the conv weight [32, 8, 3, 3]
NUM_GROUPS = 8
GN_EPS = 1e-5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8, 32, 3, 8, (32, 1, 1), (32, 1, 1)): conv, bias = randn, scale = randn,
        # then nn.GroupNorm(8, 32) (weight ones, bias zeros; it draws nothing).
        nn = torch.nn
        conv = nn.Conv2d(8, 32, 3)
        bias = nn.Parameter(torch.randn((32, 1, 1)))
        scale = nn.Parameter(torch.randn((32, 1, 1)))
        gn = nn.GroupNorm(NUM_GROUPS, 32)
        return {
            "conv_w": conv.weight,
            "conv_b": conv.bias,
            "bias": bias,
            "scale": scale,
            "gn_w": gn.weight,
            "gn_b": gn.bias,
        }

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w["conv_w"].shape
        OH = H - KH + 1
        OW = W_in - KW + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "conv2d_add_scale_sigmoid_groupnorm_kernel",
            (K.cdiv(N * NUM_GROUPS, GROUPS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], w["bias"], w["scale"], w["gn_w"], w["gn_b"], out],
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
        y = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        y = y + w["bias"]
        y = y * w["scale"]
        y = torch.sigmoid(y)
        return torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def per_sample_inputs(torch, s):
        # Sample n is (0.5 + n) * U[0,1): same sign, every sample with its own mean and spread, so
        # every (sample, group) has its own statistics.
        n = torch.arange(s["batch"], dtype=torch.float32).view(-1, 1, 1, 1)
        return [(0.5 + n) * torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p21_conv2d_add_scale_sigmoid_groupnorm",
        level=2,
        problem="21_Conv2d_Add_Scale_Sigmoid_GroupNorm",
        cuda=CUDA,
        kernel_name="conv2d_add_scale_sigmoid_groupnorm_kernel",
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
                sizes={"batch": 2, "height": 9, "width": 13},
                small=True,
                purpose="groups of 4 x 7 x 11 = 308 = 256 + 52 elements: the second stride over each group is "
                "partial, so the e < count guards matter and the idle threads' zero partial sums enter the "
                "trees; OH=7 != OW=11 and neither a power of two, so swapped H/W strides or an off-by-one "
                "window bound show; 2 samples x 8 groups = 16 blocks; official U[0,1) values",
            ),
            K.suite(
                "T2_per_sample_shift_scale",
                per_sample_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 20, "width": 24},
                purpose="sample n = (0.5 + n) * U[0,1) (ranges 0.5, 1.5, 2.5, 3.5): each sample has its own "
                "mean and spread, which move every channel's conv output by its own amount (the mean times "
                "the sum of that channel's weights), and the sigmoid is nonlinear, so group statistics "
                "differ by sample and group: a block that normalises with another sample's or group's "
                "statistics, a channel offset error or a missing mean subtraction shows, where T0's iid "
                "samples share statistics; a CPU emulation of TF32 operand rounding puts the reference "
                "within 1.7e-3 of the exact result (if cuDNN uses TF32 here at all, see notes)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "height": 17, "width": 22},
                purpose="about 1% isolated U[0,8) spikes on exact zeros: most outputs are exactly "
                "sigmoid((conv_b + bias) * scale) per channel, a few windows carry one spike at a specific "
                "tap, so kh/kw swaps, transposed weights or wrong channel strides move those outputs, and "
                "the group statistics are dominated by the between-channel constants",
            ),
        ],
        notes="GroupNorm's affine parameters are its init, weight ones and bias zeros, and no suite can change "
        "them: a kernel that skips the affine or reads gn_w/gn_b at a wrong in-range channel passes. The "
        "group variance on every suite is dominated by the between-channel differences of the sigmoid "
        "outputs (set by the weights), about 1e-2, so eps = 1e-5 is nearly invisible (about 5e-4 relative). "
        "The reference convolution runs in TF32 through cuDNN (72 taps; facts: within 1e-4 of exact here).",
    )
