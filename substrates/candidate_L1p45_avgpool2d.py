"""KernelBench level 1, problem 45_Average_Pooling_2D: nn.AvgPool2d(kernel_size=11) on a
16 x 64 x 2048 x 2048 fp32 tensor, giving 16 x 64 x 186 x 186.

Model(kernel_size) is built from get_init_inputs() = [11]: stride defaults to the kernel size
(11), padding to 0, ceil_mode False, count_include_pad True and divisor_override None. With no
padding and floor mode every window lies inside the input, so every output is the plain mean of
its 11 x 11 taps (divisor 121); the last 2048 - 186 * 11 = 2 rows and columns are never read. The
module has no parameters.

One kernel, one thread per output element (n, c, oh, ow) with ow fastest. The thread sums its
window (rows oh * 11 .. oh * 11 + 10, columns likewise) in fp32, row by row, and divides by 121.
The input has 2^32 elements (17.2 GB), so plane offsets and flat indices are 64-bit; the output
has 35 M elements.

Cost: 17.2 GB read once (a warp's 32 windows side by side cover 352 consecutive floats of each
row, so every sector is used, mostly through L1) + 0.14 GB written: about 5-10 ms on an H200
(reference 4.13 ms).
"""

CUDA = r"""
const int POOL_K = 11;          // kernel_size (both axes)
const int POOL_STRIDE = 11;     // stride = kernel_size (default)

extern "C" __global__ void avgpool2d_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    long long nc = i / ((long long)OW * OH);        // n * C + c
    const float* plane = x + nc * H * W;

    // No padding and floor mode: the window rows h_start .. h_start + K - 1 and columns likewise
    // all lie inside the plane (oh < OH = (H - K) / stride + 1).
    int h_start = oh * POOL_STRIDE;
    int w_start = ow * POOL_STRIDE;
    float acc = 0.0f;
    for (int kh = 0; kh < POOL_K; ++kh) {
        const float* x_row = plane + (long long)(h_start + kh) * W;
        for (int kw = 0; kw < POOL_K; ++kw) {
            acc += x_row[w_start + kw];
        }
    }
    out[i] = acc / (float)(POOL_K * POOL_K);
}
"""

BLOCK = 256
KERNEL_SIZE = 11    # get_init_inputs() = [kernel_size] = [11]; stride = kernel_size, padding 0;
STRIDE = 11         # these must equal the CUDA constants
PADDING = 0


def pooled_size(n):
    # floor mode: (n + 2 * pad - k) // stride + 1 = n // 11 here
    return (n + 2 * PADDING - KERNEL_SIZE) // STRIDE + 1


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        N, C, H, W = x.shape
        OH = pooled_size(H)
        OW = pooled_size(W)
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C * OH * OW
        return (
            "avgpool2d_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C),
                (ctypes.c_int, H),
                (ctypes.c_int, W),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        # nn.AvgPool2d(11).forward: stride None -> 11, padding 0
        return torch.nn.functional.avg_pool2d(
            x, KERNEL_SIZE, None, PADDING, ceil_mode=False, count_include_pad=True, divisor_override=None
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, channels, height, width)
        return [torch.rand(s["batch"], s["channels"], s["height"], s["width"])]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% spikes in [500, 1000), plus spikes forced on every window's first and
        # last row and column (indices 0 and 10 mod 11, at every third position along them) and on the last
        # row and column of the plane: each output is (sum of the spikes in its window) / 121, and one
        # spike more or less moves it by 4-8.
        shape = (s["batch"], s["channels"], s["height"], s["width"])
        x = torch.zeros(shape)
        spikes = torch.rand(shape) < 0.02
        spikes[:, :, 0::KERNEL_SIZE, 1::3] = True
        spikes[:, :, KERNEL_SIZE - 1 :: KERNEL_SIZE, 2::3] = True
        spikes[:, :, 1::3, 0::KERNEL_SIZE] = True
        spikes[:, :, 2::3, KERNEL_SIZE - 1 :: KERNEL_SIZE] = True
        spikes[:, :, -1, :] = True
        spikes[:, :, :, -1] = True
        x[spikes] = 500.0 + torch.rand(int(spikes.sum())) * 500.0
        return [x]

    def ramp_inputs(torch, s):
        # Even channels: x = w + U[0, 0.25) (a unit ramp along the width); odd channels: x = h + U[0, 0.25).
        # A window's mean is the ramp at its centre (+ ~0.125), so a window shifted by one position moves
        # the output by exactly 1, a window of 10 or 12 taps by 0.5.
        N, C, H, W = s["batch"], s["channels"], s["height"], s["width"]
        w_ramp = torch.arange(W, dtype=torch.float32).view(1, 1, 1, W).expand(N, C, H, W)
        h_ramp = torch.arange(H, dtype=torch.float32).view(1, 1, H, 1).expand(N, C, H, W)
        even = (torch.arange(C) % 2 == 0).view(1, C, 1, 1)
        return [torch.where(even, w_ramp, h_ramp) + 0.25 * torch.rand(N, C, H, W)]

    return K.substrate(
        name="L1p45_avgpool2d",
        level=1,
        problem="45_Average_Pooling_2D",
        cuda=CUDA,
        kernel_name="avgpool2d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "channels": K.dim(64),
            "height": K.dim(2048, min=KERNEL_SIZE),
            "width": K.dim(2048, min=KERNEL_SIZE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_spiky",
                spiky_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "channels": 3, "height": 25, "width": 36},
                small=True,
                purpose="output 2 x 3 x 2 x 3 = 36 elements, fewer than one 256-thread block (tail guard); H = 25 = "
                "2 x 11 + 3 and W = 36 = 3 x 11 + 3 leave 3 unread rows and columns, where the forced last-row and "
                "last-column spikes sit; OH != OW; zeros with spikes of 500-1000 forced on every window's first "
                "and last row and column: one tap more or less, a window start or stride off by one, a row "
                "stride of W +- 1, or a read into the unread border moves an output by 4-8 (tolerance ~0.1)",
            ),
            K.suite(
                "T2_ramps",
                ramp_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "channels": 4, "height": 45, "width": 34},
                purpose="unit ramps along the width (even channels) or the height (odd channels), values below 45: "
                "each output is the ramp at its window's centre, so a window shifted by one row or column moves "
                "it by 1 and 10 or 12 taps by 0.5 (tolerance at most 0.46), on each axis; 45 = 4 x 11 + 1 and "
                "34 = 3 x 11 + 1 leave one unread row and column",
            ),
            K.suite(
                "T3_spiky_official_plane",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 1, "channels": 2, "height": 2048, "width": 2048},
                purpose="the official 2048 x 2048 planes (186 x 186 outputs, 2 unread rows and columns) with the "
                "spiky values of T1: window placement, row strides and plane offsets at the official spatial "
                "size, where on U[0,1) inputs one tap more or less moves an output by ~0.004 (invisible)",
            ),
        ],
        notes="U[0,1) official inputs give outputs 0.5 +- 0.026 (the mean of 121 taps) against a tolerance of ~0.015: "
        "one tap more or less moves an output by x / 121 <= 0.008, which T0_original never sees, while a window "
        "shifted by one row or column swaps 11 taps and moves outputs by ~0.011 (one std), visible only at the "
        "tails; T1-T3 use spikes and ramps, where every such fault moves outputs by 0.5-8. A divisor of 120 or 122 "
        "instead of 121 is a 0.8% change, which rtol 1e-2 never sees on any input. The official input has 2^32 "
        "elements: a 32-bit plane offset or input index overflows there (only T0_original's input exceeds 2^31 "
        "elements; n * C * H * W reaches 4.29e9), while the output (35 M) fits easily.",
    )
