"""KernelBench level 1, problem 94_MSELoss: torch.mean((predictions - targets) ** 2) on two
32768 x 32768 fp32 tensors.

get_inputs() draws scale = torch.rand(()) first, then predictions = torch.rand(32768, 32768) * scale
and targets = torch.rand(32768, 32768). The output is a 0-d scalar. The model has no parameters.

One kernel, a fixed-order two-level reduction. Block r (256 threads) reduces row r: each thread
sums (p - t) * (p - t) over its strided columns in fp32, then a shared-memory tree gives the row
sum, which thread 0 stores in partials[r]; it then fences and takes a ticket from an atomic
counter. The block that draws the last ticket sums partials[0..batch) (strided per thread in fixed
order, then the same tree) and writes total / (batch * dim). Every sum has a fixed order, so the
result is bitwise deterministic. partials (every entry written before it is read) and counter
(zeroed by launch through K.zeros) are scratch arguments placed before the output. Each input has
2^30 elements; row offsets and the element count are 64-bit.

Cost: 8.6 GB read once + one 128 KB second pass: about 2-4 ms on an H200 (reference 5.94 ms).
"""

CUDA = r"""
const int MSE_BLOCK = 256;      // threads per block; one block per row

extern "C" __global__ void mse_loss_kernel(
    const float* __restrict__ predictions,  // [batch, dim]
    const float* __restrict__ targets,      // [batch, dim]
    float* partials,                        // [batch]  per-row sums (scratch)
    int* counter,                           // [1]      blocks finished (scratch, zero at launch)
    float* __restrict__ out,                // []       scalar mean
    int batch, int dim)
{
    __shared__ float red[MSE_BLOCK];
    __shared__ bool is_last;
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* p_row = predictions + (long long)row * dim;
    const float* t_row = targets + (long long)row * dim;

    // Phase 1: this row's sum of (p - t)^2, fp32, then a shared-memory tree.
    float thread_sum = 0.0f;
    for (int j = tid; j < dim; j += blockDim.x) {
        float d = p_row[j] - t_row[j];
        thread_sum += d * d;
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

BLOCK = 256         # must equal MSE_BLOCK (the shared buffer size) and be a power of two
ROWS_PER_BLOCK = 1  # one block reduces one row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        predictions, targets = inputs
        batch, dim = predictions.shape
        partials = torch.empty(batch, device=predictions.device, dtype=predictions.dtype)
        counter = K.zeros(1, like=predictions, dtype=torch.int32)
        out = torch.empty((), device=predictions.device, dtype=predictions.dtype)
        return (
            "mse_loss_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [predictions, targets, partials, counter, out],
            [(ctypes.c_int, batch), (ctypes.c_int, dim)],
        )

    def ref(inputs, torch):
        predictions, targets = inputs
        return torch.mean((predictions - targets) ** 2)

    def rand_inputs(torch, s):
        # get_inputs(): scale = torch.rand(()); [torch.rand(B, D) * scale, torch.rand(B, D)]
        scale = torch.rand(())
        return [torch.rand(s["batch"], s["dim"]) * scale, torch.rand(s["batch"], s["dim"])]

    def signed_inputs(torch, s):
        # predictions U[-2, 2), targets U[0, 1): E[(p - t)^2] = 4/3 + 1/3 = 5/3, while E[p - t] = -1/2 and
        # E[|p - t|] ~ 1.06, so a missing square or a sign slip changes the loss by far more than 1e-2.
        return [torch.rand(s["batch"], s["dim"]) * 4.0 - 2.0, torch.rand(s["batch"], s["dim"])]

    def spiky_row_inputs(torch, s):
        # Predictions equal to the targets (loss exactly 0) except on row 0, the last row and about 5% of the
        # others ("bad" rows): there p = t + 3 everywhere, and p = t + 30 (first column) or t - 30 (last
        # column), so each bad row sums ~9 (dim - 2) + 1800, half of it in its first and last columns.
        B, D = s["batch"], s["dim"]
        t = torch.rand(B, D)
        p = t.clone()
        bad = torch.rand(B) < 0.05
        bad[0] = True
        bad[-1] = True
        nb = int(bad.sum())
        d = torch.full((nb, D), 3.0)
        d[:, 0] = 30.0
        d[:, -1] = -30.0
        p[bad] = t[bad] + d
        return [p, t]

    return K.substrate(
        name="L1p94_mseloss",
        level=1,
        problem="94_MSELoss",
        cuda=CUDA,
        kernel_name="mse_loss_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768), "dim": K.dim(32768)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (loss 0.149-0.282, set by the trial's "
                "scale: see notes)",
            ),
            K.suite(
                "T1_remainder_signed",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 7, "dim": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233 (the column guard and the last partial stride matter); batch 7 "
                "!= dim, so dividing by batch, by dim or by batch * (dim +- 1) shows; predictions U[-2,2) against "
                "targets U[0,1) give a loss of ~1.67, so a dropped row (1/7), a lost tail of columns, a missing "
                "square (mean p - t = -0.5) or |p - t| (~1.06) is far outside 1e-2",
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
                "and the last, carry a loss of ~3600 each and the rest exactly 0, so a lost, duplicated or "
                "misplaced row partial, a last-block test off by one, or a final sum that skips the first or last "
                "partial moves the loss (~1.0-1.3) by ~0.06, beyond the ~0.02-0.023 tolerance; half of each bad row's sum "
                "sits in its first and last column, so a column loop that drops either fails too",
            ),
        ],
        notes="Weak at the official inputs: with p = scale * U[0,1) and t = U[0,1) the loss is about "
        "scale^2 / 3 - scale / 2 + 1/3 (0.146 to 0.333 over all scales); the five official trials draw scale = "
        "0.651, 0.573, 0.111, 0.462, 0.964, so the losses are about 0.149, 0.156, 0.282, 0.174, 0.161 (measured "
        "scales; losses from the formula, matching 256 x 4096 samples to 3e-4). The 1e-2 check allows ~0.0115-"
        "0.013, i.e. 4.5-8% of the loss: a kernel that loses up to ~4% of the rows or columns passes T0_original, "
        "and the square official shape hides dividing by batch^2 or dim^2 instead of batch * dim (all equal). "
        "The targeted suites use signed or structured differences and non-square shapes. Two scratch buffers "
        "precede the output: partials [batch] (every entry written before the last block reads it) and a zeroed "
        "int32 ticket counter; the last block is found with __threadfence + atomicAdd and sums in a fixed order, "
        "so the result is deterministic. 2^30 elements per input: row offsets are 64-bit; row * dim stays below "
        "2^31, so a 32-bit offset does not overflow on any suite.",
    )
