"""KernelBench level 1, problem 34_InstanceNorm: nn.InstanceNorm2d(64) on x 112 x 64 x 512 x 512.

nn.InstanceNorm2d keeps its defaults affine=False and track_running_stats=False, so the module has
no parameters and no buffers: every (n, c) plane of H x W elements is normalised with its own mean
and biased variance, eps 1e-5, and nothing else is applied (in training or eval mode alike, since
no running statistics exist). Model(64) draws nothing from the generator.

One 256-thread block per (n, c) plane, in one kernel. The block strides over its plane three
times: a per-thread fp32 sum, reduced through a shared-memory tree, gives the mean; a per-thread
sum of squared deviations from that mean, reduced through a second tree, gives the biased
variance; then every element is written as (x - mean) / sqrtf(var + eps). Plane offsets are
64-bit (the tensor has 1.88 G elements); in-plane indices fit an int.

Cost: 7168 blocks of 256 threads (8 resident per SM), each reading its 1 MB plane three times and
writing it once: the re-reads mostly miss the 50 MB L2 (about 1 GB of planes are in flight), so
about 30 GB of DRAM traffic, roughly 8-20 ms on an H200 (reference 8.21 ms).
"""

CUDA = r"""
const int IN_BLOCK = 256;       // threads per block; one block per (n, c) plane (power of two)
const float IN_EPS = 1e-5f;     // nn.InstanceNorm2d default eps

extern "C" __global__ void instancenorm_kernel(
    const float* __restrict__ x,    // [N * C, HW]
    float* __restrict__ out,        // [N * C, HW]
    int planes, int HW)
{
    __shared__ float red[IN_BLOCK];
    int plane = blockIdx.x;         // n * C + c
    if (plane >= planes) return;
    int tid = threadIdx.x;
    const float* x_plane = x + (long long)plane * HW;
    float* out_plane = out + (long long)plane * HW;

    // Pass 1: the plane sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int p = tid; p < HW; p += blockDim.x) {
        thread_sum += x_plane[p];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)HW;
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    for (int p = tid; p < HW; p += blockDim.x) {
        float d = x_plane[p] - mean;
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
    float var = red[0] / (float)HW;     // biased: divide by the plane size, as instance_norm does
    float inv_std = 1.0f / sqrtf(var + IN_EPS);

    // Pass 3: normalise every element of the plane (no affine: affine=False).
    for (int p = tid; p < HW; p += blockDim.x) {
        out_plane[p] = (x_plane[p] - mean) * inv_std;
    }
}
"""

BLOCK = 256             # must equal IN_BLOCK (the shared buffer size), a power of two
PLANES_PER_BLOCK = 1    # one block normalises one (n, c) plane
IN_EPS = 1e-5
IN_MOMENTUM = 0.1       # nn.InstanceNorm2d default; unused without running statistics
MAX_PLANES = 2**31 - 1  # planes run along gridDim.x
MAX_SIDE = 46340        # dim1 * dim2 must fit an int


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        N, C, H, W_in = x.shape
        out = torch.empty_like(x)
        planes = N * C
        return (
            "instancenorm_kernel",
            (K.cdiv(planes, PLANES_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, planes), (ctypes.c_int, H * W_in)],
        )

    def ref(inputs, torch):
        # nn.InstanceNorm2d(64).forward: no affine, no running stats, so always the input statistics.
        (x,) = inputs
        return torch.nn.functional.instance_norm(
            x, None, None, None, None, use_input_stats=True, momentum=IN_MOMENTUM, eps=IN_EPS
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, features, dim1, dim2)
        return [torch.rand(s["batch"], s["features"], s["dim1"], s["dim2"])]

    def per_plane_inputs(torch, s):
        # Plane (n, c) is scale * (offset + U[0,1)) with its own offset U[2, 20) and scale 10^U[-1, 1):
        # same sign, every plane with its own mean and std, the mean 8.7 to 71 stds from zero.
        N, C = s["batch"], s["features"]
        x = torch.rand(N, C, s["dim1"], s["dim2"])
        offset = 2.0 + 18.0 * torch.rand(N, C, 1, 1)
        scale = 10.0 ** (2.0 * torch.rand(N, C, 1, 1) - 1.0)
        return [scale * (offset + x)]

    def small_var_inputs(torch, s):
        # U[0, 0.01): variance 8.3e-6, the same size as eps 1e-5, so eps changes every output by ~1.5x.
        return [torch.rand(s["batch"], s["features"], s["dim1"], s["dim2"]) * 0.01]

    return K.substrate(
        name="L1p34_instancenorm",
        level=1,
        problem="34_InstanceNorm",
        cuda=CUDA,
        kernel_name="instancenorm_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(112),
            "features": K.dim(64),
            "dim1": K.dim(512, max=MAX_SIDE),
            "dim2": K.dim(512, max=MAX_SIDE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                per_plane_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "features": 5, "dim1": 13, "dim2": 23},
                small=True,
                purpose="planes of 13 x 23 = 299 = 256 + 43 elements: the second stride over each plane is partial, "
                "so the p < HW guards matter and 213 threads hold one element fewer; 3 x 5 planes with their own "
                "shift and scale (see T2), so a plane offset that mixes n and c, or H and W, shows",
            ),
            K.suite(
                "T2_per_plane_shift_scale",
                per_plane_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "features": 16, "dim1": 64, "dim2": 64},
                purpose="plane (n, c) = 10^U[-1,1) * (U[2,20) + U[0,1)): same-sign values whose mean and std differ by "
                "plane (means 8.7 to 71 stds from zero), so a block that reads another plane, a missing mean "
                "subtraction, or a reduction that loses one thread's partial sum (mean off by 1/256 of itself, "
                "0.03-0.28 std) fails, where T0's iid U[0,1) planes have statistics equal to ~1e-3 and hide all of "
                "these; HW = 4096 = 16 strides of 256",
            ),
            K.suite(
                "T3_small_variance",
                small_var_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "features": 8, "dim1": 33, "dim2": 17},
                purpose="x = U[0,0.01): the plane variance (8.3e-6) is comparable to eps = 1e-5, so a dropped or "
                "perturbed eps, an eps added after the sqrt, or a variance over the wrong count changes outputs by "
                "tens of percent (outputs up to ~1.2); on U[0,1) eps is invisible (1e-4 relative); planes of "
                "561 = 2 x 256 + 49 elements",
            ),
        ],
        notes="nn.InstanceNorm2d defaults to affine=False and track_running_stats=False: the model has no "
        "parameters and no buffers (Model(64) draws nothing; num_features would only size the affine parameters "
        "that affine=False never creates), so the channel count is resizable like the batch and the spatial sizes. Every output is (x - mean) / sqrt(var + eps) of "
        "its own plane with the biased variance. The official planes are iid U[0,1) of 262144 elements, so their "
        "statistics agree to ~1e-3: on T0_original a block normalising with another plane's statistics, or a "
        "sum that loses a small share of its terms, passes; T1/T2 give every plane its own mean and std, T3 makes "
        "eps matter. 112 x 64 x 512 x 512 = 1.88 G < 2^31 elements, so a 32-bit plane offset does not overflow "
        "on any suite.",
    )
