"""KernelBench level 1, problem 28_HardSigmoid: torch.nn.functional.hardsigmoid(x) over a 4096 x 393216
fp32 tensor.

One thread per element over the flattened tensor: relu6(x + 3) / 6, i.e. min(max(x + 3, 0), 6) / 6,
as torch computes it. 4096 x 393216 = 1.61 G elements is below 2^31 but resized suites may exceed
it, so the flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.04 ms).
"""

CUDA = r"""
const float HS_OFFSET = 3.0f;   // x + 3
const float HS_LOWER = 0.0f;    // relu6 lower clamp
const float HS_UPPER = 6.0f;    // relu6 upper clamp
const float HS_DIVISOR = 6.0f;  // / 6

extern "C" __global__ void hardsigmoid_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float t = v + HS_OFFSET;
    if (t < HS_LOWER) t = HS_LOWER;
    if (t > HS_UPPER) t = HS_UPPER;
    out[i] = t / HS_DIVISOR;
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "hardsigmoid_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.nn.functional.hardsigmoid(x)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    def grid_inputs(torch, s):
        # Multiples of 0.5 in [-6, 6]: exact hits on the kinks at x = -3 and x = 3.
        return [torch.randint(-12, 13, (s["batch"], s["dim"])).float() * 0.5]

    return K.substrate(
        name="L1p28_hardsigmoid",
        level=1,
        problem="28_HardSigmoid",
        cuda=CUDA,
        kernel_name="hardsigmoid_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096), "dim": K.dim(393216)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                uniform_inputs(-5.0, 5.0),
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="3003 elements, not a multiple of the 256-thread block, so the tail block's guard "
                "matters; x = U[-5,5) takes all three pieces (0 below -3, 1 above 3, linear "
                "between), so a missing clamp (outputs down to -0.33 or up to 1.33), a wrong "
                "offset or divisor, or a clamp at 1 instead of 6 fails (U[0,1) only spans "
                "0.5..0.67 and never clamps)",
            ),
            K.suite(
                "T2_kinks",
                grid_inputs,
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x in multiples of 0.5 on [-6,6]: about 8% of the values sit exactly on the kinks "
                "-3 and 3 (outputs exactly 0 and 1) and 48% beyond them, so a clamp bound shifted "
                "by a step or a wrong comparison shows; 4099 columns give a partial last block; "
                "the operation is exact in fp32 up to rounding of / 6",
            ),
        ],
        notes="Official inputs are U[0,1): x + 3 stays in [3, 4), inside both clamps, so a kernel "
        "without either clamp passes T0_original; the signed suites kill it. At the kinks both "
        "sides of each comparison give the same value, so < versus <= mutants are equivalent. "
        "Element count 1.61e9 < 2^31, so a 32-bit flat-index mutant does not overflow on any "
        "suite.",
    )
