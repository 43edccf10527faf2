"""KernelBench level 1, problem 26_GELU_: torch.nn.functional.gelu(x) (the exact erf form,
approximate='none') over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: 0.5 * x * (1 + erff(x / sqrt(2))), the formula
torch's default GELU uses. 4096 x 393216 = 1.61 G elements is below 2^31 but resized suites may
exceed it, so the flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.03 ms).
"""

CUDA = r"""
const float GELU_HALF = 0.5f;                   // the leading 0.5
const float GELU_ONE = 1.0f;                    // 1 + erf(...)
const float GELU_INV_SQRT2 = 0.7071067811865476f;  // 1 / sqrt(2) (M_SQRT1_2)

extern "C" __global__ void gelu_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = GELU_HALF * v * (GELU_ONE + erff(v * GELU_INV_SQRT2));
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "gelu_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.nn.functional.gelu(x)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p26_gelu",
        level=1,
        problem="26_GELU_",
        cuda=CUDA,
        kernel_name="gelu_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096), "dim": K.dim(393216)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                uniform_inputs(-4.0, 4.0),
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="3003 elements, not a multiple of the 256-thread block, so the tail block's guard "
                "matters; x = U[-4,4) crosses zero and the negative dip (minimum -0.17 at x = "
                "-0.75), so a sign slip, a missing 0.5, erf(x) without the 1/sqrt(2) scale (error "
                "up to 0.08) or a dropped 1 + fails",
            ),
            K.suite(
                "T2_wide_saturated",
                uniform_inputs(-12.0, 12.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-12,12): most values sit in the tails, where the output is x (up to 12) or "
                "~0, so a kernel that replaces erf by its argument or loses the negative branch "
                "is off by the size of x; 4099 columns give a partial last block; the correct "
                "fp32 result stays within ~1e-6 of the exact one",
            ),
        ],
        notes="The default F.gelu is the erf form; the tanh approximation (L1p88) differs from it by at "
        "most ~5e-4, so a kernel using it would pass at 1e-2 (no rule produces it). On U[0,1) the "
        "outputs lie in 0..0.84. Element count 1.61e9 < 2^31, so a 32-bit flat-index mutant does "
        "not overflow on any suite.",
    )
