"""KernelBench level 1, problem 47_Sum_reduction_over_a_dimension: torch.sum(x, dim=1, keepdim=True)
on a 128 x 4096 x 4095 fp32 tensor, giving 128 x 1 x 4095.

Model(dim) is built from get_init_inputs() = [1] and has no parameters.

One kernel. A block is 32 x 8 threads and owns 32 consecutive columns j of one batch b
(blockIdx.y): threadIdx.x picks the column, so every load of a warp is one coalesced 128-byte row
segment (a block per single output would read dim 1 with a stride of 4095 floats, one sector per
element), and threadIdx.y splits dim 1 into 8 interleaved slices (i = ty, ty + 8, ...). Each thread
accumulates its slice in an fp32 register; the 8 partial sums of a column are then added by a
shared-memory tree over ty with a barrier after every level. Out-of-range columns still take part
in the barriers and only skip the loads and the store. Offsets are 64-bit.

Cost: 8.6 GB read once, coalesced, plus 2 MB written: about 2-4 ms on an H200 (reference 2.1 ms).
"""

CUDA = r"""
const int SUM_TILE_X = 32;      // columns per block (blockDim.x)
const int SUM_SLICES = 8;       // threads splitting dim 1 per column (blockDim.y), a power of two

extern "C" __global__ void sum_dim1_kernel(
    const float* __restrict__ x,    // [B, D1, D2]
    float* __restrict__ out,        // [B, 1, D2]
    int B, int D1, int D2)
{
    __shared__ float partial[SUM_SLICES][SUM_TILE_X];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * blockDim.x + tx;     // index along dim 2
    int b = blockIdx.y;                         // batch index
    bool live = (b < B) && (col < D2);

    // Phase 1: each thread sums dim 1 at i = ty, ty + blockDim.y, ... in an fp32 register.
    float acc = 0.0f;
    if (live) {
        const float* x_col = x + (long long)b * D1 * D2 + col;
        for (int i = ty; i < D1; i += blockDim.y) {
            acc += x_col[(long long)i * D2];
        }
    }
    partial[ty][tx] = acc;
    __syncthreads();

    // Phase 2: tree over the slices of each column.
    for (int s = blockDim.y / 2; s > 0; s >>= 1) {
        if (ty < s) {
            partial[ty][tx] = partial[ty][tx] + partial[ty + s][tx];
        }
        __syncthreads();
    }

    if (live && ty == 0) {
        out[(long long)b * D2 + col] = partial[0][tx];
    }
}
"""

TILE_X = 32         # must equal SUM_TILE_X
SLICES = 8          # must equal SUM_SLICES
MAX_GRID_Y = 65535  # the batch runs along gridDim.y
REDUCE_DIM = 1      # get_init_inputs() = [reduce_dim] = [1]


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        B, D1, D2 = x.shape
        out = torch.empty((B, 1, D2), device=x.device, dtype=x.dtype)
        return (
            "sum_dim1_kernel",
            (K.cdiv(D2, TILE_X), B, 1),
            (TILE_X, SLICES, 1),
            [x, out],
            [(ctypes.c_int, B), (ctypes.c_int, D1), (ctypes.c_int, D2)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.sum(x, dim=REDUCE_DIM, keepdim=True)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim1, dim2)
        return [torch.rand(s["batch"], s["dim1"], s["dim2"])]

    def signed_inputs(torch, s):
        # U[-1,1): sums of a few dozen signed values stay near 0, so the tolerance is ~0.01 and
        # one missing or doubled element (|x| ~ 0.5) shows.
        return [torch.rand(s["batch"], s["dim1"], s["dim2"]) * 2.0 - 1.0]

    def large_inputs(torch, s):
        # U[0,100): same sign, no cancellation; 2000 rows give sums near 1e5.
        return [torch.rand(s["batch"], s["dim1"], s["dim2"]) * 100.0]

    def spiky_inputs(torch, s):
        # Exact zeros except one spike U[1,2) per column: at i = 0 in columns j % 3 == 0, at the
        # last i in j % 3 == 1, at a random i in j % 3 == 2. Each sum is its spike.
        B, D1, D2 = s["batch"], s["dim1"], s["dim2"]
        x = torch.zeros(B, D1, D2)
        x[:, 0, 0::3] = 1.0 + torch.rand(B, len(range(0, D2, 3)))
        x[:, D1 - 1, 1::3] = 1.0 + torch.rand(B, len(range(1, D2, 3)))
        n2 = len(range(2, D2, 3))
        where = torch.randint(0, D1, (B, n2))
        rows = torch.arange(B).unsqueeze(1).expand(B, n2)
        cols = torch.arange(2, D2, 3).unsqueeze(0).expand(B, n2)
        x[rows, where, cols] = 1.0 + torch.rand(B, n2)
        return [x]

    return K.substrate(
        name="L1p47_sum_dim1",
        level=1,
        problem="47_Sum_reduction_over_a_dimension",
        cuda=CUDA,
        kernel_name="sum_dim1_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128, max=MAX_GRID_Y),
            "dim1": K.dim(4096),
            "dim2": K.dim(4095),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder_signed",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "dim1": 37, "dim2": 45},
                small=True,
                purpose="dim2 45 = 32 + 13 leaves 19 dead columns in the second block (column guards on the loads "
                "and the store); dim1 37 = 4 x 8 + 5 gives the slices unequal lengths; U[-1,1) values make each "
                "sum of 37 terms small (|sum| ~ 3.5), so the tolerance is ~0.05 and a dropped, doubled or "
                "misplaced element (|x| ~ 0.5) fails, unlike on T0 where 1e-2 of a ~2048 sum hides ~40 elements",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "dim1": 2000, "dim2": 70},
                purpose="same-sign large magnitudes U[0,100) over 2000 rows (250 per slice): sums near 1e5 exceed "
                "fp16's 65504, so a half-precision accumulator overflows or loses ~32 per step; no cancellation, "
                "so the correct fp32 sum stays within ~1e-7 relative of the fp64 one; 4 batches along gridDim.y",
            ),
            K.suite(
                "T3_spiky_short",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 5, "dim1": 5, "dim2": 70},
                purpose="exact zeros with one spike U[1,2) per column at the first row, the last row or a random "
                "row: a loop that skips the first or last row, a wrong row stride or a batch-stride slip loses "
                "the whole sum; dim1 5 < 8 slices leaves 3 slices with no element, whose 0 identity the tree "
                "must add harmlessly",
            ),
        ],
        notes="The sum keeps dim 1 (keepdim=True): output 128 x 1 x 4095. On T0 (U[0,1), sums ~2048) the 1e-2 "
        "rtol admits an absolute error of ~20, so dropping up to ~40 of the 4096 terms passes; T1 and T3 keep "
        "the sums small. The official input has 128 x 4096 x 4095 = 2,146,959,360 elements, just below "
        "2^31 - 1, so a 32-bit offset mutant does not overflow on any suite.",
    )
