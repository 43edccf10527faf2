"""KernelBench level 1, problem 36_RMSNorm_: x / sqrt(mean(x ** 2, dim=1, keepdim=True) + 1e-5) on x
112 x 64 x 512 x 512.

The root mean square is taken over the feature dim 1 separately at every (batch, h, w) position, so
each position reduces 64 values that lie H x W apart in memory. Model has no parameters
(num_features is only stored; eps is the default 1e-5).

One kernel with 2D blocks of 32 positions x 8 feature lanes (256 threads), grid (ceil(HW / 32), B).
threadIdx.x picks a position, so a warp reads 32 consecutive floats of one feature plane
(coalesced); threadIdx.y strides over the features. Each thread accumulates x * x over its features
in fp32, the 8 lanes of a position are combined by a tree reduction in shared memory, and every
lane then writes its features as x / sqrtf(sum / C + eps). Positions past HW take part in the
barriers with a zero partial sum and write nothing. Batch offsets are 64-bit (the tensor has
1.88 G elements, within a factor 1.14 of 2^31).

Cost: 1.88 G elements, 7.5 GB read for the sums, re-read right after (mostly from L1/L2: a block's
32 x 64 tile is 8 KB) and 7.5 GB written: about 15-22 GB of DRAM traffic, about 4-8 ms on an H200
(reference 11.4 ms).
"""

CUDA = r"""
const int RMS_TILE_P = 32;          // positions per block (threadIdx.x)
const int RMS_FEAT_THREADS = 8;     // feature lanes per position (threadIdx.y), a power of two
const float RMS_EPS = 1e-5f;        // Model.eps default

extern "C" __global__ void rmsnorm_kernel(
    const float* __restrict__ x,    // [B, C, HW]
    float* __restrict__ out,        // [B, C, HW]
    int B, int C, int HW)
{
    __shared__ float red[RMS_FEAT_THREADS][RMS_TILE_P];
    int tx = threadIdx.x;           // position within the tile
    int ty = threadIdx.y;           // feature lane
    int b = blockIdx.y;
    if (b >= B) return;
    int p = blockIdx.x * blockDim.x + tx;
    const float* x_b = x + (long long)b * C * HW;
    float* out_b = out + (long long)b * C * HW;

    // Sum of squares over this lane's features (f = ty, ty + 8, ...), fp32 accumulation.
    float thread_sq = 0.0f;
    if (p < HW) {
        for (int f = ty; f < C; f += blockDim.y) {
            float v = x_b[(long long)f * HW + p];
            thread_sq += v * v;
        }
    }
    red[ty][tx] = thread_sq;
    __syncthreads();

    // Tree reduction over the feature lanes of each position.
    for (int s = blockDim.y / 2; s > 0; s >>= 1) {
        if (ty < s) {
            red[ty][tx] = red[ty][tx] + red[ty + s][tx];
        }
        __syncthreads();
    }
    if (p >= HW) return;

    float mean_sq = red[0][tx] / (float)C;
    float rms = sqrtf(mean_sq + RMS_EPS);
    for (int f = ty; f < C; f += blockDim.y) {
        long long idx = (long long)f * HW + p;
        out_b[idx] = x_b[idx] / rms;
    }
}
"""

TILE_P = 32             # must equal RMS_TILE_P (shared buffer width)
FEAT_THREADS = 8        # must equal RMS_FEAT_THREADS (shared buffer height), a power of two
RMS_EPS = 1e-5          # Model(num_features=64, eps=1e-5)
MAX_GRID_Y = 65535      # the batch runs along gridDim.y
MAX_SIDE = 46340        # dim1 * dim2 must fit an int


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        B, C, H, W_in = x.shape
        HW = H * W_in
        out = torch.empty_like(x)
        return (
            "rmsnorm_kernel",
            (K.cdiv(HW, TILE_P), B, 1),
            (TILE_P, FEAT_THREADS, 1),
            [x, out],
            [(ctypes.c_int, B), (ctypes.c_int, C), (ctypes.c_int, HW)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        rms = torch.sqrt(torch.mean(x**2, dim=1, keepdim=True) + RMS_EPS)
        return x / rms

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, features, dim1, dim2)
        return [torch.rand(s["batch"], s["features"], s["dim1"], s["dim2"])]

    def position_scale_inputs(signed):
        # Every (b, h, w) position gets its own scale 10^U[-3,1) (1e-3 .. 10), shared by its features.
        # Where the scale is below ~5e-3 the mean square is below eps and eps dominates the RMS.
        def gen(torch, s):
            x = torch.rand(s["batch"], s["features"], s["dim1"], s["dim2"])
            if signed:
                x = 2.0 * x - 1.0
            scale = 10.0 ** (torch.rand(s["batch"], 1, s["dim1"], s["dim2"]) * 4.0 - 3.0)
            return [x * scale]

        return gen

    def spiky_inputs(torch, s):
        # Small values U[0,0.1) with one spike of 20 per position: at the first feature where p % 3 == 0,
        # at the last feature where p % 3 == 1, none where p % 3 == 2.
        B, C = s["batch"], s["features"]
        x = torch.rand(B, C, s["dim1"], s["dim2"]) * 0.1
        xv = x.view(B, C, s["dim1"] * s["dim2"])
        xv[:, 0, 0::3] = 20.0
        xv[:, C - 1, 1::3] = 20.0
        return [x]

    return K.substrate(
        name="L1p36_rmsnorm",
        level=1,
        problem="36_RMSNorm_",
        cuda=CUDA,
        kernel_name="rmsnorm_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(112, max=MAX_GRID_Y),
            "features": K.dim(64),
            "dim1": K.dim(512, max=MAX_SIDE),
            "dim2": K.dim(512, max=MAX_SIDE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                position_scale_inputs(True),
                seeds=[1, 2],
                sizes={"batch": 3, "features": 13, "dim1": 5, "dim2": 7},
                small=True,
                purpose="HW = 35 = 32 + 3: the second position tile holds 3 live positions, so the p < HW guards "
                "(on the loads, the early return after the barriers and the stores) matter; 13 features = 8 + 5: "
                "lanes 5-7 hold one feature fewer; signed values U[-1,1) so x * x cannot be replaced by x or "
                "|x| unnoticed; per-position scales 1e-3..10 (see T2)",
            ),
            K.suite(
                "T2_position_scale",
                position_scale_inputs(False),
                seeds=[3, 4],
                sizes={"batch": 4, "features": 64, "dim1": 33, "dim2": 31},
                purpose="every position scaled by its own 10^U[-3,1): the RMS varies over four decades between "
                "neighbouring positions, so a thread that uses another position's (or another batch's) sum, or a "
                "tile offset slip, fails; at scales below ~5e-3 the mean square (< 1e-5) is dominated by eps, so "
                "a dropped, perturbed or misplaced eps changes outputs by factors (on U[0,1) eps is invisible, "
                "3e-5 relative); HW = 1023 leaves a 31-position last tile",
            ),
            K.suite(
                "T3_spiky_edge_features",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "features": 203, "dim1": 16, "dim2": 20},
                purpose="values U[0,0.1) with a spike of 20 at the first feature (a third of the positions) or at "
                "the last feature (another third): the spike carries ~99% of the mean square, so a feature loop "
                "that skips feature 0 or C-1, a lane stride or start slip, or a dropped tree step loses it and the "
                "outputs grow ~20x (on T0 a lost feature shows only as a ~7% change at the worst positions); "
                "203 features = 25 x 8 + 3 give uneven lanes",
            ),
        ],
        notes="On the official U[0,1) inputs the RMS of every position is ~0.577 +- 5% and eps (1e-5) is 3e-5 "
        "of the mean square, so T0_original cannot see an eps fault: without eps, or with 1e-4 instead of 1e-5, "
        "outputs move by at most 5e-5 and 4.5e-4 (measured on a reduced T0); T1/T2 scale positions so that eps "
        "dominates. Lost features and position mix-ups are already visible on T0 at its worst positions "
        "(measured: skipping the last feature 0.074, a neighbour position's sum 0.48); T3 amplifies them. "
        "The features dimension is resizable (Model has no weights; num_features is unused in "
        "forward). The official tensor has 1.88 G < 2^31 elements, so a 32-bit batch offset does not "
        "overflow there; it overflows only for resized shapes past 2^31.",
    )
