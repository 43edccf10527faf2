"""KernelBench level 1, problem 30_Softsign: x / (1 + torch.abs(x)) over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: x / (1 + fabsf(x)), as the reference computes it.
4096 x 393216 = 1.61 G elements is below 2^31 but resized suites may exceed it, so the flat index is
64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
10.5 ms).
"""

CUDA = r"""
const float SOFTSIGN_ONE = 1.0f;        // the 1 in 1 + |x|

extern "C" __global__ void softsign_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = v / (SOFTSIGN_ONE + fabsf(v));
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "softsign_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return x / (1 + torch.abs(x))

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p30_softsign",
        level=1,
        problem="30_Softsign",
        cuda=CUDA,
        kernel_name="softsign_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096), "dim": K.dim(393216)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                uniform_inputs(-10.0, 10.0),
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="3003 elements, not a multiple of the 256-thread block, so the tail block's guard "
                "matters; x = U[-10,10): half the values are negative, so a kernel without the "
                "absolute value (x / (1 + x), which blows up near x = -1) or with a sign slip "
                "fails (on U[0,1) |x| = x)",
            ),
            K.suite(
                "T2_wide_signed",
                uniform_inputs(-1000.0, 1000.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-1000,1000): outputs crowd at +-1 and a dropped 1 in the denominator is "
                "invisible there, but a numerator and denominator swap or x * (1 + |x|) is off by "
                "orders of magnitude; 4099 columns give a partial last block; correct fp32 stays "
                "within ~1e-7 relative",
            ),
        ],
        notes="Official inputs are U[0,1): every value is non-negative, so a kernel that forgets fabsf "
        "passes T0_original; T1 kills it. Element count 1.61e9 < 2^31, so a 32-bit flat-index "
        "mutant does not overflow on any suite.",
    )
