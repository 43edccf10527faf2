"""KernelBench level 1, problem 99_TripletMarginLoss: nn.TripletMarginLoss(margin=1.0) on anchor,
positive and negative, each 32768 x 8192 fp32.

get_inputs() draws scale = torch.rand(()) first, then anchor = torch.rand(32768, 8192) * scale,
positive = torch.rand(32768, 8192) and negative = torch.rand(32768, 8192). Model(1.0) keeps the other
defaults (p = 2, eps = 1e-6, swap = False, mean reduction): with pairwise_distance d(x, y) =
||x - y + eps||_2 over dim 1, the loss is the mean over rows of max(d(a, p) - d(a, n) + margin, 0).
The output is a 0-d scalar. The module has no parameters.

One kernel, a fixed-order two-level reduction. Block r (256 threads) handles row r: each thread
sums (a - p + eps)^2 and (a - n + eps)^2 over its strided columns in fp32, two shared-memory trees
(side by side, one barrier per step) give both sums, and thread 0 forms the row loss
fmaxf(sqrtf(s_ap) - sqrtf(s_an) + margin, 0), stores it in partials[r], fences and takes a ticket
from an atomic counter. The block that draws the last ticket sums partials[0..batch) (strided per
thread in fixed order, then a tree) and writes total / batch. Every sum has a fixed order, so the
result is bitwise deterministic. partials (every entry written before it is read) and counter
(zeroed by launch through K.zeros) are scratch arguments placed before the output.

Cost: 3.2 GB read once + one 128 KB second pass: about 1-2 ms on an H200 (reference 3.1 ms).
"""

CUDA = r"""
const int TM_BLOCK = 256;       // threads per block; one block per row
const float TM_MARGIN = 1.0f;   // Model(margin=1.0)
const float TM_EPS = 1e-6f;     // pairwise_distance eps, added to every difference
const float TM_CLAMP_MIN = 0.0f;

extern "C" __global__ void triplet_margin_loss_kernel(
    const float* __restrict__ anchor,       // [batch, dim]
    const float* __restrict__ positive,     // [batch, dim]
    const float* __restrict__ negative,     // [batch, dim]
    float* partials,                        // [batch]  per-row losses (scratch)
    int* counter,                           // [1]      blocks finished (scratch, zero at launch)
    float* __restrict__ out,                // []       scalar mean loss
    int batch, int dim)
{
    __shared__ float red_ap[TM_BLOCK];
    __shared__ float red_an[TM_BLOCK];
    __shared__ bool is_last;
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* a_row = anchor + (long long)row * dim;
    const float* p_row = positive + (long long)row * dim;
    const float* n_row = negative + (long long)row * dim;

    // Phase 1: both squared distances of this row, fp32, then two shared-memory trees.
    float sum_ap = 0.0f;
    float sum_an = 0.0f;
    for (int j = tid; j < dim; j += blockDim.x) {
        float a = a_row[j];
        float dp = a - p_row[j] + TM_EPS;
        float dn = a - n_row[j] + TM_EPS;
        sum_ap += dp * dp;
        sum_an += dn * dn;
    }
    red_ap[tid] = sum_ap;
    red_an[tid] = sum_an;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red_ap[tid] = red_ap[tid] + red_ap[tid + s];
            red_an[tid] = red_an[tid] + red_an[tid + s];
        }
        __syncthreads();
    }

    // Phase 2: the row loss max(d_ap - d_an + margin, 0); publish it and count the row.
    if (tid == 0) {
        float d_ap = sqrtf(red_ap[0]);
        float d_an = sqrtf(red_an[0]);
        partials[row] = fmaxf(d_ap - d_an + TM_MARGIN, TM_CLAMP_MIN);
        __threadfence();
        int ticket = atomicAdd(counter, 1);
        is_last = (ticket == (int)gridDim.x - 1);
    }
    __syncthreads();
    if (!is_last) return;

    // Phase 3 (last block only): sum the row losses in a fixed order and take the mean over rows.
    const volatile float* row_losses = partials;   // written by other blocks: read past the L1
    float total = 0.0f;
    for (int r = tid; r < batch; r += blockDim.x) {
        total += row_losses[r];
    }
    red_ap[tid] = total;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red_ap[tid] = red_ap[tid] + red_ap[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[0] = red_ap[0] / (float)batch;
    }
}
"""

BLOCK = 256         # must equal TM_BLOCK (the shared buffer size) and be a power of two
ROWS_PER_BLOCK = 1  # one block reduces one row
MARGIN = 1.0        # get_init_inputs() = [1.0]; must equal TM_MARGIN
TM_P = 2.0          # nn.TripletMarginLoss defaults
TM_EPS = 1e-6


def register(K, torch, ctypes):
    def launch(inputs, torch):
        anchor, positive, negative = inputs
        batch, dim = anchor.shape
        partials = torch.empty(batch, device=anchor.device, dtype=anchor.dtype)
        counter = K.zeros(1, like=anchor, dtype=torch.int32)
        out = torch.empty((), device=anchor.device, dtype=anchor.dtype)
        return (
            "triplet_margin_loss_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [anchor, positive, negative, partials, counter, out],
            [(ctypes.c_int, batch), (ctypes.c_int, dim)],
        )

    def ref(inputs, torch):
        # nn.TripletMarginLoss(margin=1.0).forward
        anchor, positive, negative = inputs
        return torch.nn.functional.triplet_margin_loss(
            anchor, positive, negative, margin=MARGIN, p=TM_P, eps=TM_EPS, swap=False, reduction="mean"
        )

    def rand_inputs(torch, s):
        # get_inputs(): scale = torch.rand(()); [rand(B, D) * scale, rand(B, D), rand(B, D)]
        scale = torch.rand(())
        B, D = s["batch"], s["dim"]
        return [torch.rand(B, D) * scale, torch.rand(B, D), torch.rand(B, D)]

    def margin_inputs(torch, s):
        # anchor U[0,1); positive and negative are the anchor plus uniform noise whose norm is about r_p and
        # r_n, drawn per row from U[0, 2): the row loss max(r_p - r_n + 1, 0) spans 0..3 and the clamp acts
        # on about 1/8 of the rows.
        B, D = s["batch"], s["dim"]
        a = torch.rand(B, D)
        unit = (3.0 / D) ** 0.5     # U[-unit, unit) noise over D columns has norm ~1
        r_p = 2.0 * torch.rand(B, 1)
        r_n = 2.0 * torch.rand(B, 1)
        p = a + (torch.rand(B, D) * 2.0 - 1.0) * unit * r_p
        n = a + (torch.rand(B, D) * 2.0 - 1.0) * unit * r_n
        return [a, p, n]

    def spiky_row_inputs(torch, s):
        # Easy rows: positive = anchor, negative = anchor + 5 (d_an ~ 5 sqrt(dim) >> margin): loss 0, and -70
        # without the clamp. Bad rows (row 0, the last row and about 5% of the others): negative = anchor and
        # positive = anchor except +30 in the first and -30 in the last column: loss ~43.4.
        B, D = s["batch"], s["dim"]
        a = torch.rand(B, D)
        p = a.clone()
        n = a + 5.0
        bad = torch.rand(B) < 0.05
        bad[0] = True
        bad[-1] = True
        n[bad] = a[bad]
        p[bad, 0] = a[bad, 0] + 30.0
        p[bad, -1] = a[bad, -1] - 30.0
        return [a, p, n]

    return K.substrate(
        name="L1p99_tripletmarginloss",
        level=1,
        problem="99_TripletMarginLoss",
        cuda=CUDA,
        kernel_name="triplet_margin_loss_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768), "dim": K.dim(8192)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (loss ~1.0 whatever the kernel does "
                "right: const-pass, see notes)",
            ),
            K.suite(
                "T1_remainder_margins",
                margin_inputs,
                seeds=[1, 2],
                sizes={"batch": 7, "dim": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233 (column guards, the last partial stride); positive and "
                "negative at per-row distances U[0,2) from the anchor: row losses 0..3 with the clamp active on "
                "some rows, so swapping positive and negative, a missing sqrt (squared distances), a missing or "
                "wrong clamp or margin, a dropped row (1/7), or dividing by dim shows, where on the official inputs "
                "d_ap - d_an is ~0 and every row loss is ~1",
            ),
            K.suite(
                "T2_margins_tail",
                margin_inputs,
                seeds=[3, 4],
                sizes={"batch": 129, "dim": 4099},
                purpose="the margins of T1 on 129 rows (the last block strides once past its 256 threads over the "
                "partials) of 4099 = 16 x 256 + 3 columns (a 3-element tail per row)",
            ),
            K.suite(
                "T3_spiky_rows",
                spiky_row_inputs,
                seeds=[5, 6],
                sizes={"batch": 300, "dim": 200},
                purpose="300 rows (the last block strides over the partials, 300 = 256 + 44) of 200 < 256 columns (56 "
                "idle threads per row: the reduction identities matter); easy rows have loss 0 only through the "
                "clamp (-70 without it); ~17 bad rows, always including the first and the last, have loss ~43 "
                "carried by their first and last columns: a lost, duplicated or misplaced row loss, a last-block "
                "test off by one, a final sum that skips the first or last partial, or a column loop that drops "
                "the first or last column moves the loss (~2.5) by >= 0.14, beyond the ~0.035 tolerance",
            ),
        ],
        notes="Degenerate at the official inputs (const-pass): anchor = scale * U, positive and negative = U over "
        "8192 columns give d(a, p) and d(a, n) from the same distribution (~35-48), whose difference has a std of "
        "~0.3, so nearly every row loss is 1 + (d_ap - d_an) > 0. Measured on the five official trials: losses "
        "1.00026, 0.99919, 0.99788, 0.99941, 0.99998 (without the clamp 1.00022, 0.99913, 0.99764, 0.99932, "
        "0.99994; rows clamped 0.04-0.22%; d_ap - d_an std 0.30-0.35). The 1e-2 check allows ~0.02, so returning "
        "1.0, dropping the clamp, swapping positive and negative (the loss becomes ~2 - loss), or losing a few "
        "percent of the rows or columns passes T0_original. The eps (1e-6, added to every difference) moves the "
        "distances by ~1e-6 relative and is invisible at 1e-2 on every suite. Two scratch buffers precede the "
        "output: partials [batch] and a zeroed int32 ticket counter, as in L1p98; the result is deterministic. "
        "2^28 elements per input: 32-bit offsets do not overflow on any suite.",
    )
