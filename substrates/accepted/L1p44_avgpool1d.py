"""KernelBench level 1, problem 44_Average_Pooling_1D: nn.AvgPool1d(kernel_size=8, stride=1,
padding=4) on a 64 x 128 x 65536 fp32 tensor, giving 64 x 128 x 65537.

Model(kernel_size, stride, padding) is built from get_init_inputs() = [8, 1, 4]; ceil_mode=False
and count_include_pad=True keep their defaults. With count_include_pad the padded zeros count in
the divisor, and in floor mode every window lies inside the padded input, so every output is
the sum of its in-range taps divided by the full kernel size 8 (also at the borders, where only
4..7 taps are real). The module has no parameters.

One kernel, one thread per output element (row = n * C + c, ol) with ol fastest. The thread sums
the in-range taps of its window (start ol * stride - pad) in fp32 and divides by the kernel
size. The output has 537 M elements (< 2^31); flat indices and row offsets are 64-bit anyway.

Cost: 2.15 GB read (each element reused by 8 neighbouring threads through the caches) + 2.15 GB
written, about 1-2 ms on an H200 (reference 5.48 ms).
"""

CUDA = r"""
const int POOL_K = 8;           // kernel_size
const int POOL_STRIDE = 1;      // stride
const int POOL_PAD = 4;         // padding (zeros, counted in the divisor)

extern "C" __global__ void avgpool1d_kernel(
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

    int start = ol * POOL_STRIDE - POOL_PAD;
    float acc = 0.0f;
    for (int k = 0; k < POOL_K; ++k) {
        int il = start + k;
        if (il >= 0 && il < L) {
            acc += x_row[il];
        }
    }
    // count_include_pad=True: the divisor is the whole window, padded taps included.
    out[i] = acc / (float)POOL_K;
}
"""

BLOCK = 256
KERNEL_SIZE = 8     # get_init_inputs() = [kernel_size, stride, padding] = [8, 1, 4];
STRIDE = 1          # these must equal the CUDA constants
PADDING = 4


def pooled_length(n):
    # floor mode: (n + 2 * pad - k) // stride + 1 = n + 1 here
    return (n + 2 * PADDING - KERNEL_SIZE) // STRIDE + 1


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        N, C, L = x.shape
        OL = pooled_length(L)
        out = torch.empty((N, C, OL), device=x.device, dtype=x.dtype)
        rows = N * C
        total = rows * OL
        return (
            "avgpool1d_kernel",
            (K.cdiv(total, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_int, rows), (ctypes.c_int, L), (ctypes.c_int, OL)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        # nn.AvgPool1d(8, 1, 4).forward
        return torch.nn.functional.avg_pool1d(
            x, KERNEL_SIZE, STRIDE, PADDING, ceil_mode=False, count_include_pad=True
        )

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, input_length)
        return [torch.rand(s["batch"], s["channels"], s["length"])]

    def scaled_inputs(scale):
        # Same-sign U[0, scale): every tap carries a large value, so one lost or extra tap moves an
        # output by about scale / 16 on average.
        def gen(torch, s):
            return [torch.rand(s["batch"], s["channels"], s["length"]) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% spikes in [10, 20), plus spikes forced at the first and last
        # positions of every row: each output is (sum of the spikes in its window) / 8.
        shape = (s["batch"], s["channels"], s["length"])
        x = torch.zeros(shape)
        spikes = torch.rand(shape) < 0.02
        spikes[:, :, 0] = True
        spikes[:, :, -1] = True
        x[spikes] = 10.0 + torch.rand(int(spikes.sum())) * 10.0
        return [x]

    return K.substrate(
        name="L1p44_avgpool1d",
        level=1,
        problem="44_Average_Pooling_1D",
        cuda=CUDA,
        kernel_name="avgpool1d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(64),
            "channels": K.dim(128),
            "length": K.dim(65536, min=1),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs(10.0),
                seeds=[1, 2],
                sizes={"batch": 3, "channels": 5, "length": 97},
                small=True,
                purpose="output 3 x 5 x 98 = 1470 elements, not a multiple of the 256-thread block, so the tail "
                "guard matters; an odd length (97 -> 98 outputs) so a wrong output-length formula or row stride "
                "shows; U[0,10) same-sign values make one dropped, extra or shifted tap cost ~0.6 on average",
            ),
            K.suite(
                "T2_spiky_edges",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "channels": 8, "length": 1001},
                purpose="exact zeros with ~2% spikes in [10,20), and a spike at the first and last position of every "
                "row: each output depends on which spikes its window holds, so a window start off by one, a "
                "kernel of 7 or 9 taps, or a bound that drops the last input element moves outputs by >= 1.25; "
                "the forced edge spikes sit in the padded border windows, where only the divisor 8 "
                "(count_include_pad) is right",
            ),
            K.suite(
                "T3_short_rows",
                scaled_inputs(10.0),
                seeds=[5, 6],
                sizes={"batch": 16, "channels": 33, "length": 5},
                purpose="rows of 5 < kernel 8: every window is cut by the padding on one or both sides (6 outputs "
                "per row, all at borders), so both bounds of the tap guard and the padded-divisor rule act on "
                "every output; 528 rows make row-stride (L vs OL) mix-ups visible",
            ),
        ],
        notes="The divisor is always 8 (count_include_pad=True, floor mode), also in the 4 border windows of each "
        "row; a kernel that divides by the number of real taps fails already on T0_original. U[0,1) inputs "
        "give interior outputs near 0.5 with a standard deviation of about 0.1, so on T0 a single shifted tap "
        "often stays within 1e-2; T1-T3 amplify that. Output elements (537 M) stay below 2^31, so a 32-bit "
        "flat-index mutant does not overflow on any suite.",
    )
