"""KernelBench level 3, problem 6_GoogleNetInceptionModule: a GoogLeNet inception module (4a's shape: 480 in,
192 + 208 + 48 + 64 = 512 out) on x 10 x 480 x 224 x 224.

Model(480, 192, 96, 208, 16, 48, 64):
    branch1x1   Conv2d(480, 192, 1)                                       x -> b1 [N,192,H,W]
    branch3x3   Conv2d(480, 96, 1), Conv2d(96, 208, 3, padding=1)         x -> r3 [N,96,H,W] -> b3 [N,208,H,W]
    branch5x5   Conv2d(480, 16, 1), Conv2d(16, 48, 5, padding=2)          x -> r5 [N,16,H,W] -> b5 [N,48,H,W]
    branch_pool MaxPool2d(3, stride=1, padding=1), Conv2d(480, 64, 1)     x -> p [N,480,H,W] -> bp [N,64,H,W]
    torch.cat([b1, b3, b5, bp], 1)                                          -> out [N,512,H,W]

There is no activation anywhere (the module is linear apart from the max pool). The pipeline has one
kernel per layer, eight in all, in the order the forward evaluates them:

    inception_branch1x1_kernel    x        -> b1
    inception_reduce3x3_kernel    x        -> r3
    inception_conv3x3_kernel      r3       -> b3
    inception_reduce5x5_kernel    x        -> r5
    inception_conv5x5_kernel      r5       -> b5
    inception_pool_kernel         x        -> p
    inception_pool_proj_kernel    p        -> bp
    inception_concat_kernel       b1, b3, b5, bp -> out

Every convolution runs one thread per output element on a 3D grid (pixels of one plane along x in
256-thread blocks, output channel along y, image along z), accumulates in fp32 from an explicit 0 and
adds its bias at the end; the 3x3 and 5x5 convolutions test every tap against the zero padding. The
max pool is one thread per output element over a flat 64-bit index; its padding is skipped (torch pads
max pooling with -inf), the running maximum starts at -FLT_MAX. The concatenation copies the four
branch outputs into their channel ranges over a flat 64-bit index.

Cost on the official input: 46.2 G multiply-adds in branch1x1, 23.1 G + 90.2 G in the 3x3 branch, 3.9 G +
9.6 G in the 5x5 branch, 15.4 G in the pool projection: 188 G multiply-adds (376 GFLOP). The naive
convolution of L2p1 / L3p8 ran at about 2.6 TFLOP/s on an H200, so the convolutions take about 150 ms
(the 1x1 ones re-read x, 963 MB, from memory once per output channel: up to 185 GB of traffic in
branch1x1, so say 150-300 ms); pool and concat move about 5 GB (a few ms). About 0.2-0.35 s per forward.
"""

CUDA = r"""
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: the identity of the running maximum

// branch1x1: Conv2d(480, 192, kernel_size=1)
extern "C" __global__ void inception_branch1x1_kernel(
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

// branch3x3[0]: Conv2d(480, 96, kernel_size=1), the reduction before the 3x3
extern "C" __global__ void inception_reduce3x3_kernel(
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

// branch3x3[1]: Conv2d(96, 208, kernel_size=3, padding=1)
extern "C" __global__ void inception_conv3x3_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]  (r3)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
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
    out[((long long)n * C_out + co) * OH * OW + p] = acc + b[co];
}

// branch5x5[0]: Conv2d(480, 16, kernel_size=1), the reduction before the 5x5
extern "C" __global__ void inception_reduce5x5_kernel(
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

// branch5x5[1]: Conv2d(16, 48, kernel_size=5, padding=2)
extern "C" __global__ void inception_conv5x5_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]  (r5)
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
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
    out[((long long)n * C_out + co) * OH * OW + p] = acc + b[co];
}

// branch_pool[0]: MaxPool2d(kernel_size=3, stride=1, padding=1); padded taps never win (torch pads with -inf)
extern "C" __global__ void inception_pool_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 3;           // kernel_size=3
    const int POOL_S = 1;           // stride=1
    const int POOL_PAD = 1;         // padding=1

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    long long nc = i / ((long long)OW * OH);            // n * C + c

    float m = NEG_SENTINEL;
    for (int kh = 0; kh < POOL_K; ++kh) {
        int ih = oh * POOL_S - POOL_PAD + kh;
        if (ih < 0 || ih >= H) continue;
        for (int kw = 0; kw < POOL_K; ++kw) {
            int iw = ow * POOL_S - POOL_PAD + kw;
            if (iw < 0 || iw >= W) continue;
            float v = x[(nc * H + ih) * W + iw];
            m = fmaxf(m, v);
        }
    }
    out[i] = m;
}

// branch_pool[1]: Conv2d(480, 64, kernel_size=1), the pool projection
extern "C" __global__ void inception_pool_proj_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]  (pooled x)
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

// torch.cat([b1, b3, b5, bp], dim=1)
extern "C" __global__ void inception_concat_kernel(
    const float* __restrict__ b1,   // [N, C1, H, W]
    const float* __restrict__ b3,   // [N, C3, H, W]
    const float* __restrict__ b5,   // [N, C5, H, W]
    const float* __restrict__ bp,   // [N, CP, H, W]
    float* __restrict__ out,        // [N, C1 + C3 + C5 + CP, H, W]
    int N, int C1, int C3, int C5, int CP, int HW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int C = C1 + C3 + C5 + CP;
    long long total = (long long)N * C * HW;
    if (i >= total) return;

    int p = (int)(i % HW);
    int c = (int)((i / HW) % C);
    long long n = i / ((long long)HW * C);

    float v;
    if (c < C1) {
        v = b1[(n * C1 + c) * HW + p];
    } else if (c < C1 + C3) {
        v = b3[(n * C3 + (c - C1)) * HW + p];
    } else if (c < C1 + C3 + C5) {
        v = b5[(n * C5 + (c - C1 - C3)) * HW + p];
    } else {
        v = bp[(n * CP + (c - C1 - C3 - C5)) * HW + p];
    }
    out[i] = v;
}
"""

KERNELS = [
    "inception_branch1x1_kernel",
    "inception_reduce3x3_kernel",
    "inception_conv3x3_kernel",
    "inception_reduce5x5_kernel",
    "inception_conv5x5_kernel",
    "inception_pool_kernel",
    "inception_pool_proj_kernel",
    "inception_concat_kernel",
]

BLOCK = 256             # threads per block in every kernel
IN_CHANNELS = 480       # get_init_inputs() = [480, 192, 96, 208, 16, 48, 64]: fixed by the weights
OUT_1X1 = 192
REDUCE_3X3 = 96
OUT_3X3 = 208
REDUCE_5X5 = 16
OUT_5X5 = 48
POOL_PROJ = 64
PAD_3X3 = 1             # Conv2d(96, 208, 3, padding=1)
PAD_5X5 = 2             # Conv2d(16, 48, 5, padding=2)
POOL_K = 3              # MaxPool2d(3, stride=1, padding=1) (must equal the kernel's constants)
POOL_S = 1
POOL_PAD = 1
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the convolutions
MAX_GRID_Y = 65535      # output channels run along gridDim.y
LARGE_SCALE = 4.0       # T2: x = U[0, 4)
NEG_SCALE = 2.0         # T3: x = -U[0, 2)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__: branch1x1, branch3x3 (1x1 then 3x3), branch5x5 (1x1 then 5x5), branch_pool
        # (MaxPool2d, no parameters, then 1x1), in this order; each Conv2d draws its weight then its bias.
        nn = torch.nn
        b1 = nn.Conv2d(IN_CHANNELS, OUT_1X1, kernel_size=1)
        r3 = nn.Conv2d(IN_CHANNELS, REDUCE_3X3, kernel_size=1)
        c3 = nn.Conv2d(REDUCE_3X3, OUT_3X3, kernel_size=3, padding=PAD_3X3)
        r5 = nn.Conv2d(IN_CHANNELS, REDUCE_5X5, kernel_size=1)
        c5 = nn.Conv2d(REDUCE_5X5, OUT_5X5, kernel_size=5, padding=PAD_5X5)
        pp = nn.Conv2d(IN_CHANNELS, POOL_PROJ, kernel_size=1)
        return {
            "b1_w": b1.weight, "b1_b": b1.bias,
            "r3_w": r3.weight, "r3_b": r3.bias,
            "c3_w": c3.weight, "c3_b": c3.bias,
            "r5_w": r5.weight, "r5_b": r5.bias,
            "c5_w": c5.weight, "c5_b": c5.bias,
            "pp_w": pp.weight, "pp_b": pp.bias,
        }

    W = K.weights(build)

    def conv1x1_step(name, x, w, b):
        N, C_in, H, W_in = x.shape
        C_out = w.shape[0]
        HW = H * W_in
        out = torch.empty((N, C_out, H, W_in), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(HW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, b, out],
            [(ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, HW), (ctypes.c_int, C_out)],
        )
        return step, out

    def convkxk_step(name, x, w, b, pad):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = H + 2 * pad - KH + 1
        OW = W_in + 2 * pad - KW + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, b, out],
            [
                (ctypes.c_int, N), (ctypes.c_int, C_in), (ctypes.c_int, H), (ctypes.c_int, W_in),
                (ctypes.c_int, C_out), (ctypes.c_int, KH), (ctypes.c_int, KW),
                (ctypes.c_int, OH), (ctypes.c_int, OW), (ctypes.c_int, pad),
            ],
        )
        return step, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C, H, W_in = x.shape
        s1, b1 = conv1x1_step("inception_branch1x1_kernel", x, w["b1_w"], w["b1_b"])
        s2, r3 = conv1x1_step("inception_reduce3x3_kernel", x, w["r3_w"], w["r3_b"])
        s3, b3 = convkxk_step("inception_conv3x3_kernel", r3, w["c3_w"], w["c3_b"], PAD_3X3)
        s4, r5 = conv1x1_step("inception_reduce5x5_kernel", x, w["r5_w"], w["r5_b"])
        s5, b5 = convkxk_step("inception_conv5x5_kernel", r5, w["c5_w"], w["c5_b"], PAD_5X5)
        OH = (H + 2 * POOL_PAD - POOL_K) // POOL_S + 1
        OW = (W_in + 2 * POOL_PAD - POOL_K) // POOL_S + 1
        pooled = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        s6 = (
            "inception_pool_kernel",
            (K.cdiv(N * C * OH * OW, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, pooled],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H), (ctypes.c_int, W_in),
             (ctypes.c_int, OH), (ctypes.c_int, OW)],
        )
        s7, bp = conv1x1_step("inception_pool_proj_kernel", pooled, w["pp_w"], w["pp_b"])
        C1, C3, C5, CP = b1.shape[1], b3.shape[1], b5.shape[1], bp.shape[1]
        out = torch.empty((N, C1 + C3 + C5 + CP, H, W_in), device=x.device, dtype=x.dtype)
        s8 = (
            "inception_concat_kernel",
            (K.cdiv(N * (C1 + C3 + C5 + CP) * H * W_in, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [b1, b3, b5, bp, out],
            [(ctypes.c_int, N), (ctypes.c_int, C1), (ctypes.c_int, C3), (ctypes.c_int, C5),
             (ctypes.c_int, CP), (ctypes.c_int, H * W_in)],
        )
        return {"seq": [s1, s2, s3, s4, s5, s6, s7, s8], "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        b1 = F.conv2d(x, w["b1_w"], w["b1_b"])
        b3 = F.conv2d(F.conv2d(x, w["r3_w"], w["r3_b"]), w["c3_w"], w["c3_b"], padding=PAD_3X3)
        b5 = F.conv2d(F.conv2d(x, w["r5_w"], w["r5_b"]), w["c5_w"], w["c5_b"], padding=PAD_5X5)
        bp = F.conv2d(F.max_pool2d(x, kernel_size=POOL_K, stride=POOL_S, padding=POOL_PAD), w["pp_w"], w["pp_b"])
        return torch.cat([b1, b3, b5, bp], 1)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same sign, U[0, 4).
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * LARGE_SCALE]

    def negative_inputs(torch, s):
        # Same sign, all negative: -U[0, 2).
        return [-torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * NEG_SCALE]

    return K.substrate(
        name="L3p6_googlenet_inception_module",
        level=3,
        problem="6_GoogleNetInceptionModule",
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
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 13, "width": 21},
                small=True,
                purpose="2 x 480 x 13 x 21: a plane of 273 = 256 + 17 pixels, so every convolution's second block "
                "per plane has 239 dead threads and the pixel guards matter, and the pool (262080 = 1023.75 x "
                "256) and concatenation (279552 = 1092 x 256, exact) grids: the pool's ends in a partial block; "
                "H 13 != W 21 and neither a power of two, so swapped H/W strides or a wrong row length in the "
                "3x3, 5x5 and pool windows change the result; with a 5x5 window and padding 2, 60% of the "
                "conv5x5 outputs touch the padding; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 30, "width": 37},
                purpose="same-sign U[0,4): every convolution's accumulated terms grow 4x against its fixed bias, so "
                "a dropped channel, tap or partial sum moves the outputs about 4x further in allclose terms; the "
                "module is linear, so the reference's TF32 error (emulated on the CPU, see notes) stays the "
                "same fraction of the outputs; 30 x 37 = 1110 = 4 x 256 + 86 pixels",
            ),
            K.suite(
                "T3_negative",
                negative_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "height": 17, "width": 24},
                purpose="every input negative, -U[0,2): the max pool's padded taps must never win, so a pool that "
                "pads with 0 instead of skipping (or starts its running maximum at 0) returns 0 on every border "
                "pixel instead of a negative value, which U[0,1) inputs can never show; the negative sign also "
                "flips every branch's terms against its bias; 17 x 24 = 408 = 256 + 152 pixels",
            ),
        ],
        notes="No activation follows any convolution, so the module is linear in x apart from the max pool. "
        "The reference's six convolutions run in TF32 through cuDNN on the GPU (torch's default), so the "
        "official reference already misses fp64 at 1e-4 (facts Appendix C) but passes at 1e-2; this exact "
        "fp32 pipeline is compared against that TF32 reference. With all-positive inputs (T0-T2) the pool's "
        "padding and sentinel are invisible (every window holds a value >= 0); T3_negative makes them "
        "visible. Memory: the official output is 1.03 GB and one forward allocates about 2.2 GB of branch "
        "outputs (x itself is 0.96 GB).",
    )
