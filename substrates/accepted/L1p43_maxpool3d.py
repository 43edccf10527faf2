"""KernelBench level 1, problem 43_Max_Pooling_3D: nn.MaxPool3d(kernel_size=3, stride=2, padding=1,
dilation=3) on a 16 x 32 x 128 x 128 x 128 fp32 tensor, giving 16 x 32 x 62 x 62 x 62.

Model(kernel_size, stride, padding, dilation) is built from get_init_inputs() = [3, 2, 1, 3];
return_indices and ceil_mode keep their defaults (False). The padding is implicit -inf, as in
torch: padded taps never win the max. Along each axis a window has 3 taps spaced by the dilation
3 (start o * 2 - 1), and the pooled size is (n + 2 * 1 - 3 * 2 - 1) // 2 + 1. The module has no
parameters.

One kernel, one thread per output element (n, c, od, oh, ow) with ow fastest. The thread scans its
3 x 3 x 3 taps, skips taps outside the input and keeps the running max, initialised to -inf. The
input has 2^30 elements and the output 122 M (< 2^31); flat indices and volume offsets are 64-bit.

Cost: 4.3 GB of input read (every tap of the 27-tap windows is a separate element; each input
element is read by ~3 windows, mostly through the caches; stride 2 in w wastes half of each
sector) + 0.5 GB written: about 2-5 ms on an H200 (reference 3.9 ms).
"""

CUDA = r"""
const int POOL_K = 3;           // kernel_size (all three axes)
const int POOL_STRIDE = 2;      // stride
const int POOL_PAD = 1;         // padding (implicit -inf)
const int POOL_DIL = 3;         // dilation

extern "C" __global__ void maxpool3d_kernel(
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

    const float NEG_INF = __int_as_float(0xff800000);   // -inf: identity of the max, value of the padding
    float best = NEG_INF;
    int d_start = od * POOL_STRIDE - POOL_PAD;
    int h_start = oh * POOL_STRIDE - POOL_PAD;
    int w_start = ow * POOL_STRIDE - POOL_PAD;
    for (int kd = 0; kd < POOL_K; ++kd) {
        int id = d_start + kd * POOL_DIL;
        if (id < 0 || id >= D) continue;
        for (int kh = 0; kh < POOL_K; ++kh) {
            int ih = h_start + kh * POOL_DIL;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < POOL_K; ++kw) {
                int iw = w_start + kw * POOL_DIL;
                if (iw < 0 || iw >= W) continue;
                float v = vol[((long long)id * H + ih) * W + iw];
                if (v > best) {
                    best = v;
                }
            }
        }
    }
    out[i] = best;
}
"""

BLOCK = 256
KERNEL_SIZE = 3     # get_init_inputs() = [kernel_size, stride, padding, dilation] = [3, 2, 1, 3];
STRIDE = 2          # these must equal the CUDA constants
PADDING = 1
DILATION = 3
MIN_SIDE = DILATION * (KERNEL_SIZE - 1) + 1 - 2 * PADDING  # 5: at least one output per axis


def pooled_size(n):
    # floor mode: (n + 2 * pad - dil * (k - 1) - 1) // stride + 1
    return (n + 2 * PADDING - DILATION * (KERNEL_SIZE - 1) - 1) // STRIDE + 1


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        N, C, D, H, W = x.shape
        OD, OH, OW = pooled_size(D), pooled_size(H), pooled_size(W)
        out = torch.empty((N, C, OD, OH, OW), device=x.device, dtype=x.dtype)
        total = N * C * OD * OH * OW
        return (
            "maxpool3d_kernel",
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
        # nn.MaxPool3d(3, 2, 1, 3).forward
        return torch.nn.functional.max_pool3d(
            x, KERNEL_SIZE, STRIDE, PADDING, DILATION, ceil_mode=False, return_indices=False
        )

    def shape_of(s):
        return (s["batch"], s["channels"], s["dim1"], s["dim2"], s["dim3"])

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, channels, dim1, dim2, dim3)
        return [torch.rand(*shape_of(s))]

    def negative_inputs(torch, s):
        # Every value in [-2, -1): the max is negative everywhere, so a padding tap read as 0 (zero padding,
        # a missing bounds skip, or a 0 initial max) wins in every border window.
        return [-1.0 - torch.rand(*shape_of(s))]

    def spiky_inputs(torch, s):
        # A flat floor of exact -3.0 with about 3% spikes in [1, 2), and spikes forced on the last plane of
        # each axis (every other row of it): each output is -3 or one specific spike among its 27 taps.
        shape = shape_of(s)
        x = torch.full(shape, -3.0)
        spikes = torch.rand(shape) < 0.03
        spikes[:, :, -1, ::2, :] = True
        spikes[:, :, :, -1, 1::2] = True
        spikes[:, :, 1::2, :, -1] = True
        x[spikes] = 1.0 + torch.rand(int(spikes.sum()))
        return [x]

    def ramp_inputs(torch, s):
        # Channel c carries a unit ramp along axis c % 3 (d, h or w), ascending for (c // 3) even and
        # descending otherwise, plus U[0, 0.5) noise: the max of a window sits at its last (ascending) or
        # first (descending) in-range tap along the ramp axis, so the output names that tap's position.
        N, C, D, H, W = shape_of(s)
        x = 0.5 * torch.rand(N, C, D, H, W)
        for c in range(C):
            axis = c % 3
            n = (D, H, W)[axis]
            pos = torch.arange(n, dtype=torch.float32)
            if (c // 3) % 2 == 1:
                pos = n - 1 - pos
            view = [1, 1, 1]
            view[axis] = n
            x[:, c] += pos.view(*view)
        return [x]

    return K.substrate(
        name="L1p43_maxpool3d",
        level=1,
        problem="43_Max_Pooling_3D",
        cuda=CUDA,
        kernel_name="maxpool3d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "channels": K.dim(32),
            "dim1": K.dim(128, min=MIN_SIDE),
            "dim2": K.dim(128, min=MIN_SIDE),
            "dim3": K.dim(128, min=MIN_SIDE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_negative",
                negative_inputs,
                seeds=[1, 2],
                sizes={"batch": 1, "channels": 2, "dim1": 9, "dim2": 8, "dim3": 11},
                small=True,
                purpose="output 1 x 2 x 3 x 2 x 4 = 48 elements, fewer than one 256-thread block, so the tail guard "
                "matters; D, H, W = 9, 8, 11 all differ (pooled 3, 2, 4), so swapped axes, sizes or strides show; "
                "all values in [-2,-1) so a padded tap treated as 0 (zero padding, a dropped bounds skip) or a 0 "
                "initial max gives 0 instead of a negative max in every window that touches the border",
            ),
            K.suite(
                "T2_spiky_edges",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "channels": 2, "dim1": 14, "dim2": 16, "dim3": 18},
                purpose="a flat floor of exact -3.0 with ~3% spikes in [1,2), forced on the last plane of every axis "
                "(even sizes 14, 16, 18, like the official 128, so the last tap of the last window reads that "
                "plane: 2 * (O - 1) - 1 + 2 * 3 = n - 1): each output is the floor or one specific spike, so a window start off by one, a dropped last tap, a wrong dilation "
                "or stride, or an upper bound that skips the last plane changes outputs by >= 4; the floor also "
                "exposes zero padding",
            ),
            K.suite(
                "T3_ramps",
                ramp_inputs,
                seeds=[5, 6],
                sizes={"batch": 1, "channels": 6, "dim1": 14, "dim2": 15, "dim3": 16},
                purpose="each channel carries an ascending or descending unit ramp along d, h or w (+ U[0,0.5) "
                "noise, values below 16): each output is the last or first in-range tap along that axis, so a "
                "dilation of 2 or 4, 2 or 4 taps, a stride of 1 or 3, a start off by one, or one axis's index used "
                "for another moves outputs by >= 0.5, above the ~0.17 tolerance, on every axis in turn",
            ),
        ],
        notes="U[0,1) official inputs make every 27-tap window max close to 1 (mean 27/28), so T0_original is weak "
        "against window-placement faults and blind to the padding value (the max is always positive, so zero "
        "padding passes); T1-T3 cover those. The CUDA kernel compares with v > best, so a NaN input is skipped "
        "where torch's max_pool3d propagates it (no suite holds NaN). The input has exactly 2^30 elements and "
        "the output 122 M, so a 32-bit flat-index mutant does not overflow on any suite. With stride 2, padding 1 "
        "and dilation 3 the taps along an axis are 2o - 1, 2o + 2 and 2o + 5, so input index 0 of every axis is "
        "never read (by any size), and the last index only when the size is even: a fault that mishandles "
        "only index 0 is invisible to every suite.",
    )
