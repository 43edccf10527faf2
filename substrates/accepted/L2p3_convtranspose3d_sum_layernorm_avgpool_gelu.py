"""KernelBench level 2, problem 3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU: gelu(avgpool(layer_norm(conv_t(x) + w))).

x is 32 x 32 x 16 x 32 x 32; nn.ConvTranspose3d(32, 64, 3, stride=2, padding=1, output_padding=1) with
bias, so each output size is (S - 1) * 2 - 2 * 1 + 3 + 1 = 2S and the transposed convolution gives
32 x 64 x 32 x 64 x 64 (268 M elements). A scalar parameter sum_weight (nn.Parameter(torch.tensor(1.0)))
is added; nn.LayerNorm((64,)) normalises over the LAST dimension, the output width (64 = out_channels
by coincidence of the official sizes: the LayerNorm weight fixes the output width at 64, hence the
input width at 32): every row (n, c, od, oh) of 64 values gets its own mean and biased variance, eps
1e-5, then the elementwise affine (ones, zeros). nn.AvgPool3d(2) (stride 2) halves every axis and the
exact (erf) GELU follows: the output is 32 x 64 x 16 x 32 x 32.

One kernel, one 256-thread block per pooled output row (n, c, pd, ph): the block computes the four
LayerNorm rows (od, oh) = (2 pd + a, 2 ph + b) that this pooled row averages, 64 threads per row, one
thread per transposed-convolution output. Each thread computes its output in gather form: it visits
every tap (kd, kh, kw), keeps it only where od + pad - kd (likewise for h and w) is a non-negative
multiple of the stride whose quotient lies inside the input, and sums x[n, ci, id, ih, iw] *
w[ci, co, kd, kh, kw] over the input channels (the ConvTranspose3d weight is [C_in, C_out, KD, KH, KW])
in fp32, plus the bias and sum_weight. Each row's 64 values go through a segmented shared-memory tree
(the four rows reduce side by side) for the mean and a second one of squared deviations for the
biased variance (two passes, as a careful first draft computes a variance); the normalised values
are parked in shared memory, and the first 32 threads each average a 2 x 2 x 2 window of them and
write its GELU. Flat offsets are 64-bit. Because the pooled axes are exactly half the LayerNorm's
(2S / 2), every transposed-convolution output is computed exactly once.

Cost: 268 M transposed-convolution outputs; about 3.4 of the 27 taps hit per output, times 32 input
channels (108 multiply-adds), but a warp steps through both kw parities: about 58 G multiply-add
slots, roughly 30-50 ms on an H200 at the 2-2.6 TFLOP/s of the accepted naive convolutions
(reference 9.71 ms).
"""

CUDA = r"""
const int LN_WIDTH = 64;        // LayerNorm((64,)) over the last axis: the output width
const int POOL = 2;             // AvgPool3d(kernel_size=2): stride 2
const int ROWS = 4;             // LayerNorm rows per pooled row: POOL x POOL (depth x height)
const int BLOCK_THREADS = 256;  // ROWS x LN_WIDTH: one thread per transposed-convolution output

extern "C" __global__ void convtranspose3d_sum_layernorm_avgpool_gelu_kernel(
    const float* __restrict__ x,            // [N, C_in, D, H, W]
    const float* __restrict__ w,            // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,       // [C_out]
    const float* __restrict__ sum_weight,   // [] (one value)
    const float* __restrict__ ln_w,         // [OW]  (LayerNorm weight)
    const float* __restrict__ ln_b,         // [OW]  (LayerNorm bias)
    float* __restrict__ out,                // [N, C_out, PD, PH, PW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int PD, int PH, int PW, int stride, int pad)
{
    const float LN_EPS = 1e-5f;                     // nn.LayerNorm default eps
    const float POOL_VOLUME = 8.0f;                 // 2 x 2 x 2 values per window
    const float INV_SQRT2 = 0.70710678118654752f;   // 1 / sqrt(2), for the exact GELU
    __shared__ float red[BLOCK_THREADS];
    __shared__ float zs[BLOCK_THREADS];             // zs[r * LN_WIDTH + ow] = normalised value

    long long prow = blockIdx.x;                    // pooled row (n, co, pd, ph)
    long long prows = (long long)N * C_out * PD * PH;
    if (prow >= prows) return;
    int tid = threadIdx.x;
    int r = tid / LN_WIDTH;                         // which of the four LayerNorm rows
    int ow = tid % LN_WIDTH;

    int ph = (int)(prow % PH);
    int pd = (int)((prow / PH) % PD);
    int co = (int)((prow / ((long long)PH * PD)) % C_out);
    int n = (int)(prow / ((long long)PH * PD * C_out));
    int od = pd * POOL + r / POOL;
    int oh = ph * POOL + r % POOL;

    float acc = 0.0f;
    if (ow < OW) {
        for (int kd = 0; kd < KD; ++kd) {
            int td = od + pad - kd;                 // = id * stride when the tap hits
            if (td < 0 || td % stride != 0) continue;
            int id = td / stride;
            if (id >= D) continue;
            for (int kh = 0; kh < KH; ++kh) {
                int th = oh + pad - kh;
                if (th < 0 || th % stride != 0) continue;
                int ih = th / stride;
                if (ih >= H) continue;
                for (int kw = 0; kw < KW; ++kw) {
                    int tw = ow + pad - kw;
                    if (tw < 0 || tw % stride != 0) continue;
                    int iw = tw / stride;
                    if (iw >= W) continue;
                    for (int ci = 0; ci < C_in; ++ci) {
                        float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                        float wv = w[((((long long)ci * C_out + co) * KD + kd) * KH + kh) * KW + kw];
                        acc += xv * wv;
                    }
                }
            }
        }
        acc = acc + conv_b[co] + sum_weight[0];
    }
    float v = acc;

    // Row means: four segmented tree reductions side by side, one per LN_WIDTH-wide row.
    red[tid] = (ow < OW) ? v : 0.0f;
    __syncthreads();
    for (int s = LN_WIDTH / 2; s > 0; s >>= 1) {
        if (ow < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[r * LN_WIDTH] / (float)OW;
    __syncthreads();    // every thread has read its row's sum before the second tree overwrites it

    // Row variances (biased): the squared deviations from each row's mean, same reductions.
    float d = v - mean;
    red[tid] = (ow < OW) ? d * d : 0.0f;
    __syncthreads();
    for (int s = LN_WIDTH / 2; s > 0; s >>= 1) {
        if (ow < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float var = red[r * LN_WIDTH] / (float)OW;
    float inv_std = 1.0f / sqrtf(var + LN_EPS);
    zs[tid] = (ow < OW) ? d * inv_std * ln_w[ow] + ln_b[ow] : 0.0f;
    __syncthreads();    // the four normalised rows are complete

    // Average pool over (2 rows in depth) x (2 rows in height) x (2 columns), then GELU.
    if (tid < PW) {
        int pw = tid;
        float sum = 0.0f;
        for (int rr = 0; rr < ROWS; ++rr) {
            for (int kw = 0; kw < POOL; ++kw) {
                sum += zs[rr * LN_WIDTH + pw * POOL + kw];
            }
        }
        float a = sum / POOL_VOLUME;
        out[prow * PW + pw] = a * 0.5f * (1.0f + erff(a * INV_SQRT2));     // exact GELU
    }
}
"""

BLOCK_THREADS = 256       # must equal BLOCK_THREADS in the CUDA source: 4 LayerNorm rows x 64
POOLED_ROWS_PER_BLOCK = 1 # one block per pooled output row (n, c, pd, ph)
IN_CHANNELS = 32          # fixed by the weight [32, 64, 3, 3, 3]
OUT_CHANNELS = 64
KERNEL_SIZE = 3
STRIDE = 2                # ConvTranspose3d(stride=2, padding=1, output_padding=1)
PADDING = 1
OUTPUT_PADDING = 1
POOL = 2                  # AvgPool3d(kernel_size=2)
IN_WIDTH = 32             # fixed: the LayerNorm((64,)) weight needs an output width of 2 * 32 = 64
NORM_SHAPE = (64,)
LN_EPS = 1e-5
SUM_WEIGHT = 1.0
SMALL_SCALE = 0.07        # T2: x = U[0, 0.07)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(32, 64, (3,3,3), (2,2,2), (1,1,1), (1,1,1), 1.0, (64,), (2,2,2)): conv_transpose
        # (with bias), sum_weight = tensor(1.0) (draws nothing), norm (ones, zeros), avg_pool, gelu
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(
            IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING
        )
        sum_weight = nn.Parameter(torch.tensor(SUM_WEIGHT))
        ln = nn.LayerNorm(NORM_SHAPE)
        return {"w": conv_t.weight, "b": conv_t.bias, "sum_w": sum_weight, "ln_w": ln.weight, "ln_b": ln.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD + OUTPUT_PADDING
        OH = (H - 1) * STRIDE - 2 * PADDING + KH + OUTPUT_PADDING
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW + OUTPUT_PADDING
        PD, PH, PW = OD // POOL, OH // POOL, OW // POOL
        out = torch.empty((N, C_out, PD, PH, PW), device=x.device, dtype=x.dtype)
        prows = N * C_out * PD * PH
        return (
            "convtranspose3d_sum_layernorm_avgpool_gelu_kernel",
            (K.cdiv(prows, POOLED_ROWS_PER_BLOCK), 1, 1),
            (BLOCK_THREADS, 1, 1),
            [x, w["w"], w["b"], w["sum_w"], w["ln_w"], w["ln_b"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, D),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KD),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OD),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, PD),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.conv_transpose3d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING, output_padding=OUTPUT_PADDING)
        y = y + w["sum_w"]
        y = F.layer_norm(y, NORM_SHAPE, w["ln_w"], w["ln_b"], LN_EPS)
        y = F.avg_pool3d(y, kernel_size=POOL)
        return F.gelu(y)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, depth, height, width)]
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], IN_WIDTH)]

    def small_var_inputs(torch, s):
        # U[0, SMALL_SCALE): the row variances of the transposed convolution are the size of eps.
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], IN_WIDTH) * SMALL_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the voxels set to U[0, 4).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], IN_WIDTH)
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape) * 4.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p3_convtranspose3d_sum_layernorm_avgpool_gelu",
        level=2,
        problem="3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU",
        cuda=CUDA,
        kernel_name="convtranspose3d_sum_layernorm_avgpool_gelu_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(32),
            "depth": K.dim(16),
            "height": K.dim(32),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 1, "depth": 2, "height": 3},
                small=True,
                purpose="1 x 64 x 4 x 6 x 64 transposed-convolution outputs pooled to 1 x 64 x 2 x 3 x 32: PD = 2 "
                "!= PH = 3, so swapped depth/height strides, divisors or pooled-row decompositions show, and "
                "with 2 x 3 input planes most outputs touch a border tap that falls outside the input; every "
                "block's four LayerNorm rows, segmented trees, pooling and GELU run in full (the row width 64 "
                "is fixed by the weights, so no row has a remainder, see notes)",
            ),
            K.suite(
                "T2_small_variance",
                small_var_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "depth": 3, "height": 5},
                purpose="x = U[0,0.07): LayerNorm is scale-invariant, so a same-sign large input would "
                "change nothing; scaled down, the row variances of the transposed convolution are the size of "
                "eps = 1e-5, so a dropped or perturbed eps, eps outside the square root, a std used as a "
                "variance or a variance over the wrong count change outputs by tens of percent (on U[0,1) eps "
                "is invisible)",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 4, "height": 6},
                purpose="about 2% isolated U[0,4) spikes on exact zeros: an output sees 1 to 8 input voxels of 32 "
                "channels (by the parity of its coordinates), a few of them spikes, so it depends on specific "
                "taps and a wrong parity test, a transposed weight index, a swapped tap or a wrong channel "
                "stride moves it; each row's distribution is skewed, and a pooled value averages a handful of "
                "large normalised values rather than many near-equal ones, so a wrong pooling window shows",
            ),
        ],
        notes="One kernel: a LayerNorm row is the 64 outputs along the width and a pooled row needs four of "
        "them, all computed by one 256-thread block, so no grid-wide step is needed. The LayerNorm affine is "
        "its init (weight ones, bias zeros), and no suite can change it, so mutants that drop or swap it at "
        "a valid index are equivalent. LayerNorm over the width removes any per-row constant: the conv bias "
        "and sum_weight never reach the output (mutants that drop or misindex them are equivalent up to "
        "rounding). The input width is fixed at 32 (the LayerNorm weight fixes the output width at 64), so "
        "the ow < OW guards never fire; only batch, depth and height are resizable, and the pooled sizes are "
        "exactly half the transposed convolution's, so pooling never drops a plane. The reference runs "
        "ConvTranspose3d through cuDNN with TF32 (the facts file measured this problem's reference beyond "
        "1e-4 of fp64, within 1e-2); LayerNorm makes that error relative to each row's spread and the "
        "pooling averages it: a CPU emulation of TF32 operand rounding (round-to-nearest and truncation) "
        "gave fp32-vs-fp64 allclose distances of at most ~4.3e-4 on the suites. The outputs are modest: each is "
        "the GELU of an average of 8 normalised values (on the official inputs, measured on the CPU at batch 2, "
        "|out| has mean 0.107 and max ~1.2; 94% of the outputs exceed 1e-2), so faults that move outputs by "
        "under ~1e-2 absolute pass. Stride 2, padding 1 and "
        "output padding 1 are model constants; the output padding only sets the output size.",
    )
