"""KernelBench level 1, problem 53_Min_reduction_over_a_dimension: torch.min(x, dim=1)[0] on a
128 x 4096 x 4095 fp32 tensor, giving 128 x 4095 values.

Model(dim) is built from get_init_inputs() = [1] and has no parameters.

One kernel. A block is 32 x 8 threads and owns 32 consecutive columns j of one batch b
(blockIdx.y): threadIdx.x picks the column, so every load of a warp is one coalesced 128-byte row
segment (a block per single output would read dim 1 with a stride of 4095 floats, one sector per
element), and threadIdx.y splits dim 1 into 8 interleaved slices (i = ty, ty + 8, ...). Each thread
keeps its slice's running min, starting from +inf; the 8 slice minima of a column are then combined
by a shared-memory tree over ty with a barrier after every level. Out-of-range columns still take
part in the barriers and only skip the loads and the store. Offsets are 64-bit.

Cost: 8.6 GB read once, coalesced, plus 2 MB written: about 2-4 ms on an H200 (reference 2.77 ms).
"""

CUDA = r"""
const int MIN_TILE_X = 32;      // columns per block (blockDim.x)
const int MIN_SLICES = 8;       // threads splitting dim 1 per column (blockDim.y), a power of two

extern "C" __global__ void min_dim1_kernel(
    const float* __restrict__ x,    // [B, D1, D2]
    float* __restrict__ out,        // [B, D2]
    int B, int D1, int D2)
{
    __shared__ float partial[MIN_SLICES][MIN_TILE_X];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * blockDim.x + tx;     // index along dim 2
    int b = blockIdx.y;                         // batch index
    bool live = (b < B) && (col < D2);

    // Phase 1: each thread scans dim 1 at i = ty, ty + blockDim.y, ... from the identity +inf, so a
    // slice with no element (ty >= D1) loses every comparison.
    const float POS_INF = __int_as_float(0x7f800000);
    float best = POS_INF;
    if (live) {
        const float* x_col = x + (long long)b * D1 * D2 + col;
        for (int i = ty; i < D1; i += blockDim.y) {
            best = fminf(best, x_col[(long long)i * D2]);
        }
    }
    partial[ty][tx] = best;
    __syncthreads();

    // Phase 2: tree over the slices of each column.
    for (int s = blockDim.y / 2; s > 0; s >>= 1) {
        if (ty < s) {
            partial[ty][tx] = fminf(partial[ty][tx], partial[ty + s][tx]);
        }
        __syncthreads();
    }

    if (live && ty == 0) {
        out[(long long)b * D2 + col] = partial[0][tx];
    }
}
"""

TILE_X = 32         # must equal MIN_TILE_X
SLICES = 8          # must equal MIN_SLICES
MAX_GRID_Y = 65535  # the batch runs along gridDim.y
REDUCE_DIM = 1      # get_init_inputs() = [1]


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        B, D1, D2 = x.shape
        out = torch.empty((B, D2), device=x.device, dtype=x.dtype)
        return (
            "min_dim1_kernel",
            (K.cdiv(D2, TILE_X), B, 1),
            (TILE_X, SLICES, 1),
            [x, out],
            [(ctypes.c_int, B), (ctypes.c_int, D1), (ctypes.c_int, D2)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.min(x, dim=REDUCE_DIM)[0]

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim1, dim2)
        return [torch.rand(s["batch"], s["dim1"], s["dim2"])]

    def shifted_inputs(torch, s):
        # Every value in [1, 2): a 0 (instead of +inf) initial min is never beaten.
        return [1.0 + torch.rand(s["batch"], s["dim1"], s["dim2"])]

    def placed_inputs(torch, s):
        # U[0,1) background; one minimum U[-2,-1) per column: at i = 0 in columns j % 3 == 0, at the
        # last i in j % 3 == 1, at a random i in j % 3 == 2.
        B, D1, D2 = s["batch"], s["dim1"], s["dim2"]
        x = torch.rand(B, D1, D2)
        x[:, 0, 0::3] = -1.0 - torch.rand(B, len(range(0, D2, 3)))
        x[:, D1 - 1, 1::3] = -1.0 - torch.rand(B, len(range(1, D2, 3)))
        n2 = len(range(2, D2, 3))
        where = torch.randint(0, D1, (B, n2))
        rows = torch.arange(B).unsqueeze(1).expand(B, n2)
        cols = torch.arange(2, D2, 3).unsqueeze(0).expand(B, n2)
        x[rows, where, cols] = -1.0 - torch.rand(B, n2)
        return [x]

    def wide_inputs(torch, s):
        # U[-100,100): both signs, a wide range, few rows.
        return [torch.rand(s["batch"], s["dim1"], s["dim2"]) * 200.0 - 100.0]

    return K.substrate(
        name="L1p53_min_dim1",
        level=1,
        problem="53_Min_reduction_over_a_dimension",
        cuda=CUDA,
        kernel_name="min_dim1_kernel",
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
                "T1_remainder_shifted",
                shifted_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "dim1": 37, "dim2": 45},
                small=True,
                purpose="dim2 45 = 32 + 13 leaves 19 dead columns in the second block (column guards on the loads "
                "and the store); dim1 37 = 4 x 8 + 5 gives the slices unequal lengths; every value in [1,2), so "
                "a 0 initial min (instead of +inf) is never beaten, an all-zero output fails (it passes T0), and "
                "a max instead of a min lands ~1 higher",
            ),
            K.suite(
                "T2_placed_minima",
                placed_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "dim1": 1000, "dim2": 70},
                purpose="1000 rows (125 strides of the 8 slices) of U[0,1) with one minimum U[-2,-1) per column, "
                "placed at the first row, the last row or a random row: a scan that skips the first or last row, "
                "a wrong slice stride, a tree that drops a slice or a batch-stride slip returns a background "
                "value >= 0",
            ),
            K.suite(
                "T3_short_wide",
                wide_inputs,
                seeds=[5, 6],
                sizes={"batch": 5, "dim1": 5, "dim2": 70},
                purpose="dim1 5 < 8 slices leaves 3 slices with no element, whose +inf identity must lose every "
                "comparison in the tree; U[-100,100) values over only 5 rows make every column's min distinct and "
                "often positive, so any element dropped or read from a wrong row or batch changes the result far "
                "beyond 1e-2",
            ),
        ],
        notes="Degenerate at the official inputs: the min of 4096 U[0,1) values lies in [0, 0.0032] (measured on "
        "2 x 4095 columns of the first two trial inputs), so an all-zero output passes T0_original at 1e-2 "
        "(zeros-pass@1e-2 in the facts, issue #165), the outputs of two trial seeds agree within 1e-2, and so "
        "does almost any mutant that still returns some small element of the column; the targeted suites kill "
        "those. fminf ignores NaN where torch.min propagates it (no suite holds NaN). The official input has "
        "128 x 4096 x 4095 = 2,146,959,360 elements, just below 2^31 - 1, so a 32-bit offset mutant does not "
        "overflow on any suite.",
    )
