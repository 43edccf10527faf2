"""KernelBench level 1, problem 37_FrobeniusNorm_: x / torch.norm(x, p='fro') on x 112 x 64 x 512 x 512.

The whole tensor (1.88 G elements) is divided by one scalar, the square root of the sum of all
squares. The model has no parameters.

Every output needs the global sum, which one launch cannot wait for, so this is a pipeline of
three kernels (SPEC section 2: a level-1 chain whose statistics need a pass of their own):
1. frobenius_partial_kernel: block b (256 threads) reduces the 4096-element chunk b of the flat
   tensor: per-thread fp32 sums of x * x over its strided elements, then a shared-memory tree;
   it writes partials[b].
2. frobenius_norm_kernel: one 1024-thread block sums partials[0..num_chunks) in a fixed order
   (strided per thread, then a tree) and writes norm[0] = sqrtf(total).
3. frobenius_divide_kernel: one thread per element, out[i] = x[i] / norm[0].
Every sum has a fixed order, so the result is deterministic. Flat indices are 64-bit.

Cost: step 1 reads 7.5 GB (458752 blocks, bandwidth bound, ~2-3 ms on an H200), step 2 reads
1.8 MB with one block (~0.1-0.3 ms), step 3 reads 7.5 GB and writes 7.5 GB (~4-6 ms): about
6-10 ms in all (reference 7.07 ms).
"""

CUDA = r"""
const int FN_BLOCK = 256;           // threads per block of the partial and divide kernels (power of two)
const int FN_CHUNK = 4096;          // elements per partial-sum block (16 strides of FN_BLOCK)
const int FN_NORM_BLOCK = 1024;     // threads of the single block that sums the partials (power of two)

extern "C" __global__ void frobenius_partial_kernel(
    const float* __restrict__ x,        // [total]  (the whole tensor, flat)
    float* __restrict__ partials,       // [num_chunks]  sum of squares of each chunk
    long long total, int num_chunks)
{
    __shared__ float red[FN_BLOCK];
    int b = blockIdx.x;
    if (b >= num_chunks) return;
    int tid = threadIdx.x;
    long long start = (long long)b * FN_CHUNK;
    long long end = start + FN_CHUNK;
    if (end > total) end = total;

    float thread_sq = 0.0f;
    for (long long i = start + tid; i < end; i += blockDim.x) {
        float v = x[i];
        thread_sq += v * v;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        partials[b] = red[0];
    }
}

extern "C" __global__ void frobenius_norm_kernel(
    const float* __restrict__ partials, // [num_chunks]
    float* __restrict__ norm,           // [1]  sqrt of the sum of all squares
    int num_chunks)
{
    __shared__ float red[FN_NORM_BLOCK];
    int tid = threadIdx.x;
    float thread_sum = 0.0f;
    for (int k = tid; k < num_chunks; k += blockDim.x) {
        thread_sum += partials[k];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        norm[0] = sqrtf(red[0]);
    }
}

extern "C" __global__ void frobenius_divide_kernel(
    const float* __restrict__ x,        // [total]
    const float* __restrict__ norm,     // [1]
    float* __restrict__ out,            // [total]
    long long total)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    out[i] = x[i] / norm[0];
}
"""

BLOCK = 256             # must equal FN_BLOCK (the partial kernel's shared buffer size)
CHUNK = 4096            # must equal FN_CHUNK
NORM_BLOCK = 1024       # must equal FN_NORM_BLOCK (the norm kernel's shared buffer size)
NORM_BLOCKS = 1         # one block sums all partials (in a fixed order)


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        total = x.numel()
        num_chunks = K.cdiv(total, CHUNK)
        partials = torch.empty(num_chunks, device=x.device, dtype=x.dtype)
        norm = torch.empty(1, device=x.device, dtype=x.dtype)
        out = torch.empty_like(x)
        return {
            "seq": [
                (
                    "frobenius_partial_kernel",
                    (K.cdiv(total, CHUNK), 1, 1),
                    (BLOCK, 1, 1),
                    [x, partials],
                    [(ctypes.c_longlong, total), (ctypes.c_int, num_chunks)],
                ),
                (
                    "frobenius_norm_kernel",
                    (NORM_BLOCKS, 1, 1),
                    (NORM_BLOCK, 1, 1),
                    [partials, norm],
                    [(ctypes.c_int, num_chunks)],
                ),
                (
                    "frobenius_divide_kernel",
                    (K.cdiv(total, BLOCK), 1, 1),
                    (BLOCK, 1, 1),
                    [x, norm, out],
                    [(ctypes.c_longlong, total)],
                ),
            ],
            "out": out,
        }

    def ref(inputs, torch):
        (x,) = inputs
        norm = torch.norm(x, p="fro")
        return x / norm

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, features, dim1, dim2)
        return [torch.rand(s["batch"], s["features"], s["dim1"], s["dim2"])]

    def spiky_inputs(rate):
        # Small signed background U[-0.01, 0.01), a fraction `rate` of spikes of +-10 (random sign), and
        # spikes of +60 at the first and -60 at the last element: the norm is carried by the spikes, so
        # the spike outputs are 0.05-0.7 instead of the official ~4e-5.
        def gen(torch, s):
            shape = (s["batch"], s["features"], s["dim1"], s["dim2"])
            x = (torch.rand(shape) * 2.0 - 1.0) * 0.01
            flat = x.view(-1)
            spikes = torch.rand(flat.numel()) < rate
            n = int(spikes.sum())
            flat[spikes] = torch.where(torch.rand(n) < 0.5, -10.0, 10.0)
            flat[0] = 60.0
            flat[-1] = -60.0
            return [x]

        return gen

    def tiny_inputs(torch, s):
        # A tiny tensor of same-sign U[0, 100): each output is about x / (100 * sqrt(n / 3)), up to ~0.2.
        return [torch.rand(s["batch"], s["features"], s["dim1"], s["dim2"]) * 100.0]

    return K.substrate(
        name="L1p37_frobeniusnorm",
        level=1,
        problem="37_FrobeniusNorm_",
        cuda=CUDA,
        kernel_name=["frobenius_partial_kernel", "frobenius_norm_kernel", "frobenius_divide_kernel"],
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(112),
            "features": K.dim(64),
            "dim1": K.dim(512),
            "dim2": K.dim(512),
        },
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (outputs below 4e-5: degenerate, see notes)",
            ),
            K.suite(
                "T1_remainder_spiky",
                spiky_inputs(0.002),
                seeds=[1, 2],
                sizes={"batch": 2, "features": 3, "dim1": 17, "dim2": 61},
                small=True,
                purpose="6222 elements: two chunks, 4096 + 2126 (the second chunk's strides end early, so the i < end "
                "guard matters), and 6222 = 24 x 256 + 78 divide threads (tail guard); a signed background with "
                "~12 spikes of +-10 and +-60 at the first and last element: the norm is carried by the spikes "
                "(outputs up to ~0.7), so a lost chunk partial, a dropped first or last element, a sum of |x| or "
                "x instead of x * x (the last spike is negative), or a missing sqrt fails",
            ),
            K.suite(
                "T2_many_chunks_spiky",
                spiky_inputs(0.00002),
                seeds=[3, 4],
                sizes={"batch": 2, "features": 8, "dim1": 520, "dim2": 521},
                purpose="4,334,720 elements in 1059 chunks (the last of 1152): the norm kernel's 1024 threads stride "
                "over the partials twice (35 threads take a second partial), so its k < num_chunks guard and "
                "stride matter; ~87 spikes of +-10 and the +-60 edge spikes in the first and last chunk: a lost "
                "first or last partial (or a norm loop that skips partial 0 or the last) moves the edge outputs "
                "(~0.47) by ~0.07",
            ),
            K.suite(
                "T3_tiny_same_sign",
                tiny_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "features": 3, "dim1": 4, "dim2": 5},
                purpose="120 elements of U[0,100) in one chunk (136 of 256 partial threads and 1023 of 1024 norm "
                "threads idle, so the reduction identities matter): outputs up to ~0.16, so a wrong norm (p = 1, "
                "no sqrt, the mean instead of the sum) or a wrong element shows, where on the official inputs "
                "every output is below 4e-5",
            ),
        ],
        notes="Degenerate at the official inputs (zeros-pass at 1e-2 and 1e-4): the norm of 1.88 G U[0,1) values "
        "is sqrt(1.88e9 / 3) ~ 25000, so every official output lies in [0, 4.0e-5] (measured on the first official trial: norm 25026.7, max |out| 3.996e-5) and returning zeros, "
        "or x / c for any c >~ 100 (dropping most of the sum, a missing sqrt), passes T0_original. The targeted "
        "suites use small, spiky tensors with outputs of order 0.1-0.7. A pipeline of three kernels: the "
        "partial sums, the norm, the division (the global sum must be complete before any output is "
        "written). 1.88 G < 2^31 elements, so a 32-bit flat index does not overflow on any suite.",
    )
