"""KernelBench level 1, problem 27_SELU_: torch.selu(x) over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: scale * x where x > 0, else scale * alpha *
expm1f(x), with torch's SELU constants. 4096 x 393216 = 1.61 G elements is below 2^31 but resized
suites may exceed it, so the flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.04 ms).
"""

CUDA = r"""
const float SELU_ALPHA = 1.6732632423543772848170429916717f;   // torch's SELU alpha
const float SELU_SCALE = 1.0507009873554804934193349852946f;   // torch's SELU scale

extern "C" __global__ void selu_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = v > 0.0f ? SELU_SCALE * v : SELU_SCALE * SELU_ALPHA * expm1f(v);
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "selu_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.selu(x)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p27_selu",
        level=1,
        problem="27_SELU_",
        cuda=CUDA,
        kernel_name="selu_kernel",
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
                "to -1.73), so a dropped alpha, a dropped scale on either branch, exp instead of "
                "expm1 (off by 1.76) or the positive formula on both sides fails (U[0,1) never "
                "takes the negative branch)",
            ),
            K.suite(
                "T2_wide_saturated",
                uniform_inputs(-20.0, 20.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-20,20): the negative branch saturates at -scale * alpha = -1.758 and the "
                "positive one reaches 21, so a constant perturbed by a few percent (the "
                "saturation level or the slope) shows beyond 1e-2; 4099 columns give a partial "
                "last block",
            ),
        ],
        notes="Official inputs are U[0,1): every value is non-negative, so only scale * x is exercised "
        "on T0 and a kernel with a wrong or missing negative branch passes it; the signed suites "
        "kill it. torch uses expm1 on the negative branch; expf(x) - 1 differs by ~1e-7 absolute "
        "and is equivalent at 1e-2. Element count 1.61e9 < 2^31, so a 32-bit flat-index mutant "
        "does not overflow on any suite.",
    )
