"""KernelBench level 2, problem 34_ConvTranspose3d_LayerNorm_GELU_Scaling: gelu(layer_norm(conv_t(x))) * 1.0.

x is 32 x 32 x 16 x 32 x 32; nn.ConvTranspose3d(32, 64, 4, stride=2, padding=1) with bias, so each
output size is (S - 1) * 2 - 2 * 1 + 4 = 2S and the transposed convolution gives 32 x 64 x 32 x 64 x 64
(268 M elements). nn.LayerNorm(64, eps=1e-5) normalises over the LAST dimension, which is the output
width (64 = out_channels by coincidence of the official sizes: the LayerNorm weight fixes the output
width at 64, hence the input width at 32): every row (n, c, od, oh) of 64 values gets its own mean and
biased variance, then the elementwise affine (ones, zeros). Then the exact (erf) GELU and
scaling_factor = 1.0.

One kernel, one 64-thread block per output row (n, c, od, oh), one thread per output element ow. Each
thread computes its transposed-convolution output in gather form: it visits every tap (kd, kh, kw),
keeps it only where od + pad - kd (likewise for h and w) is a non-negative multiple of the stride
whose quotient lies inside the input, and sums x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw] over the
input channels (the ConvTranspose3d weight is [C_in, C_out, KD, KH, KW]) in fp32, plus the bias. The
row's 64 values then go through a shared-memory tree for the mean and a second tree of squared
deviations for the biased variance (two passes, as a careful first draft computes a variance), and
each thread writes its normalised, GELU'd, scaled value. Row offsets are 64-bit.

Cost: 268 M outputs; 2 of the 4 taps hit per axis (8 of 64), times 32 input channels = 256
multiply-adds, but a warp steps through both kw parities: about 137 G multiply-add slots, roughly
0.1 s on an H200 at the 2-2.6 TFLOP/s of the accepted naive convolutions (reference 9.25 ms).
"""

CUDA = r"""
const int LN_WIDTH = 64;        // LayerNorm(64) over the last axis: the output width, one thread each

extern "C" __global__ void convtranspose3d_layernorm_gelu_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    const float* __restrict__ ln_w,     // [OW]  (LayerNorm weight)
    const float* __restrict__ ln_b,     // [OW]  (LayerNorm bias)
    float* __restrict__ out,            // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad)
{
    const float LN_EPS = 1e-5f;                     // eps = 1e-5
    const float SCALING_FACTOR = 1.0f;              // scaling_factor
    const float INV_SQRT2 = 0.70710678118654752f;   // 1 / sqrt(2), for the exact GELU
    __shared__ float red[LN_WIDTH];

    long long row = blockIdx.x;                     // (n, co, od, oh)
    long long rows = (long long)N * C_out * OD * OH;
    if (row >= rows) return;
    int ow = threadIdx.x;

    int oh = (int)(row % OH);
    int od = (int)((row / OH) % OD);
    int co = (int)((row / ((long long)OH * OD)) % C_out);
    int n = (int)(row / ((long long)OH * OD * C_out));

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
        acc += conv_b[co];
    }
    float v = acc;

    // Row mean: a tree reduction over the row's values in shared memory.
    red[ow] = (ow < OW) ? v : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (ow < s) {
            red[ow] = red[ow] + red[ow + s];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)OW;
    __syncthreads();    // every thread has read red[0] before the second tree overwrites it

    // Row variance (biased): the squared deviations from the mean, same reduction.
    float d = v - mean;
    red[ow] = (ow < OW) ? d * d : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (ow < s) {
            red[ow] = red[ow] + red[ow + s];
        }
        __syncthreads();
    }
    float var = red[0] / (float)OW;
    float inv_std = 1.0f / sqrtf(var + LN_EPS);

    if (ow < OW) {
        float z = d * inv_std * ln_w[ow] + ln_b[ow];
        float g = z * 0.5f * (1.0f + erff(z * INV_SQRT2));     // exact GELU
        out[row * OW + ow] = g * SCALING_FACTOR;
    }
}
"""

LN_WIDTH = 64             # must equal LN_WIDTH in the CUDA source: threads per block, a power of two
ROWS_PER_BLOCK = 1        # one block per output row (n, c, od, oh)
IN_CHANNELS = 32          # fixed by the weight [32, 64, 4, 4, 4]
OUT_CHANNELS = 64
KERNEL_SIZE = 4
STRIDE = 2                # ConvTranspose3d(stride=2, padding=1)
PADDING = 1
IN_WIDTH = 32             # fixed: the LayerNorm(64) weight needs an output width of 2 * 32 = 64
LN_EPS = 1e-5
SCALING_FACTOR = 1.0
SMALL_SCALE = 0.07        # T2: x = U[0, 0.07)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(32, 64, 4, 2, 1, True, 1e-5, 1.0): conv_transpose (with bias), then layer_norm(64)
        # (draws nothing: weight ones, bias zeros)
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(IN_CHANNELS, OUT_CHANNELS, KERNEL_SIZE, stride=STRIDE, padding=PADDING, bias=True)
        ln = nn.LayerNorm(OUT_CHANNELS, eps=LN_EPS)
        return {"w": conv_t.weight, "b": conv_t.bias, "ln_w": ln.weight, "ln_b": ln.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD
        OH = (H - 1) * STRIDE - 2 * PADDING + KH
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        rows = N * C_out * OD * OH
        return (
            "convtranspose3d_layernorm_gelu_kernel",
            (K.cdiv(rows, ROWS_PER_BLOCK), 1, 1),
            (LN_WIDTH, 1, 1),
            [x, w["w"], w["b"], w["ln_w"], w["ln_b"], out],
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
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        y = F.conv_transpose3d(x, w["w"], w["b"], stride=STRIDE, padding=PADDING)
        y = F.layer_norm(y, (OUT_CHANNELS,), w["ln_w"], w["ln_b"], LN_EPS)
        y = F.gelu(y)
        return y * SCALING_FACTOR

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, D, H, W)]
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
        name="L2p34_convtranspose3d_layernorm_gelu_scaling",
        level=2,
        problem="34_ConvTranspose3d_LayerNorm_GELU_Scaling",
        cuda=CUDA,
        kernel_name="convtranspose3d_layernorm_gelu_kernel",
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
                purpose="1 x 64 x 4 x 6 x 64 outputs: OD = 4 != OH = 6, so swapped depth/height strides or "
                "divisors show, and with 2 x 3 input planes most outputs touch a border tap that falls outside "
                "the input; every row's LayerNorm, tree reductions and GELU run in full (the row width 64 is "
                "fixed by the weights, so no row has a remainder, see notes)",
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
                "is invisible), and the normalised values shrink into GELU's curved range",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 4, "height": 6},
                purpose="about 2% isolated U[0,4) spikes on exact zeros: an output sees 8 input voxels of 32 "
                "channels (256 values), about 5 of them spikes, so it depends on specific taps and a wrong "
                "parity test, a transposed weight index, a swapped tap or a wrong channel stride moves it; each "
                "row's distribution is skewed (a few spikes among near-bias values), so the normalised values "
                "reach both GELU's negative and its linear range",
            ),
        ],
        notes="One kernel: a LayerNorm row is the 64 outputs along the width, computed by one 64-thread block, "
        "so no grid-wide step is needed. The LayerNorm affine is its init (weight ones, bias zeros), and no "
        "suite can change it, so mutants that drop or swap it at a valid index are equivalent; so is "
        "scaling_factor = 1.0. LayerNorm over the width removes any per-row constant: the conv bias never "
        "reaches the output (mutants that drop or misindex it are equivalent up to rounding). The input "
        "width is fixed at 32 (the LayerNorm weight fixes the output width at 64), so the ow < OW guards "
        "never fire and the block size equals the row; only batch, depth and height are resizable. The "
        "reference runs ConvTranspose3d through cuDNN with TF32 (the facts file measured this problem's "
        "reference beyond 1e-4 of fp64, within 1e-2); LayerNorm makes that error relative to each row's "
        "spread: a CPU emulation of TF32 operand rounding (round-to-nearest and truncation) gave "
        "fp32-vs-fp64 allclose distances of at most ~1.4e-3 on the suites. Stride 2 and padding 1 "
        "are model constants passed as kernel arguments.",
    )
