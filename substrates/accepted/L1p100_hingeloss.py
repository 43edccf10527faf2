"""KernelBench level 1, problem 100_HingeLoss: mean(clamp(1 - predictions * targets, min=0)) with
predictions 32768 x 32768 fp32 and targets of shape (32768,).

get_inputs() draws predictions = torch.rand(32768, 32768), then targets =
torch.randint(0, 2, (32768,)).float() * 2 - 1 (values -1 and +1). targets broadcasts against the
LAST dim of predictions: element (i, j) pairs predictions[i, j] with targets[j] (the column), even
though the official source sizes targets with batch_size (32768 = the row length too). The output
is a 0-d scalar. The model has no parameters.

One kernel, a fixed-order two-level reduction. Block r (256 threads) reduces row r: each thread
sums max(1 - p[r, j] * t[j], 0) over its strided columns in fp32, then a shared-memory tree gives
the row sum, which thread 0 stores in partials[r]; it then fences and takes a ticket from an
atomic counter. The block that draws the last ticket sums partials[0..batch) (strided per thread
in fixed order, then the same tree) and writes total / (batch * dim). Every sum has a fixed
order, so the result is bitwise deterministic. partials (every entry written before it is read)
and counter (zeroed by launch through K.zeros) are scratch arguments placed before the output.
predictions holds 2^30 elements; row offsets and the element count are 64-bit.

Cost: 4.3 GB read once (targets, 128 KB, stay in cache) + one 128 KB second pass: about 1-2 ms on
an H200 (reference 8.04 ms).
"""

CUDA = r"""
const int HINGE_BLOCK = 256;    // threads per block; one block per row
const float MARGIN = 1.0f;      // hinge: 1 - p * t
const float CLAMP_MIN = 0.0f;   // clamp(..., min=0)

extern "C" __global__ void hinge_loss_kernel(
    const float* __restrict__ predictions,  // [batch, dim]
    const float* __restrict__ targets,      // [dim]  (+1 / -1, broadcast over rows: pairs with column j)
    float* partials,                        // [batch]  per-row sums (scratch)
    int* counter,                           // [1]      blocks finished (scratch, zero at launch)
    float* __restrict__ out,                // []       scalar mean
    int batch, int dim)
{
    __shared__ float red[HINGE_BLOCK];
    __shared__ bool is_last;
    int row = blockIdx.x;
    if (row >= batch) return;
    int tid = threadIdx.x;
    const float* p_row = predictions + (long long)row * dim;

    // Phase 1: this row's sum of clamp(1 - p * t, min=0), fp32, then a shared-memory tree.
    float thread_sum = 0.0f;
    for (int j = tid; j < dim; j += blockDim.x) {
        float margin = MARGIN - p_row[j] * targets[j];
        thread_sum += fmaxf(margin, CLAMP_MIN);
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

BLOCK = 256         # must equal HINGE_BLOCK (the shared buffer size) and be a power of two
ROWS_PER_BLOCK = 1  # one block reduces one row


def register(K, torch, ctypes):
    def launch(inputs, torch):
        predictions, targets = inputs
        batch, dim = predictions.shape
        partials = torch.empty(batch, device=predictions.device, dtype=predictions.dtype)
        counter = K.zeros(1, like=predictions, dtype=torch.int32)
        out = torch.empty((), device=predictions.device, dtype=predictions.dtype)
        return (
            "hinge_loss_kernel",
            (K.cdiv(batch, ROWS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [predictions, targets, partials, counter, out],
            [(ctypes.c_int, batch), (ctypes.c_int, dim)],
        )

    def ref(inputs, torch):
        predictions, targets = inputs
        return torch.mean(torch.clamp(1 - predictions * targets, min=0))

    def draw_targets(torch, n):
        return torch.randint(0, 2, (n,)).float() * 2 - 1

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 32768), torch.randint(0, 2, (batch_size,)).float() * 2 - 1];
        # targets must match the last dim for the broadcast, so its length is "dim" (= batch_size officially).
        return [torch.rand(s["batch"], s["dim"]), draw_targets(torch, s["dim"])]

    def margin_inputs(torch, s):
        # p[i, j] = t[j] * U[0, 2): p * t = U[0, 2), so the clamp zeroes about half of the terms
        # (loss ~0.25); pairing p[i, j] with t[i] instead makes half the products negative (~1.1).
        t = draw_targets(torch, s["dim"])
        p = torch.rand(s["batch"], s["dim"]) * 2.0 * t
        return [p, t]

    def signed_inputs(torch, s):
        # p = U[-2, 2): p * t crosses 1 and -1, the clamp acts on a quarter of the terms (loss 1.125
        # with the clamp, 1.0 without).
        return [torch.rand(s["batch"], s["dim"]) * 4.0 - 2.0, draw_targets(torch, s["dim"])]

    def spiky_row_inputs(torch, s):
        # Well classified everywhere, p = t * (1 + U[0,1)), loss exactly 0, except: the first and last
        # column of every row, p = -t * U[0,1000) (loss ~500 per element, together ~1000 / dim of the
        # mean), and row 0, the last row and about 2% of the others, p = -t * U[0,300) on the whole row
        # (loss ~150 per element, ~150 / batch of the mean per row).
        B, D = s["batch"], s["dim"]
        t = draw_targets(torch, D)
        p = (1.0 + torch.rand(B, D)) * t
        p[:, 0] = -torch.rand(B) * 1000.0 * t[0]
        p[:, -1] = -torch.rand(B) * 1000.0 * t[-1]
        bad = torch.rand(B) < 0.02
        bad[0] = True
        bad[-1] = True
        p[bad] = -torch.rand(int(bad.sum()), D) * 300.0 * t
        return [p, t]

    return K.substrate(
        name="L1p100_hingeloss",
        level=1,
        problem="100_HingeLoss",
        cuda=CUDA,
        kernel_name="hinge_loss_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(32768), "dim": K.dim(32768)},
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (loss ~1.0 whatever the kernel "
                "does right: see notes)",
            ),
            K.suite(
                "T1_remainder_margins",
                margin_inputs,
                seeds=[1, 2],
                sizes={"batch": 7, "dim": 1001},
                small=True,
                purpose="rows of 1001 = 3 x 256 + 233 (column guard, tail stride); batch 7 != dim, so indexing "
                "targets by row reads the wrong targets; p = t[j] * U[0,2) makes the loss "
                "depend on pairing p[i, j] with t[j] (0.25 right, ~1.1 with t[i]) and half the terms negative "
                "before the clamp (0.0 without the clamp), unlike the official inputs where the clamp never acts",
            ),
            K.suite(
                "T2_signed",
                signed_inputs,
                seeds=[3, 4],
                sizes={"batch": 129, "dim": 4099},
                purpose="p = U[-2,2): the clamp zeroes a quarter of the terms (1.125 with it, 1.0 without); 4099 = 16 x 256 + 3 columns leave a 3-element tail per row and "
                "129 rows make the final reduction stride once past the 256 threads",
            ),
            K.suite(
                "T3_spiky_rows",
                spiky_row_inputs,
                seeds=[5, 6],
                sizes={"batch": 600, "dim": 200},
                purpose="600 rows (the last block strides three times over the partials, 600 = 2 x 256 + 88) of "
                "200 < 256 columns (56 idle threads per row block); every row's first and last column carry a "
                "loss ~500 per element (~2.5 each of the mean ~8.5) and ~14 whole rows, always including the "
                "first and the last, ~150 per element (~0.25 of the mean each), everything else exactly 0: a "
                "column loop that skips the first or last column, a lost, duplicated or misplaced row partial, "
                "a last-block test off by one or a final sum that skips the first or last partial all move the "
                "mean beyond the ~0.095 tolerance",
            ),
        ],
        notes="Degenerate at the official inputs (const-pass): with p = U[0,1) and t = +-1 the margin 1 - p * t is "
        "always positive, so the clamp never acts, and the loss is 0.5 + (fraction of -1 targets) + O(1e-5), "
        "measured 0.9956, 0.9980, 1.0025, 0.9996, 0.9981 on the five official trials; the 1e-2 check allows "
        "~0.02, so returning the constant 1.0, "
        "dropping the clamp, pairing each prediction with targets[row] instead of targets[col], or losing "
        "up to ~1.5% of the rows or columns all pass T0_original. The targeted suites use structured margins "
        "and non-square shapes. targets has length dim (the broadcast needs it); officially dim = batch_size, "
        "so T0 draws exactly torch.randint(0, 2, (32768,)). Two scratch buffers precede the output: "
        "partials [batch] (every entry written before the last block reads it) and a zeroed int32 ticket "
        "counter; the last block is found with __threadfence + atomicAdd and sums in a fixed order, so the "
        "result is deterministic. fmaxf(m, 0) maps a NaN margin to 0 where torch.clamp keeps NaN (no suite "
        "holds NaN).",
    )
