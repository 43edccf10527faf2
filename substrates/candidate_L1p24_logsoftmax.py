"""KernelBench level 1, problem 24_LogSoftmax: torch.log_softmax(x, dim=1) on a 4096 x 393216 fp32
tensor.

Model(dim=1) takes its default (get_init_inputs() = []) and has no parameters.

One 256-thread block per row. The block strides over the row three times: a per-thread running
max, reduced through a shared-memory tree to the row max; a per-thread sum of expf(x - max),
reduced through a second shared-memory tree to the row sum; then every element is written as
(x - max) - logf(sum). Row offsets are 64-bit; column indices fit in an int (dim <= 2^30).

Cost: 1.61 G elements; the row (1.5 MB) is read three times, far more rows are in flight than the
50 MB L2 holds, so about 19 GB read plus 6.4 GB written: about 7-10 ms on an H200 (reference
6.23 ms).
"""

CUDA = r"""
const int LOGSOFTMAX_BLOCK = 256;                   // threads per block; one block per row
const float NEG_SENTINEL = -3.402823466e+38f;       // -FLT_MAX: identity of the max reduction

extern "C" __global__ void log_softmax_kernel(
    const float* __restrict__ x,    // [batch, dim]
    float* __restrict__ out,        // [batch, dim]
    int batch, int dim)
{
    __shared__ float red[LOGSOFTMAX_BLOCK];
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* x_row = x + (long long)row * dim;
    float* out_row = out + (long long)row * dim;

    // Phase 1: row max. Each thread scans a strided slice, then a tree reduction in shared memory.
    float thread_max = NEG_SENTINEL;
    for (int j = tid; j < dim; j += blockDim.x) {
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

    // Phase 2: row sum of expf(x - row_max), fp32 accumulation, same tree reduction.
    float thread_sum = 0.0f;
    for (int j = tid; j < dim; j += blockDim.x) {
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
    float log_sum = logf(red[0]);

    // Phase 3: write every element of the row as (x - max) - log(sum).
    for (int j = tid; j < dim; j += blockDim.x) {
        out_row[j] = (x_row[j] - row_max) - log_sum;
    }
}
"""

BLOCK = 256         # must equal LOGSOFTMAX_BLOCK (the shared buffer size) and be a power of two
ROWS_PER_BLOCK = 1  # one block reduces one row
SOFTMAX_DIM = 1     # Model(dim=1), the default


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        batch, dim = x.shape
        out = torch.empty_like(x)
        return (
            "log_softmax_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, batch), (ctypes.c_int, dim)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.log_softmax(x, dim=SOFTMAX_DIM)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def scaled_inputs(scale):
        # U[0, scale): same sign, wide enough that the row max exceeds 88.7 (expf(x) overflows
        # without the max subtraction) and the distribution is peaked (top outputs a few units below 0).
        def gen(torch, s):
            return [torch.rand(s["batch"], s["dim"]) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Every value far below zero (-330..-230) and spikes at -120, more than 88.7 above the rest:
        # rows 0, 3, 6, ... hold about 2% spikes tied exactly at the row max; rows 1, 4, ... one
        # spike in the first column; rows 2, 5, ... one spike in the last column.
        x = -230.0 - torch.rand(s["batch"], s["dim"]) * 100.0
        spikes = torch.rand(s["batch"], s["dim"]) < 0.02
        spikes[1::3] = False
        spikes[2::3] = False
        x[spikes] = -120.0
        x[1::3, 0] = -120.0
        x[2::3, -1] = -120.0
        return [x]

    return K.substrate(
        name="L1p24_logsoftmax",
        level=1,
        problem="24_LogSoftmax",
        cuda=CUDA,
        kernel_name="log_softmax_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096, max=2**31 - 1), "dim": K.dim(393216, max=2**30)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs(100.0),
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233: the last stride covers only part of the block, so the "
                "j < dim guards matter and the 233 tail elements carry about a quarter of each row's mass "
                "(skipping them moves log(sum) by 0.13-0.40, measured, where the top outputs, near -2.5, "
                "allow ~0.035); values U[0,100) push the row max past 88.7 so dropping the max subtraction "
                "overflows expf, and make the distribution peaked, unlike the flat T0 rows",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(400.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="same-sign large magnitudes U[0,400): every row has values far beyond expf's fp32 "
                "range, so only a kernel that subtracts the true row max stays finite, and outputs reach "
                "-403; 4099 = 16 x 256 + 3 gives many full strides plus a 3-element tail; the correct "
                "fp32 result stays within ~1e-7 relative of the fp64 one",
            ),
            K.suite(
                "T3_spiky_ties",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 17, "dim": 200},
                purpose="all values negative (-330..-230) with spikes at -120: a third of the rows hold about "
                "2% spikes tied exactly at the max (outputs ~ -1.4 each), a third a single spike in the first "
                "column, a third a single spike in the last column (output 0.0), so a reduction that misses "
                "any spike makes expf(x - max) overflow, a loop that skips the first or last element misses "
                "that row's only spike (an overflowing expf, or a sum without its whole mass), and a 0 max sentinel instead of -FLT_MAX underflows every "
                "expf to 0; dim 200 < 256 leaves 56 threads with no element, so the reduction identities "
                "matter",
            ),
        ],
        notes="On the official inputs (U[0,1) over 393216 columns) every output is x - log(sum exp x), "
        "which lies in [-13.42, -12.42] (measured), so the 1e-2 rtol admits an absolute error of ~0.13: a "
        "sum wrong by up to ~13% (a skipped tail, a dropped stride) passes T0_original, and the max "
        "subtraction is unnecessary there (expf(1) does not overflow); the targeted suites use peaked "
        "rows whose top outputs lie a few units below 0 (tolerance ~0.02-0.04). The official tensor has 4096 x 393216 = 1.61e9 < 2^31 "
        "elements, so a 32-bit flat-index mutant does not overflow on any suite.",
    )
