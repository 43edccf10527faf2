"""KernelBench level 1, problem 98_KLDivLoss:
kl_div(log(predictions), targets, reduction='batchmean') on two 16384 x 16384 fp32 tensors.

get_inputs() draws scale = torch.rand(()) first, then predictions = softmax(U[0,1) * scale) and
targets = softmax(U[0,1)) over the last dim. torch's kl_div (log_target=False) computes
xlogy(t, t) - t * log_p elementwise (a term is 0 where t == 0) and 'batchmean' divides the total
by the batch size (dim 0). The output is a 0-d scalar. The model has no parameters.

One kernel, a fixed-order two-level reduction. Block r (256 threads) reduces row r: each thread
sums its strided columns in fp32, then a shared-memory tree gives the row sum, which thread 0
stores in partials[r]; it then fences and takes a ticket from an atomic counter. The block that
draws the last ticket sums partials[0..batch) (strided per thread in fixed order, then the same
tree) and writes total / batch. Every partial and every sum has a fixed order, so the result is
bitwise deterministic. partials (every entry written before it is read) and counter (zeroed by
launch through K.zeros) are scratch arguments placed before the output.

Cost: 2.15 GB read once (2 logf per element) + one 64 KB second pass: about 1-2 ms on an H200
(reference 2.74 ms).
"""

CUDA = r"""
const int KL_BLOCK = 256;       // threads per block; one block per row

extern "C" __global__ void kldiv_batchmean_kernel(
    const float* __restrict__ predictions,  // [batch, dim]  probabilities (log is taken here)
    const float* __restrict__ targets,      // [batch, dim]  probabilities
    float* partials,                        // [batch]  per-row sums (scratch)
    int* counter,                           // [1]      blocks finished (scratch, zero at launch)
    float* __restrict__ out,                // []       scalar loss
    int batch, int dim)
{
    __shared__ float red[KL_BLOCK];
    __shared__ bool is_last;
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* p_row = predictions + (long long)row * dim;
    const float* t_row = targets + (long long)row * dim;

    // Phase 1: this row's sum of xlogy(t, t) - t * log(p), fp32, then a shared-memory tree.
    float thread_sum = 0.0f;
    for (int j = tid; j < dim; j += blockDim.x) {
        float t = t_row[j];
        float log_p = logf(p_row[j]);
        float xlogy_tt = (t == 0.0f) ? 0.0f : t * logf(t);     // xlogy(0, 0) = 0
        thread_sum += xlogy_tt - t * log_p;
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

    // Phase 3 (last block only): sum the row sums in a fixed order and apply 'batchmean'.
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
        out[0] = red[0] / (float)batch;
    }
}
"""

BLOCK = 256         # must equal KL_BLOCK (the shared buffer size) and be a power of two
ROWS_PER_BLOCK = 1  # one block reduces one row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        predictions, targets = inputs
        batch, dim = predictions.shape
        partials = torch.empty(batch, device=predictions.device, dtype=predictions.dtype)
        counter = K.zeros(1, like=predictions, dtype=torch.int32)
        out = torch.empty((), device=predictions.device, dtype=predictions.dtype)
        return (
            "kldiv_batchmean_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [predictions, targets, partials, counter, out],
            [(ctypes.c_int, batch), (ctypes.c_int, dim)],
        )

    def ref(inputs, torch):
        predictions, targets = inputs
        return torch.nn.functional.kl_div(torch.log(predictions), targets, reduction="batchmean")

    def rand_inputs(torch, s):
        # get_inputs(): scale = torch.rand(()); [(rand(B, D) * scale).softmax(-1), rand(B, D).softmax(-1)]
        scale = torch.rand(())
        return [
            (torch.rand(s["batch"], s["dim"]) * scale).softmax(dim=-1),
            torch.rand(s["batch"], s["dim"]).softmax(dim=-1),
        ]

    def peaked_inputs(torch, s):
        # Both sides softmax(U[0,8)): distributions with a spread of e^8 ~ 3000, KL of a few units
        # per row instead of the official ~0.05.
        return [
            (torch.rand(s["batch"], s["dim"]) * 8.0).softmax(dim=-1),
            (torch.rand(s["batch"], s["dim"]) * 8.0).softmax(dim=-1),
        ]

    def zero_target_inputs(torch, s):
        # Targets softmax(U[0,4)) with about 30% of the entries set to exact 0 (rows no longer sum
        # to 1, which kl_div does not require): those terms are xlogy(0, 0) - 0 * log p = 0.
        p = (torch.rand(s["batch"], s["dim"]) * 4.0).softmax(dim=-1)
        t = (torch.rand(s["batch"], s["dim"]) * 4.0).softmax(dim=-1)
        t[torch.rand(s["batch"], s["dim"]) < 0.3] = 0.0
        return [p, t]

    def spiky_row_inputs(torch, s):
        # Most rows have predictions identical to targets (KL exactly 0). Row 0, the last row and
        # about 5% of the others are "bad": their targets put ~47% of the mass on each of the first
        # and last columns (logits +8), where their predictions are ~1e-10 (logits -16), so each bad
        # row has KL ~20, about half of it in its last column.
        B, D = s["batch"], s["dim"]
        t = torch.rand(B, D).softmax(dim=-1)
        p = t.clone()
        bad = torch.rand(B) < 0.05
        bad[0] = True
        bad[-1] = True
        nb = int(bad.sum())
        t_logits = torch.rand(nb, D)
        t_logits[:, 0] += 8.0
        t_logits[:, -1] += 8.0
        p_logits = torch.rand(nb, D) * 4.0
        p_logits[:, 0] -= 16.0
        p_logits[:, -1] -= 16.0
        t[bad] = t_logits.softmax(dim=-1)
        p[bad] = p_logits.softmax(dim=-1)
        return [p, t]

    return K.substrate(
        name="L1p98_kldivloss",
        level=1,
        problem="98_KLDivLoss",
        cuda=CUDA,
        kernel_name="kldiv_batchmean_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(16384), "dim": K.dim(16384)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (loss ~0.04-0.08: see notes)",
            ),
            K.suite(
                "T1_remainder_peaked",
                peaked_inputs,
                seeds=[1, 2],
                sizes={"batch": 5, "dim": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233 (the column guard and the last partial stride matter); batch 5 "
                "!= dim, so dividing by dim or by numel instead of the batch is off by 200x; softmax(U[0,8)) on "
                "both sides gives a loss of a few units, so a dropped row, a missing xlogy(t,t) or t*log(p) term, "
                "or a lost tail of columns is far outside 1e-2 (unlike the official ~0.05 loss)",
            ),
            K.suite(
                "T2_zero_targets",
                zero_target_inputs,
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="about 30% of the targets are exact zeros: their terms must be 0 (xlogy(0,0) = 0), so a "
                "kernel that evaluates t * log(t) without the t == 0 case makes 0 * -inf = NaN; 4099 = 16 x 256 "
                "+ 3 columns gives a 3-element tail per row",
            ),
            K.suite(
                "T3_spiky_rows",
                spiky_row_inputs,
                seeds=[5, 6],
                sizes={"batch": 300, "dim": 200},
                purpose="300 rows (the last block strides twice over the partials, 300 = 256 + 44) of 200 < 256 "
                "columns (56 idle threads per row block: reduction identities matter); ~17 rows, always "
                "including the first and the last, carry KL ~20 each and the rest exactly 0, so a lost, "
                "duplicated or misplaced row partial, a last-block test off by one, or a final reduction that "
                "skips the first or last partial moves the loss (~1.3-1.5) by ~0.065, beyond the ~0.024 "
                "tolerance; "
                "half of each bad row's KL sits in its last column and most of the rest in its first, so a "
                "column loop that drops the first or last column fails too",
            ),
        ],
        notes="Weak at the official inputs: both sides are softmaxes over 16384 columns of U[0,1) values, so the "
        "loss is about (1 + scale^2) / 24 and depends mostly on the trial's scale = rand(()): over the five "
        "official trials scale = 0.65, 0.57, 0.11, 0.46, 0.96 and the loss is about 0.058, 0.054, 0.041, 0.050, "
        "0.079 (estimated on 64 rows). The 1e-2 check allows an absolute error of about 0.0105, i.e. 13-25% "
        "of the loss: a kernel that loses up to ~12% of the rows or columns passes all five trials. "
        "The square official shape also hides dividing by dim instead of batch. The targeted suites use "
        "peaked or structured distributions with a loss of order 1. Two scratch buffers precede the output: "
        "partials [batch] (not initialised; every entry is written before the last block reads it) and a "
        "zeroed int32 ticket counter. The last block is found with __threadfence + atomicAdd; the final sum "
        "is in a fixed order, so the result is deterministic. log(0) predictions would give -inf/NaN as in "
        "torch; no suite holds zero predictions.",
    )
