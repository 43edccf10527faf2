"""KernelBench level 1, problem 38_L1Norm_: x / torch.mean(torch.abs(x), dim=1, keepdim=True) on x
32768 x 65535.

One 256-thread block per row. The block strides over its row twice: a per-thread fp32 sum of
fabsf(x), reduced through a shared-memory tree to the row sum, gives the mean absolute value (sum /
dim); then every element is written as x / mean. Row offsets are 64-bit (the tensor has
32768 x 65535 = 2^31 - 32768 elements, just under 2^31); in-row indices fit an int.

Cost: 2.15 G elements, 8.6 GB read twice (a 256 KB row is re-read right after its sum; with ~1000
resident rows far more than the 50 MB L2 holds, most of the re-read comes from DRAM) and 8.6 GB
written: 17-26 GB of traffic, about 5-8 ms on an H200 (reference 12.4 ms).
"""

CUDA = r"""
const int L1_BLOCK = 256;       // threads per block; one block per row (power of two)

extern "C" __global__ void l1norm_kernel(
    const float* __restrict__ x,    // [batch, dim]
    float* __restrict__ out,        // [batch, dim]
    int batch, int dim)
{
    __shared__ float red[L1_BLOCK];
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* x_row = x + (long long)row * dim;
    float* out_row = out + (long long)row * dim;

    // Pass 1: the row sum of |x|, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int j = tid; j < dim; j += blockDim.x) {
        thread_sum += fabsf(x_row[j]);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean_abs = red[0] / (float)dim;

    // Pass 2: divide every element of the row by the mean absolute value.
    for (int j = tid; j < dim; j += blockDim.x) {
        out_row[j] = x_row[j] / mean_abs;
    }
}
"""

BLOCK = 256             # must equal L1_BLOCK (the shared buffer size), a power of two
ROWS_PER_BLOCK = 1      # one block reduces one row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        batch, dim = x.shape
        out = torch.empty_like(x)
        return (
            "l1norm_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, batch), (ctypes.c_int, dim)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return x / torch.mean(torch.abs(x), dim=1, keepdim=True)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def signed_inputs(torch, s):
        # U[-1,1): both signs, mean |x| 0.5 while the plain mean is ~0.
        return [torch.rand(s["batch"], s["dim"]) * 2.0 - 1.0]

    def spiky_inputs(torch, s):
        # Small values of both signs (|x| < 0.01) and one spike of -50 per row: in the first column on rows
        # 0, 3, 6, ..., in the last column on rows 1, 4, ..., and in column (r // 3) % dim on row r = 2, 5, ...,
        # so with batch >= 3 * dim every column (and every thread's strided slice) holds a spike somewhere.
        B, D = s["batch"], s["dim"]
        x = (torch.rand(B, D) * 2.0 - 1.0) * 0.01
        r = torch.arange(B)
        cols = torch.where(r % 3 == 0, 0, torch.where(r % 3 == 1, D - 1, (r // 3) % D))
        x[r, cols] = -50.0
        return [x]

    def short_negative_inputs(torch, s):
        # Rows of a few same-sign negative values, -(1 + U[0,100)).
        return [-(1.0 + torch.rand(s["batch"], s["dim"]) * 100.0)]

    return K.substrate(
        name="L1p38_l1norm",
        level=1,
        problem="38_L1Norm_",
        cuda=CUDA,
        kernel_name="l1norm_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768, max=2**31 - 1), "dim": K.dim(65535)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 5, "dim": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233: the last stride covers only part of the block, so the j < dim "
                "guards matter; x = U[-1,1) so a kernel that sums x instead of |x| divides by a mean near 0 "
                "(outputs explode or flip sign), which U[0,1) inputs (|x| = x) never show",
            ),
            K.suite(
                "T2_spiky_edges",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 900, "dim": 300},
                purpose="values |x| < 0.01 of both signs plus one spike of -50 per row, in the first column, the last "
                "column, or (every third row) in column (r // 3) % dim, which walks over all 300 columns: the spike "
                "carries ~97% of its row's L1 mass, so a loop that skips column 0 or dim-1, a partial sum lost from "
                "any one thread or tree step, or a missing fabsf (the spike is negative: every output flips sign) "
                "changes outputs by ~30x; dim 300 = 256 + 44 makes threads 0-43 take a second stride; on T0 a lost "
                "column changes outputs by 1.5e-5 and a lost thread partial by 0.4%",
            ),
            K.suite(
                "T3_short_negative_rows",
                short_negative_inputs,
                seeds=[5, 6],
                sizes={"batch": 300, "dim": 3},
                purpose="rows of 3 same-sign negative values -(1 + U[0,100)): the divisor is the mean, so dividing "
                "by dim - 1 or dim + 1 (or the sum) is off by a third or more, and a missing fabsf flips every output's "
                "sign (outputs in (-3, 0) become positive); at dim 65535 an off-by-one divisor is 1.5e-5 relative",
            ),
        ],
        notes="On the official U[0,1) inputs |x| = x, so a kernel without fabsf passes T0_original, and each "
        "row's mean is 0.5 +- 0.0011 (1 sigma), so a kernel dividing by a constant 0.5 (or by another row's "
        "mean) stays within ~1% relative and passes too (measured on 64 rows: 0.011 max abs against a tolerance "
        "of 0.01 + 0.02), as does a divisor of dim +- 1, a lost column or a lost thread partial (0.4%). "
        "The targeted suites are signed, spiky or short. The official tensor has 2^31 - 32768 elements: "
        "row * dim stays below 2^31, so a 32-bit row offset does not overflow on any suite.",
    )
