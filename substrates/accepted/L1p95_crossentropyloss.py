"""KernelBench level 1, problem 95_CrossEntropyLoss: torch.nn.functional.cross_entropy(predictions,
targets) with predictions 32768 x 4096 fp32 logits and targets of 32768 int64 class indices.

get_inputs() draws predictions = torch.rand(32768, 4096), then targets = torch.randint(0, 4096,
(32768,)); the v0.1 harness moves inputs with .cuda() and no dtype cast, so targets stay int64
(the HEAD harness casts them to float and the reference crashes). With the defaults (mean
reduction, no class weights, ignore_index -100 never drawn, no label smoothing) the loss is the
mean over rows of logsumexp(x_i) - x_i[t_i]. The output is a 0-d scalar. The model has no
parameters.

One kernel, a fixed-order two-level reduction. Block r (256 threads) handles row r in two passes:
the row max (per-thread running max over strided columns, then a shared-memory max tree), then the
sum of expf(x - max) (per-thread fp32 sums, then a sum tree); thread 0 forms the row loss
logf(sum) + max - x[t] and stores it in partials[r], fences and takes a ticket from an atomic
counter. The block that draws the last ticket sums partials[0..batch) (strided per thread in fixed
order, then the same tree) and writes total / batch. Every sum has a fixed order, so the result is
bitwise deterministic. partials (every entry written before it is read) and counter (zeroed by
launch through K.zeros) are scratch arguments placed before the output.

Cost: 537 MB read twice (the 16 KB row is re-read from L1/L2 for the exp pass) with one expf per
element: about 0.3-1 ms on an H200 (reference 0.413 ms).
"""

CUDA = r"""
const int CE_BLOCK = 256;       // threads per block; one block per row

extern "C" __global__ void cross_entropy_kernel(
    const float* __restrict__ predictions,  // [batch, classes]  logits
    const long long* __restrict__ targets,  // [batch]  int64 class indices in [0, classes)
    float* partials,                        // [batch]  per-row losses (scratch)
    int* counter,                           // [1]      blocks finished (scratch, zero at launch)
    float* __restrict__ out,                // []       scalar mean loss
    int batch, int classes)
{
    __shared__ float red[CE_BLOCK];
    __shared__ bool is_last;
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* x_row = predictions + (long long)row * classes;

    // Pass 1: the row max, the stabiliser of the log-sum-exp.
    const float NEG_INF = __int_as_float(0xff800000);
    float thread_max = NEG_INF;
    for (int j = tid; j < classes; j += blockDim.x) {
        float v = x_row[j];
        if (v > thread_max) {
            thread_max = v;
        }
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
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of exp(x - max), fp32, then a shared-memory tree.
    float thread_sum = 0.0f;
    for (int j = tid; j < classes; j += blockDim.x) {
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

    // Phase 3: the row loss -log_softmax(x)[t] = log(sum) + max - x[t]; publish it and count the row.
    if (tid == 0) {
        long long t = targets[row];
        partials[row] = logf(red[0]) + row_max - x_row[t];
        __threadfence();
        int ticket = atomicAdd(counter, 1);
        is_last = (ticket == (int)gridDim.x - 1);
    }
    __syncthreads();
    if (!is_last) return;

    // Phase 4 (last block only): sum the row losses in a fixed order and take the mean over rows.
    const volatile float* row_losses = partials;   // written by other blocks: read past the L1
    float total = 0.0f;
    for (int r = tid; r < batch; r += blockDim.x) {
        total += row_losses[r];
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

BLOCK = 256         # must equal CE_BLOCK (the shared buffer size) and be a power of two
ROWS_PER_BLOCK = 1  # one block reduces one row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        predictions, targets = inputs
        batch, classes = predictions.shape
        partials = torch.empty(batch, device=predictions.device, dtype=predictions.dtype)
        counter = K.zeros(1, like=predictions, dtype=torch.int32)
        out = torch.empty((), device=predictions.device, dtype=predictions.dtype)
        return (
            "cross_entropy_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [predictions, targets, partials, counter, out],
            [(ctypes.c_int, batch), (ctypes.c_int, classes)],
        )

    def ref(inputs, torch):
        predictions, targets = inputs
        return torch.nn.functional.cross_entropy(predictions, targets)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, num_classes), torch.randint(0, num_classes, (batch_size,))]
        return [torch.rand(s["batch"], s["classes"]), torch.randint(0, s["classes"], (s["batch"],))]

    def wide_inputs(low, width):
        # Logits low + U[0, width) and uniform random int64 targets: the target's logit varies by `width`
        # across rows, so picking the wrong logit changes the row loss by ~width / 3 on average.
        def gen(torch, s):
            x = low + torch.rand(s["batch"], s["classes"]) * width
            return [x, torch.randint(0, s["classes"], (s["batch"],))]

        return gen

    def spiky_row_inputs(torch, s):
        # Logits U[0,1). Most rows are confidently right: their target's logit is 20 (loss ~1e-6). Row 0,
        # the last row and about 5% of the others are confidently wrong: the target sits at the first column
        # (even bad rows) or the last (odd bad rows) with logit 0, and the other end column has logit 20, so
        # each bad row has a loss of ~20.
        B, C = s["batch"], s["classes"]
        x = torch.rand(B, C)
        t = torch.randint(0, C, (B,))
        r = torch.arange(B)
        bad = torch.rand(B) < 0.05
        bad[0] = True
        bad[-1] = True
        x[r, t] = 20.0
        rows = r[bad]
        first = torch.arange(rows.numel()) % 2 == 0
        t_bad = torch.where(first, 0, C - 1)
        x[rows] = torch.rand(rows.numel(), C)
        x[rows, t_bad] = 0.0
        x[rows, C - 1 - t_bad] = 20.0
        t[rows] = t_bad
        return [x, t]

    return K.substrate(
        name="L1p95_crossentropyloss",
        level=1,
        problem="95_CrossEntropyLoss",
        cuda=CUDA,
        kernel_name="cross_entropy_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768), "classes": K.dim(4096, min=2)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (loss ~8.36 on every trial: "
                "const-pass, see notes)",
            ),
            K.suite(
                "T1_remainder_wide",
                wide_inputs(0.0, 20.0),
                seeds=[1, 2],
                sizes={"batch": 7, "classes": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233 classes (the column guards and the last partial stride "
                "matter); batch 7 != classes, so dividing by the class count or the element count shows; logits "
                "U[0,20) make the target's logit vary by ~6 (std) between rows, so reading x at a wrong index "
                "(the row's first class, the target of another row, a 32-bit truncated or misread int64), a "
                "dropped row, a missing max (the log-sum-exp is then off only in rounding) or a lost class term "
                "moves the ~10-14 loss by far more than its ~0.11-0.15 tolerance",
            ),
            K.suite(
                "T2_spiky_rows",
                spiky_row_inputs,
                seeds=[3, 4],
                sizes={"batch": 300, "classes": 200},
                purpose="300 rows (the last block strides over the partials, 300 = 256 + 44) of 200 < 256 classes "
                "(56 idle threads per row: the -inf and 0 identities matter); ~17 rows, always including the first "
                "and the last, have loss ~20 with their target at the first or last class and the max logit 20 at "
                "the other end, the rest ~0: a lost, duplicated or misplaced row loss, a last-block test off by "
                "one, a final sum that skips the first or last partial, or a class loop that misses the first or "
                "last column moves the loss (~1.1) by >= 0.06, beyond the ~0.021 tolerance",
            ),
            K.suite(
                "T3_large_logits",
                wide_inputs(80.0, 20.0),
                seeds=[5, 6],
                sizes={"batch": 64, "classes": 4099},
                purpose="logits 80 + U[0,20): expf of an unshifted logit overflows fp32 (e^100 > 3.4e38), so a missing "
                "or wrong max subtraction (max of another row, a max tree that loses a lane) gives inf or a wrong "
                "loss, where the official U[0,1) logits never overflow; 4099 = 16 x 256 + 3 classes give a "
                "3-element tail per row",
            ),
        ],
        notes="Degenerate at the official inputs (const-pass): logits U[0,1) over 4096 classes make every row's "
        "log-sum-exp ~log(4096 (e - 1)) = 8.86 and the target's logit ~0.5 on average, so the loss is ~8.36 on "
        "every trial with a tolerance of ~0.094 (1.1%). Measured on the five official trials: losses 8.3585, 8.3582, "
        "8.3593, 8.3595, 8.3571; with every target replaced by class 0 they are 8.3580, 8.3574, 8.3604, 8.3563, "
        "8.3573, and with x[t] replaced by the row mean 8.3591. So returning the constant 8.36, ignoring the "
        "targets (x[0] or the row mean instead of x[t]), or reading another row's target passes T0_original. "
        "The targeted suites use wide, peaked or large logits. targets are int64 (no cast under v0.1) and read as "
        "long long; the kernel does not implement ignore_index (-100) or check target ranges (torch raises on an "
        "out-of-range target; no suite draws one). Two scratch buffers precede the output: partials [batch] and a "
        "zeroed int32 ticket counter, as in L1p98; the result is deterministic.",
    )
