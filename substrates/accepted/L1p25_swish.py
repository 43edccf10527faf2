"""KernelBench level 1, problem 25_Swish: x * torch.sigmoid(x) over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: x * (1 / (1 + expf(-x))), as the reference
computes it. 4096 x 393216 = 1.61 G elements is below 2^31 but resized suites may exceed it, so the
flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
7.52 ms).
"""

CUDA = r"""
const float SIGMOID_ONE = 1.0f;         // the 1 in 1 / (1 + exp(-x))

extern "C" __global__ void swish_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float sig = SIGMOID_ONE / (SIGMOID_ONE + expf(-v));
    out[i] = v * sig;
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "swish_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return x * torch.sigmoid(x)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p25_swish",
        level=1,
        problem="25_Swish",
        cuda=CUDA,
        kernel_name="swish_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096), "dim": K.dim(393216)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                uniform_inputs(-8.0, 8.0),
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="3003 elements, not a multiple of the 256-thread block, so the tail block's guard "
                "matters; x = U[-8,8) covers the negative dip (minimum -0.28 at x = -1.28) and "
                "the near-linear positive side, so x * sigmoid(-x), a missing factor x, or "
                "sigmoid alone fails",
            ),
            K.suite(
                "T2_wide_saturated",
                uniform_inputs(-100.0, 100.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-100,100): below -88.7 expf(-x) overflows and the output must be (minus) "
                "zero, not NaN; above it the output equals x up to 100, so a sigmoid that "
                "saturates wrongly is off by up to 100; 4099 columns give a partial last block",
            ),
        ],
        notes="No branches. On U[0,1) the outputs lie in 0..0.73. A fast-math __expf is an equivalent "
        "mutant at 1e-2. Element count 1.61e9 < 2^31, so a 32-bit flat-index mutant does not "
        "overflow on any suite.",
    )
