"""KernelBench level 3, problem 13_DenseNet121TransitionLayer: BatchNorm2d(32) (training mode), ReLU,
Conv2d 32->64 1x1 (no bias), AvgPool2d(2, stride 2) on x 128 x 32 x 256 x 256.

A pipeline of four kernels, one per layer (the ReLU is fused into the BatchNorm normalize kernel):

    transition_bn_stats_kernel   per-channel batch mean and biased variance   -> stats [2, 32]
    transition_bn_relu_kernel    (x - mean) / sqrt(var + eps) * gamma + beta, ReLU   -> [N,32,H,W]
    transition_conv_kernel       1x1 convolution 32 -> 64, no bias              -> [N,64,H,W]
    transition_avgpool_kernel    2x2 average, stride 2                          -> [N,64,H/2,W/2]

The model is never put in eval mode, so BatchNorm normalizes with the statistics of the batch
itself (mean and biased variance over N, H and W, eps = 1e-5); the running-statistics update it
also performs changes no output and has no kernel. The statistics kernel runs one 256-thread block
per channel: each thread sums a strided slice of the channel's N planes, a shared-memory tree
reduces the partial sums to the mean, then a second pass and a second tree reduce the squared
deviations from that mean to the variance (two-pass, as careful as the reference); both values go
to one packed buffer [mean; var]. The normalize, convolution and pool kernels run one thread per
output element: normalize and pool over a flat 64-bit index, the convolution on a 3D grid (pixels of
one plane along x, output channel along y, image along z). All accumulation is fp32.

Cost on the official input (1 GB in, 512 MB out): the statistics kernel reads x twice with only 32
blocks (about 10-15 ms, latency-bound), normalize and pool are memory-bound (about 1 ms each), the
convolution is 17.2 G multiply-adds (about 5-10 ms): about 20-30 ms per forward on an H200.
"""

CUDA = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernel (one block per channel)

// BatchNorm2d(32), training mode, step 1: per-channel batch statistics.
extern "C" __global__ void transition_bn_stats_kernel(
    const float* __restrict__ x,        // [N, C, H, W]
    float* __restrict__ stats,          // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;                 // one block per channel
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;    // elements per channel

    // Phase 1: sum. Each thread adds a strided slice of every plane, then a tree reduction.
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
    __syncthreads();    // every thread has read red[0] before phase 2 overwrites it

    // Phase 2: sum of squared deviations from the mean, same slices, same tree.
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
    float var = red[0] / (float)count;  // biased: divided by N*H*W, as BatchNorm normalizes

    if (tid == 0) {
        stats[c] = mean;
        stats[C + c] = var;
    }
}

// BatchNorm2d(32), training mode, step 2: normalize with the batch statistics, affine, ReLU.
extern "C" __global__ void transition_bn_relu_kernel(
    const float* __restrict__ x,        // [N, C, H, W]
    const float* __restrict__ stats,    // [2, C]: mean, biased variance
    const float* __restrict__ gamma,    // [C]  BatchNorm weight
    const float* __restrict__ beta,     // [C]  BatchNorm bias
    float* __restrict__ out,            // [N, C, H, W]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;         // BatchNorm2d default eps

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

// Conv2d(32, 64, kernel_size=1, bias=False): a per-pixel matrix-vector product over the channels.
extern "C" __global__ void transition_conv_kernel(
    const float* __restrict__ y,        // [N, C_in, H, W]  (BatchNorm + ReLU output)
    const float* __restrict__ w,        // [C_out, C_in, 1, 1]
    float* __restrict__ out,            // [N, C_out, H, W]
    int N, int C_in, int HW, int C_out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // pixel: h * W + w
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= HW || co >= C_out || n >= N) return;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        acc += y[((long long)n * C_in + ci) * HW + p] * w[(long long)co * C_in + ci];
    }
    out[((long long)n * C_out + co) * HW + p] = acc;
}

// AvgPool2d(kernel_size=2, stride=2): mean of each 2x2 window (no padding, floor mode).
extern "C" __global__ void transition_avgpool_kernel(
    const float* __restrict__ x,        // [N, C, H, W]
    float* __restrict__ out,            // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;               // kernel_size=2
    const int POOL_S = 2;               // stride=2

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int c = (int)((i / ((long long)OW * OH)) % C);
    int n = (int)(i / ((long long)OW * OH * C));

    float sum = 0.0f;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            sum += x[(((long long)n * C + c) * H + ih) * W + iw];
        }
    }
    out[i] = sum / (float)(POOL_K * POOL_K);
}
"""

KERNELS = [
    "transition_bn_stats_kernel",
    "transition_bn_relu_kernel",
    "transition_conv_kernel",
    "transition_avgpool_kernel",
]

STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
BLOCK = 256             # normalize, convolution and pool kernels
POOL_K = 2              # AvgPool2d(kernel_size=2, stride=2)
POOL_S = 2
BN_EPS = 1e-5           # BatchNorm2d default eps (must equal BN_EPS in the CUDA source)
IN_FEATURES = 32        # get_init_inputs() = [32, 64]: fixed by the weights
OUT_FEATURES = 64
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the convolution
OFFSET = 8.0            # T1/T2: x = 8 + U[0, 1)
SMALL_SCALE = 0.01      # T3: x = U[0, 0.01), variance 8.3e-6, comparable to eps


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(32, 64): nn.Sequential(BatchNorm2d(32), ReLU, Conv2d(32, 64, 1, bias=False),
        # AvgPool2d(2, 2)). BatchNorm2d's weight (ones) and bias (zeros) draw nothing; the Conv2d
        # weight is the only random draw.
        nn = torch.nn
        bn = nn.BatchNorm2d(IN_FEATURES)
        conv = nn.Conv2d(IN_FEATURES, OUT_FEATURES, kernel_size=1, bias=False)
        return {"bn_w": bn.weight, "bn_b": bn.bias, "conv_w": conv.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C, H, W_in = x.shape
        HW = H * W_in
        C_out = w["conv_w"].shape[0]
        OH = (H - POOL_K) // POOL_S + 1
        OW = (W_in - POOL_K) // POOL_S + 1
        stats = torch.empty((2, C), device=x.device, dtype=x.dtype)
        y = torch.empty_like(x)
        conv = torch.empty((N, C_out, H, W_in), device=x.device, dtype=x.dtype)
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        seq = [
            (
                "transition_bn_stats_kernel",
                (C, 1, 1),
                (STATS_BLOCK, 1, 1),
                [x, stats],
                [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, HW)],
            ),
            (
                "transition_bn_relu_kernel",
                (K.cdiv(N * C * HW, BLOCK), 1, 1),
                (BLOCK, 1, 1),
                [x, stats, w["bn_w"], w["bn_b"], y],
                [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, HW)],
            ),
            (
                "transition_conv_kernel",
                (K.cdiv(HW, BLOCK), C_out, N),
                (BLOCK, 1, 1),
                [y, w["conv_w"], conv],
                [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, HW), (ctypes.c_int, C_out)],
            ),
            (
                "transition_avgpool_kernel",
                (K.cdiv(N * C_out * OH * OW, BLOCK), 1, 1),
                (BLOCK, 1, 1),
                [conv, out],
                [
                    (ctypes.c_int, N),
                    (ctypes.c_int, C_out),
                    (ctypes.c_int, H),
                    (ctypes.c_int, W_in),
                    (ctypes.c_int, OH),
                    (ctypes.c_int, OW),
                ],
            ),
        ]
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        x = F.batch_norm(x, None, None, w["bn_w"], w["bn_b"], training=True, eps=BN_EPS)
        x = F.relu(x)
        x = F.conv2d(x, w["conv_w"])
        return F.avg_pool2d(x, kernel_size=POOL_K, stride=POOL_S)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, num_input_features, height, width)]
        return [torch.rand(s["batch"], IN_FEATURES, s["height"], s["width"])]

    def offset_inputs(torch, s):
        # Same sign, 8 + U[0, 1): the mean is about 29 standard deviations (1.7 for U[0, 1)).
        return [OFFSET + torch.rand(s["batch"], IN_FEATURES, s["height"], s["width"])]

    def small_inputs(torch, s):
        # U[0, 0.01): variance 8.3e-6, the same order as eps = 1e-5.
        return [torch.rand(s["batch"], IN_FEATURES, s["height"], s["width"]) * SMALL_SCALE]

    return K.substrate(
        name="L3p13_densenet121_transition",
        level=3,
        problem="13_DenseNet121TransitionLayer",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128, max=MAX_GRID_Z),
            "height": K.dim(256, min=2, multiple_of=2),
            "width": K.dim(256, min=2, multiple_of=2),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                offset_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 18, "width": 22},
                small=True,
                purpose="3 x 32 x 18 x 22: a plane of 396 = 256 + 140 pixels, so statistics threads see one or "
                "two values per plane and the convolution's last block per plane has 116 dead threads; the "
                "normalize (38016 = 148.5 x 256) and pool (3 x 64 x 9 x 11 = 19008 = 74.25 x 256) grids end in a "
                "partial block; OH 9 != OW 11; inputs 8 + U[0,1) as in T2_large_offset_small_count (see "
                "there), so this CPU suite also sees faults in the mean reduction",
            ),
            K.suite(
                "T2_large_offset_small_count",
                offset_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 2, "width": 2},
                purpose="same-sign 8 + U[0,1) on 2 x 32 x 2 x 2, so 8 values per channel. BatchNorm makes the output "
                "independent of the input's scale, so the large magnitude goes into the offset: the channel mean "
                "is 29 standard deviations instead of 1.7, so a mean that loses a partial sum, an image or a "
                "tree level is off by many standard deviations after normalization (for U[0,1) such a fault "
                "can stay near the tolerance), and a variance computed without subtracting the mean is about "
                "870x too large. With 8 values per channel the biased variance (divided by N*H*W, as "
                "BatchNorm normalizes) and the unbiased one (N*H*W - 1, torch.var's default) differ by 14%, so "
                "a Bessel-corrected variance moves the output by 3.1-3.4e-2 (CPU emulation, 8 seeds) where "
                "it is invisible at larger counts (2.4e-4 on T1); 252 of the 256 statistics threads hold no "
                "value, so the reductions' zero starts matter. The fp32 reference stays within 2e-6 of fp64 "
                "(emulated; even a one-pass fp32 E[x^2] - E[x]^2 would keep the variance within 0.02% at this "
                "offset), and TF32 in its convolution costs about 5e-4",
            ),
            K.suite(
                "T3_small_variance",
                small_inputs,
                seeds=[5, 6],
                sizes={"batch": 16, "height": 32, "width": 40},
                purpose="U[0,0.01): the channel variance (8.3e-6) is comparable to eps = 1e-5, so the outputs are "
                "scaled by sqrt(var / (var + eps)) = 0.67; a dropped or wrong eps (or eps added after the "
                "square root) changes every output by tens of percent, which at the official variance of "
                "0.083 is a 4e-5 effect (CPU emulation: dropping eps gives 0.19 here, 3.6e-5 on T0); the "
                "fp32 reference stays within 1e-7 of fp64",
            ),
        ],
        notes="BatchNorm runs in training mode with the batch's own statistics (the harness never calls "
        ".eval()); its weight is ones and its bias zeros (default init), so mutants that drop gamma or beta are "
        "equivalent. Only the 1x1 "
        "convolution runs in TF32 in the reference (its inputs are normalized, so the TF32 error is the same at every "
        "input scale: 2-5e-4 in a CPU emulation of TF32 rounding). The channel counts 32 and 64 are fixed by the conv weight; batch, height and "
        "width are free; height and width are declared even (an odd size would make the pool drop the last "
        "row or column of the convolution output). ReLU (v > 0 ? v : 0) maps NaN "
        "to 0 where torch propagates it; finite inputs are unaffected. The official convolution output "
        "128 x 64 x 256 x 256 is 537M elements (2.1 GB); flat indices and offsets are 64-bit.",
    )
