"""KernelBench level 1, problem 46_Average_Pooling_3D: nn.AvgPool3d(kernel_size=3, stride=2, padding=1)
on a 16 x 32 x 128 x 128 x 256 fp32 tensor, giving 16 x 32 x 64 x 64 x 128.

Model(kernel_size, stride, padding) is built from get_init_inputs() = [3, 2, 1]; ceil_mode False,
count_include_pad True and divisor_override None keep their defaults. With count_include_pad the
padded zeros count in the divisor, and in floor mode (with padding <= kernel / 2) every window lies
inside the padded input, so every output is the sum of its in-range taps divided by the full
3 x 3 x 3 = 27, also at the borders where only 8-18 taps are real. Pooled size along each axis:
(n + 2 * 1 - 3) // 2 + 1. The module has no parameters.

One kernel, one thread per output element (n, c, od, oh, ow) with ow fastest. The thread sums the
in-range taps of its 3 x 3 x 3 window (start o * 2 - 1 on each axis) in fp32 and divides by 27.
The input has exactly 2^31 elements and the output 268 M; flat indices and volume offsets are
64-bit.

Cost: 8.6 GB of input read (each element is read by ~3.4 windows, mostly through the caches;
stride 2 in w reads every sector fully over the 3 taps) + 1.07 GB written: about 3-6 ms on an H200
(reference 8.51 ms).
"""

CUDA = r"""
const int POOL_K = 3;           // kernel_size (all three axes)
const int POOL_STRIDE = 2;      // stride
const int POOL_PAD = 1;         // padding (zeros, counted in the divisor)

extern "C" __global__ void avgpool3d_kernel(
    const float* __restrict__ x,    // [N, C, D, H, W]
    float* __restrict__ out,        // [N, C, OD, OH, OW]
    int N, int C, int D, int H, int W, int OD, int OH, int OW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OD * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int od = (int)((i / ((long long)OW * OH)) % OD);
    long long nc = i / ((long long)OW * OH * OD);      // n * C + c
    const float* vol = x + nc * D * H * W;

    int d_start = od * POOL_STRIDE - POOL_PAD;
    int h_start = oh * POOL_STRIDE - POOL_PAD;
    int w_start = ow * POOL_STRIDE - POOL_PAD;
    float acc = 0.0f;
    for (int kd = 0; kd < POOL_K; ++kd) {
        int id = d_start + kd;
        if (id < 0 || id >= D) continue;
        for (int kh = 0; kh < POOL_K; ++kh) {
            int ih = h_start + kh;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < POOL_K; ++kw) {
                int iw = w_start + kw;
                if (iw < 0 || iw >= W) continue;
                acc += vol[((long long)id * H + ih) * W + iw];
            }
        }
    }
    // count_include_pad=True: the divisor is the whole window, padded taps included.
    out[i] = acc / (float)(POOL_K * POOL_K * POOL_K);
}
"""

BLOCK = 256
KERNEL_SIZE = 3     # get_init_inputs() = [kernel_size, stride, padding] = [3, 2, 1];
STRIDE = 2          # these must equal the CUDA constants
PADDING = 1


def pooled_size(n):
    # floor mode: (n + 2 * pad - k) // stride + 1
    return (n + 2 * PADDING - KERNEL_SIZE) // STRIDE + 1


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        N, C, D, H, W = x.shape
        OD, OH, OW = pooled_size(D), pooled_size(H), pooled_size(W)
        out = torch.empty((N, C, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C * OD * OH * OW
        return (
            "avgpool3d_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C),
                (ctypes.c_int, D),
                (ctypes.c_int, H),
                (ctypes.c_int, W),
                (ctypes.c_int, OD),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        # nn.AvgPool3d(3, 2, 1).forward
        return torch.nn.functional.avg_pool3d(
            x, KERNEL_SIZE, STRIDE, PADDING, ceil_mode=False, count_include_pad=True, divisor_override=None
        )

    def shape_of(s):
        return (s["batch"], s["channels"], s["depth"], s["height"], s["width"])

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, channels, depth, height, width)
        return [torch.rand(*shape_of(s))]

    def scaled_inputs(torch, s):
        # Same-sign U[0, 10): every tap carries a large value, so one lost or extra tap moves an output by
        # about 5 / 27 = 0.19 on average.
        return [torch.rand(*shape_of(s)) * 10.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% spikes in [10, 20), plus spikes forced on the first and last plane of
        # each axis (on every other line of it): each output is (sum of the spikes in its window) / 27.
        shape = shape_of(s)
        x = torch.zeros(shape)
        spikes = torch.rand(shape) < 0.02
        spikes[:, :, 0, ::2, :] = True
        spikes[:, :, -1, 1::2, :] = True
        spikes[:, :, :, 0, ::2] = True
        spikes[:, :, :, -1, 1::2] = True
        spikes[:, :, ::2, :, 0] = True
        spikes[:, :, 1::2, :, -1] = True
        x[spikes] = 10.0 + torch.rand(int(spikes.sum())) * 10.0
        return [x]

    return K.substrate(
        name="L1p46_avgpool3d",
        level=1,
        problem="46_Average_Pooling_3D",
        cuda=CUDA,
        kernel_name="avgpool3d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "channels": K.dim(32),
            "depth": K.dim(128, min=KERNEL_SIZE),
            "height": K.dim(128, min=KERNEL_SIZE),
            "width": K.dim(256, min=KERNEL_SIZE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs,
                seeds=[1, 2],
                sizes={"batch": 1, "channels": 3, "depth": 5, "height": 6, "width": 7},
                small=True,
                purpose="output 1 x 3 x 3 x 3 x 4 = 108 elements, fewer than one 256-thread block (tail guard); D, H, W "
                "= 5, 6, 7 all differ (odd and even sizes: the last window ends on the last element or on the "
                "padding), so swapped axes, sizes or strides show; U[0,10) same-sign values make one dropped, extra "
                "or shifted tap cost ~0.19 on average (tolerance ~0.06)",
            ),
            K.suite(
                "T2_spiky_edges",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "channels": 2, "depth": 9, "height": 10, "width": 11},
                purpose="exact zeros with ~2% spikes in [10,20), forced on the first and last plane of every axis: "
                "each output depends on which spikes its window holds, so a window start off by one, 2 or 4 taps, "
                "a bound that drops the first or last plane, or a divisor other than 27 in the border windows "
                "(count_include_pad: only 27 is right there) moves outputs by >= 0.37",
            ),
            K.suite(
                "T3_short_axes",
                scaled_inputs,
                seeds=[5, 6],
                sizes={"batch": 4, "channels": 8, "depth": 3, "height": 3, "width": 3},
                purpose="volumes of 3 x 3 x 3, the smallest torch accepts: every window is cut by the padding on one "
                "side of every axis (2 x 2 x 2 outputs per volume, taps -1..1 or 1..3 on each axis, 8 real taps of "
                "27), so all six tap bounds act and the padded divisor matters on every output; 32 volumes make volume-stride (D * H * W) mix-ups visible",
            ),
        ],
        notes="The divisor is always 27 (count_include_pad=True, floor mode), also in the border windows; a kernel "
        "that divides by the number of real taps fails already on T0_original (with even official sizes only "
        "the windows with od, oh or ow = 0, about 3.9% of all, touch the padding). U[0,1) official inputs give "
        "outputs ~0.5 +- 0.06 against a tolerance of ~0.015: one lost tap (x / 27, up to 0.037) shows there "
        "wherever x > 0.4, but faults confined to the far border (the last windows are never cut at even "
        "sizes) do not; T1-T3 use odd sizes, spikes on every face and cut windows. The input has exactly 2^31 "
        "elements: the largest flat index (2^31 - 1) and volume offset still fit a signed 32-bit int, so a "
        "32-bit index mutant does not overflow on any suite. torch's avg_pool3d refuses inputs smaller than the "
        "kernel (3) on any axis, hence min=3.",
    )
