"""KernelBench level 3, problem 14_DenseNet121DenseBlock: a DenseNet dense block of 6 layers, growth rate 32,
on x 10 x 32 x 224 x 224 (32 -> 224 channels).

Model(6, 32, 32): layer l (l = 1..6) takes the running concatenation x_l with C_l = 32 * l channels and
computes f_l = Dropout(0)(Conv2d(C_l, 32, 3, padding=1, bias=False)(ReLU(BatchNorm2d(C_l)(x_l)))), then
x_{l+1} = cat([x, f_1, ..., f_l], 1) = cat([x_l, f_l], 1). The output is x_7, 10 x 224 x 224 x 224.

The harness never calls .eval(), so every BatchNorm2d normalises with the batch statistics of its
channel (mean and biased variance over N, H, W; eps 1e-5) before its affine weight (ones) and bias
(zeros); Dropout(0.0) is the identity. Each of the six layers has four kernels of its own, 24 in all,
in pipeline order:

    dense<l>_bn_stats_kernel   x_l            -> stats_l [2, C_l]  (row 0 mean, row 1 biased variance)
    dense<l>_bn_relu_kernel    x_l, stats_l   -> a_l [N, C_l, H, W]
    dense<l>_conv_kernel       a_l            -> f_l [N, 32, H, W]  (3x3, padding 1, no bias)
    dense<l>_concat_kernel     x_l, f_l       -> x_{l+1} [N, C_l + 32, H, W]

The six layers' kernels are the same code with the layer's name (the CUDA source is written once as a
template and instantiated per layer, so every layer has its own copy to mutate). The statistics kernel
is one 256-thread block per channel: a strided sum reduced through a shared-memory tree gives the mean,
a second strided pass of squared deviations through a second tree gives the biased variance. The
normalise, convolution and concatenation kernels run one thread per output element (the convolution on a
3D grid: pixels of a plane along x, output channel along y, image along z; the others over a flat 64-bit
index) and accumulate in fp32; padding is an explicit bounds test on every tap.

Cost on the official input: the convolutions are 10 x 50176 x 32 x 9 x (32 + 64 + ... + 192) = 97.1 G
multiply-adds (194 GFLOP; about 75 ms at the 2.6 TFLOP/s the same naive convolution reached in L2p1); the
statistics kernels run 32-192 blocks over 0.5 M values per channel (latency bound, a few ms each); the
normalise and concatenation kernels move about 7 GB (about 3 ms). About 0.1 s per forward.
"""

LAYER_TEMPLATE = r"""
// ---------------------------------------------------------------- dense layer LAYER
// BatchNorm2d(C_l), training mode, step 1: per-channel batch mean and biased variance of x_l
extern "C" __global__ void LAYER_bn_stats_kernel(
    const float* __restrict__ x,    // [N, C, HW]  (x_l, the running concatenation)
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;             // one block per channel
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = x + ((long long)n * C + c) * HW;
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

    // Pass 2: the sum of squared deviations from the mean, same slices, same tree.
    float thread_sq = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* plane = x + ((long long)n * C + c) * HW;
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

// BatchNorm2d(C_l), training mode, step 2, + ReLU: a_l = relu((x_l - mean) / sqrt(var + eps) * gamma + beta)
extern "C" __global__ void LAYER_bn_relu_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]  BatchNorm weight
    const float* __restrict__ beta,     // [C]  BatchNorm bias
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int c = (int)((i / HW) % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float v = (x[i] - mean) * inv_std * gamma[c] + beta[c];
    out[i] = v > 0.0f ? v : 0.0f;
}

// Conv2d(C_l, 32, kernel_size=3, padding=1, bias=False): f_l = conv(a_l, w_l); Dropout(0.0) is the identity
extern "C" __global__ void LAYER_conv_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]  (a_l)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int pad)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - pad + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - pad + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }
    out[((long long)n * C_out + co) * OH * OW + p] = acc;
}

// x_{l+1} = torch.cat([x, f_1, ..., f_l], 1) = torch.cat([x_l, f_l], 1)
extern "C" __global__ void LAYER_concat_kernel(
    const float* __restrict__ prev,     // [N, C_prev, HW]  (x_l)
    const float* __restrict__ feat,     // [N, C_new, HW]   (f_l)
    float* __restrict__ out,            // [N, C_prev + C_new, HW]
    int N, int C_prev, int C_new, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int C = C_prev + C_new;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int p = (int)(i % HW);
    int c = (int)((i / HW) % C);
    long long n = i / ((long long)HW * C);

    float v;
    if (c < C_prev) {
        v = prev[(n * C_prev + c) * HW + p];
    } else {
        v = feat[(n * C_new + (c - C_prev)) * HW + p];
    }
    out[i] = v;
}
"""

PRELUDE = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernels (one block per channel)
const float BN_EPS = 1e-5f;     // nn.BatchNorm2d default eps
"""

NUM_LAYERS = 6          # get_init_inputs() = [6, 32, 32]: fixed by the weights
IN_FEATURES = 32
GROWTH = 32
LAYER_NAMES = [f"dense{l + 1}" for l in range(NUM_LAYERS)]
CUDA = PRELUDE + "".join(LAYER_TEMPLATE.replace("LAYER", name) for name in LAYER_NAMES)
KERNELS = [
    f"{name}_{part}_kernel" for name in LAYER_NAMES for part in ("bn_stats", "bn_relu", "conv", "concat")
]

STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
BLOCK = 256             # normalise, convolution and concatenation kernels
PAD = 1                 # Conv2d(C_l, 32, 3, padding=1)
BN_EPS = 1e-5           # must equal BN_EPS in the CUDA source
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the convolutions
OFFSET = 8.0            # T2: x = 8 + U[0, 1)
SMALL_SCALE = 0.01      # T3: x = U[0, 0.01), variance 8.3e-6, comparable to eps


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(6, 32, 32): six nn.Sequential(BatchNorm2d(C_l), ReLU, Conv2d(C_l, 32, 3, padding=1,
        # bias=False), Dropout(0.0)) in order; BatchNorm's ones/zeros draw nothing, each Conv2d weight draws.
        nn = torch.nn
        layers = []
        for l in range(NUM_LAYERS):
            c_in = IN_FEATURES + l * GROWTH
            bn = nn.BatchNorm2d(c_in)
            conv = nn.Conv2d(c_in, GROWTH, kernel_size=3, padding=PAD, bias=False)
            layers.append({"bn_w": bn.weight, "bn_b": bn.bias, "conv_w": conv.weight})
        return layers

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, _, H, W_in = x.shape
        HW = H * W_in
        seq = []
        cur = x
        for l, name in enumerate(LAYER_NAMES):
            lw = w[l]
            C = cur.shape[1]
            stats = torch.empty((2, C), device=x.device, dtype=x.dtype)
            act = torch.empty_like(cur)
            C_new, _, KH, KW = lw["conv_w"].shape
            OH = H + 2 * PAD - KH + 1
            OW = W_in + 2 * PAD - KW + 1
            feat = torch.empty((N, C_new, OH, OW), device=x.device, dtype=x.dtype)
            nxt = torch.empty((N, C + C_new, H, W_in), device=x.device, dtype=x.dtype)
            nch = [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, HW)]
            seq += [
                (f"{name}_bn_stats_kernel", (C, 1, 1), (STATS_BLOCK, 1, 1), [cur, stats], nch),
                (
                    f"{name}_bn_relu_kernel",
                    (K.cdiv(N * C * HW, BLOCK), 1, 1),
                    (BLOCK, 1, 1),
                    [cur, stats, lw["bn_w"], lw["bn_b"], act],
                    nch,
                ),
                (
                    f"{name}_conv_kernel",
                    (K.cdiv(OH * OW, BLOCK), C_new, N),
                    (BLOCK, 1, 1),
                    [act, lw["conv_w"], feat],
                    [
                        (ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H), (ctypes.c_int, W_in),
                        (ctypes.c_int, C_new), (ctypes.c_int, KH), (ctypes.c_int, KW),
                        (ctypes.c_int, OH), (ctypes.c_int, OW), (ctypes.c_int, PAD),
                    ],
                ),
                (
                    f"{name}_concat_kernel",
                    (K.cdiv(N * (C + C_new) * HW, BLOCK), 1, 1),
                    (BLOCK, 1, 1),
                    [cur, feat, nxt],
                    [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, C_new), (ctypes.c_int, HW)],
                ),
            ]
            cur = nxt
        return {"seq": seq, "out": cur}

    def ref(inputs, torch):
        # Model.forward: features = [x]; per layer, new = layer(x); x = cat(features + [new], 1).
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        features = [x]
        for lw in w:
            y = F.batch_norm(x, None, None, lw["bn_w"], lw["bn_b"], training=True, eps=BN_EPS)
            y = F.relu(y)
            y = F.conv2d(y, lw["conv_w"], padding=PAD)
            y = F.dropout(y, p=0.0, training=True)
            features.append(y)
            x = torch.cat(features, 1)
        return x

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, num_input_features, height, width)]
        return [torch.rand(s["batch"], IN_FEATURES, s["height"], s["width"])]

    def offset_inputs(torch, s):
        # Same sign, 8 + U[0, 1): the channel mean is about 29 standard deviations (1.7 for U[0, 1)).
        return [OFFSET + torch.rand(s["batch"], IN_FEATURES, s["height"], s["width"])]

    def small_inputs(torch, s):
        # U[0, 0.01): variance 8.3e-6, the same order as eps = 1e-5.
        return [torch.rand(s["batch"], IN_FEATURES, s["height"], s["width"]) * SMALL_SCALE]

    return K.substrate(
        name="L3p14_densenet121_dense_block",
        level=3,
        problem="14_DenseNet121DenseBlock",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10, max=MAX_GRID_Z),
            "height": K.dim(224),
            "width": K.dim(224),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                offset_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 13, "width": 21},
                small=True,
                purpose="2 x 32 x 13 x 21: a plane of 273 = 256 + 17 pixels, so the statistics threads hold one or "
                "two values per plane, every convolution's second block per plane has 239 dead threads, and the "
                "normalise and concatenation grids (2 x C x 273 for C = 32..224) end in partial blocks for most "
                "C; H 13 != W 21 so swapped H/W strides or a wrong row length in the 3x3 window change the "
                "result; inputs 8 + U[0,1) as in T2_large_offset_small_count, so this CPU suite also sees faults "
                "in the first layer's mean reduction",
            ),
            K.suite(
                "T2_large_offset_small_count",
                offset_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 3, "width": 2},
                purpose="same-sign 8 + U[0,1) on 2 x 32 x 3 x 2, so 12 values per channel. BatchNorm makes every "
                "layer independent of its input's scale, so the large magnitude goes into the offset of x, whose "
                "32 channels every one of the six BatchNorms normalises again: their mean is 29 standard "
                "deviations instead of 1.7, so a mean that loses a partial sum, an image or a tree level is off "
                "by many standard deviations after normalisation, and a variance computed without subtracting "
                "the mean is about 870x too large; with 12 values per channel the biased and the unbiased "
                "(Bessel) variance differ by 9%, and 244 of the 256 statistics threads hold no value, so the "
                "reductions' zero starts matter; every 3x3 tap pattern at a border is exercised (most taps are "
                "padding)",
            ),
            K.suite(
                "T3_small_variance",
                small_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "height": 20, "width": 17},
                purpose="U[0,0.01): the variance of x's 32 channels (8.3e-6) is comparable to eps = 1e-5 in all six "
                "BatchNorms (each renormalises those channels), so their outputs are scaled by sqrt(var / (var + "
                "eps)) = 0.67; a dropped or misplaced eps changes those channels' activations by tens of percent, "
                "which at the official variance of 0.083 is a 4e-5 effect; 20 x 17 = 340 = 256 + 84 pixels",
            ),
        ],
        notes="BatchNorm runs in training mode with the batch's own statistics (the harness never calls .eval()); "
        "its weight is ones and its bias zeros (default init), so mutants that drop gamma or beta are "
        "equivalent. The first 32 output channels are x itself, copied through six concatenations. The six "
        "convolutions run in TF32 through cuDNN in the GPU reference (torch's default), so the official "
        "reference misses fp64 at 1e-4 (facts Appendix C) but passes at 1e-2; their inputs are normalised, so "
        "the TF32 error does not grow with the input scale (CPU emulation, operands rounded to TF32: see the "
        "report). ReLU (v > 0 ? v : 0) maps NaN to 0 where torch propagates it; finite inputs are unaffected. "
        "The CUDA source is a per-layer template: a mutant's line number refers to the instantiated source, "
        "its kernel name to the layer. Memory: the official output is 10 x 224 x 224 x 224 (450 MB); one "
        "forward allocates about 3 GB of intermediate activations.",
    )
