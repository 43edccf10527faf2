"""KernelBench level 1, problem 41_Max_Pooling_1D: nn.MaxPool1d(kernel_size=8, stride=1, padding=4,
dilation=3) on a 64 x 192 x 65536 fp32 tensor, giving 64 x 192 x 65523.

Model(kernel_size, stride, padding, dilation, return_indices) is built from get_init_inputs() =
[8, 1, 4, 3, False]; ceil_mode keeps its default (False) and return_indices is False, so forward
returns only the pooled values. The padding is implicit -inf, as in torch: padded taps never win.
Each window has 8 taps spaced by the dilation 3 and spans 22 positions: output length
(L + 2 * 4 - 3 * 7 - 1) // 1 + 1 = L - 13. The module has no parameters.

One kernel, one thread per output element (row = n * C + c, ol) with ol fastest. The thread scans
its 8 taps (start ol * stride - pad, spaced by the dilation), skips taps outside the row and keeps
the running max, initialised to -inf. Input and output have 805 M elements (< 2^31); flat indices
and row offsets are 64-bit anyway.

Cost: 3.2 GB read (each element reused by 8 threads through the caches) + 3.2 GB written, about
1.5-3 ms on an H200 (reference 10.7 ms).
"""

CUDA = r"""
const int POOL_K = 8;           // kernel_size
const int POOL_STRIDE = 1;      // stride
const int POOL_PAD = 4;         // padding (implicit -inf)
const int POOL_DIL = 3;         // dilation

extern "C" __global__ void maxpool1d_kernel(
    const float* __restrict__ x,    // [rows, L]   rows = N * C
    float* __restrict__ out,        // [rows, OL]
    int rows, int L, int OL)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)rows * OL;
    if (i >= total) return;

    int ol = (int)(i % OL);
    long long row = i / OL;
    const float* x_row = x + row * L;

    const float NEG_INF = __int_as_float(0xff800000);   // -inf: identity of the max, value of the padding
    float best = NEG_INF;
    int start = ol * POOL_STRIDE - POOL_PAD;
    for (int k = 0; k < POOL_K; ++k) {
        int il = start + k * POOL_DIL;
        if (il < 0 || il >= L) continue;
        float v = x_row[il];
        if (v > best) {
            best = v;
        }
    }
    out[i] = best;
}
"""

BLOCK = 256
KERNEL_SIZE = 8     # get_init_inputs() = [kernel_size, stride, padding, dilation, return_indices]
STRIDE = 1          #                   = [8, 1, 4, 3, False]; these must equal the CUDA constants
PADDING = 4
DILATION = 3
MIN_LENGTH = DILATION * (KERNEL_SIZE - 1) + 1 - 2 * PADDING     # 14: at least one output


def pooled_length(n):
    # floor mode: (n + 2 * pad - dil * (k - 1) - 1) // stride + 1 = n - 13 here
    return (n + 2 * PADDING - DILATION * (KERNEL_SIZE - 1) - 1) // STRIDE + 1


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        N, C, L = x.shape
        OL = pooled_length(L)
        out = torch.empty((N, C, OL), device=x.device, dtype=x.dtype)
        rows = N * C
        total = rows * OL
        return (
            "maxpool1d_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, rows), (ctypes.c_int, L), (ctypes.c_int, OL)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        # nn.MaxPool1d(8, 1, 4, 3, return_indices=False).forward
        return torch.nn.functional.max_pool1d(
            x, KERNEL_SIZE, STRIDE, PADDING, DILATION, ceil_mode=False, return_indices=False
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, features, sequence_length)
        return [torch.rand(s["batch"], s["features"], s["length"])]

    def negative_inputs(torch, s):
        # Every value in [-2, -1): the max is negative everywhere, so a padding tap read as 0 (zero padding,
        # a missing bounds skip, or a 0 initial max) wins wherever it is in the window.
        return [-1.0 - torch.rand(s["batch"], s["features"], s["length"])]

    def spiky_inputs(torch, s):
        # A flat floor of exact -3.0 with about 3% spikes in [1, 2), and spikes forced at the first two and
        # last two positions of every row: each output is -3 or one specific spike in its 8 taps.
        shape = (s["batch"], s["features"], s["length"])
        x = torch.full(shape, -3.0)
        spikes = torch.rand(shape) < 0.03
        spikes[:, :, 0:2] = True
        spikes[:, :, -2:] = True
        x[spikes] = 1.0 + torch.rand(int(spikes.sum()))
        return [x]

    def ramp_inputs(torch, s):
        # Rows alternate between an ascending ramp l + U[0, 0.5) and a descending one (L - 1 - l) + U[0, 0.5):
        # the max of a window is its last (ascending) or first (descending) in-range tap, so every output
        # names the exact position of one end of its window.
        N, C, L = s["batch"], s["features"], s["length"]
        pos = torch.arange(L, dtype=torch.float32)
        up = (torch.arange(N * C) % 2 == 0).view(N, C, 1)
        ramp = torch.where(up, pos.view(1, 1, L), (L - 1 - pos).view(1, 1, L))
        return [ramp + 0.5 * torch.rand(N, C, L)]

    return K.substrate(
        name="L1p41_maxpool1d",
        level=1,
        problem="41_Max_Pooling_1D",
        cuda=CUDA,
        kernel_name="maxpool1d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(64),
            "features": K.dim(192),
            "length": K.dim(65536, min=MIN_LENGTH),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_negative",
                negative_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "features": 3, "length": 37},
                small=True,
                purpose="output 2 x 3 x 24 = 144 elements, fewer than one 256-thread block, so the tail guard matters; "
                "OL = 24 != L = 37 so a row stride of OL instead of L (or the reverse) shows; all values in [-2,-1) "
                "so a padded tap treated as 0 (zero padding, a dropped bounds skip) or a 0 initial max gives 0 "
                "instead of a negative max in the 4 + 4 border windows of each row (U[0,1) inputs hide both)",
            ),
            K.suite(
                "T2_spiky_edges",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "features": 4, "length": 1001},
                purpose="a flat floor of exact -3.0 with ~3% spikes in [1,2), forced at the first two and last two "
                "positions of every row: each output is the floor or one specific spike, so a window start off by "
                "one, a dropped first or last tap, a wrong dilation or stride, or an upper bound that skips the last "
                "input element changes outputs by >= 4; the floor also exposes zero padding",
            ),
            K.suite(
                "T3_ramps",
                ramp_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "features": 5, "length": 40},
                purpose="rows alternate ascending and descending unit ramps (+ U[0,0.5) noise, values below 40): each "
                "output is the last or the first in-range tap of its window, so a dilation of 2 or 4, a kernel of "
                "7 or 9 taps, a start off by one, or a padding of 3 or 5 changes outputs by >= 0.5, above the "
                "~0.4 tolerance (on U[0,1) inputs window-placement faults mostly stay hidden: the max of 8 taps "
                "is ~0.89 on average)",
            ),
        ],
        notes="U[0,1) official inputs make every 8-tap window max close to 1 (mean 8/9), so T0_original is weak "
        "against window-placement faults (a dilation, kernel or start off by one changes few outputs by more "
        "than 1e-2) and blind to the padding value (the max is always positive, so zero padding passes); T1-T3 "
        "cover those. The CUDA kernel compares with v > best, so a NaN input is skipped where torch's "
        "max_pool1d propagates it (no suite holds NaN). Output elements (805 M) stay below 2^31, so a 32-bit "
        "flat-index mutant does not overflow on any suite.",
    )
