"""KernelBench level 2, problem 17_Conv2d_InstanceNorm_Divide.

conv2d 64 -> 128 (3x3, stride 1, no padding, with bias), InstanceNorm2d(128) (no affine, no running
statistics, eps 1e-5), then / 2.0. x is 128 x 64 x 128 x 128; the output is 128 x 128 x 126 x 126
(260 M elements).

One kernel, one 256-thread block per (sample, channel): the block owns one 126 x 126 plane of the
output. Pass 1: the threads stride over the plane; each computes its element's convolution (fp32
loop over the 64 input channels and the 3x3 window) plus the conv bias, stores it in the output (as
scratch) and adds it to a per-thread sum; a shared-memory tree reduces the sums to the plane mean.
Pass 2: the same threads read back the values they stored and sum their squared deviations from the
mean; a second tree gives the biased variance. Pass 3: each value is normalised, (v - mean) /
sqrtf(var + eps), and divided by 2, in place. A __syncthreads() follows every shared-memory write
phase and every tree level. In-plane indices and offsets are 64-bit.

Cost: 260 M outputs x 576 multiply-adds = 150 G MAC, roughly 0.12-0.15 s per forward on an H200 at
the 2-2.6 TFLOP/s of the accepted naive convolutions (cuDNN reference: 4.5 ms). 16384 blocks of 256
threads.
"""

CUDA = r"""
const int IN_BLOCK = 256;       // threads per block; one block per (sample, channel) (power of two)
const float IN_EPS = 1e-5f;     // nn.InstanceNorm2d default eps

extern "C" __global__ void conv2d_instancenorm_divide_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const float divide_by = 2.0f;       // Model.divide_by

    __shared__ float red[IN_BLOCK];
    int blk = blockIdx.x;               // n * C_out + co
    if (blk >= N * C_out) return;
    int co = blk % C_out;
    int n = blk / C_out;
    int tid = threadIdx.x;
    long long plane = (long long)OH * OW;
    float* out_plane = out + ((long long)n * C_out + co) * plane;

    // Pass 1: conv + conv_b for every element of the plane, into out; the sum.
    float thread_sum = 0.0f;
    for (long long e = tid; e < plane; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)(e / OW);
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
        out_plane[e] = v;
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
    float mean = red[0] / (float)plane;
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    for (long long e = tid; e < plane; e += blockDim.x) {
        float d = out_plane[e] - mean;
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
    float var = red[0] / (float)plane;  // biased, as instance_norm
    float inv_std = 1.0f / sqrtf(var + IN_EPS);

    // Pass 3: normalise and divide, in place.
    for (long long e = tid; e < plane; e += blockDim.x) {
        out_plane[e] = (out_plane[e] - mean) * inv_std / divide_by;
    }
}
"""

BLOCK = 256             # must equal IN_BLOCK (the shared buffer size), a power of two
PLANES_PER_BLOCK = 1    # one block normalises one (sample, channel) plane
IN_CHANNELS = 64        # fixed by the conv weight [128, 64, 3, 3]
IN_EPS = 1e-5
DIVIDE_BY = 2.0


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 128, 3, 2.0): nn.Conv2d(64, 128, 3), then nn.InstanceNorm2d(128)
        # (affine=False: no parameters, nothing drawn).
        nn = torch.nn
        conv = nn.Conv2d(64, 128, 3)
        return {"conv_w": conv.weight, "conv_b": conv.bias}

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
            "conv2d_instancenorm_divide_kernel",
            (K.cdiv(N * C_out, PLANES_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["conv_w"], w["conv_b"], out],
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

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv2d(x, w["conv_w"], w["conv_b"])
        y = torch.nn.functional.instance_norm(y, eps=IN_EPS)
        return y / DIVIDE_BY

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def small_var_inputs(torch, s):
        # U[0, 0.01): each plane's conv variance (about 2.8e-6) is below eps = 1e-5.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 0.01]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p17_conv2d_instancenorm_divide",
        level=2,
        problem="17_Conv2d_InstanceNorm_Divide",
        cuda=CUDA,
        kernel_name="conv2d_instancenorm_divide_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "height": K.dim(128, min=3),
            "width": K.dim(128, min=3),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 18, "width": 21},
                small=True,
                purpose="planes of 16 x 19 = 304 = 256 + 48 elements: the second stride over each plane is "
                "partial, so the e < plane guards matter and the idle threads' zero partial sums enter the "
                "trees; OH=16 != OW=19, so swapped H/W strides or an off-by-one window bound show; "
                "2 x 128 = 256 blocks; official U[0,1) values",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 20, "width": 23},
                purpose="x = U[0,0.01): each plane's conv variance (about 2.8e-6) is below eps = 1e-5, so a "
                "dropped or perturbed eps, an eps added after the sqrt or a variance over the wrong count "
                "changes every output by tens of percent (outputs still spread over about +-1); on U[0,1) "
                "eps is invisible (about 2e-4 relative)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 17, "width": 22},
                purpose="about 1% isolated U[0,8) spikes on exact zeros (about 5.8 of the 576 taps of a "
                "window): most outputs are exactly conv_b before the norm, a few windows carry a spike at a "
                "specific tap, so kh/kw swaps, transposed weights or wrong channel strides move those "
                "outputs, and the plane statistics are dominated by the rare spikes",
            ),
        ],
        notes="InstanceNorm2d has no affine parameters and no running statistics here (its defaults), so "
        "the output is the plane-normalised conv divided by 2: the conv bias cancels in (v - mean) and a "
        "kernel that drops it passes every suite. The reference runs nn.Conv2d through cuDNN with TF32 "
        "(facts: ref != exact at 1e-4), so this exact fp32 kernel differs from the reference beyond 1e-4 "
        "but passes 1e-2.",
    )
