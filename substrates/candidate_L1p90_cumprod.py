"""KernelBench level 1, problem 90_cumprod: torch.cumprod(x, dim=1) on a 32768 x 32768 fp32 tensor.

One 256-thread block per row. The block walks the row in chunks of 256 elements: each thread loads
one element into shared memory (1, the identity of the product, past the end of the row), the
block runs a Hillis-Steele inclusive scan over the chunk with multiplication (at every step each
thread reads its partner, a barrier, then multiplies, another barrier), each thread writes
carry * its prefix product, and every thread multiplies its running carry by the chunk product
(the last prefix) before a barrier frees the buffer for the next chunk. fp32 throughout, fixed
order, no atomics. Row offsets are 64-bit; column indices fit in an int (len <= 2^30). The model
has no parameters.

Cost: 2^30 elements read and written once (8.6 GB) plus 16 barriers per 256-element chunk; about
10-20 ms on an H200 (reference 4.48 ms).
"""

CUDA = r"""
const int SCAN_BLOCK = 256;     // threads per block (one block per row); the chunk length

extern "C" __global__ void cumprod_kernel(
    const float* __restrict__ x,    // [rows, len]
    float* __restrict__ out,        // [rows, len]
    int rows, int len)
{
    __shared__ float buf[SCAN_BLOCK];
    int row = blockIdx.x;
    if (row >= rows) return;
    int tid = threadIdx.x;
    const float* x_row = x + (long long)row * len;
    float* out_row = out + (long long)row * len;

    float carry = 1.0f;     // product of every element of the row before the current chunk
    for (int c0 = 0; c0 < len; c0 += blockDim.x) {
        int j = c0 + tid;   // the column this thread loads and writes
        if (j < len) {
            buf[tid] = x_row[j];
        } else {
            buf[tid] = 1.0f;
        }
        __syncthreads();    // the chunk is loaded

        // Hillis-Steele inclusive scan: after the step with offset o, buf[i] holds the product of the
        // chunk elements i - 2o + 1 .. i (clipped at 0).
        for (int offset = 1; offset < blockDim.x; offset <<= 1) {
            float mul = 1.0f;
            if (tid >= offset) {
                mul = buf[tid - offset];
            }
            __syncthreads();    // every read of this step precedes every write
            buf[tid] = buf[tid] * mul;
            __syncthreads();    // this step's writes are visible to the next
        }

        if (j < len) {
            out_row[j] = carry * buf[tid];
        }
        carry = carry * buf[blockDim.x - 1];    // the chunk product (ones past the end change nothing)
        __syncthreads();    // everyone has read buf before the next chunk overwrites it
    }
}
"""

BLOCK = 256         # must equal SCAN_BLOCK (the shared buffer size); a power of two
ROWS_PER_BLOCK = 1  # one block scans one row
DIM = 1             # Model(dim=1): the scan runs along the columns of each row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        rows, length = x.shape
        out = torch.empty_like(x)
        return (
            "cumprod_kernel",
            (K.cdiv(rows, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, rows), (ctypes.c_int, length)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.cumprod(x, dim=DIM)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, *input_shape)] with input_shape = (32768,)
        return [torch.rand(s["batch"], s["len"])]

    def near_one_inputs(spread, signed):
        # x = (1 + U[-spread, spread)), with a random sign if `signed`: the log of the product is a random walk
        # with steps of ~spread / sqrt(3), so the products stay of order 1 over the whole row and every factor
        # stays visible.
        def gen(torch, s):
            x = 1.0 + (torch.rand(s["batch"], s["len"]) * 2.0 - 1.0) * spread
            if signed:
                x = torch.where(torch.rand(s["batch"], s["len"]) < 0.5, -x, x)
            return [x]

        return gen

    def zero_inputs(torch, s):
        # Near-one factors (1 + U[-0.02, 0.02)) with one exact 0 per row at column (97 r + 159) % len, except
        # on rows r % 4 == 3, which have none, and a factor of exactly 2 at the last column of every
        # 256-element chunk: outputs are exactly 0 from the zero on and of order 1 before it.
        rows, length = s["batch"], s["len"]
        x = 1.0 + (torch.rand(rows, length) * 2.0 - 1.0) * 0.02
        x[:, BLOCK - 1 :: BLOCK] = 2.0
        r = torch.arange(rows)
        has_zero = r % 4 != 3
        cols = (97 * r + 159) % length
        x[r[has_zero], cols[has_zero]] = 0.0
        return [x]

    return K.substrate(
        name="L1p90_cumprod",
        level=1,
        problem="90_cumprod",
        cuda=CUDA,
        kernel_name="cumprod_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768, max=2**31 - 1), "len": K.dim(32768, max=2**30)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (99.7% of the outputs are exactly 0: see notes)",
            ),
            K.suite(
                "T1_remainder_signed",
                near_one_inputs(0.02, True),
                seeds=[1, 2],
                sizes={"batch": 3, "len": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233: four chunks, so the carry passes three chunk boundaries, and "
                "the last chunk has 23 threads past the end (their fill of 1 keeps the chunk product right, the "
                "j < len guards keep reads and writes in the row); factors +-(1 + U[-0.02,0.02)) with random "
                "signs keep the products of order 1 (|out| ~ 0.5-2) with a sign that flips at every negative "
                "factor, so every lost, duplicated or shifted factor, a zero fill, or a sum instead of a product "
                "shows (on U[0,1) the product is 0 after ~80 columns)",
            ),
            K.suite(
                "T2_long_near_one",
                near_one_inputs(0.005, False),
                seeds=[3, 4],
                sizes={"batch": 4, "len": 32773},
                purpose="official-length rows (32773 = 128 x 256 + 5: 129 chunks, a 5-element tail) of factors "
                "1 + U[-0.005,0.005): the log-product is a random walk of std ~0.5 at the end, so products stay "
                "0.5-2 across the whole row and a fault late in a row (a lost chunk product, a wrong carry, a bad "
                "tail) shows, where on the official inputs everything past column ~100 is exactly 0; the CPU fp32 "
                "reference stays within 3e-8 of fp64 and this scan within ~5e-6 of it (CPU backend)",
            ),
            K.suite(
                "T3_exact_zeros",
                zero_inputs,
                seeds=[5, 6],
                sizes={"batch": 12, "len": 2000},
                purpose="near-one factors with one exact 0 per row (at column 97 r + 159: inside "
                "chunks, late in them, and for row 1 exactly the first element of the second chunk) except on every fourth row, and a factor of exactly "
                "2 at the last column of every chunk (outputs up to ~2^7 = 128): outputs must be exactly 0 from "
                "the zero on and of order 1-128 before it, so a scan offset that skips a step, a carry taken from "
                "the wrong lane (it would miss the 2 or the zero), an exclusive instead of inclusive scan, or a "
                "row/column stride error shows",
            ),
        ],
        notes="Degenerate at the official inputs (100%-zeros flag in the facts): the cumulative product of U[0,1) "
        "values underflows to exactly 0 after ~80-150 columns, so 99.7% of the official outputs are 0 (measured "
        "on 64 rows of U[0,1) x 32768: 99.68%, first zero at column 82), and only the first few dozen columns of "
        "each row carry information; any fault past them (a wrong carry, a lost chunk, a bad tail) passes "
        "T0_original. The targeted suites use near-one factors whose products stay of order 1 over the whole "
        "row. The official length 32768 is a multiple of the 256-element chunk, so no tail guard fires on T0. "
        "32768 x 32768 = 2^30 elements < 2^31, so a 32-bit flat-offset mutant does not overflow on any suite.",
    )
