"""KernelBench level 1, problem 39_L2Norm_: x / torch.norm(x, p=2, dim=1, keepdim=True) on x
32768 x 65535.

Each row is divided by its Euclidean norm (no epsilon). The model has no parameters.

One 256-thread block per row. The block strides over its row twice: a per-thread fp32 sum of
x * x, reduced through a shared-memory tree to the row's sum of squares, gives the norm (sqrtf);
then every element is written as x / norm. Row offsets are 64-bit (the tensor has
32768 x 65535 = 2^31 - 32768 elements, just under 2^31); in-row indices fit an int.

Cost: 2.15 G elements, 8.6 GB read twice (a 256 KB row is re-read right after its sum; with ~1000
resident rows, far more than the 50 MB L2 holds, most of the re-read comes from DRAM) and 8.6 GB
written: 17-26 GB of traffic, about 5-8 ms on an H200 (reference 8.37 ms).
"""

CUDA = r"""
const int L2_BLOCK = 256;       // threads per block; one block per row (power of two)

extern "C" __global__ void l2norm_kernel(
    const float* __restrict__ x,    // [batch, dim]
    float* __restrict__ out,        // [batch, dim]
    int batch, int dim)
{
    __shared__ float red[L2_BLOCK];
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* x_row = x + (long long)row * dim;
    float* out_row = out + (long long)row * dim;

    // Pass 1: the row's sum of squares, strided over the block, then a tree reduction in shared memory.
    float thread_sq = 0.0f;
    for (int j = tid; j < dim; j += blockDim.x) {
        float v = x_row[j];
        thread_sq += v * v;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float norm = sqrtf(red[0]);

    // Pass 2: divide every element of the row by its norm.
    for (int j = tid; j < dim; j += blockDim.x) {
        out_row[j] = x_row[j] / norm;
    }
}
"""

BLOCK = 256             # must equal L2_BLOCK (the shared buffer size), a power of two
ROWS_PER_BLOCK = 1      # one block reduces one row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        batch, dim = x.shape
        out = torch.empty_like(x)
        return (
            "l2norm_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, batch), (ctypes.c_int, dim)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return x / torch.norm(x, p=2, dim=1, keepdim=True)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def spiky_inputs(torch, s):
        # Small values of both signs (|x| < 0.01) and one spike of -50 per row: in the first column on rows
        # 0, 3, 6, ..., in the last column on rows 1, 4, ..., and in column (97 * (r // 3)) % dim on row
        # r = 2, 5, ..., so the spike walks over the columns (and every thread's strided slice).
        B, D = s["batch"], s["dim"]
        x = (torch.rand(B, D) * 2.0 - 1.0) * 0.01
        r = torch.arange(B)
        cols = torch.where(r % 3 == 0, 0, torch.where(r % 3 == 1, D - 1, (97 * (r // 3)) % D))
        x[r, cols] = -50.0
        return [x]

    def short_signed_inputs(torch, s):
        # Rows of a few values of both signs, U[-100, 100).
        return [(torch.rand(s["batch"], s["dim"]) * 2.0 - 1.0) * 100.0]

    return K.substrate(
        name="L1p39_l2norm",
        level=1,
        problem="39_L2Norm_",
        cuda=CUDA,
        kernel_name="l2norm_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768, max=2**31 - 1), "dim": K.dim(65535)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (outputs below 6.8e-3: degenerate, see notes)",
            ),
            K.suite(
                "T1_remainder_spiky",
                spiky_inputs,
                seeds=[1, 2],
                sizes={"batch": 12, "dim": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233: the last stride covers only part of the block, so the j < dim "
                "guards matter; values |x| < 0.01 of both signs plus one spike of -50 per row (first column, last "
                "column, or a column that walks by 97 per row): the spike carries ~99.99% of the row's norm, so its "
                "output is ~-1 and the rest ~2e-4 (official outputs are all below 6.8e-3); a loop that skips "
                "column 0 or dim-1, a lost thread partial or tree step holding the spike, a sum of x or |x| "
                "instead of x * x, or a missing sqrt changes outputs by ~1 or makes them inf/NaN",
            ),
            K.suite(
                "T2_spiky_edges",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 900, "dim": 300},
                purpose="the same spikes on 900 rows of 300 = 256 + 44: the walking spike visits every column (so "
                "every thread's slice, both strides) and the first/last-column spikes sit at the loop bounds; a "
                "row offset or stride error (dim vs 256) moves spikes between rows",
            ),
            K.suite(
                "T3_short_signed_rows",
                short_signed_inputs,
                seeds=[5, 6],
                sizes={"batch": 300, "dim": 3},
                purpose="rows of 3 values U[-100,100) of both signs: outputs of order 0.5, so dividing by the sum of "
                "squares, the sum of |x|, a norm over dim - 1 or dim + 1 elements, or a sum of x (near zero or "
                "negative: inf or NaN) is far off; 253 of 256 threads idle, so the reduction identity matters",
            ),
        ],
        notes="Degenerate at the official inputs (zeros-pass at 1e-2): every row of 65535 U[0,1) values has a norm "
        "of ~sqrt(65535 / 3) ~ 148, so every official output lies in [0, 6.8e-3] (measured on the first 64 rows of "
        "the first official trial: row norms 147.3-148.4, max |out| 6.79e-3), and returning zeros passes "
        "T0_original (|0 - out| <= 6.8e-3 < 1e-2); so does dividing by any constant near 148, by another row's "
        "norm, or by a norm that loses a few columns. The targeted suites are spiky or short, with outputs of "
        "order 1. The official tensor has 2^31 - 32768 elements: row * dim stays below 2^31, so a 32-bit row "
        "offset does not overflow on any suite.",
    )
