"""KernelBench level 2, problem 11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm.

gn(maxpool(tanh(bn(conv_t(x))))): x is 512 x 64 x 32 x 32; nn.ConvTranspose2d(64, 128, 5, stride=1,
padding=1) with bias, so each output size is (S - 1) - 2 + 5 = S + 2 and the transposed convolution
gives 512 x 128 x 34 x 34. nn.BatchNorm2d(128) runs in training mode (the harness never calls
.eval()): every channel is normalised with its batch mean and biased batch variance over (N, H, W),
eps 1e-5, then the module's affine weight (ones) and bias (zeros) apply. Then tanh, nn.MaxPool2d(2, 2)
(floor mode: 34 -> 17), and nn.GroupNorm(8, 128): each sample's 8 groups of 16 channels are normalised
with their own mean and biased variance over (16, 17, 17), eps 1e-5, then the per-channel affine
(ones, zeros). The output is 512 x 128 x 17 x 17. (get_init_inputs also passes groups=8, which the
model accepts and never uses.)

A pipeline of three kernels, because BatchNorm's channel statistics need the whole transposed-
convolution output before any element can be normalised, and one launch has no grid-wide barrier:

    convtranspose2d_kernel                x [N,64,H,W], w, b -> y [N,128,OH,OW]
    convtranspose2d_bn_stats_kernel       y -> stats [2,128]  (row 0 the channel means, row 1 the biased variances)
    bn_tanh_maxpool_groupnorm_kernel      y, stats, bn gamma/beta, gn gamma/beta -> out [N,128,PH,PW]

The transposed convolution is one thread per output element (n, co, oh, ow) with ow fastest, in
gather form: it visits every tap (kh, kw), keeps it only where oh + pad - kh (likewise for w) is a
non-negative multiple of the stride whose quotient lies inside the input, and sums
x[n, ci, ih, iw] * w[ci, co, kh, kw] over the input channels (the ConvTranspose2d weight is
[C_in, C_out, KH, KW]) in fp32, plus the bias. The statistics kernel runs one 1024-thread block per
channel, walking the channel's N planes (threads stride over each plane, so loads are coalesced): a
per-thread fp32 sum reduced through a shared-memory tree gives the mean; a second pass of squared
deviations from it, through a second tree, gives the biased variance (two passes, as a careful first
draft computes a variance). The last kernel runs one 256-thread block per (sample, group): each thread
strides over the group's pooled positions, takes the max over the 2x2 window of tanh(bn(y)), parks
it in the output and sums it; a tree reduction gives the group mean; a second pass over its own
values gives the squared deviations and a second tree the biased variance; a third pass rewrites
them normalised with the channel's GroupNorm affine. Flat indices and plane offsets are 64-bit.

Cost: 75.8 M transposed-convolution outputs, each 64 channels x up to 25 taps (1600 multiply-adds in
the interior): about 0.24 TFLOP, about 0.1 s at the 2-2.6 TFLOP/s of the accepted naive convolutions
on an H200; the statistics (128 blocks, 2.4 MB per channel, read twice) take about 1 ms; the last
kernel (4096 blocks) reads y once and its own 76 MB output three times: about 1 ms. One official
forward: about 0.1 s (reference 2.32 ms).
"""

CUDA = r"""
const int STATS_BLOCK = 1024;   // threads per block of the statistics kernel (one block per channel)
const int GN_BLOCK = 256;       // threads per block of the last kernel (one block per (sample, group))

extern "C" __global__ void convtranspose2d_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ y,              // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

    float acc = 0.0f;
    for (int kh = 0; kh < KH; ++kh) {
        int th = oh + pad - kh;                     // = ih * stride when the tap hits
        if (th < 0 || th % stride != 0) continue;
        int ih = th / stride;
        if (ih >= H) continue;
        for (int kw = 0; kw < KW; ++kw) {
            int tw = ow + pad - kw;
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
    y[i] = acc + conv_b[co];
}

extern "C" __global__ void convtranspose2d_bn_stats_kernel(
    const float* __restrict__ y,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum over every (n, p), then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = y + ((long long)n * C + c) * HW;
        for (int p = tid; p < HW; p += blockDim.x) {
            thread_sum += plane[p];
        }
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
    for (int n = 0; n < N; ++n) {
        const float* plane = y + ((long long)n * C + c) * HW;
        for (int p = tid; p < HW; p += blockDim.x) {
            float d = plane[p] - mean;
            thread_sq += d * d;
        }
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
        stats[c] = mean;
        stats[C + c] = red[0] / (float)count;   // biased: divide by the count, as training-mode BN does
    }
}

extern "C" __global__ void bn_tanh_maxpool_groupnorm_kernel(
    const float* __restrict__ y,        // [N, C, OH, OW]
    const float* __restrict__ stats,    // [2, C]  (BatchNorm batch statistics)
    const float* __restrict__ bn_w,     // [C]     (BatchNorm2d weight)
    const float* __restrict__ bn_b,     // [C]     (BatchNorm2d bias)
    const float* __restrict__ gn_w,     // [C]     (GroupNorm weight)
    const float* __restrict__ gn_b,     // [C]     (GroupNorm bias)
    float* __restrict__ out,            // [N, C, PH, PW]  (holds the pooled values between passes)
    int N, int C, int OH, int OW, int PH, int PW, int G)
{
    const float BN_EPS = 1e-5f;         // nn.BatchNorm2d default eps
    const float GN_EPS = 1e-5f;         // nn.GroupNorm default eps
    const int POOL = 2;                 // MaxPool2d(kernel_size=2, stride=2)
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    __shared__ float red[GN_BLOCK];

    int ng = blockIdx.x;                // (sample, group)
    if (ng >= N * G) return;
    int tid = threadIdx.x;
    int n = ng / G;
    int g = ng % G;
    int cpg = C / G;                    // channels per group
    int plane = PH * PW;
    int count = cpg * plane;            // values per group
    float* out_group = out + ((long long)n * C + (long long)g * cpg) * plane;

    // Pass 1: the pooled value max over the window of tanh(bn(y)), parked in the output, and the sum.
    float thread_sum = 0.0f;
    for (int e = tid; e < count; e += blockDim.x) {
        int c = g * cpg + e / plane;
        int r = e % plane;
        int ph = r / PW;
        int pw = r % PW;
        float inv_std = 1.0f / sqrtf(stats[C + c] + BN_EPS);
        const float* y_plane = y + ((long long)n * C + c) * OH * OW;
        float m = NEG_SENTINEL;
        for (int kh = 0; kh < POOL; ++kh) {
            for (int kw = 0; kw < POOL; ++kw) {
                int oh = ph * POOL + kh;
                int ow = pw * POOL + kw;
                float v = (y_plane[oh * OW + ow] - stats[c]) * inv_std * bn_w[c] + bn_b[c];
                m = fmaxf(m, tanhf(v));
            }
        }
        out_group[e] = m;
        thread_sum += m;
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

    // Pass 2: the sum of squared deviations of the group's pooled values (each thread its own).
    float thread_sq = 0.0f;
    for (int e = tid; e < count; e += blockDim.x) {
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
    float var = red[0] / (float)count;  // biased, as GroupNorm computes it
    float inv_std = 1.0f / sqrtf(var + GN_EPS);

    // Pass 3: normalise in place with the channel's affine.
    for (int e = tid; e < count; e += blockDim.x) {
        int c = g * cpg + e / plane;
        out_group[e] = (out_group[e] - mean) * inv_std * gn_w[c] + gn_b[c];
    }
}
"""

KERNELS = ["convtranspose2d_kernel", "convtranspose2d_bn_stats_kernel", "bn_tanh_maxpool_groupnorm_kernel"]

BLOCK = 256               # transposed convolution: 1D blocks over the flat output index
STATS_BLOCK = 1024        # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
GN_BLOCK = 256            # must equal GN_BLOCK in the CUDA source, a power of two
CHANNELS_PER_BLOCK = 1    # one statistics block per channel
GROUPS_PER_BLOCK = 1      # one last-kernel block per (sample, group)
IN_CHANNELS = 64          # fixed by the weight [64, 128, 5, 5]
OUT_CHANNELS = 128
KERNEL_SIZE = 5
STRIDE = 1                # ConvTranspose2d(stride=1, padding=1)
PADDING = 1
POOL = 2                  # MaxPool2d(kernel_size=2, stride=2)
NUM_GROUPS = 8            # GroupNorm(num_groups=8, num_channels=128)
UNUSED_GROUPS = 8         # get_init_inputs' groups argument: accepted, never used
BN_EPS = 1e-5
GN_EPS = 1e-5
SMALL_SCALE = 0.025       # T2: x = U[0, 0.025)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 128, 5, 1, 1, 8, 8): conv_transpose (with bias), batch_norm, tanh, max_pool,
        # group_norm; only the transposed convolution draws (the norms start at ones and zeros)
        nn = torch.nn
        conv_t = nn.ConvTranspose2d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING)
        bn = nn.BatchNorm2d(OUT_CHANNELS)
        gn = nn.GroupNorm(num_groups=NUM_GROUPS, num_channels=OUT_CHANNELS)
        return {
            "w": conv_t.weight, "b": conv_t.bias,
            "bn_w": bn.weight, "bn_b": bn.bias,
            "gn_w": gn.weight, "gn_b": gn.bias,
        }

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        _, C_out, KH, KW = w["w"].shape
        OH = (H - 1) * STRIDE - 2 * PADDING + KH
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW
        y = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C_out * OH * OW
        conv = (
            "convtranspose2d_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], y],
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
            ],
        )
        stats = torch.empty((2, C_out), device=x.device, dtype=x.dtype)
        stats_step = (
            "convtranspose2d_bn_stats_kernel",
            (K.cdiv(C_out, CHANNELS_PER_BLOCK), 1, 1),
            (STATS_BLOCK, 1, 1),
            [y, stats],
            [(ctypes.c_int, N), (ctypes.c_int, C_out), (ctypes.c_int, OH * OW)],
        )
        PH = OH // POOL
        PW = OW // POOL
        out = torch.empty((N, C_out, PH, PW), device=x.device, dtype=x.dtype)
        gn = (
            "bn_tanh_maxpool_groupnorm_kernel",
            (K.cdiv(N * NUM_GROUPS, GROUPS_PER_BLOCK), 1, 1),
            (GN_BLOCK, 1, 1),
            [y, stats, w["bn_w"], w["bn_b"], w["gn_w"], w["gn_b"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_out),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
                (ctypes.c_int, NUM_GROUPS),
            ],
        )
        return {"seq": [conv, stats_step, gn], "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: batch statistics (the running buffers never reach the output).
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.conv_transpose2d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING)
        y = F.batch_norm(y, None, None, w["bn_w"], w["bn_b"], training=True, eps=BN_EPS)
        y = torch.tanh(y)
        y = F.max_pool2d(y, kernel_size=POOL, stride=POOL)
        return F.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], eps=GN_EPS)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def small_var_inputs(torch, s):
        # U[0, SMALL_SCALE): the channel variances of the transposed convolution are the size of eps.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * SMALL_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 4).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 4.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p11_convtranspose2d_batchnorm_tanh_maxpool_groupnorm",
        level=2,
        problem="11_ConvTranspose2d_BatchNorm_Tanh_MaxPool_GroupNorm",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(512),
            "height": K.dim(32),
            "width": K.dim(32),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 7, "width": 9},
                small=True,
                purpose="transposed-convolution output 3 x 128 x 9 x 11 = 38016 elements, not a multiple of the "
                "256-thread block (with an even batch every count is one), so the tail guard matters; OH = 9 "
                "and OW = 11 are odd, so the floor of the max pool (4 x 5) drops the last row and column and an "
                "off-by-one window reads them; a group holds 16 x 20 = 320 pooled values, so the 256-thread "
                "group blocks run one full and one partial pass; the border taps that fall outside the 7 x 9 "
                "input are exercised on every side",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "height": 12, "width": 10},
                purpose="x = U[0,0.025): training-mode BN is scale-invariant, so a same-sign large input "
                "would change nothing; scaled down, the channel variances of the transposed convolution (about "
                "1e-5) are the size of BN's eps = 1e-5, so the normalised values shrink by ~0.7 and tanh, which "
                "is not scale-invariant, carries the change through the max pool and the GroupNorm: a dropped "
                "or perturbed eps, eps outside the square root or a std used as a variance shows",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "height": 16, "width": 13},
                purpose="about 1% isolated U[0,4) spikes on exact zeros: an output sees 64 channels x up to 25 "
                "taps, and about 16 of those up to 1600 input values are spikes, so it depends on specific taps and a "
                "transposed weight index, a swapped tap, a wrong padding offset or a wrong channel stride moves "
                "it; the BN statistics see a heavy-tailed distribution, tanh saturates the large values, and the "
                "max pool picks them out of each window",
            ),
        ],
        notes="Pipeline of three kernels (transposed convolution, BN channel statistics, BN + tanh + max "
        "pool + GroupNorm): training-mode BatchNorm needs the whole output of a channel before it can "
        "normalise any element, which one launch cannot do without a grid-wide barrier; the GroupNorm "
        "statistics of a (sample, group) stay inside one block. The affines of BatchNorm2d and GroupNorm "
        "are their init (weight ones, bias zeros), and no suite can change them, so mutants that drop or "
        "swap gamma/beta at a valid index are equivalent. Training-mode BN removes any per-channel "
        "constant: the conv bias never reaches the output (mutants that drop or misindex it are "
        "equivalent up to rounding). GroupNorm's eps is invisible on every suite (its input variance is "
        "of order 0.1-1). The reference runs ConvTranspose2d through cuDNN with TF32 (the facts file "
        "measured this problem's reference beyond 1e-4 of fp64, within 1e-2); a CPU emulation of TF32 "
        "operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose distances of at "
        "most ~2.4e-3 on the targeted suites. Stride 1 and padding 1 are model constants passed as "
        "kernel arguments, so stride mutants are equivalent. Every (sample, group) block reads the "
        "channel statistics of its 16 channels only.",
    )
