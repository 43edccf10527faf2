"""KernelBench level 2, problem 14_Gemm_Divide_Sum_Scaling: sum_j((x @ W^T)[:, j] / 2) * 1.5, keepdim.

x is 1024 x 8192, W is a plain nn.Parameter(torch.randn(8192, 8192)) (no bias); the output is
1024 x 1. One kernel, one 256-thread block per batch row. The block walks the row's 8192 GEMM
outputs in column tiles of 256 (one column per thread): for every K-tile of 16 it stages x's 16
values and a transposed, padded 16 x 256 tile of W in shared memory (coalesced loads, a barrier
after the loads and another after the multiply-accumulate). Each thread divides its finished
column by 2 and adds it to a private fp32 partial sum; a shared-memory tree reduction (a barrier
after every level) gives the row sum, which thread 0 scales by 1.5 and stores.

Cost: 2 x 1024 x 8192 x 8192 = 137 GFLOP, and every block streams all of W (256 MB) through L2:
about 275 GB of L2 traffic, roughly 50-100 ms on an H200 (cuBLAS reference 2.74 ms).
"""

CUDA = r"""
const int ROW_THREADS = 256;        // threads per block (one block per batch row) = columns per column tile
const int KTILE = 16;               // K is consumed KTILE at a time
const float DIVISOR = 2.0f;         // x / 2
const float SCALING_FACTOR = 1.5f;  // Model.scaling_factor

extern "C" __global__ void gemm_div_sum_scale_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  (hidden_size x input_size)
    float* __restrict__ out,        // [M, 1]
    int M, int N, int K)
{
    __shared__ float xs[KTILE];                     // xs[k] = x[row, k0 + k]
    __shared__ float ws[KTILE][ROW_THREADS + 1];    // ws[k][c] = w[c0 + c, k0 + k]  (transposed, padded)
    __shared__ float red[ROW_THREADS];              // per-thread partial row sums

    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;

    float thread_sum = 0.0f;
    int num_col_tiles = (N + ROW_THREADS - 1) / ROW_THREADS;
    int num_k_tiles = (K + KTILE - 1) / KTILE;
    for (int ct = 0; ct < num_col_tiles; ++ct) {
        int c0 = ct * ROW_THREADS;
        float acc = 0.0f;
        for (int t = 0; t < num_k_tiles; ++t) {
            int k0 = t * KTILE;
            if (tid < KTILE) {
                int k = k0 + tid;
                if (k < K) {
                    xs[tid] = x[(long long)row * K + k];
                } else {
                    xs[tid] = 0.0f;
                }
            }
            for (int e = tid; e < KTILE * ROW_THREADS; e += blockDim.x) {
                int c = e / KTILE;      // tile column: W row c0 + c
                int kk = e % KTILE;     // position inside the K tile
                int w_row = c0 + c;
                int k = k0 + kk;
                if (w_row < N && k < K) {
                    ws[kk][c] = w[(long long)w_row * K + k];
                } else {
                    ws[kk][c] = 0.0f;
                }
            }
            __syncthreads();    // the x and W tiles are loaded
            for (int kk = 0; kk < KTILE; ++kk) {
                acc += xs[kk] * ws[kk][tid];
            }
            __syncthreads();    // everyone is done with the tiles before the next load
        }
        int col = c0 + tid;
        if (col < N) {
            thread_sum += acc / DIVISOR;
        }
    }

    // Row sum: tree reduction in shared memory.
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) {
        out[row] = red[0] * SCALING_FACTOR;
    }
}
"""

ROW_THREADS = 256         # must equal ROW_THREADS in the CUDA source (a power of two)
ROWS_PER_BLOCK = 1        # one block reduces one batch row
INPUT_SIZE = 8192         # fixed by the weight
HIDDEN_SIZE = 8192
DIVISOR = 2.0             # must equal the CUDA constants
SCALING_FACTOR = 1.5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(8192, 8192, 1.5): self.weight = nn.Parameter(torch.randn(hidden_size, input_size))
        weight = torch.nn.Parameter(torch.randn(HIDDEN_SIZE, INPUT_SIZE))
        return {"w": weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        M, Kd = x.shape
        N = w["w"].shape[0]
        out = torch.empty(M, 1, device=x.device, dtype=x.dtype)
        return (
            "gemm_div_sum_scale_kernel",
            (K.cdiv(M, ROWS_PER_BLOCK), 1, 1),
            (ROW_THREADS, 1, 1),
            [x, w["w"], out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.matmul(x, w["w"].T)
        y = y / DIVISOR
        y = torch.sum(y, dim=1, keepdim=True)
        return y * SCALING_FACTOR

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_size)]
        return [torch.rand(s["batch"], INPUT_SIZE)]

    def large_inputs(torch, s):
        # Same sign, 16 times the official range.
        return [torch.rand(s["batch"], INPUT_SIZE) * 16.0]

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero (1..50), the rest exact zeros; rows 0, 4, 8, ... hold a
        # single nonzero entry only.
        x = torch.zeros(s["batch"], INPUT_SIZE)
        mask = torch.rand(s["batch"], INPUT_SIZE) < 0.01
        mask[0::4] = False
        mask[0::4, 7] = True
        x[mask] = 1.0 + torch.rand(int(mask.sum())) * 49.0
        return [x]

    return K.substrate(
        name="L2p14_gemm_div_sum_scale",
        level=2,
        problem="14_Gemm_Divide_Sum_Scaling",
        cuda=CUDA,
        kernel_name="gemm_div_sum_scale_kernel",
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=2**31 - 1)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_small",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 5},
                small=True,
                purpose="5 rows of official U[0,1) values: one block per row, every column tile and K tile "
                "of the 8192 x 8192 weight still runs, so dropped tiles, a wrong divisor or scale, a broken "
                "tree reduction or a missing barrier show; the row sums are thousands in magnitude "
                "(sums of 8192 GEMM outputs of std ~50)",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 24},
                purpose="x = U[0,16): same-sign large magnitudes, row sums in the tens of thousands; the error "
                "of a correct fp32 kernel (and of the fp32 reference against fp64) scales with the sum: a CPU "
                "emulation of this kernel gave allclose distances of at most 1.6e-4 to the fp32 reference and "
                "1.4e-4 to fp64, two orders inside 1e-2, while a lost partial sum or tile moves the sum by "
                "percents",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 16},
                purpose="about 1% of x nonzero (values 1..50), and every fourth row a single nonzero entry at "
                "k = 7: each row sum is a sum of ~80 (or one) scaled column sums of W, so a wrong k index, K "
                "tile offset or transposed tile element is not averaged away, and a row whose only term sits "
                "in the first K tile isolates tile-offset faults",
            ),
        ],
        notes="The output is one number per row: sum over 8192 columns of GEMM outputs with W ~ N(0,1), "
        "magnitudes of a few thousand. The facts file marks this problem fp32-ill-conditioned at 1e-4 "
        "(the IEEE fp32 reference misses fp64 at 1e-4, but stays far inside the v0.1 1e-2). The kernel "
        "sums each thread's 32 columns sequentially and then through a tree, a different order from "
        "torch's. The kernel's absolute error is about 5e-3 (std) at official values, from 8192-term "
        "sequential fp32 dot products summed over 8192 columns, independent of the output's size, so rows "
        "whose sum lies near zero use a real share of the 1e-2 atol: an FMA-faithful CPU emulation of this "
        "kernel on the 11 rows with |out| < 4 across the five official seeds used at most 65% of the "
        "allowance (seed 576165995, row 100: out -0.779 vs an fp32 CPU reference -0.768, allowed 1.78e-2), "
        "and every other row far less; the fp32 CPU reference itself stays within 10% of the allowance of "
        "fp64. On the targeted suites the distances are below 2e-4. N = 8192 is fixed by the weight and a multiple "
        "of the 256-column tile, and K = 8192 a multiple of 16, so the col < N, w_row < N and k < K "
        "guards never fire; one block per row (grid = batch exactly), so the row >= M guard never fires "
        "either: mutants that only touch those guards are equivalent. Division by 2 is exact in fp32, so "
        "moving it after the sum is equivalent too.",
    )
