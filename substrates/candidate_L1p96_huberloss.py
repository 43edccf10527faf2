"""KernelBench level 1, problem 96_HuberLoss: torch.nn.functional.smooth_l1_loss(predictions, targets)
on two 32768 x 32768 fp32 tensors.

get_inputs() draws scale = torch.rand(()) first, then predictions = torch.rand(32768, 32768) * scale
and targets = torch.rand(32768, 32768). With the defaults (beta 1.0, mean reduction) each element
contributes 0.5 * d^2 / beta where d = |p - t| < beta and d - 0.5 * beta elsewhere, and the loss is
the mean over all elements. The output is a 0-d scalar. The model has no parameters.

One kernel, a fixed-order two-level reduction. Block r (256 threads) reduces row r: each thread
sums the smooth-L1 term of |p - t| over its strided columns in fp32, then a shared-memory tree gives the row
sum, which thread 0 stores in partials[r]; it then fences and takes a ticket from an atomic
counter. The block that draws the last ticket sums partials[0..batch) (strided per thread in fixed
order, then the same tree) and writes total / (batch * dim). Every sum has a fixed order, so the
result is bitwise deterministic. partials (every entry written before it is read) and counter
(zeroed by launch through K.zeros) are scratch arguments placed before the output. Each input has
2^30 elements; row offsets and the element count are 64-bit.

Cost: 8.6 GB read once + one 128 KB second pass: about 2-4 ms on an H200 (reference 3.93 ms).
"""

CUDA = r"""
const int HUBER_BLOCK = 256;    // threads per block; one block per row
const float HUBER_BETA = 1.0f;  // smooth_l1_loss default beta: quadratic below, linear above

extern "C" __global__ void huber_loss_kernel(
    const float* __restrict__ predictions,  // [batch, dim]
    const float* __restrict__ targets,      // [batch, dim]
    float* partials,                        // [batch]  per-row sums (scratch)
    int* counter,                           // [1]      blocks finished (scratch, zero at launch)
    float* __restrict__ out,                // []       scalar mean
    int batch, int dim)
{
    __shared__ float red[HUBER_BLOCK];
    __shared__ bool is_last;
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* p_row = predictions + (long long)row * dim;
    const float* t_row = targets + (long long)row * dim;

    // Phase 1: this row's sum of smooth-L1 terms, fp32, then a shared-memory tree.
    float thread_sum = 0.0f;
    for (int j = tid; j < dim; j += blockDim.x) {
        float d = fabsf(p_row[j] - t_row[j]);
        float term;
        if (d < HUBER_BETA) {
            term = 0.5f * d * d / HUBER_BETA;
        } else {
            term = d - 0.5f * HUBER_BETA;
        }
        thread_sum += term;
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }

    // Phase 2: publish the row sum, make it visible device-wide, then count finished rows.
    if (tid == 0) {
        partials[row] = red[0];
        __threadfence();
        int ticket = atomicAdd(counter, 1);
        is_last = (ticket == (int)gridDim.x - 1);
    }
    __syncthreads();
    if (!is_last) return;

    // Phase 3 (last block only): sum the row sums in a fixed order and divide by the element count.
    const volatile float* row_sums = partials;     // written by other blocks: read past the L1
    float total = 0.0f;
    for (int r = tid; r < batch; r += blockDim.x) {
        total += row_sums[r];
    }
    red[tid] = total;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        long long count = (long long)batch * dim;
        out[0] = red[0] / (float)count;
    }
}
"""

BLOCK = 256         # must equal HUBER_BLOCK (the shared buffer size) and be a power of two
ROWS_PER_BLOCK = 1  # one block reduces one row
HUBER_BETA = 1.0    # must equal the CUDA constant (smooth_l1_loss default)


def register(K, torch, ctypes):
    def launch(inputs, torch):
        predictions, targets = inputs
        batch, dim = predictions.shape
        partials = torch.empty(batch, device=predictions.device, dtype=predictions.dtype)
        counter = K.zeros(1, like=predictions, dtype=torch.int32)
        out = torch.empty((), device=predictions.device, dtype=predictions.dtype)
        return (
            "huber_loss_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [predictions, targets, partials, counter, out],
            [(ctypes.c_int, batch), (ctypes.c_int, dim)],
        )

    def ref(inputs, torch):
        predictions, targets = inputs
        return torch.nn.functional.smooth_l1_loss(predictions, targets)

    def rand_inputs(torch, s):
        # get_inputs(): scale = torch.rand(()); [torch.rand(B, D) * scale, torch.rand(B, D)]
        scale = torch.rand(())
        return [torch.rand(s["batch"], s["dim"]) * scale, torch.rand(s["batch"], s["dim"])]

    def signed_inputs(torch, s):
        # predictions U[-3, 3), targets U[0, 1): |p - t| spans 0..4 and crosses beta = 1 everywhere, so about a
        # third of the terms are quadratic and the rest linear; the loss is ~1.11.
        return [torch.rand(s["batch"], s["dim"]) * 6.0 - 3.0, torch.rand(s["batch"], s["dim"])]

    def spiky_row_inputs(torch, s):
        # Predictions equal to the targets (loss exactly 0) except on row 0, the last row and about 5% of the
        # others ("bad" rows): there p = t + 10 everywhere (linear terms of 9.5), and p = t + 300 (first column)
        # or t - 300 (last column) (terms of 299.5), so each bad row sums ~9.5 (dim - 2) + 599.
        B, D = s["batch"], s["dim"]
        t = torch.rand(B, D)
        p = t.clone()
        bad = torch.rand(B) < 0.05
        bad[0] = True
        bad[-1] = True
        nb = int(bad.sum())
        d = torch.full((nb, D), 10.0)
        d[:, 0] = 300.0
        d[:, -1] = -300.0
        p[bad] = t[bad] + d
        return [p, t]

    return K.substrate(
        name="L1p96_huberloss",
        level=1,
        problem="96_HuberLoss",
        cuda=CUDA,
        kernel_name="huber_loss_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768), "dim": K.dim(32768)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (|p - t| < 1 everywhere: only the "
                "quadratic branch acts; loss 0.075-0.141, see notes)",
            ),
            K.suite(
                "T1_remainder_signed",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 7, "dim": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233 (the column guard and the last partial stride matter); batch 7 "
                "!= dim, so dividing by batch, by dim or by batch * (dim +- 1) shows; predictions U[-3,3) against "
                "targets U[0,1) put two thirds of the terms in the linear branch (loss ~1.11), so a missing or "
                "wrong branch (0.5 d^2 everywhere: ~1.67; d everywhere: ~1.56; no -0.5 beta: ~1.44; a threshold "
                "other than beta; no fabsf) or a dropped row (1/7) is far outside the ~0.021 tolerance",
            ),
            K.suite(
                "T2_signed_tail",
                signed_inputs,
                seeds=[3, 4],
                sizes={"batch": 129, "dim": 4099},
                purpose="the signed values of T1 on 129 rows (the last block strides once past its 256 threads over "
                "the partials) of 4099 = 16 x 256 + 3 columns (a 3-element tail per row)",
            ),
            K.suite(
                "T3_spiky_rows",
                spiky_row_inputs,
                seeds=[5, 6],
                sizes={"batch": 300, "dim": 200},
                purpose="300 rows (the last block strides over the partials, 300 = 256 + 44) of 200 < 256 columns (56 "
                "idle threads per row block: reduction identities matter); ~17 rows, always including the first "
                "and the last, carry a loss of ~2480 each (all linear terms, a quarter of it in the first and last "
                "column) and the rest exactly 0, so a lost, duplicated or misplaced row partial, a last-block test "
                "off by one, or a final sum that skips the first or last partial moves the loss (~0.7-0.9) by ~0.04, "
                "beyond the ~0.017-0.019 tolerance; a column loop that drops the first or last column moves it by ~0.085 "
                "and a quadratic term for the 300s (45000 instead of 299.5) far more",
            ),
        ],
        notes="Weak at the official inputs: p = scale * U[0,1) and t = U[0,1) give |p - t| < 1 = beta everywhere, so "
        "the linear branch never acts and the loss is half the MSE: about 0.075, 0.078, 0.141, 0.087, 0.081 on the "
        "five official trials (scales 0.651, 0.573, 0.111, 0.462, 0.964 measured; losses measured on 256 x 4096 "
        "samples of each trial's distribution). The 1e-2 check allows ~0.011, i.e. 8-14% of the loss: a kernel "
        "without the linear branch (or with a wrong one, or a wrong beta >= 1), without fabsf, or that loses up "
        "to ~8% of the rows or columns passes T0_original, and the square official shape hides dividing by "
        "batch^2 or dim^2. The targeted suites cross beta and use non-square shapes. Two scratch buffers precede "
        "the output: partials [batch] (every entry written before the last block reads it) and a zeroed int32 "
        "ticket counter; the last block is found with __threadfence + atomicAdd and sums in a fixed order, so the "
        "result is deterministic. 2^30 elements per input: row offsets are 64-bit; row * dim stays below 2^31, so "
        "a 32-bit offset does not overflow on any suite.",
    )
