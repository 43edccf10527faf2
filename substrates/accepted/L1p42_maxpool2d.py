"""KernelBench level 1, problem 42_Max_Pooling_2D: nn.MaxPool2d(kernel_size=4, stride=1, padding=1,
dilation=1) on a 32 x 64 x 512 x 512 fp32 tensor, giving 32 x 64 x 511 x 511.

Model(kernel_size, stride, padding, dilation) is built from get_init_inputs() = [4, 1, 1, 1];
ceil_mode and return_indices keep their defaults (False). The padding is implicit -inf, as in
torch: padded taps never win the max. The module has no parameters.

One kernel, one thread per output element (n, c, oh, ow) with ow fastest. The thread scans its
4 x 4 window (start oh * stride - pad, taps spaced by the dilation), skips taps outside the
input and keeps the running max, initialised to -inf. The input has 537 M elements and the
output 535 M, both under 2^31, but flat indices and plane offsets are 64-bit all the same.

Cost: 2.15 GB read (each input element is reused by 16 neighbouring threads through the
caches) + 2.14 GB written = 4.3 GB, about 1-3 ms on an H200 (reference 10.8 ms).
"""

CUDA = r"""
const int POOL_K = 4;           // kernel_size
const int POOL_STRIDE = 1;      // stride
const int POOL_PAD = 1;         // padding (implicit -inf)
const int POOL_DIL = 1;         // dilation

extern "C" __global__ void maxpool2d_kernel(
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

    const float NEG_INF = __int_as_float(0xff800000);   // -inf: identity of the max, value of the padding
    float best = NEG_INF;
    int h_start = oh * POOL_STRIDE - POOL_PAD;
    int w_start = ow * POOL_STRIDE - POOL_PAD;
    for (int kh = 0; kh < POOL_K; ++kh) {
        int ih = h_start + kh * POOL_DIL;
        if (ih < 0 || ih >= H) continue;
        for (int kw = 0; kw < POOL_K; ++kw) {
            int iw = w_start + kw * POOL_DIL;
            if (iw < 0 || iw >= W) continue;
            float v = plane[(long long)ih * W + iw];
            if (v > best) {
                best = v;
            }
        }
    }
    out[i] = best;
}
"""

BLOCK = 256
KERNEL_SIZE = 4     # get_init_inputs() = [kernel_size, stride, padding, dilation] = [4, 1, 1, 1];
STRIDE = 1          # these must equal the CUDA constants
PADDING = 1
DILATION = 1


def pooled_size(n):
    # floor mode: (n + 2 * pad - dil * (k - 1) - 1) // stride + 1 = n - 1 here
    return (n + 2 * PADDING - DILATION * (KERNEL_SIZE - 1) - 1) // STRIDE + 1


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        N, C, H, W = x.shape
        OH = pooled_size(H)
        OW = pooled_size(W)
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C * OH * OW
        return (
            "maxpool2d_kernel",
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
        # nn.MaxPool2d(4, 1, 1, 1).forward
        return torch.nn.functional.max_pool2d(
            x, KERNEL_SIZE, STRIDE, PADDING, DILATION, ceil_mode=False, return_indices=False
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, channels, height, width)
        return [torch.rand(s["batch"], s["channels"], s["height"], s["width"])]

    def negative_inputs(torch, s):
        # Every value in [-2, -1): the true max is negative everywhere, so a padding tap read as 0
        # (zero padding, or a 0 initial max) wins at every border window and everywhere else.
        return [-1.0 - torch.rand(s["batch"], s["channels"], s["height"], s["width"])]

    def spiky_inputs(torch, s):
        # A flat floor of exact -3.0 with about 3% spikes in [1, 2) and spikes forced on the
        # first and last rows and columns: each output is -3 or the largest spike in its window,
        # so a window shifted by one tap, a dropped edge row/column or swapped H/W strides move
        # spikes in or out of windows by at least 4.
        shape = (s["batch"], s["channels"], s["height"], s["width"])
        x = torch.full(shape, -3.0)
        spikes = torch.rand(shape) < 0.03
        spikes[:, :, 0, ::5] = True
        spikes[:, :, -1, 2::5] = True
        spikes[:, :, 1::6, 0] = True
        spikes[:, :, 3::6, -1] = True
        x[spikes] = 1.0 + torch.rand(int(spikes.sum()))
        return [x]

    return K.substrate(
        name="L1p42_maxpool2d",
        level=1,
        problem="42_Max_Pooling_2D",
        cuda=CUDA,
        kernel_name="maxpool2d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(32),
            "channels": K.dim(64),
            "height": K.dim(512, min=2),
            "width": K.dim(512, min=2),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_negative",
                negative_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "channels": 3, "height": 13, "width": 10},
                small=True,
                purpose="output 2 x 3 x 12 x 9 = 648 elements, not a multiple of the 256-thread block, so the "
                "tail guard matters; OH=12 != OW=9 so swapped H/W sizes or strides show; all values in [-2,-1) "
                "so padding taps treated as 0 (zero padding, missing bounds skip) or a 0 initial max give 0 "
                "instead of a negative max (U[0,1) inputs hide both)",
            ),
            K.suite(
                "T2_spiky_edges",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "channels": 4, "height": 37, "width": 41},
                purpose="a flat floor of exact -3.0 with ~3% spikes in [1,2), also forced along the first and last "
                "rows and columns: each output is the floor or one specific spike, so an off-by-one window start, "
                "a dropped first/last tap (kh/kw bound), a wrong dilation or stride, or an edge bound that skips "
                "the last input row/column changes outputs by >= 4; the floor also exposes zero padding",
            ),
        ],
        notes="U[0,1) official inputs make every 4x4 window max close to 1 (mean 16/17 for interior windows), "
        "so T0_original is weak against window-placement faults and blind to the padding value (the max is "
        "always positive, so zero padding passes); T1 and T2 cover those. The CUDA kernel compares with "
        "v > best, so a NaN input is skipped where torch's max_pool2d propagates it (no suite holds NaN). "
        "Output elements (535 M) stay below 2^31, so a 32-bit flat-index mutant does not overflow on any suite.",
    )
