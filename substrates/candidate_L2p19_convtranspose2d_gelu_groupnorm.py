"""KernelBench level 2, problem 19_ConvTranspose2d_GELU_GroupNorm.

ConvTranspose2d(64, 64, 3, stride=1) with bias (no padding), exact GELU, then GroupNorm(8 groups of
8 channels, eps 1e-5, affine weight ones and bias zeros). x is 128 x 64 x 256 x 256; the output size is
(H - 1) * 1 + 3 = H + 2, so the output is 128 x 64 x 258 x 258 (545 M elements). Model.__init__'s
`groups` argument (8) is unused by the model; the convolution is not grouped.

One kernel, one 256-thread block per (sample, group): the block owns the group's 8 x 258 x 258 =
532,512 outputs, a contiguous range of the output. Pass 1: the threads stride over the group; each
computes its element's transposed convolution in gather form (for every tap (kh, kw) it keeps the
input pixel ih = (oh + pad - kh) / stride where that is a non-negative multiple of the stride inside
the input, likewise for the width, and sums x[n, ci, ih, iw] * w[ci, co, kh, kw] over the 64 input
channels in fp32; the ConvTranspose2d weight is [C_in, C_out, KH, KW]), adds the bias, applies GELU
(0.5 v (1 + erf(v / sqrt 2)), as torch's default), stores the value in the output (as scratch) and
adds it to a per-thread sum; a shared-memory tree reduces the sums to the group mean. Pass 2: the
same threads read back the values they stored and sum their squared deviations from the mean; a
second tree gives the biased variance. Pass 3: each value is normalised, (v - mean) / sqrtf(var +
eps), and scaled and shifted by its channel's GroupNorm weight and bias, in place. A __syncthreads()
follows every shared-memory write phase and every tree level. In-group indices and offsets are
64-bit. Stride and padding are model constants passed as kernel arguments.

Cost: 545 M outputs x 576 multiply-adds (about 9 of 9 taps hit away from the border) = 314 G MAC,
roughly 0.25-0.3 s per forward on an H200 at the 2-2.6 TFLOP/s of the accepted naive convolutions,
plus three passes over the 2.2 GB output (cuDNN reference: 10.1 ms). 1024 blocks of 256 threads.
"""

CUDA = r"""
const int GN_BLOCK = 256;       // threads per block; one block per (sample, group) (power of two)
const float GN_EPS = 1e-5f;     // nn.GroupNorm default eps

extern "C" __global__ void convtranspose2d_gelu_groupnorm_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ gn_w,     // [C_out]
    const float* __restrict__ gn_b,     // [C_out]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad, int G)
{
    const float inv_sqrt2 = 0.70710678118654752f;   // GELU: 0.5 v (1 + erf(v / sqrt(2)))

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

    // Pass 1: gelu(conv_transpose + conv_b) for every element of the group, into out; the sum.
    float thread_sum = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)((e / OW) % OH);
        int co = g * cpg + (int)(e / plane);
        float acc = 0.0f;
        for (int kh = 0; kh < KH; ++kh) {
            int th = oh + pad - kh;                     // = ih * stride when the tap hits
            if (th < 0 || th % stride != 0) continue;
            int ih = th / stride;
            if (ih >= H) continue;
            for (int kw = 0; kw < KW; ++kw) {
                int tw = ow + pad - kw;                 // = iw * stride when the tap hits
                if (tw < 0 || tw % stride != 0) continue;
                int iw = tw / stride;
                if (iw >= W) continue;
                for (int ci = 0; ci < C_in; ++ci) {
                    float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                    float wv = w[(((long long)ci * C_out + co) * KH + kh) * KW + kw];
                    acc += xv * wv;
                }
            }
        }
        float v = acc + conv_b[co];
        v = 0.5f * v * (1.0f + erff(v * inv_sqrt2));
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
STRIDE = 1              # ConvTranspose2d(64, 64, 3, stride=1): no padding
PADDING = 0
IN_CHANNELS = 64        # fixed by the weight [64, 64, 3, 3]
NUM_GROUPS = 8
GN_EPS = 1e-5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 64, 3, 1, groups=8, num_groups=8): nn.ConvTranspose2d(64, 64, 3, stride=1),
        # then nn.GroupNorm(8, 64) (weight ones, bias zeros; it draws nothing).
        nn = torch.nn
        conv_t = nn.ConvTranspose2d(64, 64, 3, stride=STRIDE)
        gn = nn.GroupNorm(num_groups=NUM_GROUPS, num_channels=64)
        return {"w": conv_t.weight, "b": conv_t.bias, "gn_w": gn.weight, "gn_b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        _, C_out, KH, KW = w["w"].shape
        OH = (H - 1) * STRIDE - 2 * PADDING + KH
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "convtranspose2d_gelu_groupnorm_kernel",
            (K.cdiv(N * NUM_GROUPS, GROUPS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], w["gn_w"], w["gn_b"], out],
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
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
                (ctypes.c_int, NUM_GROUPS),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose2d(x, w["w"], w["b"], stride=STRIDE)
        y = torch.nn.functional.gelu(y)
        return torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def per_sample_inputs(torch, s):
        # Sample n is (0.5 + n) * U[0,1): same sign, every sample with its own mean and spread.
        n = torch.arange(s["batch"], dtype=torch.float32).view(-1, 1, 1, 1)
        return [(0.5 + n) * torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p19_convtranspose2d_gelu_groupnorm",
        level=2,
        problem="19_ConvTranspose2d_GELU_GroupNorm",
        cuda=CUDA,
        kernel_name="convtranspose2d_gelu_groupnorm_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(256),
            "width": K.dim(256),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 5, "width": 7},
                small=True,
                purpose="output 7 x 9 per channel, groups of 8 x 63 = 504 = 256 + 248 elements: the second "
                "stride over each group is partial, so the e < count guards matter; with H=5 and W=7 the two "
                "border rows and columns on each side (where some taps fall outside the input) hold most of "
                "the output, so a dropped or shifted bound or a flipped kernel shows; OH != OW catches "
                "swapped H/W indexing; official U[0,1) values",
            ),
            K.suite(
                "T2_per_sample_shift_scale",
                per_sample_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "height": 14, "width": 19},
                purpose="sample n = (0.5 + n) * U[0,1) (ranges 0.5, 1.5, 2.5): each sample has its own mean "
                "and spread, which move every channel's output by its own amount (the mean times the sum of "
                "that channel's weights), and GELU is nonlinear, so group statistics differ by sample and "
                "group: a block that normalises with another sample's or group's statistics, a channel "
                "offset error or a missing mean subtraction shows, where T0's iid samples share statistics",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 16, "width": 11},
                purpose="about 1% isolated U[0,8) spikes on exact zeros (about 5.8 of the 576 live terms of an "
                "output): each spike lands on the 3 x 3 block of outputs its taps reach with a different "
                "weight at each, so a flipped kernel, a wrong tap offset or a [C_out, C_in] weight transpose "
                "moves outputs; outputs without a spike are exactly gelu(conv_b) per channel",
            ),
        ],
        notes="GroupNorm's affine parameters are its init, weight ones and bias zeros, and no suite can change "
        "them: a kernel that skips the affine or reads gn_w/gn_b at a wrong in-range channel passes. The "
        "reference runs nn.ConvTranspose2d through cuDNN with TF32 (facts: ref != exact at 1e-4), so this "
        "exact fp32 kernel differs from the reference beyond 1e-4 but passes 1e-2 (a CPU emulation of TF32 "
        "operand rounding gives 1.5-2e-3 on every suite). Stride 1 and padding 0 make the parity tests "
        "(th % stride != 0) never true and the division by the stride an identity, so mutants confined "
        "to them are mostly equivalent.",
    )
