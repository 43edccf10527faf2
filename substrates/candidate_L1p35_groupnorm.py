"""KernelBench level 1, problem 35_GroupNorm_: nn.GroupNorm(num_groups=8, num_channels=64) on x
112 x 64 x 512 x 512.

Each image's 64 channels form 8 groups of 8 consecutive channels; every (n, group) is normalised
over its 8 x H x W elements with their mean and biased variance, eps 1e-5, then each channel is
scaled by weight[c] and shifted by bias[c] (nn.GroupNorm initialises them to ones and zeros; it
draws nothing from the generator).

One 256-thread block per (n, group), in one kernel. A group's channels are consecutive planes, so
the block walks its group channel by channel and strides over each H x W plane (coalesced) three
times: a per-thread fp32 sum, reduced through a shared-memory tree, gives the mean; a per-thread
sum of squared deviations from that mean, reduced through a second tree, gives the biased
variance; then every element is written as (x - mean) / sqrtf(var + eps) * weight[c] + bias[c].
Plane offsets are 64-bit (the tensor has 1.88 G elements); in-plane indices fit an int.

Cost: 896 blocks of 256 threads (all resident at once, ~7 per SM), each reading its 8 MB group
three times (the re-reads miss the 50 MB L2: 7 GB of groups are in flight) and writing it once:
about 30 GB of DRAM traffic, roughly 8-20 ms on an H200 (reference 8.92 ms).
"""

CUDA = r"""
const int GN_BLOCK = 256;       // threads per block; one block per (n, group) (power of two)
const float GN_EPS = 1e-5f;     // nn.GroupNorm default eps

extern "C" __global__ void groupnorm_kernel(
    const float* __restrict__ x,        // [N, C, HW]
    const float* __restrict__ weight,   // [C]
    const float* __restrict__ bias,     // [C]
    float* __restrict__ out,            // [N, C, HW]
    int N, int C, int G, int HW)
{
    __shared__ float red[GN_BLOCK];
    int ng = blockIdx.x;            // n * G + g
    if (ng >= N * G) return;
    int n = ng / G;
    int g = ng % G;
    int Cg = C / G;                 // channels per group
    int c0 = g * Cg;                // first channel of the group
    int tid = threadIdx.x;
    long long count = (long long)Cg * HW;

    // Pass 1: the group sum over its channels' planes, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int cl = 0; cl < Cg; ++cl) {
        const float* x_plane = x + ((long long)n * C + c0 + cl) * HW;
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
    for (int cl = 0; cl < Cg; ++cl) {
        const float* x_plane = x + ((long long)n * C + c0 + cl) * HW;
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
    float var = red[0] / (float)count;  // biased: divide by the group size, as group_norm does
    float inv_std = 1.0f / sqrtf(var + GN_EPS);

    // Pass 3: normalise, apply each channel's affine, write every element of the group.
    for (int cl = 0; cl < Cg; ++cl) {
        int c = c0 + cl;
        const float* x_plane = x + ((long long)n * C + c) * HW;
        float* out_plane = out + ((long long)n * C + c) * HW;
        float gamma = weight[c];
        float beta = bias[c];
        for (int p = tid; p < HW; p += blockDim.x) {
            out_plane[p] = (x_plane[p] - mean) * inv_std * gamma + beta;
        }
    }
}
"""

BLOCK = 256             # must equal GN_BLOCK (the shared buffer size), a power of two
GROUPS_PER_BLOCK = 1    # one block normalises one (n, group)
NUM_FEATURES = 64       # get_init_inputs() = [features, num_groups] = [64, 8], fixed by the weights
NUM_GROUPS = 8
GN_EPS = 1e-5
MAX_SIDE = 46340        # dim1 * dim2 must fit an int


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 8): one nn.GroupNorm(8, 64) (weight ones, bias zeros); it draws nothing.
        gn = torch.nn.GroupNorm(num_groups=NUM_GROUPS, num_channels=NUM_FEATURES)
        return {"w": gn.weight, "b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        return (
            "groupnorm_kernel",
            (K.cdiv(N * NUM_GROUPS, GROUPS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, NUM_GROUPS), (ctypes.c_int, H * W_in)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.group_norm(x, NUM_GROUPS, w["w"], w["b"], GN_EPS)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, features, dim1, dim2)
        return [torch.rand(s["batch"], NUM_FEATURES, s["dim1"], s["dim2"])]

    def per_group_inputs(torch, s):
        # Group (n, g) is scale * (offset + 0.25 * (c % 8) + U[0,1)) with its own offset U[2, 20) and
        # scale 10^U[-1, 1): same sign, every group with its own mean and std, and within a group each
        # channel shifted by a quarter of its index, so channels of one group differ from each other.
        N = s["batch"]
        Cg = NUM_FEATURES // NUM_GROUPS
        x = torch.rand(N, NUM_FEATURES, s["dim1"], s["dim2"])
        offset = 2.0 + 18.0 * torch.rand(N, NUM_GROUPS, 1, 1, 1)
        scale = 10.0 ** (2.0 * torch.rand(N, NUM_GROUPS, 1, 1, 1) - 1.0)
        ramp = 0.25 * torch.arange(Cg, dtype=x.dtype).view(1, 1, Cg, 1, 1)
        xg = x.view(N, NUM_GROUPS, Cg, s["dim1"], s["dim2"])
        return [(scale * (offset + ramp + xg)).view(N, NUM_FEATURES, s["dim1"], s["dim2"])]

    def small_var_inputs(torch, s):
        # U[0, 0.01): variance 8.3e-6, the same size as eps 1e-5, so eps changes every output by ~1.5x.
        return [torch.rand(s["batch"], NUM_FEATURES, s["dim1"], s["dim2"]) * 0.01]

    return K.substrate(
        name="L1p35_groupnorm",
        level=1,
        problem="35_GroupNorm_",
        cuda=CUDA,
        kernel_name="groupnorm_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(112),
            "dim1": K.dim(512, max=MAX_SIDE),
            "dim2": K.dim(512, max=MAX_SIDE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                per_group_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "dim1": 13, "dim2": 23},
                small=True,
                purpose="planes of 13 x 23 = 299 = 256 + 43 elements: the second stride over each plane is partial, "
                "so the p < HW guards matter and 213 threads hold one element fewer per channel; 2 images so the "
                "n offset is exercised; per-group shift and scale with a per-channel ramp (see T2), so a group or "
                "channel mix-up shows",
            ),
            K.suite(
                "T2_per_group_shift_scale",
                per_group_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "dim1": 32, "dim2": 32},
                purpose="group (n, g) = 10^U[-1,1) * (U[2,20) + 0.25 * (c % 8) + U[0,1)): same-sign values whose "
                "mean and std differ by group (means 5 to 33 stds from zero) and whose channels differ inside a "
                "group, so a block that reads another group's or image's planes, a channel loop that skips the "
                "first or last channel of the group, a missing mean subtraction, or a reduction that loses one "
                "thread's partial sum fails, where T0's iid U[0,1) groups have statistics equal to ~2e-4 and hide "
                "all of these; HW = 1024 = 4 strides",
            ),
            K.suite(
                "T3_small_variance",
                small_var_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "dim1": 33, "dim2": 17},
                purpose="x = U[0,0.01): the group variance (8.3e-6) is comparable to eps = 1e-5, so a dropped or "
                "perturbed eps, an eps added after the sqrt, or a variance over the wrong count (one plane instead "
                "of the group's eight) changes outputs by tens of percent (outputs up to ~1.2); on U[0,1) eps is "
                "invisible (1e-4 relative); planes of 561 = 2 x 256 + 49 elements",
            ),
        ],
        notes="The affine parameters are nn.GroupNorm's init, weight = ones and bias = zeros, and no suite can "
        "change them: a kernel that skips the affine or reads weight/bias at a wrong in-range channel passes every "
        "suite. The 64 channels and 8 groups are fixed by the weights; batch and spatial sizes are resizable. "
        "The official groups are iid U[0,1) of 2.1 M elements, so their statistics agree to ~2e-4: on "
        "T0_original a block normalising with another group's statistics, or a sum that loses a small share "
        "of its terms, passes; T1/T2 give every group its own mean and std, T3 makes eps matter. "
        "112 x 64 x 512 x 512 = 1.88 G < 2^31 elements, so a 32-bit plane offset does not overflow on any suite.",
    )
