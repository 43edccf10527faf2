"""KernelBench level 1, problem 29_Softplus: torch.nn.functional.softplus(x) (beta = 1, threshold = 20)
over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: x where beta * x > threshold, else
log1pf(expf(beta * x)) / beta, as torch computes it. 4096 x 393216 = 1.61 G elements is below 2^31
but resized suites may exceed it, so the flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.1 ms).
"""

CUDA = r"""
const float SOFTPLUS_BETA = 1.0f;          // F.softplus default beta
const float SOFTPLUS_THRESHOLD = 20.0f;    // F.softplus default threshold: linear above it

extern "C" __global__ void softplus_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float z = v * SOFTPLUS_BETA;
    out[i] = z > SOFTPLUS_THRESHOLD ? v : log1pf(expf(z)) / SOFTPLUS_BETA;
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "softplus_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.nn.functional.softplus(x)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p29_softplus",
        level=1,
        problem="29_Softplus",
        cuda=CUDA,
        kernel_name="softplus_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096), "dim": K.dim(393216)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                uniform_inputs(-30.0, 30.0),
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="3003 elements, not a multiple of the 256-thread block, so the tail block's guard "
                "matters; x = U[-30,30) takes both branches (a sixth of the values lie above the "
                "threshold 20) and the negative tail (outputs down to ~1e-13), so a relu in place "
                "of softplus (error up to 0.69 near 0), a sign slip or a missing log fails "
                "(U[0,1) outputs only span 0.69..1.31)",
            ),
            K.suite(
                "T2_wide_threshold",
                uniform_inputs(-100.0, 100.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-100,100): above 88.7 expf(x) overflows to inf, so a kernel that drops the "
                "threshold branch returns inf on 5.6% of the values; 4099 columns give a partial "
                "last block; the correct fp32 result stays within ~1e-7 relative of the exact one",
            ),
        ],
        notes="Between 20 and 88.7 both branches agree to fp32 precision (log1p(exp(x)) - x < 2.1e-9), "
        "so a threshold moved anywhere in that range is an equivalent mutant; only a branch that "
        "is never taken shows, and only on T2. log(1 + exp(x)) instead of log1p differs by < 1e-7 "
        "absolute and is equivalent at 1e-2. Element count 1.61e9 < 2^31, so a 32-bit flat-index "
        "mutant does not overflow on any suite.",
    )
