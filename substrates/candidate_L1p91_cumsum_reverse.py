"""KernelBench level 1, problem 91_cumsum_reverse: torch.cumsum(x.flip(1), dim=1).flip(1) on a
32768 x 32768 fp32 tensor, i.e. out[i, j] = sum of x[i, k] for k >= j (a suffix sum). The model
has no parameters.

One 256-thread block per row. The block walks the row from its right end in chunks of 256
elements: thread t of the chunk starting r0 elements from the right loads column
len - 1 - (r0 + t) into shared memory (zero past the row's left end), the block runs a Hillis-Steele
inclusive scan over the chunk (at every step each thread reads its partner, a barrier, then adds,
another barrier), each thread writes carry + its prefix, and every thread adds the chunk total
(the last prefix) to its running carry before a barrier frees the buffer for the next chunk. fp32
throughout, fixed order, no atomics. Row offsets are 64-bit; column indices fit in an int
(len <= 2^30).

Cost: 2^30 elements read and written once (8.6 GB) plus 16 barriers per 256-element chunk; about
10-20 ms on an H200 (reference 10.2 ms).
"""

CUDA = r"""
const int SCAN_BLOCK = 256;     // threads per block (one block per row); the chunk length

extern "C" __global__ void cumsum_reverse_kernel(
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

    float carry = 0.0f;     // sum of every element of the row right of the current chunk
    for (int r0 = 0; r0 < len; r0 += blockDim.x) {
        int r = r0 + tid;   // this thread's position counted from the right end of the row
        int j = len - 1 - r;    // the column this thread loads and writes
        if (r < len) {
            buf[tid] = x_row[j];
        } else {
            buf[tid] = 0.0f;
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

        if (r < len) {
            out_row[j] = carry + buf[tid];
        }
        carry = carry + buf[blockDim.x - 1];    // the chunk total (zeros past the left end add nothing)
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
            "cumsum_reverse_kernel",
            (K.cdiv(rows, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, rows), (ctypes.c_int, length)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.cumsum(x.flip(DIM), dim=DIM).flip(DIM)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, *input_shape)] with input_shape = (32768,)
        return [torch.rand(s["batch"], s["len"])]

    def signed_inputs(torch, s):
        # U[-1, 1): the suffix sum is a random walk (|out| ~ 0.58 sqrt(len - j)), so every term stays visible.
        return [torch.rand(s["batch"], s["len"]) * 2.0 - 1.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% random spikes in [-100, 100), plus, counted from the right end of the row,
        # a spike of 50 at the last and of -30 at the first element of every 256-element chunk (columns
        # len - 256 k and len - 1 - 256 k, k >= 1): the suffix sum is a step function.
        rows, length = s["batch"], s["len"]
        x = torch.zeros(rows, length)
        mask = torch.rand(rows, length) < 0.01
        x[mask] = torch.rand(int(mask.sum())) * 200.0 - 100.0
        rx = x.flip(DIM)    # a view: rx[:, r] is column len - 1 - r
        rx[:, BLOCK - 1 :: BLOCK] = 50.0
        rx[:, BLOCK::BLOCK] = -30.0
        return [x]

    return K.substrate(
        name="L1p91_cumsum_reverse",
        level=1,
        problem="91_cumsum_reverse",
        cuda=CUDA,
        kernel_name="cumsum_reverse_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768, max=2**31 - 1), "len": K.dim(32768, max=2**30)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "len": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233: four chunks from the right end, so the carry passes three "
                "chunk boundaries, and the last chunk (columns 0-232, the row's left end) has 23 threads past the "
                "end (their zero fill keeps the chunk total right, the r < len guards keep reads and writes in the "
                "row); signed U[-1,1) values make the suffix sum a random walk (|out| up to ~20) in which every "
                "lost, duplicated or shifted term shows at 1e-2",
            ),
            K.suite(
                "T2_long_signed",
                signed_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "len": 32773},
                purpose="official-length rows (32773 = 128 x 256 + 5: 129 chunks, a 5-element tail at the left end) "
                "with signed U[-1,1) values: the suffix sum stays a random walk (|out| ~ 0.58 sqrt(len - j), ~100 "
                "at column 0), so a fault late in the scan (a lost chunk total, a wrong carry, a bad tail, all on "
                "the left of the row) moves outputs far beyond 1e-2, where on the official U[0,1) inputs the "
                "running total (~(len - j)/2) hides any error below 1% of it",
            ),
            K.suite(
                "T3_spiky_boundaries",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 9, "len": 4099},
                purpose="exact zeros with about 1% spikes in [-100, 100) plus, counted from the right end, a spike of "
                "50 at the last and -30 at the first element of every 256-element chunk (16 chunks + a 3-element "
                "tail at columns 0-2): the suffix sum is a step function, so a scan offset that skips a step, a "
                "carry taken from the wrong lane, an exclusive instead of inclusive scan, a forward (prefix) scan, "
                "chunks aligned to the left end instead of the right, or a row/column stride error moves a whole "
                "step by a spike's height at exactly the positions that matter",
            ),
        ],
        notes="Official inputs are U[0,1), so the suffix sum grows as ~(len - j)/2 toward column 0 (about 16384 "
        "there): at rtol 1e-2 any fault whose effect at column j stays below ~(len - j)/200 passes T0_original; "
        "only the last columns of each row (the start of the scan) are sharp. The targeted suites use signed or "
        "spiky values. The official length 32768 is a multiple of the 256-element chunk, so no tail guard fires "
        "on T0. 32768 x 32768 = 2^30 elements < 2^31, so a 32-bit flat-offset mutant does not overflow on any "
        "suite.",
    )
