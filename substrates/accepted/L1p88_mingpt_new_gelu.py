"""KernelBench level 1, problem 88_MinGPTNewGelu: the tanh-approximation GELU of minGPT/BERT,
0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), over an 8192 x 8192 fp32 tensor.

One thread per element over the flattened tensor, written in the reference's order of operations:
powf(x, 3), times 0.044715, plus x, times sqrt(2/pi), tanhf, plus 1, times 0.5 * x. The flat index
is 64-bit (resized suites may exceed 2^31 elements; the official 67 M do not).

Cost: 67.1 M elements, 268 MB read and 268 MB written; at ~4 TB/s effective about 0.15 ms on an
H200 (reference 1.15 ms).
"""

CUDA = r"""
const float GELU_HALF = 0.5f;                       // the leading 0.5
const float GELU_ONE = 1.0f;                        // 1 + tanh(...)
const float SQRT_2_OVER_PI = 0.7978845608028654f;   // math.sqrt(2.0 / math.pi)
const float GELU_COEFF = 0.044715f;                 // coefficient of the cubic term
const float GELU_POWER = 3.0f;                      // torch.pow(x, 3.0)

extern "C" __global__ void mingpt_new_gelu_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float cube = powf(v, GELU_POWER);
    float inner = SQRT_2_OVER_PI * (v + GELU_COEFF * cube);
    float t = tanhf(inner);
    out[i] = GELU_HALF * v * (GELU_ONE + t);
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    import math

    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "mingpt_new_gelu_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def signed_inputs(lo, hi):
        # U[lo, hi): both signs, so the negative half of the curve (outputs near 0 below -3) is used.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p88_mingpt_new_gelu",
        level=1,
        problem="88_MinGPTNewGelu",
        cuda=CUDA,
        kernel_name="mingpt_new_gelu_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(8192), "dim": K.dim(8192)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                signed_inputs(-4.0, 4.0),
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="3003 elements, not a multiple of the 256-thread block, so the tail block's guard matters; "
                "x = U[-4,4) crosses zero and reaches the region where the cubic term moves tanh's argument by "
                "up to 72%, so a dropped or mis-scaled cubic term, a sign slip or a wrong 0.5/1.0 constant "
                "shows (U[0,1) never leaves the near-linear part of the curve)",
            ),
            K.suite(
                "T2_cubic_band",
                signed_inputs(-3.0, 3.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-3,3), the band where the cubic term weighs most (near |x| = 2 it moves tanh's "
                "argument by 18%): dropping it or computing x^2 instead of x^3 moves outputs by 0.03-0.06, beyond "
                "1e-2, where on U[0,1) dropping it changes outputs by at most 0.0098, inside the official tolerance; "
                "4099 columns give a partial last block",
            ),
            K.suite(
                "T3_wide_saturated",
                signed_inputs(-12.0, 12.0),
                seeds=[5, 6],
                sizes={"batch": 40, "dim": 1027},
                purpose="x = U[-12,12): most values saturate tanh (out ~ x above 3, out ~ 0 below -3) and "
                "x^3 reaches 1728, so a kernel that replaces tanh by its argument, clamps wrongly or loses the "
                "sign of the negative branch produces outputs off by the size of x itself; the correct fp32 "
                "result stays within ~1e-7 of the exact one",
            ),
        ],
        notes="Official inputs are U[0,1): the curve is nearly linear there (outputs 0..0.84) and the cubic "
        "term shifts tanh's argument by at most 0.036, so a kernel without the 0.044715 * x^3 term passes "
        "T0_original (max error 0.0098 < 1e-2 + 1e-2 |out|); the signed suites T1-T3 kill it. GELU is "
        "insensitive to its constants on every input: d out / d 0.044715 stays below ~0.6 and d out / "
        "d sqrt(2/pi) below ~0.33, so perturbing 0.044715 by 10% (0.04) or sqrt(2/pi) to 0.8 changes outputs by "
        "at most 3e-3 and 7e-4 (measured) and such constant mutants are equivalent at 1e-2. Element count "
        "67 M < 2^31, so a 32-bit flat-index mutant does not overflow on any suite.",
    )
