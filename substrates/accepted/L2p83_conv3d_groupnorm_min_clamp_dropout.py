"""KernelBench level 2, problem 83_Conv3d_GroupNorm_Min_Clamp_Dropout.

conv3d 3 -> 16 (3x3x3, stride 1, no padding, with bias), GroupNorm(8 groups of 2 channels, eps 1e-5,
affine weight ones and bias zeros), torch.min(x, 0.0), clamp to [0, 1], Dropout(p=0.2) in training
mode. x is 128 x 3 x 16 x 64 x 64; the output is 128 x 16 x 14 x 62 x 62 (110 M elements).

The output is identically zero for every finite input: min(v, 0) <= 0 and the clamp then maps it to
exactly 0, and dropout (random mask, scale 1 / (1 - p)) keeps zeros zero. The kernel still computes
the whole chain as written; dropout is left out (it acts on zeros, and its mask cannot be reproduced
anyway: the reference draws it from the generator after its own forward).

One kernel, one 256-thread block per (sample, group): the block owns the group's 2 x 14 x 62 x 62 =
107,632 outputs, a contiguous range of the output. Pass 1: the threads stride over the group; each
computes its element's convolution (fp32 loop over the 3 input channels and the 3x3x3 window) plus
the conv bias, stores it in the output (as scratch) and adds it to a per-thread sum; a shared-memory
tree reduces the sums to the group mean. Pass 2: the same threads read back the values they stored
and sum their squared deviations from the mean; a second tree gives the biased variance. Pass 3: each
value is normalised, (v - mean) / sqrtf(var + eps), scaled and shifted by its channel's GroupNorm
weight and bias, then min(v, 0) and clamp(v, 0, 1), in place. A __syncthreads() follows every
shared-memory write phase and every tree level. In-group indices and offsets are 64-bit.

Cost: 110 M outputs x 81 multiply-adds = 8.9 G MAC plus three passes over the 440 MB output, roughly
10 ms per forward on an H200 (cuDNN reference: 3.4 ms). 1024 blocks of 256 threads.
"""

CUDA = r"""
const int GN_BLOCK = 256;       // threads per block; one block per (sample, group) (power of two)
const float GN_EPS = 1e-5f;     // nn.GroupNorm default eps

extern "C" __global__ void conv3d_groupnorm_min_clamp_dropout_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ gn_w,     // [C_out]
    const float* __restrict__ gn_b,     // [C_out]
    float* __restrict__ out,            // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int G)
{
    const float min_value = 0.0f;       // torch.min(x, min_value)
    const float clamp_min = 0.0f;       // torch.clamp(x, min=min_value, max=max_value)
    const float clamp_max = 1.0f;

    __shared__ float red[GN_BLOCK];
    int blk = blockIdx.x;               // n * G + g
    if (blk >= N * G) return;
    int g = blk % G;
    int n = blk / G;
    int tid = threadIdx.x;
    int cpg = C_out / G;                // channels per group
    long long vol = (long long)OD * OH * OW;
    long long count = (long long)cpg * vol;
    float* out_group = out + ((long long)n * C_out + (long long)g * cpg) * vol;

    // Pass 1: conv + conv_b for every element of the group, into out; the sum.
    float thread_sum = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)((e / OW) % OH);
        int od = (int)((e / ((long long)OW * OH)) % OD);
        int co = g * cpg + (int)(e / vol);
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
        float v = acc + conv_b[co];
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

    // Pass 3: normalise, the channel's affine, min with min_value, clamp; in place. Dropout acts on
    // the zeros this leaves and is not applied (see the docstring).
    for (long long e = tid; e < count; e += blockDim.x) {
        int co = g * cpg + (int)(e / vol);
        float v = (out_group[e] - mean) * inv_std * gn_w[co] + gn_b[co];
        v = fminf(v, min_value);
        v = fminf(fmaxf(v, clamp_min), clamp_max);
        out_group[e] = v;
    }
}
"""

BLOCK = 256             # must equal GN_BLOCK (the shared buffer size), a power of two
GROUPS_PER_BLOCK = 1    # one block normalises one (sample, group)
IN_CHANNELS = 3         # fixed by the conv weight [16, 3, 3, 3, 3]
NUM_GROUPS = 8
GN_EPS = 1e-5
MIN_VALUE = 0.0
MAX_VALUE = 1.0
DROPOUT_P = 0.2


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 16, 3, 8, 0.0, 1.0, 0.2): nn.Conv3d(3, 16, 3), nn.GroupNorm(8, 16) (weight
        # ones, bias zeros; it draws nothing), nn.Dropout(0.2) (no parameters).
        nn = torch.nn
        conv = nn.Conv3d(3, 16, 3)
        gn = nn.GroupNorm(NUM_GROUPS, 16)
        return {"conv_w": conv.weight, "conv_b": conv.bias, "gn_w": gn.weight, "gn_b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["conv_w"].shape
        OD, OH, OW = D - KD + 1, H - KH + 1, W_in - KW + 1
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "conv3d_groupnorm_min_clamp_dropout_kernel",
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
        # Model.forward in training mode: dropout is active (it draws a mask from the generator).
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv3d(x, w["conv_w"], w["conv_b"])
        y = torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)
        y = torch.min(y, torch.tensor(MIN_VALUE, device=y.device))
        y = torch.clamp(y, min=MIN_VALUE, max=MAX_VALUE)
        return torch.nn.functional.dropout(y, p=DROPOUT_P, training=True)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, height, width)
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
        name="L2p83_conv3d_groupnorm_min_clamp_dropout",
        level=2,
        problem="83_Conv3d_GroupNorm_Min_Clamp_Dropout",
        cuda=CUDA,
        kernel_name="conv3d_groupnorm_min_clamp_dropout_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "depth": K.dim(16, min=3),
            "height": K.dim(64, min=3),
            "width": K.dim(64, min=3),
        },
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (output identically zero: see notes)",
            ),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 5, "height": 9, "width": 11},
                small=True,
                purpose="groups of 2 x 3 x 7 x 9 = 378 = 256 + 122 elements: the second stride over each group "
                "is partial, so the e < count guards matter (an unwritten element would keep the NaN fill); "
                "OD, OH and OW all differ; official U[0,1) values; the output is zero whatever the kernel's "
                "statistics (see notes)",
            ),
            K.suite(
                "T2_per_sample_shift_scale",
                per_sample_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "depth": 6, "height": 10, "width": 12},
                purpose="sample n = (0.5 + n) * U[0,1): every sample with its own mean and spread, so "
                "normalised values move by sample and group; they still reach the output only as zeros, so "
                "this suite sees only faults that leave NaN or a positive value after the clamp",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 7, "height": 12, "width": 9},
                purpose="about 2% isolated U[0,8) spikes on exact zeros: most conv outputs are exactly conv_b, "
                "so each group's normalised values are a few large outliers over a constant; as everywhere "
                "here the output is zero, and only faults that leave NaN or a positive value show",
            ),
        ],
        notes="DEGENERATE (facts: 100%-zeros, zeros-pass, input-insensitive): the output is exactly 0 for "
        "every finite input, since torch.min(x, 0) <= 0 and clamp(., 0, 1) then gives 0; measured on the "
        "CPU reference: max |out| = 0 on every suite. A kernel that writes zeros passes every suite; only "
        "faults that produce NaN/inf, skip writing an element, or change the min/clamp constants or "
        "their order (so that a positive value survives) can be caught. Dropout (p = 0.2, training mode) "
        "cannot be matched bit for bit (its mask comes from the generator after the reference's own "
        "forward); it acts on zeros, so the kernel leaves it out and still equals the reference exactly. "
        "The kernel's fminf/fmaxf drop NaN where torch.min/clamp propagate it (finite inputs are "
        "unaffected).",
    )
