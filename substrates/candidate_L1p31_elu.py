"""KernelBench level 1, problem 31_ELU: torch.nn.functional.elu(x, alpha=1.0) over a 4096 x 393216 fp32
tensor.

One thread per element over the flattened tensor: x where x > 0, else alpha * expm1f(x), as torch
computes it. 4096 x 393216 = 1.61 G elements is below 2^31 but resized suites may exceed it, so the
flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.03 ms).
"""

CUDA = r"""
const float ELU_ALPHA = 1.0f;   // Model(alpha): get_init_inputs() = [1.0]

extern "C" __global__ void elu_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = v > 0.0f ? v : ELU_ALPHA * expm1f(v);
}
"""

BLOCK = 256
ELU_ALPHA = 1.0  # get_init_inputs() = [1.0]


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "elu_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.nn.functional.elu(x, alpha=ELU_ALPHA)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p31_elu",
        level=1,
        problem="31_ELU",
        cuda=CUDA,
        kernel_name="elu_kernel",
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
                "matters; x = U[-4,4): half the values take the exponential branch (outputs down "
                "to -0.98), so a ReLU in its place, exp instead of expm1 (off by 1) or the "
                "identity on both sides fails (U[0,1) never takes the negative branch)",
            ),
            K.suite(
                "T2_wide_saturated",
                uniform_inputs(-20.0, 20.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-20,20): the negative branch saturates at -alpha = -1, so an alpha "
                "perturbed by a few percent shows beyond 1e-2, and positive values up to 20 catch "
                "a slope slip; 4099 columns give a partial last block",
            ),
        ],
        notes="Model(alpha) is built from get_init_inputs() = [1.0]; alpha is a constant of the "
        "substrate. Official inputs are U[0,1): every value is non-negative, so ELU is the "
        "identity on them and a kernel without the negative branch passes T0_original; the signed "
        "suites kill it. At x = 0 both branches give 0. Element count 1.61e9 < 2^31, so a 32-bit "
        "flat-index mutant does not overflow on any suite.",
    )
