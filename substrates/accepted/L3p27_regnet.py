"""KernelBench level 3, problem 27_RegNet: three conv stages (64, 128, 256 channels) and a linear
classifier, on x 8 x 3 x 224 x 224, 10 classes.

Model(3, 3, [64, 128, 256], 10), in forward order:

    stage s = 1..3 (feature_extractor[s - 1]), widths 64, 128, 256:
        Conv2d(in, width, 3, padding=1) (with bias), BatchNorm2d, ReLU,
        Conv2d(width, width, 3, padding=1) (with bias), BatchNorm2d, ReLU,
        MaxPool2d(2, stride 2)                                        224 -> 112 -> 56 -> 28
    torch.mean(x, dim=[2, 3])                                         [N, 256]
    fc Linear(256, 10)

The harness never calls .eval(), so the six BatchNorm2d layers run in training mode: each normalises
with its batch statistics per channel (mean and biased variance over N, H, W; eps 1e-5), then applies
its affine weight (ones) and bias (zeros). Every layer has its own kernel, 23 in pipeline order:

    per stage s: regnet_stage<s>_conv1_kernel, regnet_stage<s>_bn1_stats_kernel,
                 regnet_stage<s>_bn1_relu_kernel, regnet_stage<s>_conv2_kernel,
                 regnet_stage<s>_bn2_stats_kernel, regnet_stage<s>_bn2_relu_kernel,
                 regnet_stage<s>_maxpool_kernel
    regnet_mean_kernel, regnet_fc_kernel

Each BatchNorm is two kernels: a statistics kernel writes [mean; biased variance] into one packed
[2, C] buffer (a step writes only its last tensor), and a normalise kernel applies it with the ReLU
fused. The kernel definitions are generated below from one template string per kind of layer, but
each is a distinct, fully written-out __global__ with its own name, so a mutation belongs to exactly
one layer.

Convolutions and pools run one thread per output element on a 3D grid: x covers the output pixels of
one plane (flat index oh * OW + ow, 256-thread blocks), y the channel and z the image. Each conv thread
loops over the input channels and the 3x3 window with explicit zero-padding guards, accumulating in
fp32, and adds its bias. The statistics kernels run one 256-thread block per channel: a strided sum
through a shared-memory tree gives the mean, then a strided sum of squared deviations through a second
tree gives the biased variance. The normalise kernels run over a flat 64-bit index; the spatial mean
is one thread per (image, channel); fc is a 16 x 16 shared-memory tiled GEMM as in L3p1_mlp.

Cost: 59.9 G multiply-adds (120 GFLOP) for the official batch of 8, three quarters of it in the three
width x width conv2 layers (14.8 G each); at the 1-3 TFLOP/s a naive direct convolution reaches on an
H200 that is 40-120 ms, plus the statistics kernels (at most 400k values per channel, 64 blocks, in
stage 1 at 224 x 224, a few ms): about 50-130 ms per forward.
"""

_CONV_BIAS_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C_in, H, W]  (@INPUT@)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }
    out[((long long)n * C_out + co) * OH * OW + p] = acc + b[co];
}
"""

_POOL_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, H, W]  (@INPUT@)
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;                               // kernel_size=2
    const int POOL_S = 2;                               // stride=2
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // Floor mode: OH = (H - POOL_K) / POOL_S + 1, so every window lies inside the input (an odd
    // last row or column is dropped).
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = m;
}
"""

_MEAN_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, HW]  (@INPUT@)
    float* __restrict__ out,        // [N, C]
    int N, int C, int HW)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;      // flat (n, c) index
    if (i >= N * C) return;

    const float* plane = x + (long long)i * HW;
    float acc = 0.0f;
    for (int p = 0; p < HW; ++p) {
        acc += plane[p];
    }
    out[i] = acc / (float)HW;
}
"""

_PRELUDE = r"""
const int STATS_BLOCK = 256;    // threads per block of the statistics kernels (one block per channel)
const int TILE = 16;            // fc: blocks are TILE x TILE threads, K is consumed TILE at a time
"""

_STATS_TEMPLATE = r"""
// @DESC@: per-channel batch mean and biased variance over (N, H, W)
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [N, C, HW]  (@INPUT@)
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[STATS_BLOCK];
    int c = blockIdx.x;                 // one block per channel
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (long long j = tid; j < count; j += blockDim.x) {
        int n = (int)(j / HW);
        int p = (int)(j % HW);
        thread_sum += x[((long long)n * C + c) * HW + p];
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
    for (long long j = tid; j < count; j += blockDim.x) {
        int n = (int)(j / HW);
        int p = (int)(j % HW);
        float d = x[((long long)n * C + c) * HW + p] - mean;
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
        stats[c] = mean;
        stats[C + c] = red[0] / (float)count;   // biased: divide by the count, as training-mode BN does
    }
}
"""

_BN_RELU_TEMPLATE = r"""
// @DESC@: relu((x - mean) / sqrt(var + eps) * gamma + beta)
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,        // [N, C, HW]  (@INPUT@)
    const float* __restrict__ stats,    // [2, C]: mean, biased variance
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    const float BN_EPS = 1e-5f;         // nn.BatchNorm2d default eps
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
"""

_FC_TEMPLATE = r"""
// @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [M, K]  (@INPUT@)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (image)
    int col = blockIdx.x * TILE + tx;   // output column (class)
    int w_row = blockIdx.x * TILE + ty; // the W row this thread loads into the tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = x[(long long)row * K + k];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        out[(long long)row * N + col] = acc + b[col];
    }
}
"""

BLOCK = 256             # conv, pool, normalise and mean kernels: threads per block
STATS_BLOCK = 256       # must equal STATS_BLOCK in the CUDA source (shared buffer size), a power of two
TILE = 16               # must equal TILE in the CUDA source
PAD = 1                 # every conv: kernel_size=3, padding=1, stride 1 (must equal PAD in the kernels)
POOL_K = 2              # every MaxPool2d(kernel_size=2, stride=2)
POOL_S = 2
IN_CHANNELS = 3         # get_init_inputs() = [3, 3, [64, 128, 256], 10]
BLOCK_WIDTHS = (64, 128, 256)
OUTPUT_CLASSES = 10
BN_EPS = 1e-5
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the conv and pool kernels
SMALL_SCALE = 0.02      # T2: x = U[0, 0.02)
SPIKE_FRACTION = 0.02   # T3: about 2% of the input values are spikes


def _layers():
    """(template, kernel name, description, input description) in pipeline order."""
    out = []
    prev = "x"
    cin = IN_CHANNELS
    for s, width in enumerate(BLOCK_WIDTHS, start=1):
        pre = f"regnet_stage{s}_"
        tag = f"feature_extractor[{s - 1}]"
        out += [
            (_CONV_BIAS_TEMPLATE, pre + "conv1_kernel", f"{tag}[0]: Conv2d({cin}, {width}, 3, padding=1)", prev),
            (_STATS_TEMPLATE, pre + "bn1_stats_kernel", f"{tag}[1] BatchNorm2d({width}) statistics",
             f"stage{s} conv1 output"),
            (_BN_RELU_TEMPLATE, pre + "bn1_relu_kernel", f"{tag}[1..2] BatchNorm2d({width}) + ReLU",
             f"stage{s} conv1 output"),
            (_CONV_BIAS_TEMPLATE, pre + "conv2_kernel", f"{tag}[3]: Conv2d({width}, {width}, 3, padding=1)",
             f"stage{s} bn1 output"),
            (_STATS_TEMPLATE, pre + "bn2_stats_kernel", f"{tag}[4] BatchNorm2d({width}) statistics",
             f"stage{s} conv2 output"),
            (_BN_RELU_TEMPLATE, pre + "bn2_relu_kernel", f"{tag}[4..5] BatchNorm2d({width}) + ReLU",
             f"stage{s} conv2 output"),
            (_POOL_TEMPLATE, pre + "maxpool_kernel", f"{tag}[6]: MaxPool2d(kernel_size=2, stride=2)",
             f"stage{s} bn2 output"),
        ]
        prev = f"stage{s} output"
        cin = width
    out += [
        (_MEAN_TEMPLATE, "regnet_mean_kernel", "torch.mean(x, dim=[2, 3]) (global average pooling)", prev),
        (_FC_TEMPLATE, "regnet_fc_kernel", "fc: Linear(256, 10)", "spatial mean"),
    ]
    return out


CUDA = _PRELUDE + "".join(
    t.replace("@NAME@", n).replace("@DESC@", d).replace("@INPUT@", i) for t, n, d, i in _layers()
)
KERNELS = [n for _, n, _, _ in _layers()]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 3, [64, 128, 256], 10): per stage Conv2d, BatchNorm2d, (ReLU), Conv2d,
        # BatchNorm2d, (ReLU, MaxPool2d), then fc. BatchNorm2d draws nothing (ones, zeros), but every
        # module is built in order.
        nn = torch.nn
        stages = []
        cin = IN_CHANNELS
        for width in BLOCK_WIDTHS:
            conv1 = nn.Conv2d(cin, width, kernel_size=3, padding=PAD)
            bn1 = nn.BatchNorm2d(width)
            conv2 = nn.Conv2d(width, width, kernel_size=3, padding=PAD)
            bn2 = nn.BatchNorm2d(width)
            stages.append({
                "conv1_w": conv1.weight, "conv1_b": conv1.bias, "bn1_w": bn1.weight, "bn1_b": bn1.bias,
                "conv2_w": conv2.weight, "conv2_b": conv2.bias, "bn2_w": bn2.weight, "bn2_b": bn2.bias,
            })
            cin = width
        fc = nn.Linear(BLOCK_WIDTHS[-1], OUTPUT_CLASSES)
        return {"stages": stages, "fc_w": fc.weight, "fc_b": fc.bias}

    W = K.weights(build)

    def conv_step(name, x, w, b):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = H + 2 * PAD - KH + 1
        OW = W_in + 2 * PAD - KW + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, b, out],
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
            ],
        )
        return step, out

    def stats_step(name, x):
        N, C, H, W_in = x.shape
        stats = torch.empty((2, C), device=x.device, dtype=x.dtype)
        step = (
            name,
            (C, 1, 1),                  # one block per channel
            (STATS_BLOCK, 1, 1),
            [x, stats],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )
        return step, stats

    def norm_step(name, x, stats, gamma, beta):
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        step = (
            name,
            (K.cdiv(N * C * H * W_in, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, stats, gamma, beta, out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )
        return step, out

    def pool_step(name, x):
        N, C, H, W_in = x.shape
        OH = (H - POOL_K) // POOL_S + 1
        OW = (W_in - POOL_K) // POOL_S + 1
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C, N),
            (BLOCK, 1, 1),
            [x, out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
            ],
        )
        return step, out

    def mean_step(name, x):
        N, C, H, W_in = x.shape
        out = torch.empty((N, C), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(N * C, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )
        return step, out

    def fc_step(name, x, w, b):
        M, K_in = x.shape
        N_out = w.shape[0]
        out = torch.empty((M, N_out), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(N_out, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w, b, out],
            [(ctypes.c_int, M), (ctypes.c_int, N_out), (ctypes.c_int, K_in)],
        )
        return step, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        seq = []

        def add(step_and_out):
            step, out = step_and_out
            seq.append(step)
            return out

        h = x
        for s, p in enumerate(w["stages"], start=1):
            pre = f"regnet_stage{s}_"
            c = add(conv_step(pre + "conv1_kernel", h, p["conv1_w"], p["conv1_b"]))
            st = add(stats_step(pre + "bn1_stats_kernel", c))
            h = add(norm_step(pre + "bn1_relu_kernel", c, st, p["bn1_w"], p["bn1_b"]))
            c = add(conv_step(pre + "conv2_kernel", h, p["conv2_w"], p["conv2_b"]))
            st = add(stats_step(pre + "bn2_stats_kernel", c))
            h = add(norm_step(pre + "bn2_relu_kernel", c, st, p["bn2_w"], p["bn2_b"]))
            h = add(pool_step(pre + "maxpool_kernel", h))
        m = add(mean_step("regnet_mean_kernel", h))
        out = add(fc_step("regnet_fc_kernel", m, w["fc_w"], w["fc_b"]))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward in training mode: every BatchNorm uses the batch statistics.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def bn_relu(t, g, b):
            return F.relu(F.batch_norm(t, None, None, g, b, training=True, eps=BN_EPS))

        for p in w["stages"]:
            x = bn_relu(F.conv2d(x, p["conv1_w"], p["conv1_b"], padding=PAD), p["bn1_w"], p["bn1_b"])
            x = bn_relu(F.conv2d(x, p["conv2_w"], p["conv2_b"], padding=PAD), p["bn2_w"], p["bn2_b"])
            x = F.max_pool2d(x, kernel_size=POOL_K, stride=POOL_S)
        x = torch.mean(x, dim=[2, 3])
        return F.linear(x, w["fc_w"], w["fc_b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_channels, image_height, image_width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def small_inputs(torch, s):
        # U[0, 0.02): see T2_eps_scale.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * SMALL_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the values set to U[0, 1).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape)
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p27_regnet",
        level=3,
        problem="27_RegNet",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(8, max=MAX_GRID_Z),
            "height": K.dim(224, min=8),
            "width": K.dim(224, min=8),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 37, "width": 45},
                small=True,
                purpose="2 x 3 x 37 x 45, odd and unequal sides: each floor-mode pool drops an odd last row or "
                "column (37 x 45 -> 18 x 22 -> 9 x 11 -> 4 x 5), so a pool that reads past its window or a "
                "ceil-mode size shows, and swapped H/W extents show; every plane (1665, 396, 99 pixels) ends in "
                "a partial 256-thread block; stage 3's BatchNorms see 2 x 9 x 11 = 198 values per channel, so "
                "their strided loops stop inside the first pass (58 of 256 threads hold nothing); fc's 2 rows "
                "and 10 columns fill one 16 x 16 tile partially in both directions. Emulated TF32 tau* against "
                "fp64 5.6e-4",
            ),
            K.suite(
                "T2_eps_scale",
                small_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "height": 64, "width": 80},
                purpose="x = U[0,0.02): training-mode BatchNorm is scale-invariant, so a same-sign large input "
                "would change nothing downstream; scaling down instead puts the per-channel variance of stage "
                "1's first conv (about 1e-5) at the size of eps = 1e-5, so the eps term, the variance (not the "
                "std) under the square root and the biased divisor of its BatchNorm move the outputs; batch 3, "
                "64 x 80 (8 x 10 at stage 3). Emulated TF32 tau* 3.2e-4",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 96, "width": 72},
                purpose="about 2% isolated U[0,1) spikes on exact zeros: 58% of stage 1's first conv outputs "
                "(those whose 3x3x3 window holds no spike) are exactly the conv bias, so after BatchNorm they "
                "share one value and the others sit exactly where a window meets a spike: kh/kw swaps, "
                "transposed weights and wrong padding offsets move them visibly, and the first statistics see "
                "a skewed, heavy-tailed distribution; 96 x 72 (12 x 9 at the mean). Emulated TF32 tau* 1.2e-4",
            ),
        ],
        notes="Training-mode BatchNorm (the harness never calls .eval()): batch mean and biased variance per "
        "channel, eps 1e-5, affine weight 1 and bias 0 at init (kept as kernel inputs, so gamma/beta mutants "
        "that swap or drop them are equivalent). Every conv has a bias (nn.Conv2d's default) and is followed "
        "by a BatchNorm, whose mean subtraction cancels it: mutants that drop or corrupt a conv bias by a "
        "per-channel constant are equivalent up to rounding. Likewise the output is invariant to a positive "
        "rescaling of any convolution's output, so mutants that only scale a conv are caught only through "
        "the eps term (T2_eps_scale). The reference convolutions run through cuDNN with TF32 (torch's "
        "default); a CPU emulation of TF32 operand rounding puts the TF32 reference within 1.3e-4 of fp64 on "
        "T0 (the fp32 CPU reference within 2.2e-7). Weakly input-sensitive at the official inputs: the 10 "
        "logits of the 8 T0 images differ by at most 3.2e-2 (|out| up to 1.1), so a fault that erases the "
        "input-dependent part changes the output by only about 1.5 times the tolerance. Height and width "
        "are declared >= 8 so that the three pools leave at least 1 x 1. ReLU (v > 0 ? v : 0) and the "
        "max-pool comparison (v > m) drop NaN where torch propagates it; finite inputs are unaffected.",
    )
