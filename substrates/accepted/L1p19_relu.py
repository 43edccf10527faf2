"""KernelBench level 1, problem 19_ReLU: torch.relu over a 4096 x 393216 fp32 tensor.

One thread per element over the flattened tensor. 1.6 G elements exceed 2^31, so the flat index
is 64-bit.
"""

CUDA = r"""
extern "C" __global__ void relu_kernel(
    const float* __restrict__ x,    // [n]
    float* __restrict__ out,        // [n]
    long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    out[i] = v > 0.0f ? v : 0.0f;
}
"""

BLOCK = 256


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        out = torch.empty_like(x)
        n = x.numel()
        return (
            "relu_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.relu(x)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim)
        return [torch.rand(s["batch"], s["dim"])]

    def signed_inputs(torch, s):
        # Half the values negative, so a kernel that passes x through unchanged fails.
        return [torch.rand(s["batch"], s["dim"]) * 2.0 - 1.0]

    def spiky_inputs(torch, s):
        # Mostly exact zeros and tiny negatives, a few large positives: ties at the threshold.
        x = -torch.rand(s["batch"], s["dim"]) * 1e-3
        mask = torch.rand(s["batch"], s["dim"]) < 0.01
        x[mask] = torch.rand(int(mask.sum())) * 100.0
        x[torch.rand(s["batch"], s["dim"]) < 0.2] = 0.0
        return [x]

    return K.substrate(
        name="L1p19_relu",
        level=1,
        problem="19_ReLU",
        cuda=CUDA,
        kernel_name="relu_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(4096), "dim": K.dim(393216)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "dim": 1001},
                small=True,
                purpose="3003 elements, not a multiple of the 256-thread block, so the tail block's guard matters; "
                "signed values so the negative branch is exercised (U[0,1) inputs never take it)",
            ),
            K.suite(
                "T2_spiky",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 64, "dim": 4099},
                purpose="sparse large positives among zeros and tiny negatives: threshold ties and a wide range",
            ),
        ],
        notes="Official inputs are U[0,1): every value is non-negative, so ReLU is the identity on them "
        "and a kernel that forgets the comparison passes T0_original.",
    )
