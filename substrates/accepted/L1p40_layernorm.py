"""KernelBench level 1, problem 40_LayerNorm: nn.LayerNorm((64, 256, 256)) on x 16 x 64 x 256 x 256.

Each of the 16 batch rows is normalised over its last three dims (D = 64 x 256 x 256 = 4,194,304
elements) with the biased variance and eps 1e-5, then scaled by the module's elementwise weight and
shifted by its bias (both [64, 256, 256]; nn.LayerNorm initialises them to ones and zeros).

One 1024-thread block per row, in one kernel. The block strides over its row three times: a
per-thread fp32 sum reduced through a shared-memory tree gives the mean; a per-thread sum of
squared deviations from that mean, reduced through a second tree, gives the biased variance (two
passes, as a careful first draft computes a variance); then every element is written as
(x - mean) / sqrtf(var + eps) * weight + bias. Row offsets are 64-bit; in-row indices fit an int.

Cost: only 16 blocks run, on 16 of the H200's 132 SMs, so the kernel is bound by one SM's
latency-limited bandwidth, not by HBM: each block reads x three times and the weight and bias once
(5 x 16.8 MB) and writes 16.8 MB. With 1024 threads and one to four 4-byte loads in flight each
(4-16 KB per SM against ~0.7 us of DRAM latency), one SM sustains roughly 6-25 GB/s, so the ~100 MB
of one block take about 4-17 ms; one official forward should take about 5-20 ms (reference 8.13 ms), well under 1 s.
"""

CUDA = r"""
const int LN_BLOCK = 1024;      // threads per block; one block per row (power of two)
const float LN_EPS = 1e-5f;     // nn.LayerNorm default eps

extern "C" __global__ void layernorm_kernel(
    const float* __restrict__ x,        // [rows, D]  (D = 64 * 256 * 256, the normalized shape)
    const float* __restrict__ weight,   // [D]
    const float* __restrict__ bias,     // [D]
    float* __restrict__ out,            // [rows, D]
    int rows, int D)
{
    __shared__ float red[LN_BLOCK];
    int row = blockIdx.x;
    if (row >= rows) return;
    int tid = threadIdx.x;
    const float* x_row = x + (long long)row * D;
    float* out_row = out + (long long)row * D;

    // Pass 1: the row sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int j = tid; j < D; j += blockDim.x) {
        thread_sum += x_row[j];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)D;
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    for (int j = tid; j < D; j += blockDim.x) {
        float d = x_row[j] - mean;
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
    float var = red[0] / (float)D;      // biased: divide by D, as layer_norm does
    float inv_std = 1.0f / sqrtf(var + LN_EPS);

    // Pass 3: normalise, apply the elementwise affine, write every element of the row.
    for (int j = tid; j < D; j += blockDim.x) {
        out_row[j] = (x_row[j] - mean) * inv_std * weight[j] + bias[j];
    }
}
"""

BLOCK = 1024                        # must equal LN_BLOCK (the shared buffer size), a power of two
ROWS_PER_BLOCK = 1                  # one block normalises one row
NORMALIZED_SHAPE = (64, 256, 256)   # get_init_inputs(): [(features, dim1, dim2)], fixed by the weights
LN_EPS = 1e-5
MAX_ROWS = 2**31 - 1                # one block per row along gridDim.x


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__((64, 256, 256)): one nn.LayerNorm with elementwise affine (weight ones, bias
        # zeros); it draws nothing from the generator.
        ln = torch.nn.LayerNorm(normalized_shape=NORMALIZED_SHAPE)
        return {"w": ln.weight, "b": ln.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        rows = x.shape[0]
        D = w["w"].numel()
        out = torch.empty_like(x)
        return (
            "layernorm_kernel",
            (K.cdiv(rows, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["b"], out],
            [(ctypes.c_int, rows), (ctypes.c_int, D)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.layer_norm(x, NORMALIZED_SHAPE, w["w"], w["b"], LN_EPS)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, features, dim1, dim2)
        return [torch.rand(s["batch"], *NORMALIZED_SHAPE)]

    def per_row_inputs(torch, s):
        # Row r is scale_r * (offset_r + U[0,1)) with offset_r = 6 + 3r and scale_r = 0.5 + r: same sign,
        # each row with its own mean and std, the mean 22 + 10r stds away from zero.
        rows = s["batch"]
        r = torch.arange(rows, dtype=torch.float32).view(rows, 1, 1, 1)
        offset = 6.0 + 3.0 * r
        scale = 0.5 + 1.0 * r
        return [scale * (offset + torch.rand(rows, *NORMALIZED_SHAPE))]

    def small_var_inputs(torch, s):
        # U[0, 0.01): variance 8.3e-6, the same size as eps 1e-5, so eps changes every output by ~1.5x.
        return [torch.rand(s["batch"], *NORMALIZED_SHAPE) * 0.01]

    return K.substrate(
        name="L1p40_layernorm",
        level=1,
        problem="40_LayerNorm",
        cuda=CUDA,
        kernel_name="layernorm_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(16, max=MAX_ROWS)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3},
                small=True,
                purpose="three rows of the official distribution (U[0,1)): an odd row count and the cheapest "
                "forward the fixed 4 M-element normalized shape allows; the row length 4,194,304 = 4096 x 1024 "
                "is fixed by the weights, so no in-row remainder exists (see notes)",
            ),
            K.suite(
                "T2_per_row_shift_scale",
                per_row_inputs,
                seeds=[3, 4],
                sizes={"batch": 5},
                purpose="row r = (0.5 + r) * (6 + 3r + U[0,1)): same-sign values whose mean and std differ by "
                "row (the mean lies 22.5, 33, 43, 54, 64 stds from zero), so a block that reads another row's "
                "statistics or elements, a missing mean subtraction, or a reduction that loses one thread's partial "
                "sum (the mean off by 1/1024 of itself, i.e. 0.02-0.06 std) fails; on T0's iid U[0,1) "
                "rows (mean 1.7 stds) such faults stay inside 1e-2; the fp32 two-pass statistics stay ~1e-6 "
                "accurate",
            ),
            K.suite(
                "T3_small_variance",
                small_var_inputs,
                seeds=[5, 6],
                sizes={"batch": 2},
                purpose="x = U[0,0.01): the row variance (8.3e-6) is comparable to eps = 1e-5, so a dropped or "
                "perturbed eps, an eps added after the sqrt, or a variance divided by the wrong count changes "
                "outputs by tens of percent (outputs up to ~1.2); on U[0,1) eps is invisible (1e-4 relative)",
            ),
        ],
        notes="The affine parameters are nn.LayerNorm's init, weight = ones and bias = zeros, and no suite can "
        "change them: a kernel that skips the affine or reads weight/bias at a wrong in-range index passes every "
        "suite (swapping weight and bias does not: every output would become 1). The normalized shape (64, 256, 256) is fixed by the weights, "
        "so every row has 4,194,304 = 4096 x 1024 elements, a multiple of the block: the j < D loop guards "
        "never cut a stride short on any suite; only the batch (row count) is resizable. Rows of the official "
        "input are iid U[0,1), so their statistics agree to ~1e-4 and faults that mix rows or lose a small "
        "share of a sum are invisible to T0_original; T2 exposes them.",
    )
