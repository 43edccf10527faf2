"""KernelBench level 1, problem 32_HardTanh: torch.nn.functional.hardtanh(x, min_val=-1., max_val=1.)
over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor: x clamped to [min_val, max_val]. 4096 x 393216 =
1.61 G elements is below 2^31 but resized suites may exceed it, so the flat index is 64-bit.

Cost: 1.61 G elements, 6.4 GB read and 6.4 GB written, one pass: about 3-4 ms on an H200 (reference
3.11 ms).
"""

CUDA = r"""
const float HARDTANH_MIN = -1.0f;   // F.hardtanh min_val
const float HARDTANH_MAX = 1.0f;    // F.hardtanh max_val

extern "C" __global__ void hardtanh_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    float r = v;
    if (r < HARDTANH_MIN) r = HARDTANH_MIN;
    if (r > HARDTANH_MAX) r = HARDTANH_MAX;
    out[i] = r;
}
"""

BLOCK = 256
MIN_VAL = -1.0  # as in Model.forward
MAX_VAL = 1.0


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "hardtanh_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.nn.functional.hardtanh(x, min_val=MIN_VAL, max_val=MAX_VAL)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def uniform_inputs(lo, hi):
        # U[lo, hi) with both signs where lo < 0.
        def gen(torch, s):
            return [lo + torch.rand(s["batch"], s["dim"]) * (hi - lo)]

        return gen

    def grid_inputs(torch, s):
        # Multiples of 0.25 in [-2, 2]: exact hits on the clamp bounds -1 and 1.
        return [torch.randint(-8, 9, (s["batch"], s["dim"])).float() * 0.25]

    return K.substrate(
        name="L1p32_hardtanh",
        level=1,
        problem="32_HardTanh",
        cuda=CUDA,
        kernel_name="hardtanh_kernel",
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
                "matters; x = U[-3,3): two thirds of the values lie outside [-1,1], so a missing "
                "lower or upper clamp, swapped bounds or a bound of 0 fails (U[0,1) never leaves "
                "[-1,1], so hardtanh is the identity there)",
            ),
            K.suite(
                "T2_bounds",
                grid_inputs,
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="x in multiples of 0.25 on [-2,2]: 12% of the values sit exactly on the bounds -1 "
                "and 1 and 47% beyond them, so a bound moved by a step (0.75, 1.25) shows at "
                "once; 4099 columns give a partial last block; the operation is exact",
            ),
        ],
        notes="Official inputs are U[0,1): every value lies inside [-1,1), so HardTanh is the identity "
        "on them and a kernel without either clamp passes T0_original; the signed suites kill it. "
        "At the bounds both sides of each comparison give the same value, so < versus <= mutants "
        "are equivalent. Element count 1.61e9 < 2^31, so a 32-bit flat-index mutant does not "
        "overflow on any suite.",
    )
