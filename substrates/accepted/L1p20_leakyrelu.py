"""KernelBench level 1, problem 20_LeakyReLU: torch.nn.functional.leaky_relu(x, negative_slope=0.01)
over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: x where x > 0, else negative_slope * x, as torch
computes it. 4096 x 393216 = 1.61 G elements is below 2^31 but resized suites may exceed it, so the
flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.03 ms).
"""

CUDA = r"""
const float NEGATIVE_SLOPE = 0.01f;     // Model(negative_slope=0.01): get_init_inputs() is []

extern "C" __global__ void leaky_relu_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = v > 0.0f ? v : v * NEGATIVE_SLOPE;
}
"""

BLOCK = 256
NEGATIVE_SLOPE = 0.01  # the Model default; get_init_inputs() = []


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "leaky_relu_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.nn.functional.leaky_relu(x, negative_slope=NEGATIVE_SLOPE)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    return K.substrate(
        name="L1p20_leakyrelu",
        level=1,
        problem="20_LeakyReLU",
        cuda=CUDA,
        kernel_name="leaky_relu_kernel",
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
                "matters; x = U[-10,10): half the values take the negative branch, whose outputs "
                "reach -0.1, so a kernel that drops the slope (plain ReLU, error up to 0.1) or "
                "passes x through fails (U[0,1) inputs never take the branch)",
            ),
            K.suite(
                "T2_wide_signed",
                uniform_inputs(-100.0, 100.0),
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x = U[-100,100): negative outputs reach -1, so a slope off by 10% (0.011 or "
                "0.009, error up to 0.1 against a tolerance of ~0.02) or a slope applied to the "
                "positive side fails; 4099 columns give a partial last block; the operation is "
                "exact in fp32",
            ),
        ],
        notes="Official inputs are U[0,1): every value is non-negative, so LeakyReLU is the identity on "
        "them and a kernel that forgets the comparison or the slope passes T0_original; the "
        "signed suites T1 and T2 kill it. At x = 0 both branches give 0, so > versus >= is an "
        "equivalent mutant. Element count 1.61e9 < 2^31, so a 32-bit flat-index mutant does not "
        "overflow on any suite.",
    )
