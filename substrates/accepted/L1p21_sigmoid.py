"""KernelBench level 1, problem 21_Sigmoid: torch.sigmoid(x) over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: 1 / (1 + expf(-x)), as torch computes it. 4096 x
393216 = 1.61 G elements is below 2^31 but resized suites may exceed it, so the flat index is
64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.03 ms).
"""

CUDA = r"""
const float SIGMOID_ONE = 1.0f;         // the 1 in 1 / (1 + exp(-x))

extern "C" __global__ void sigmoid_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = SIGMOID_ONE / (SIGMOID_ONE + expf(-v));
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "sigmoid_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.sigmoid(x)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p21_sigmoid",
        level=1,
        problem="21_Sigmoid",
        cuda=CUDA,
        kernel_name="sigmoid_kernel",
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
                "matters; x = U[-8,8) covers the whole curve, outputs 3e-4..0.9997, so a sign "
                "slip in the exponent (1 - sigmoid), a missing 1 in the denominator or a clamp "
                "fails (U[0,1) only spans outputs 0.5..0.73)",
            ),
            K.suite(
                "T2_wide_saturated",
                uniform_inputs(-100.0, 100.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-100,100): below -88.7 expf(-x) overflows to inf and the output must come "
                "out as exactly 0 (not NaN), above it the output saturates at 1, so a rewrite as "
                "expf(x) / (1 + expf(x)) gives inf/inf = NaN for x > 88.7; 4099 columns give a "
                "partial last block",
            ),
        ],
        notes="No branches. On U[0,1) the outputs lie in 0.5..0.73 and the curve is nearly linear there "
        "(slope 0.20..0.25); the signed suites cover both tails. A fast-math __expf stays within "
        "~1e-6 and is an equivalent mutant at 1e-2. Element count 1.61e9 < 2^31, so a 32-bit "
        "flat-index mutant does not overflow on any suite.",
    )
