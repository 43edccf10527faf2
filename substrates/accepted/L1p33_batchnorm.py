"""KernelBench level 1, problem 33_BatchNorm: nn.BatchNorm2d(64) in training mode on x 64 x 64 x 512 x 512.

The harness never calls .eval(), so the module normalises each channel with its batch statistics:
the mean and the biased variance over (N, H, W), eps 1e-5, then applies its affine weight and bias
(nn.BatchNorm2d initialises them to ones and zeros). The running-statistics update it also performs
does not affect the output.

One 1024-thread block per channel, in one kernel. The block walks its channel's N planes of
H x W elements three times (for each n, threads stride over the plane, so loads are coalesced):
a per-thread fp32 sum reduced through a shared-memory tree gives the mean; a per-thread sum of
squared deviations from it, reduced through a second tree, gives the biased variance; then every
element is written as (x - mean) / sqrtf(var + eps) * weight[c] + bias[c]. Plane offsets are
64-bit (the tensor has 1.07 G elements); in-plane indices fit an int.

Cost: 64 blocks on 64 of the H200's 132 SMs; each reads its 16.8 M-element (67 MB) channel three
times and writes it once, 268 MB per block. With 1024 threads and one to four 4-byte loads in
flight each, one SM sustains roughly 6-25 GB/s (latency bound, far below the HBM's 4.8 TB/s), so one
official forward should take about 11-45 ms (reference 8.51 ms), well under 1 s.
"""

CUDA = r"""
const int BN_BLOCK = 1024;      // threads per block; one block per channel (power of two)
const float BN_EPS = 1e-5f;     // nn.BatchNorm2d default eps

extern "C" __global__ void batchnorm_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ weight,   // [C]
    const float* __restrict__ bias,     // [C]
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int HW)
{
    __shared__ float red[BN_BLOCK];
    int c = blockIdx.x;
    if (c >= C) return;
    int tid = threadIdx.x;
    long long count = (long long)N * HW;

    // Pass 1: the channel sum over every (n, p), then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int n = 0; n < N; ++n) {
        const float* x_plane = x + ((long long)n * C + c) * HW;
        for (int p = tid; p < HW; p += blockDim.x) {
            thread_sum += x_plane[p];
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
        const float* x_plane = x + ((long long)n * C + c) * HW;
        for (int p = tid; p < HW; p += blockDim.x) {
            float d = x_plane[p] - mean;
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
    float var = red[0] / (float)count;      // biased: divide by the count, as training-mode BN does
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    float gamma = weight[c];
    float beta = bias[c];

    // Pass 3: normalise, apply the channel's affine, write every element of the channel.
    for (int n = 0; n < N; ++n) {
        const float* x_plane = x + ((long long)n * C + c) * HW;
        float* out_plane = out + ((long long)n * C + c) * HW;
        for (int p = tid; p < HW; p += blockDim.x) {
            out_plane[p] = (x_plane[p] - mean) * inv_std * gamma + beta;
        }
    }
}
"""

BLOCK = 1024            # must equal BN_BLOCK (the shared buffer size), a power of two
CHANNELS_PER_BLOCK = 1  # one block normalises one channel
NUM_FEATURES = 64       # get_init_inputs(): [features=64], fixed by the weights
BN_EPS = 1e-5
BN_MOMENTUM = 0.1       # nn.BatchNorm2d default; it only affects the running statistics


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64): one nn.BatchNorm2d(64) (weight ones, bias zeros, running buffers); it
        # draws nothing from the generator.
        bn = torch.nn.BatchNorm2d(num_features=NUM_FEATURES)
        return {"w": bn.weight, "b": bn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        return (
            "batchnorm_kernel",
            (K.cdiv(C, CHANNELS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, H * W_in)],
        )

    def ref(inputs, torch):
        # Model.forward in training mode: batch statistics; without running buffers nothing is updated,
        # and the output is the same as the module's.
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.batch_norm(
            x, None, None, w["w"], w["b"], training=True, momentum=BN_MOMENTUM, eps=BN_EPS
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, features, dim1, dim2)
        return [torch.rand(s["batch"], NUM_FEATURES, s["dim1"], s["dim2"])]

    def per_channel_inputs(torch, s):
        # Channel c is scale_c * (offset_c + U[0,1)) with offset_c = 2 + c / 2 and scale_c = 0.25 + c / 16:
        # same sign, every channel with its own mean and std, the mean 8.7 to 118 stds from zero.
        c = torch.arange(NUM_FEATURES, dtype=torch.float32).view(1, NUM_FEATURES, 1, 1)
        offset = 2.0 + 0.5 * c
        scale = 0.25 + c / 16.0
        return [scale * (offset + torch.rand(s["batch"], NUM_FEATURES, s["dim1"], s["dim2"]))]

    def small_var_inputs(torch, s):
        # U[0, 0.01): variance 8.3e-6, the same size as eps 1e-5, so eps changes every output by ~1.5x.
        return [torch.rand(s["batch"], NUM_FEATURES, s["dim1"], s["dim2"]) * 0.01]

    return K.substrate(
        name="L1p33_batchnorm",
        level=1,
        problem="33_BatchNorm",
        cuda=CUDA,
        kernel_name="batchnorm_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(64),
            "dim1": K.dim(512),
            "dim2": K.dim(512),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                per_channel_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "dim1": 30, "dim2": 41},
                small=True,
                purpose="planes of 30 x 41 = 1230 = 1024 + 206 elements: the second stride over each plane is "
                "partial, so the p < HW guard matters and a third of the threads see one element fewer; 3 images "
                "so the n loop is not trivial; per-channel shift and scale (see T2) so channel mix-ups show",
            ),
            K.suite(
                "T2_per_channel_shift_scale",
                per_channel_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "dim1": 64, "dim2": 64},
                purpose="channel c = (0.25 + c/16) * (2 + c/2 + U[0,1)): same-sign values whose mean and std differ "
                "by channel (means 8.7 to 118 stds from zero), so a block that reads another channel's planes, a "
                "plane offset that ignores n or c, a missing mean subtraction, or a reduction that loses one "
                "thread's partial sum (mean off by 1/1024 of itself, 0.008-0.12 std) fails, where T0's iid U[0,1) "
                "channels have identical statistics to ~1e-4 and hide all of these; HW = 4096 = 4 strides",
            ),
            K.suite(
                "T3_small_variance",
                small_var_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "dim1": 33, "dim2": 17},
                purpose="x = U[0,0.01): the channel variance (8.3e-6) is comparable to eps = 1e-5, so a dropped or "
                "perturbed eps, an eps added after the sqrt, or a variance over the wrong count changes outputs "
                "by tens of percent (outputs up to ~1.2); on U[0,1) eps is invisible (1e-4 relative); planes of "
                "561 < 1024 leave 463 threads idle, so the reduction identity matters",
            ),
        ],
        notes="The affine parameters are nn.BatchNorm2d's init, weight = ones and bias = zeros, and no suite can "
        "change them: a kernel that skips the affine or reads weight/bias at a wrong in-range channel passes "
        "every suite. Training mode: the output uses the batch statistics with the biased variance (the running "
        "buffers, which would use the unbiased one, never reach the output). The official channels are iid "
        "U[0,1) with statistics equal to ~1e-4, so T0_original cannot see a block normalising with another "
        "channel's statistics or a small share of a sum lost; T1/T2 give every channel its own mean and std. "
        "The channel count is fixed by the weights; batch and spatial sizes are resizable.",
    )
