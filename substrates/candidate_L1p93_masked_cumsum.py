"""KernelBench level 1, problem 93_masked_cumsum: torch.cumsum(x * mask, dim=1) on x 32768 x 32768 fp32
and a bool mask of the same shape.

get_inputs() draws x = torch.rand(32768, 32768), then mask = torch.randint(0, 2, x.shape).bool(); the
v0.1 harness moves both to the GPU without a dtype cast, so the mask stays bool (one byte per
element). x * mask keeps x where the mask is true and gives 0 (x * 0) elsewhere. The model has no
parameters.

One 256-thread block per row. The block walks the row in chunks of 256 elements: each thread loads
x * (mask ? 1 : 0) into shared memory (zero past the end of the row), the block runs a
Hillis-Steele inclusive scan over the chunk (at every step each thread reads its partner, a barrier,
then adds, another barrier), each thread writes carry + its prefix, and every thread adds the chunk
total (the last prefix) to its running carry before a barrier frees the buffer for the next chunk.
fp32 throughout, fixed order, no atomics. Row offsets are 64-bit; column indices fit in an int
(len <= 2^30).

Cost: 2^30 elements: 4.3 GB of x and 1.07 GB of mask read once, 4.3 GB written, plus 16 barriers per
256-element chunk; about 10-20 ms on an H200 (reference 7.48 ms).
"""

CUDA = r"""
const int SCAN_BLOCK = 256;     // threads per block (one block per row); the chunk length

extern "C" __global__ void masked_cumsum_kernel(
    const float* __restrict__ x,    // [rows, len]
    const bool* __restrict__ mask,  // [rows, len]  (torch.bool, one byte per element)
    float* __restrict__ out,        // [rows, len]
    int rows, int len)
{
    __shared__ float buf[SCAN_BLOCK];
    int row = blockIdx.x;
    if (row >= rows) return;
    int tid = threadIdx.x;
    const float* x_row = x + (long long)row * len;
    const bool* mask_row = mask + (long long)row * len;
    float* out_row = out + (long long)row * len;

    float carry = 0.0f;     // sum of every masked element of the row before the current chunk
    for (int c0 = 0; c0 < len; c0 += blockDim.x) {
        int j = c0 + tid;   // the column this thread loads and writes
        if (j < len) {
            float m = mask_row[j] ? 1.0f : 0.0f;    // x * mask: the bool promotes to 1 or 0
            buf[tid] = x_row[j] * m;
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

        if (j < len) {
            out_row[j] = carry + buf[tid];
        }
        carry = carry + buf[blockDim.x - 1];    // the chunk total (zeros past the end add nothing)
        __syncthreads();    // everyone has read buf before the next chunk overwrites it
    }
}
"""

BLOCK = 256         # must equal SCAN_BLOCK (the shared buffer size); a power of two
ROWS_PER_BLOCK = 1  # one block scans one row
DIM = 1             # Model(dim=1): the scan runs along the columns of each row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        x, mask = inputs
        rows, length = x.shape
        out = torch.empty_like(x)
        return (
            "masked_cumsum_kernel",
            (K.cdiv(rows, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, mask, out],
            [(ctypes.c_int, rows), (ctypes.c_int, length)],
        )

    def ref(inputs, torch):
        x, mask = inputs
        return torch.cumsum(x * mask, dim=DIM)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, *input_shape); mask = torch.randint(0, 2, x.shape).bool()
        x = torch.rand(s["batch"], s["len"])
        mask = torch.randint(0, 2, x.shape).bool()
        return [x, mask]

    def decoy_inputs(torch, s):
        # Kept values U[-1, 1) (a random walk, |out| ~ 0.41 sqrt(j)) and masked-out values of +-100 (random
        # sign): a kernel that ignores or inverts the mask is off by hundreds.
        rows, length = s["batch"], s["len"]
        mask = torch.rand(rows, length) < 0.5
        kept = torch.rand(rows, length) * 2.0 - 1.0
        decoy = torch.where(torch.rand(rows, length) < 0.5, -100.0, 100.0)
        return [torch.where(mask, kept, decoy), mask]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% kept spikes in [-100, 100), a kept spike of 50 at the last and of -30 at
        # the first element of every 256-element chunk, and masked-out decoys of 1000 at about 30% of the other
        # positions and always at chunk offsets 1 and 254 (next to the kept boundary spikes).
        rows, length = s["batch"], s["len"]
        x = torch.zeros(rows, length)
        mask = torch.ones(rows, length, dtype=torch.bool)
        spikes = torch.rand(rows, length) < 0.01
        x[spikes] = torch.rand(int(spikes.sum())) * 200.0 - 100.0
        decoys = (torch.rand(rows, length) < 0.3) & ~spikes
        decoys[:, 1::BLOCK] = True
        decoys[:, BLOCK - 2 :: BLOCK] = True
        x[decoys] = 1000.0
        mask[decoys] = False
        x[:, BLOCK - 1 :: BLOCK] = 50.0
        mask[:, BLOCK - 1 :: BLOCK] = True
        x[:, BLOCK::BLOCK] = -30.0
        mask[:, BLOCK::BLOCK] = True
        return [x, mask]

    return K.substrate(
        name="L1p93_masked_cumsum",
        level=1,
        problem="93_masked_cumsum",
        cuda=CUDA,
        kernel_name="masked_cumsum_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768, max=2**31 - 1), "len": K.dim(32768, max=2**30)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_decoys",
                decoy_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "len": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233: four chunks, so the carry passes three chunk boundaries, and "
                "the last chunk has 23 threads past the end (zero fill, j < len guards); kept values U[-1,1) make "
                "the cumsum a random walk in which every lost, duplicated or shifted term shows, and masked-out "
                "values of +-100 make a kernel that ignores, inverts or misindexes the mask (a mask row stride or "
                "offset slip) off by hundreds, where on the official U[0,1) inputs a wrong mask bit costs at most 1 "
                "against a running total of ~j/4",
            ),
            K.suite(
                "T2_long_decoys",
                decoy_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "len": 32773},
                purpose="official-length rows (32773 = 128 x 256 + 5: 129 chunks, a 5-element tail) with the decoys of "
                "T1: the kept cumsum stays a random walk (~75 at the end), so a fault late in a row (a lost chunk "
                "total, a wrong carry, a bad tail, a mask read past the row) moves outputs far beyond 1e-2",
            ),
            K.suite(
                "T3_spiky_boundaries",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 9, "len": 4099},
                purpose="exact zeros with about 1% kept spikes in [-100, 100), kept spikes of 50 and -30 at the last "
                "and first element of every 256-element chunk, and masked-out 1000s at ~30% of the other positions "
                "(always at chunk offsets 1 and 254): the cumsum is a step function, so a scan offset that skips a "
                "step, a carry taken from the wrong lane, an exclusive instead of inclusive scan, or a mask bit "
                "read one element off moves a step by 30-1000 at exactly the positions that matter",
            ),
        ],
        notes="Official inputs are U[0,1) with a fair random mask, so the running total grows as ~j/4 (about 8192 at "
        "the row end): at rtol 1e-2 any fault whose effect at column j stays below ~j/400 passes T0_original (a "
        "mask bit read one element off, a lost chunk total late in the row); ignoring the mask doubles the total "
        "and fails. The targeted suites put large values behind the mask. The mask is torch.bool (not cast, as "
        "in v0.1) and read as one byte per element. The CUDA kernel computes x * (mask ? 1 : 0) like torch's "
        "x * mask (an inf or NaN behind a false mask still gives NaN; no suite holds them). 32768 x 32768 = 2^30 "
        "elements < 2^31, so a 32-bit flat-offset mutant does not overflow on any suite.",
    )
