"""KernelBench level 3, problem 45_UNetSoftmax: a 4-level U-Net whose DoubleConv blocks use Softmax over the
width instead of ReLU, on x 8 x 8 x 64 x 512 (8 input channels, 4 output channels, 64 base features).

Model(8, 4, 64):
    DoubleConv(i, o) = [Conv2d(i, o, 3, padding=1), BatchNorm2d(o), Softmax(dim=-1)] x 2 (the second conv o -> o)
    enc1 = DC(8, 64)(x); enc2 = DC(64, 128)(pool(enc1)); enc3 = DC(128, 256)(pool(enc2));
    enc4 = DC(256, 512)(pool(enc3)); bottleneck = DC(512, 1024)(pool(enc4))       pool = MaxPool2d(2, 2)
    dec4 = DC(1024, 512)(cat(up4(bottleneck), enc4)); dec3 = DC(512, 256)(cat(up3(dec4), enc3));
    dec2 = DC(256, 128)(cat(up2(dec3), enc2)); dec1 = DC(128, 64)(cat(up1(dec2), enc1))
    return final_conv(dec1)                 up = ConvTranspose2d(c, c / 2, 2, stride=2); final_conv = Conv2d(64, 4, 1)

The harness never calls .eval(), so every BatchNorm2d normalises with the batch statistics of each channel
(mean and biased variance over N, H, W; eps 1e-5) before its affine weight (ones) and bias (zeros). Each of
the nine DoubleConv blocks has eight kernels of its own (72 in all), in pipeline order

    <blk>_conv1_kernel, <blk>_bn1_stats_kernel, <blk>_bn1_kernel, <blk>_softmax1_kernel,
    <blk>_conv2_kernel, <blk>_bn2_stats_kernel, <blk>_bn2_kernel, <blk>_softmax2_kernel

(blk = enc1 .. enc4, bottleneck, dec4 .. dec1; the statistics kernel writes [mean; biased variance] into one
[2, C] buffer), and the joints have one kernel each: pool1..pool4_kernel (2x2 max), up4..up1_kernel (the
transposed convolutions), cat4..cat1_kernel (torch.cat((up, skip), 1)) and final_conv_kernel: 85 kernels,
launched in the order forward evaluates them (enc1, pool1, enc2, ..., bottleneck, up4, cat4, dec4, ...,
dec1, final_conv). Every block's and joint's kernels are the same code with the block's name (the CUDA source
is written once per kind as a template and instantiated per block, so every layer has its own copy).

Convolutions run one thread per output element on a 3D grid (pixels of a plane along x in 256-thread blocks,
output channel along y, image along z) and accumulate in fp32 from an explicit 0, testing every 3x3 tap
against the zero padding; the transposed convolution maps each output pixel back to its input pixel and
kernel tap through the stride. Statistics are one 256-thread block per channel (two strided passes, two
shared-memory trees); the softmax is one 256-thread block per row of W values (a tree for the max, a tree for
the sum of expf(v - max), then the normalised writes); normalise, pool and cat are one thread per element
over a flat 64-bit index.

UNREFEREEABLE at 1e-2 on the GPU (facts section 5): the reference runs its 23 convolutions in TF32 and the
softmax after every BatchNorm amplifies that error; the official reference misses fp64 by up to 0.092 (an
IEEE fp32 reference would be 3.7e-4 away). The substrate is complete anyway; the GPU gate's fp64 evidence
classifies it.

Cost on the official input: 185 G multiply-adds in the convolutions (370 GFLOP; the decoders' first
convolutions alone 77 G), about 0.15-0.3 s at the 1.5-2.6 TFLOP/s of the naive convolution; everything else
is memory bound (the largest activations are 8 x 128 x 64 x 512 = 134 MB). 31 M parameters.
"""

CONV3X3_T = r"""
// LAYER: Conv2d(C_in, C_out, kernel_size=3, padding=1) with bias
extern "C" __global__ void LAYER_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, H, W]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int pad)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * W + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= H * W || co >= C_out || n >= N) return;

    int oh = p / W;
    int ow = p % W;

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
    out[((long long)n * C_out + co) * H * W + p] = acc + b[co];
}
"""

STATS_T = r"""
// LAYER: BatchNorm2d statistics (training mode): per-channel mean and biased variance over (N, H, W)
extern "C" __global__ void LAYER_kernel(
    const float* __restrict__ x,    // [N, C, HW]
    float* __restrict__ stats,      // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int N, int C, int HW)
{
    __shared__ float red[RED_BLOCK];
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
"""

BN_T = r"""
// LAYER: BatchNorm2d normalise: (x - mean) / sqrt(var + eps) * gamma + beta
extern "C" __global__ void LAYER_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
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
    out[i] = (x[i] - mean) * inv_std * gamma[c] + beta[c];
}
"""

SOFTMAX_T = r"""
// LAYER: Softmax(dim=-1): over the W values of each row (n, c, h)
extern "C" __global__ void LAYER_kernel(
    const float* __restrict__ x,    // [rows = N*C*H, W]
    float* __restrict__ out,        // [rows, W]
    long long rows, int W)
{
    __shared__ float red[RED_BLOCK];
    long long row = blockIdx.x;
    if (row >= rows) return;
    int tid = threadIdx.x;
    const float* x_row = x + row * W;
    float* out_row = out + row * W;

    // Phase 1: row max.
    float thread_max = NEG_SENTINEL;
    for (int j = tid; j < W; j += blockDim.x) {
        thread_max = fmaxf(thread_max, x_row[j]);
    }
    red[tid] = thread_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();    // every thread has read red[0] before phase 2 overwrites it

    // Phase 2: row sum of expf(x - row_max).
    float thread_sum = 0.0f;
    for (int j = tid; j < W; j += blockDim.x) {
        thread_sum += expf(x_row[j] - row_max);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float row_sum = red[0];

    // Phase 3: normalise and write every element of the row.
    for (int j = tid; j < W; j += blockDim.x) {
        out_row[j] = expf(x_row[j] - row_max) / row_sum;
    }
}
"""

POOL_T = r"""
// LAYER: MaxPool2d(kernel_size=2, stride=2)
extern "C" __global__ void LAYER_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    long long nc = i / ((long long)OW * OH);            // n * C + c

    float m = NEG_SENTINEL;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            m = fmaxf(m, x[(nc * H + ih) * W + iw]);
        }
    }
    out[i] = m;
}
"""

UP_T = r"""
// LAYER: ConvTranspose2d(C_in, C_out, kernel_size=2, stride=2) with bias
extern "C" __global__ void LAYER_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_in, C_out, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    long long n = i / ((long long)OW * OH * C_out);

    float acc = 0.0f;
    for (int kh = 0; kh < KH; ++kh) {
        int th = oh - kh;
        if (th < 0 || th % stride != 0) continue;      // no input pixel reaches oh through tap kh
        int ih = th / stride;
        if (ih >= H) continue;
        for (int kw = 0; kw < KW; ++kw) {
            int tw = ow - kw;
            if (tw < 0 || tw % stride != 0) continue;
            int iw = tw / stride;
            if (iw >= W) continue;
            for (int ci = 0; ci < C_in; ++ci) {
                float xv = x[((n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)ci * C_out + co) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }
    out[i] = acc + b[co];
}
"""

CAT_T = r"""
// LAYER: torch.cat((up, skip), dim=1)
extern "C" __global__ void LAYER_kernel(
    const float* __restrict__ up,       // [N, C1, HW]  (the transposed convolution's output)
    const float* __restrict__ skip,     // [N, C2, HW]  (the encoder output)
    float* __restrict__ out,            // [N, C1 + C2, HW]
    int N, int C1, int C2, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int C = C1 + C2;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int p = (int)(i % HW);
    int c = (int)((i / HW) % C);
    long long n = i / ((long long)HW * C);

    float v;
    if (c < C1) {
        v = up[(n * C1 + c) * HW + p];
    } else {
        v = skip[(n * C2 + (c - C1)) * HW + p];
    }
    out[i] = v;
}
"""

FINAL_T = r"""
// final_conv: Conv2d(64, 4, kernel_size=1) with bias
extern "C" __global__ void final_conv_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, 1, 1]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, H, W]
    int N, int C_in, int HW, int C_out)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;      // pixel: h * W + w
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= HW || co >= C_out || n >= N) return;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        acc += x[((long long)n * C_in + ci) * HW + p] * w[(long long)co * C_in + ci];
    }
    out[((long long)n * C_out + co) * HW + p] = acc + b[co];
}
"""

PRELUDE = r"""
const int RED_BLOCK = 256;                          // threads per block of the statistics and softmax kernels
const float BN_EPS = 1e-5f;                         // nn.BatchNorm2d default eps
const float NEG_SENTINEL = -3.402823466e+38f;       // -FLT_MAX: identity of the max reductions
const int POOL_K = 2;                               // MaxPool2d(kernel_size=2, stride=2)
const int POOL_S = 2;
"""

IN_CHANNELS = 8         # get_init_inputs() = [8, 4, 64]: fixed by the weights
OUT_CHANNELS = 4
FEATURES = 64
BLOCKS = ["enc1", "enc2", "enc3", "enc4", "bottleneck", "dec4", "dec3", "dec2", "dec1"]
BLOCK_PARTS = ["conv1", "bn1_stats", "bn1", "softmax1", "conv2", "bn2_stats", "bn2", "softmax2"]
PART_TEMPLATES = {"conv": CONV3X3_T, "bn_stats": STATS_T, "bn": BN_T, "softmax": SOFTMAX_T}


def _part_template(part):
    return PART_TEMPLATES[part.rstrip("12").replace("1_", "_").replace("2_", "_")]


def _pipeline_names():
    names = []
    for blk in BLOCKS[:4]:
        names += [f"{blk}_{part}" for part in BLOCK_PARTS]
        names.append(f"pool{blk[-1]}")
    names += [f"bottleneck_{part}" for part in BLOCK_PARTS]
    for blk in BLOCKS[5:]:
        names += [f"up{blk[-1]}", f"cat{blk[-1]}"]
        names += [f"{blk}_{part}" for part in BLOCK_PARTS]
    names.append("final_conv")
    return names


def _cuda():
    src = [PRELUDE]
    for name in _pipeline_names():
        if name == "final_conv":
            src.append(FINAL_T)
        elif name.startswith("pool"):
            src.append(POOL_T.replace("LAYER", name))
        elif name.startswith("up"):
            src.append(UP_T.replace("LAYER", name))
        elif name.startswith("cat"):
            src.append(CAT_T.replace("LAYER", name))
        else:
            part = name.split("_", 1)[1]
            src.append(_part_template(part).replace("LAYER", name))
    return "".join(src)


CUDA = _cuda()
KERNELS = [f"{name}_kernel" for name in _pipeline_names()]

RED_BLOCK = 256         # must equal RED_BLOCK in the CUDA source (shared buffer size), a power of two
BLOCK = 256             # convolutions and flat kernels
PAD = 1                 # DoubleConv: 3x3, padding 1
UP_STRIDE = 2           # ConvTranspose2d(c, c / 2, kernel_size=2, stride=2)
BN_EPS = 1e-5
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the convolutions
LEVELS = 4              # four 2x2 pools: height and width must be multiples of 16


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8, 4, 64): encoder1..4, bottleneck (each DoubleConv: Conv2d, BatchNorm2d, Softmax,
        # Conv2d, BatchNorm2d, Softmax), the four pools (no parameters), then upconv4, decoder4, upconv3,
        # decoder3, upconv2, decoder2, upconv1, decoder1, final_conv, in this order.
        nn = torch.nn

        def double_conv(i, o):
            c1 = nn.Conv2d(i, o, kernel_size=3, padding=PAD)
            b1 = nn.BatchNorm2d(o)
            c2 = nn.Conv2d(o, o, kernel_size=3, padding=PAD)
            b2 = nn.BatchNorm2d(o)
            return {"c1_w": c1.weight, "c1_b": c1.bias, "bn1_w": b1.weight, "bn1_b": b1.bias,
                    "c2_w": c2.weight, "c2_b": c2.bias, "bn2_w": b2.weight, "bn2_b": b2.bias}

        f = FEATURES
        w = {}
        w["enc1"] = double_conv(IN_CHANNELS, f)
        w["enc2"] = double_conv(f, f * 2)
        w["enc3"] = double_conv(f * 2, f * 4)
        w["enc4"] = double_conv(f * 4, f * 8)
        w["bottleneck"] = double_conv(f * 8, f * 16)
        for lvl, c in ((4, f * 16), (3, f * 8), (2, f * 4), (1, f * 2)):
            up = nn.ConvTranspose2d(c, c // 2, kernel_size=2, stride=UP_STRIDE)
            w[f"up{lvl}"] = {"w": up.weight, "b": up.bias}
            w[f"dec{lvl}"] = double_conv(c, c // 2)
        final = nn.Conv2d(f, OUT_CHANNELS, kernel_size=1)
        w["final"] = {"w": final.weight, "b": final.bias}
        return w

    W = K.weights(build)

    def empty(*shape, like):
        return torch.empty(*shape, device=like.device, dtype=like.dtype)

    def double_conv_steps(blk, x, bw):
        steps = []
        cur = x
        for k in (1, 2):
            N, C_in, H, W_in = cur.shape
            cw, cb = bw[f"c{k}_w"], bw[f"c{k}_b"]
            C_out, _, KH, KW = cw.shape
            HW = H * W_in
            conv = empty(N, C_out, H, W_in, like=cur)
            stats = empty(2, C_out, like=cur)
            bn = empty(N, C_out, H, W_in, like=cur)
            sm = empty(N, C_out, H, W_in, like=cur)
            nch = [(ctypes.c_int, N), (ctypes.c_int, C_out), (ctypes.c_int, HW)]
            steps += [
                (f"{blk}_conv{k}_kernel", (K.cdiv(HW, BLOCK), C_out, N), (BLOCK, 1, 1), [cur, cw, cb, conv],
                 [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H), (ctypes.c_int, W_in),
                  (ctypes.c_int, C_out), (ctypes.c_int, KH), (ctypes.c_int, KW), (ctypes.c_int, PAD)]),
                (f"{blk}_bn{k}_stats_kernel", (C_out, 1, 1), (RED_BLOCK, 1, 1), [conv, stats], nch),
                (f"{blk}_bn{k}_kernel", (K.cdiv(N * C_out * HW, BLOCK), 1, 1), (BLOCK, 1, 1),
                 [conv, stats, bw[f"bn{k}_w"], bw[f"bn{k}_b"], bn], nch),
                (f"{blk}_softmax{k}_kernel", (N * C_out * H, 1, 1), (RED_BLOCK, 1, 1), [bn, sm],
                 [(ctypes.c_longlong, N * C_out * H), (ctypes.c_int, W_in)]),
            ]
            cur = sm
        return steps, cur

    def pool_step(name, x):
        N, C, H, W_in = x.shape
        OH, OW = H // 2, W_in // 2
        out = empty(N, C, OH, OW, like=x)
        step = (name, (K.cdiv(N * C * OH * OW, BLOCK), 1, 1), (BLOCK, 1, 1), [x, out],
                [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H), (ctypes.c_int, W_in),
                 (ctypes.c_int, OH), (ctypes.c_int, OW)])
        return step, out

    def up_step(name, x, uw):
        N, C_in, H, W_in = x.shape
        _, C_out, KH, KW = uw["w"].shape
        OH = (H - 1) * UP_STRIDE + KH
        OW = (W_in - 1) * UP_STRIDE + KW
        out = empty(N, C_out, OH, OW, like=x)
        step = (name, (K.cdiv(N * C_out * OH * OW, BLOCK), 1, 1), (BLOCK, 1, 1), [x, uw["w"], uw["b"], out],
                [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H), (ctypes.c_int, W_in),
                 (ctypes.c_int, C_out), (ctypes.c_int, KH), (ctypes.c_int, KW), (ctypes.c_int, OH),
                 (ctypes.c_int, OW), (ctypes.c_int, UP_STRIDE)])
        return step, out

    def cat_step(name, up, skip):
        N, C1, H, W_in = up.shape
        C2 = skip.shape[1]
        out = empty(N, C1 + C2, H, W_in, like=up)
        step = (name, (K.cdiv(N * (C1 + C2) * H * W_in, BLOCK), 1, 1), (BLOCK, 1, 1), [up, skip, out],
                [(ctypes.c_int, N), (ctypes.c_int, C1), (ctypes.c_int, C2), (ctypes.c_int, H * W_in)])
        return step, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        seq = []
        skips = {}
        cur = x
        for lvl in (1, 2, 3, 4):
            steps, cur = double_conv_steps(f"enc{lvl}", cur, w[f"enc{lvl}"])
            seq += steps
            skips[lvl] = cur
            step, cur = pool_step(f"pool{lvl}_kernel", cur)
            seq.append(step)
        steps, cur = double_conv_steps("bottleneck", cur, w["bottleneck"])
        seq += steps
        for lvl in (4, 3, 2, 1):
            step, up = up_step(f"up{lvl}_kernel", cur, w[f"up{lvl}"])
            seq.append(step)
            step, cat = cat_step(f"cat{lvl}_kernel", up, skips[lvl])
            seq.append(step)
            steps, cur = double_conv_steps(f"dec{lvl}", cat, w[f"dec{lvl}"])
            seq += steps
        N, C_in, H, W_in = cur.shape
        C_out = w["final"]["w"].shape[0]
        out = empty(N, C_out, H, W_in, like=cur)
        seq.append(("final_conv_kernel", (K.cdiv(H * W_in, BLOCK), C_out, N), (BLOCK, 1, 1),
                    [cur, w["final"]["w"], w["final"]["b"], out],
                    [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H * W_in), (ctypes.c_int, C_out)]))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward with DoubleConv = [conv, BatchNorm (training), Softmax(dim=-1)] x 2.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def dc(t, bw):
            for k in (1, 2):
                t = F.conv2d(t, bw[f"c{k}_w"], bw[f"c{k}_b"], padding=PAD)
                t = F.batch_norm(t, None, None, bw[f"bn{k}_w"], bw[f"bn{k}_b"], training=True, eps=BN_EPS)
                t = F.softmax(t, dim=-1)
            return t

        def pool(t):
            return F.max_pool2d(t, kernel_size=2, stride=2)

        def up(t, uw):
            return F.conv_transpose2d(t, uw["w"], uw["b"], stride=UP_STRIDE)

        enc1 = dc(x, w["enc1"])
        enc2 = dc(pool(enc1), w["enc2"])
        enc3 = dc(pool(enc2), w["enc3"])
        enc4 = dc(pool(enc3), w["enc4"])
        bottleneck = dc(pool(enc4), w["bottleneck"])
        dec4 = dc(torch.cat((up(bottleneck, w["up4"]), enc4), dim=1), w["dec4"])
        dec3 = dc(torch.cat((up(dec4, w["up3"]), enc3), dim=1), w["dec3"])
        dec2 = dc(torch.cat((up(dec3, w["up2"]), enc2), dim=1), w["dec2"])
        dec1 = dc(torch.cat((up(dec2, w["up1"]), enc1), dim=1), w["dec1"])
        return F.conv2d(dec1, w["final"]["w"], w["final"]["b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def scaled_inputs(torch, s):
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    return K.substrate(
        name="L3p45_unet_softmax",
        level=3,
        problem="45_UNetSoftmax",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(8, max=MAX_GRID_Z),
            "height": K.dim(64, min=16, multiple_of=16),
            "width": K.dim(512, min=16, multiple_of=16),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 16, "width": 32},
                small=True,
                purpose="2 x 8 x 16 x 32: the planes shrink 512 -> 128 -> 32 -> 8 -> 2 pixels, so below the "
                "first level every convolution block is partial and its pixel guard matters, the softmax rows "
                "are 32, 16, 8, 4 and 2 wide (most of the 256 threads idle), and the bottleneck BatchNorm "
                "sees 4 values per channel (biased vs unbiased variance differ by 33%); H != W at every "
                "level; official U[0,1) values (kept small: the CPU reference runs 0.15 s on one thread)",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 1, "height": 32, "width": 64},
                purpose="same-sign x = U[0,4) on 1 x 8 x 32 x 64: only the first convolution sees the scale (its "
                "BatchNorm removes it), so a fault in enc1's first convolution that the scale exposes (a "
                "dropped tap or channel against the bias) shows; the bottleneck is 2 x 4 with 8 values per "
                "channel",
            ),
        ],
        notes="UNREFEREEABLE on the GPU at 1e-2 (facts section 5): with TF32 convolutions the official reference is "
        "0.092 from fp64 (IEEE fp32 would be 3.7e-4), so the gate's fp64 evidence classifies the problem; the "
        "pipeline itself is exact fp32. On the small targeted suites a CPU emulation of the TF32 reference "
        "(conv operands rounded to TF32) stays closer: 6.8e-4 on T1 and 3.7e-3 on T2 (the fp32 reference 2.5e-6). BatchNorm runs in training mode (the harness never calls .eval()); its "
        "weight is ones and its bias zeros (default init), so mutants that drop gamma or beta are equivalent. "
        "Each softmax makes its rows sum to 1 over the width, so the decoders' inputs are small positive "
        "numbers. The CUDA source is a per-block template: a mutant's line number refers to the instantiated "
        "source, its kernel name to the layer. The transposed convolution's kernel equals its stride (2), so "
        "every output pixel has exactly one tap per axis and the th % stride test always selects it.",
    )
