"""KernelBench level 1, problem 22_Tanh: torch.tanh(x) over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: tanhf(x). 4096 x 393216 = 1.61 G elements is below
2^31 but resized suites may exceed it, so the flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.03 ms).
"""

CUDA = r"""


extern "C" __global__ void tanh_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = tanhf(v);
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "tanh_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.tanh(x)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p22_tanh",
        level=1,
        problem="22_Tanh",
        cuda=CUDA,
        kernel_name="tanh_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096), "dim": K.dim(393216)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                uniform_inputs(-3.0, 3.0),
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="3003 elements, not a multiple of the 256-thread block, so the tail block's guard "
                "matters; x = U[-3,3) crosses zero and the bend of the curve (outputs "
                "-0.995..0.995), so a sign slip, tanh replaced by its argument or by a clamp, or "
                "sigmoid in its place fails (on U[0,1) tanh(x) and x differ by up to 0.24, but an "
                "odd-symmetry slip never shows)",
            ),
            K.suite(
                "T2_wide_saturated",
                uniform_inputs(-20.0, 20.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-20,20): most values saturate at +-1, so a hand-written (exp(x) - exp(-x)) "
                "/ (exp(x) + exp(-x)) is still fine but any kernel that lets x through or "
                "overflows shows; 4099 columns give a partial last block",
            ),
        ],
        notes="No branches and no named constants: the mutation sites are the index, the guard and the "
        "function call. Element count 1.61e9 < 2^31, so a 32-bit flat-index mutant does not "
        "overflow on any suite.",
    )
