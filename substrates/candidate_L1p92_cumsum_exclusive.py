"""KernelBench level 1, problem 92_cumsum_exclusive, in its v0.1 form (the file was fixed after v0.1):
torch.cumsum(torch.cat((zeros(B, 1), x), dim=1)[:-1], dim=1) on x 32768 x 32768 fp32.

v0.1's forward prepends a zero column (giving B x (L + 1)) and then slices with [:-1], which drops
the last ROW (dim 0), not the last column. So the output is (B - 1) x (L + 1) = 32767 x 32769: row i
(i < B - 1) is the inclusive cumsum of [0, x[i, 0], ..., x[i, L - 1]], i.e. out[i, 0] = 0 and
out[i, j] = x[i, 0] + ... + x[i, j - 1] for j = 1..L (the exclusive cumsum, plus one more column
holding the row total); the last row of x is never read. The model has no parameters.

One 256-thread block per output row. The block walks the output row in chunks of 256 columns:
thread t loads y[j] for j = c0 + t, where y[0] = 0 and y[j] = x[i, j - 1] (zero past the end), the
block runs a Hillis-Steele inclusive scan over the chunk (at every step each thread reads its
partner, a barrier, then adds, another barrier), each thread writes carry + its prefix, and every
thread adds the chunk total (the last prefix) to its running carry before a barrier frees the
buffer for the next chunk. fp32 throughout, fixed order, no atomics. Row offsets are 64-bit;
column indices fit in an int (L + 1 <= 2^30).

Cost: 2^30 elements read and written once (8.6 GB) plus 16 barriers per 256-element chunk; about
10-20 ms on an H200 (reference 10.9 ms).
"""

CUDA = r"""
const int SCAN_BLOCK = 256;     // threads per block (one block per output row); the chunk length

extern "C" __global__ void cumsum_exclusive_kernel(
    const float* __restrict__ x,    // [rows + 1, len]   (the last row is never read)
    float* __restrict__ out,        // [rows, len + 1]
    int rows, int len)
{
    __shared__ float buf[SCAN_BLOCK];
    int row = blockIdx.x;
    if (row >= rows) return;
    int tid = threadIdx.x;
    int out_len = len + 1;                          // the prepended zero column
    const float* x_row = x + (long long)row * len;
    float* out_row = out + (long long)row * out_len;

    float carry = 0.0f;     // sum of every element of the output row before the current chunk
    for (int c0 = 0; c0 < out_len; c0 += blockDim.x) {
        int j = c0 + tid;   // the output column this thread loads and writes
        if (j > 0 && j < out_len) {
            buf[tid] = x_row[j - 1];    // y[j] = x[row, j - 1]
        } else {
            buf[tid] = 0.0f;            // y[0] = 0 (the prepended column), and zeros past the end
        }
        __syncthreads();    // the chunk is loaded

        // Hillis-Steele inclusive scan: after the step with offset o, buf[i] holds the sum of the
        // chunk elements i - 2o + 1 .. i (clipped at 0).
        for (int offset = 1; offset < blockDim.x; offset <<= 1) {
            float add = 0.0f;
            if (tid >= offset) {
                add = buf[tid - offset];
            }
            __syncthreads();    // every read of this step precedes every write
            buf[tid] = buf[tid] + add;
            __syncthreads();    // this step's writes are visible to the next
        }

        if (j < out_len) {
            out_row[j] = carry + buf[tid];
        }
        carry = carry + buf[blockDim.x - 1];    // the chunk total (zeros past the end add nothing)
        __syncthreads();    // everyone has read buf before the next chunk overwrites it
    }
}
"""

BLOCK = 256         # must equal SCAN_BLOCK (the shared buffer size); a power of two
ROWS_PER_BLOCK = 1  # one block scans one output row
DIM = 1             # Model(dim=1)


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        batch, length = x.shape
        rows = batch - 1        # v0.1's [:-1] drops the last row
        out = torch.empty((rows, length + 1), device=x.device, dtype=x.dtype)
        return (
            "cumsum_exclusive_kernel",
            (K.cdiv(rows, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, rows), (ctypes.c_int, length)],
        )

    def ref(inputs, torch):
        # v0.1 Model.forward, quirk included: [:-1] slices dim 0 after the cat along dim 1.
        (x,) = inputs
        zero_col = torch.zeros_like(x.select(DIM, 0).unsqueeze(DIM))
        exclusive_cumsum = torch.cat((zero_col, x), dim=DIM)[:-1]
        return torch.cumsum(exclusive_cumsum, dim=DIM)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, *input_shape)] with input_shape = (32768,)
        return [torch.rand(s["batch"], s["len"])]

    def signed_inputs(torch, s):
        # U[-1, 1): the cumsum is a random walk (|out| ~ 0.58 sqrt(j)), so every term stays visible.
        return [torch.rand(s["batch"], s["len"]) * 2.0 - 1.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% random spikes in [-100, 100), plus a spike of 50 at the last and of -30
        # at the first element of every 256-column chunk of the OUTPUT (x columns 254 + 256 k and 255 + 256 k,
        # since output column j reads x column j - 1), and a row of 1000s as the last (never read) row.
        rows, length = s["batch"], s["len"]
        x = torch.zeros(rows, length)
        mask = torch.rand(rows, length) < 0.01
        x[mask] = torch.rand(int(mask.sum())) * 200.0 - 100.0
        x[:, BLOCK - 2 :: BLOCK] = 50.0
        x[:, BLOCK - 1 :: BLOCK] = -30.0
        x[-1, :] = 1000.0
        return [x]

    return K.substrate(
        name="L1p92_cumsum_exclusive",
        level=1,
        problem="92_cumsum_exclusive",
        cuda=CUDA,
        kernel_name="cumsum_exclusive_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768, min=2, max=2**31), "len": K.dim(32768, max=2**30 - 1)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (output 32767 x 32769: see notes)",
            ),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "len": 1000},
                small=True,
                purpose="output rows of 1001 = 3 x 256 + 233 columns (x rows of 1000): four chunks, so the carry passes "
                "three chunk boundaries, and the last chunk has 23 threads past the end (zero fill, j < out_len "
                "guards); 3 x rows give 2 output rows, so the dropped last row and the row strides len (x) vs "
                "len + 1 (out) matter; signed U[-1,1) values make the cumsum a random walk (|out| up to ~20) in "
                "which every lost, duplicated or shifted term (an inclusive instead of exclusive scan, a missing "
                "zero column) shows at 1e-2",
            ),
            K.suite(
                "T2_long_signed",
                signed_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "len": 32772},
                purpose="official-length rows (output 32773 = 128 x 256 + 5 columns: 129 chunks, a 5-element tail) "
                "with signed U[-1,1) values: the cumsum stays a random walk (|out| ~ 0.58 sqrt(j), ~100 at the end), "
                "so a fault late in a row (a lost chunk total, a wrong carry, a bad tail) moves outputs far beyond "
                "1e-2, where on the official U[0,1) inputs the running total (~j/2) hides any error below 1% of it",
            ),
            K.suite(
                "T3_spiky_boundaries",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 9, "len": 4098},
                purpose="exact zeros with about 1% spikes in [-100, 100) plus a spike of 50 at the last and -30 at the "
                "first column of every 256-column output chunk (16 chunks + a 3-column tail), and a last x row of "
                "1000s that the output must not see: the cumsum is a step function, so a scan offset that skips a "
                "step, a carry taken from the wrong lane, a y[j] = x[j] (no shift) or x[j - 2] load, a row stride "
                "error, or a kernel that scans every x row moves a whole step by a spike's height",
            ),
        ],
        notes="Reproduces v0.1's forward exactly, with its shape quirk: [:-1] after the cat drops the last row, so "
        "the output is (B - 1) x (L + 1) = 32767 x 32769, each row the inclusive cumsum of the row with a zero "
        "prepended (0, x0, x0 + x1, ..., the row total); HEAD returns B x L. The last input row is never read. "
        "Official inputs are U[0,1), so the running total grows as ~j/2: at rtol 1e-2 any fault whose effect at "
        "column j stays below ~j/200 passes T0_original; only the first columns are sharp. The official output "
        "length 32769 = 128 x 256 + 1 leaves a one-column tail chunk on T0. batch must be at least 2 (one output "
        "row). 32767 x 32769 = 2^30 - 1 elements, so a 32-bit flat-offset mutant does not overflow on any suite.",
    )
