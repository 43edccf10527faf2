"""KernelBench level 2, problem 42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply.

x is 16 x 64 x 512 x 512; nn.ConvTranspose2d(64, 128, 3) with bias, stride 1, no padding, so each output
size is S + 2 and the transposed convolution gives 16 x 128 x 514 x 514; the mean over (H, W)
(keepdim), plus bias (nn.Parameter(torch.randn(128, 1, 1)), drawn after the convolution), the
logsumexp over the 128 channels (keepdim), a sum over the remaining 1 x 1 spatial dims, and x 10.0:
the output is 16 x 1.

A pipeline of two kernels, because the logsumexp over channels needs every channel's global average,
and each of those reduces a whole 514 x 514 plane (a block-wide reduction per (sample, channel)):

    convtranspose2d_gap_kernel          x [N,64,H,W], w, b -> pooled [N,128]  (spatial means)
    bias_logsumexp_sum_scale_kernel     pooled, bias -> out [N,1]

The first kernel runs one 256-thread block per (n, co): each thread strides over the plane's output
positions, computes each transposed-convolution output in gather form (it visits every tap (kh, kw),
keeps it only where oh + pad - kh (likewise for w) is a non-negative multiple of the stride whose
quotient lies inside the input, and sums x[n, ci, ih, iw] * w[ci, co, kh, kw] over the input channels;
the ConvTranspose2d weight is [C_in, C_out, KH, KW]) in fp32 plus the bias, and accumulates them; a
shared-memory tree reduction gives the plane sum and thread 0 stores the mean. The second kernel runs
one 128-thread block per sample, one thread per channel: it adds the bias, reduces the max through a
shared-memory tree and the sum of expf(v - max) through a second, and thread 0 stores
(max + logf(sum)) summed over the 1 x 1 spatial positions, times 10.

Cost: 16 x 128 x 514 x 514 outputs x 576 multiply-adds = 312 G multiply-adds (624 GFLOP), in 2048
blocks whose threads read neighbouring inputs (coalesced) and one weight (a broadcast); at roughly
2-2.6 TFLOP/s on an H200 one forward takes about 0.25-0.3 s (reference 6.15 ms).
"""

CUDA = r"""
const int GAP_BLOCK = 256;      // threads per block of the pooling kernel (one block per (n, co))
const int LSE_BLOCK = 128;      // threads per block of the logsumexp kernel: one per channel (128, fixed)

extern "C" __global__ void convtranspose2d_gap_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ pooled,         // [N, C_out]: spatial mean of the transposed convolution
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW, int stride, int pad)
{
    __shared__ float red[GAP_BLOCK];
    int plane = blockIdx.x;             // (n, co)
    if (plane >= N * C_out) return;
    int tid = threadIdx.x;
    int n = plane / C_out;
    int co = plane % C_out;
    int positions = OH * OW;

    float thread_sum = 0.0f;
    for (int p = tid; p < positions; p += blockDim.x) {
        int oh = p / OW;
        int ow = p % OW;
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
        thread_sum += acc + conv_b[co];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        pooled[plane] = red[0] / (float)positions;     // global average pool
    }
}

extern "C" __global__ void bias_logsumexp_sum_scale_kernel(
    const float* __restrict__ pooled,   // [N, C]
    const float* __restrict__ bias,     // [C, 1, 1]
    float* __restrict__ out,            // [N, 1]
    int N, int C)
{
    const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max
    const float MULTIPLIER = 10.0f;                 // x * 10.0
    const int POOLED_POSITIONS = 1;                 // the sum over (H, W) runs over a 1 x 1 plane
    __shared__ float red[LSE_BLOCK];
    int n = blockIdx.x;
    if (n >= N) return;
    int c = threadIdx.x;

    float v = NEG_SENTINEL;
    if (c < C) {
        v = pooled[(long long)n * C + c] + bias[c];
    }

    // Max over the channels, a tree reduction in shared memory.
    red[c] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (c < s) {
            red[c] = fmaxf(red[c], red[c + s]);
        }
        __syncthreads();
    }
    float vmax = red[0];
    __syncthreads();    // every thread has read red[0] before the second tree overwrites it

    // Sum of expf(v - max) over the channels, same reduction.
    red[c] = (c < C) ? expf(v - vmax) : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (c < s) {
            red[c] = red[c] + red[c + s];
        }
        __syncthreads();
    }
    if (c == 0) {
        float lse = vmax + logf(red[0]);
        float total = 0.0f;
        for (int p = 0; p < POOLED_POSITIONS; ++p) {
            total += lse;                   // torch.sum over the (1, 1) spatial dims
        }
        out[n] = total * MULTIPLIER;
    }
}
"""

KERNELS = ["convtranspose2d_gap_kernel", "bias_logsumexp_sum_scale_kernel"]

GAP_BLOCK = 256           # must equal GAP_BLOCK in the CUDA source, a power of two
LSE_BLOCK = 128           # must equal LSE_BLOCK in the CUDA source: one thread per channel, a power of two
PLANES_PER_BLOCK = 1      # one pooling block per (n, co)
SAMPLES_PER_BLOCK = 1     # one logsumexp block per sample
IN_CHANNELS = 64          # fixed by the weight [64, 128, 3, 3]
OUT_CHANNELS = 128
KERNEL_SIZE = 3
STRIDE = 1                # ConvTranspose2d defaults: stride 1, padding 0
PADDING = 0
MULTIPLIER = 10.0
SAMPLE_SCALE = 32.0       # T2: each sample scaled by U[0, 32)
OFFSET_RANGE = 16.0       # T3: per-(sample, channel) offsets U[-16, 16)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 128, 3, (128, 1, 1)): conv_transpose (with bias), then bias = randn(128, 1, 1)
        nn = torch.nn
        conv_t = nn.ConvTranspose2d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE)
        bias = nn.Parameter(torch.randn((OUT_CHANNELS, 1, 1)))
        return {"w": conv_t.weight, "b": conv_t.bias, "bias": bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        _, C_out, KH, KW = w["w"].shape
        OH = (H - 1) * STRIDE - 2 * PADDING + KH
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW
        pooled = torch.empty((N, C_out), device=x.device, dtype=x.dtype)
        gap = (
            "convtranspose2d_gap_kernel",
            (K.cdiv(N * C_out, PLANES_PER_BLOCK), 1, 1),
            (GAP_BLOCK, 1, 1),
            [x, w["w"], w["b"], pooled],
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
        out = torch.empty((N, 1), device=x.device, dtype=x.dtype)
        lse = (
            "bias_logsumexp_sum_scale_kernel",
            (K.cdiv(N, SAMPLES_PER_BLOCK), 1, 1),
            (LSE_BLOCK, 1, 1),
            [pooled, w["bias"], out],
            [(ctypes.c_int, N), (ctypes.c_int, C_out)],
        )
        return {"seq": [gap, lse], "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose2d(x, w["w"], w["b"])
        y = torch.mean(y, dim=(2, 3), keepdim=True)
        y = y + w["bias"]
        y = torch.logsumexp(y, dim=1, keepdim=True)
        y = torch.sum(y, dim=(2, 3))
        return y * MULTIPLIER

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def sample_scale_inputs(torch, s):
        # Each sample's U[0,1) input scaled by its own U[0, 32) factor.
        scale = torch.rand(s["batch"], 1, 1, 1) * SAMPLE_SCALE
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * scale]

    def channel_offset_inputs(torch, s):
        # U[0,1) plus one U[-16, 16) offset per (sample, input channel).
        offset = (torch.rand(s["batch"], IN_CHANNELS, 1, 1) * 2.0 - 1.0) * OFFSET_RANGE
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) + offset]

    return K.substrate(
        name="L2p42_convtranspose2d_globalavgpool_biasadd_logsumexp_sum_multiply",
        level=2,
        problem="42_ConvTranspose2d_GlobalAvgPool_BiasAdd_LogSumExp_Sum_Multiply",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "height": K.dim(512),
            "width": K.dim(512),
        },
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (outputs nearly constant: see notes)",
            ),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 5, "width": 7},
                small=True,
                purpose="3 samples of 5 x 7 inputs (7 x 9 = 63 output positions per plane, fewer than the 256 "
                "threads of a pooling block, so most threads hold the reduction identity and the position loop "
                "stops after one partial pass); OH != OW, so swapped strides or divisors show, and every output "
                "position near the border misses some taps, so the input bounds matter; the logsumexp block's "
                "two trees run in full",
            ),
            K.suite(
                "T2_sample_scale",
                sample_scale_inputs,
                seeds=[3, 4],
                sizes={"batch": 6, "height": 24, "width": 20},
                purpose="each sample's U[0,1) input scaled by its own U[0,32) factor: the channel means move with "
                "the factor (0.5 * factor * sum of each channel's weights), so the logsumexp and the outputs "
                "differ between samples (53.5 to 88, against a tolerance of ~0.6-0.9), where U[0,1) inputs leave every sample at the "
                "same value; a block that pools another sample, a wrong sample stride or a mixed-up output "
                "row shows",
            ),
            K.suite(
                "T3_channel_offsets",
                channel_offset_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "height": 17, "width": 22},
                purpose="U[0,1) plus a U[-16,16) offset per sample and input channel (sign-mixed levels): every "
                "output channel's mean is its own combination of the 64 offsets, so the logsumexp is dominated "
                "by different channels in different samples, and a wrong input-channel stride, a transposed "
                "weight index (w[co, ci] for w[ci, co]), a wrong bias index or a channel dropped from the max or "
                "the sum moves the output",
            ),
        ],
        notes="Degenerate at the official inputs (facts file: const-pass@1e-2, INPUT-INSENSITIVE@1e-4): a plane "
        "mean of 264 K transposed-convolution outputs of iid U[0,1) inputs is the same for every sample to "
        "~1e-5, so every output is 10 x logsumexp(conv_b + 0.5 * sum(w) + bias) ~ 53.84; measured on the CPU "
        "(batch 4, official spatial size, two official seeds) all outputs equal 53.84, a constant passes, and "
        "the two seeds' outputs differ by 9e-4 (the tolerance is ~0.55). Almost every fault that keeps the "
        "plane means passes T0_original and T1 (53.62-53.65); T2 and T3 give the samples and channels "
        "different levels (outputs 53.5-88 and 78-110). Pipeline of two kernels (transposed convolution + global average pool per (sample, "
        "channel), then bias + logsumexp over channels + sum + scale per sample): the logsumexp needs all 128 "
        "channels' plane means, each a block-wide reduction over 514 x 514 outputs. The spatial positions "
        "enter only through their mean, so faults that permute or shift positions within a plane (kh/kw "
        "swaps, a mirrored window) are nearly equivalent here: only the border taps' weights distinguish "
        "them. The sum over the remaining 1 x 1 plane is a loop of one (mutants of its bound or start are "
        "mostly equivalent or drop the output to 0). The reference runs ConvTranspose2d through cuDNN, "
        "perhaps with TF32 (the facts file measured this problem's reference within 1e-4 of fp64 on T0); a "
        "CPU emulation of TF32 operand rounding (round-to-nearest and truncation) gave fp32-vs-fp64 allclose "
        "distances of at most ~5.9e-4 on the targeted suites (the average pool averages the error away). "
        "Stride 1 and padding 0 are passed as kernel arguments, so stride and padding mutants are "
        "equivalent.",
    )
