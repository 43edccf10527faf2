"""KernelBench level 1, problem 52_Argmin_over_a_dimension: torch.argmin(x, dim=1) on a
128 x 4096 x 4095 fp32 tensor, giving 128 x 4095 int64 indices.

Model(dim) is built from get_init_inputs() = [dim] = [1] and has no parameters.

One kernel. A block is 32 x 8 threads and owns 32 consecutive columns j of one batch b
(blockIdx.y): threadIdx.x picks the column, so every load of a warp is one coalesced 128-byte
row segment, and threadIdx.y splits dim 1 into 8 interleaved slices (i = ty, ty + 8, ...). Each
thread keeps its slice's running min and its first index (strict <, so the earliest index wins
ties). The 8 slice results of a column are then combined by a shared-memory tree over ty, where
the smaller value wins and, on equal values, the smaller index, exactly torch's first-index
rule. Out-of-range columns still take part in the barriers and only skip the loads and the store.

Cost: 8.6 GB read once, coalesced, plus 4 MB written: about 2-4 ms on an H200 (reference 2.73 ms).
"""

CUDA = r"""
const int ARGMIN_TILE_X = 32;   // columns per block (blockDim.x)
const int ARGMIN_SLICES = 8;    // threads splitting dim 1 per column (blockDim.y), a power of two

extern "C" __global__ void argmin_dim1_kernel(
    const float* __restrict__ x,    // [B, D1, D2]
    long long* __restrict__ out,    // [B, D2]  int64 indices into dim 1
    int B, int D1, int D2)
{
    __shared__ float best_val[ARGMIN_SLICES][ARGMIN_TILE_X];
    __shared__ int best_idx[ARGMIN_SLICES][ARGMIN_TILE_X];

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int col = blockIdx.x * blockDim.x + tx;     // index along dim 2
    int b = blockIdx.y;                         // batch index
    bool live = (b < B) && (col < D2);

    // Phase 1: each thread scans dim 1 at i = ty, ty + blockDim.y, ... A slice that finds nothing
    // below +inf reports its own first index ty (its first element, or, when ty >= D1, an index
    // past every real one, which loses all ties).
    const float POS_INF = __int_as_float(0x7f800000);
    float best = POS_INF;
    int idx = ty;
    if (live) {
        const float* x_col = x + (long long)b * D1 * D2 + col;
        for (int i = ty; i < D1; i += blockDim.y) {
            float v = x_col[(long long)i * D2];
            if (v < best) {
                best = v;
                idx = i;
            }
        }
    }
    best_val[ty][tx] = best;
    best_idx[ty][tx] = idx;
    __syncthreads();

    // Phase 2: tree over the slices of each column; smaller value wins, smaller index on ties.
    for (int s = blockDim.y / 2; s > 0; s >>= 1) {
        if (ty < s) {
            float other_val = best_val[ty + s][tx];
            int other_idx = best_idx[ty + s][tx];
            float mine_val = best_val[ty][tx];
            int mine_idx = best_idx[ty][tx];
            if (other_val < mine_val || (other_val == mine_val && other_idx < mine_idx)) {
                best_val[ty][tx] = other_val;
                best_idx[ty][tx] = other_idx;
            }
        }
        __syncthreads();
    }

    if (live && ty == 0) {
        out[(long long)b * D2 + col] = (long long)best_idx[0][tx];
    }
}
"""

TILE_X = 32         # must equal ARGMIN_TILE_X
SLICES = 8          # must equal ARGMIN_SLICES
MAX_GRID_Y = 65535  # the batch runs along gridDim.y
ARGMIN_DIM = 1      # get_init_inputs() = [dim] = [1]


def register(K, torch, ctypes):
    def launch(inputs, torch):
        (x,) = inputs
        B, D1, D2 = x.shape
        out = torch.empty((B, D2), device=x.device, dtype=torch.int64)
        return (
            "argmin_dim1_kernel",
            (K.cdiv(D2, TILE_X), B, 1),
            (TILE_X, SLICES, 1),
            [x, out],
            [(ctypes.c_int, B), (ctypes.c_int, D1), (ctypes.c_int, D2)],
        )

    def ref(inputs, torch):
        (x,) = inputs
        return torch.argmin(x, dim=ARGMIN_DIM)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, dim1, dim2)
        return [torch.rand(s["batch"], s["dim1"], s["dim2"])]

    def tied_inputs(torch, s):
        # Integers 0..3 as floats: every column holds many exact ties at its min (usually 0), so
        # only the first index among them is right.
        return [torch.randint(0, 4, (s["batch"], s["dim1"], s["dim2"])).float()]

    def shifted_inputs(torch, s):
        # Every value in [1, 2): a 0 (instead of +inf) initial min never gets replaced.
        return [1.0 + torch.rand(s["batch"], s["dim1"], s["dim2"])]

    def placed_inputs(torch, s):
        # U[0,1) background; column j % 4 == 0: min -1.0 at i = 0; j % 4 == 1: min at the last i;
        # j % 4 == 2: two tied minima -1.0 at random i1 < i2 (answer i1); j % 4 == 3: background only.
        B, D1, D2 = s["batch"], s["dim1"], s["dim2"]
        x = torch.rand(B, D1, D2)
        x[:, 0, 0::4] = -1.0
        x[:, D1 - 1, 1::4] = -1.0
        n2 = len(range(2, D2, 4))
        first = torch.randint(0, D1 - 1, (B, n2))
        second = first + 1 + (torch.rand(B, n2) * (D1 - 1 - first).float()).long()
        rows = torch.arange(B).unsqueeze(1).expand(B, n2)
        cols = torch.arange(2, D2, 4).unsqueeze(0).expand(B, n2)
        x[rows, first, cols] = -1.0
        x[rows, second, cols] = -1.0
        return [x]

    return K.substrate(
        name="L1p52_argmin",
        level=1,
        problem="52_Argmin_over_a_dimension",
        cuda=CUDA,
        kernel_name="argmin_dim1_kernel",
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
                "T1_remainder_ties",
                tied_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "dim1": 37, "dim2": 45},
                small=True,
                purpose="dim2 45 = 32 + 13 leaves 19 dead columns in the second block (column guards on the loads "
                "and the store); dim1 37 = 4 x 8 + 5 gives the slices unequal lengths; values are integers 0..3, so "
                "each column holds ~9 exact ties at its min and only torch's first index is right (a <= in the "
                "scan, or a tree that keeps the larger index or the lower slice on ties, returns a later tie)",
            ),
            K.suite(
                "T2_positive_short",
                shifted_inputs,
                seeds=[3, 4],
                sizes={"batch": 5, "dim1": 5, "dim2": 70},
                purpose="all values in [1,2): a 0 (instead of +inf) initial min is never beaten and returns a "
                "slice's own index; dim1 5 < 8 slices leaves 3 slices with no element, whose sentinel results "
                "must lose every comparison; 5 batches along gridDim.y catch batch-stride mistakes",
            ),
            K.suite(
                "T3_placed_minima",
                placed_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "dim1": 1000, "dim2": 70},
                purpose="1000 rows (125 strides of the 8 slices): the min is placed at i = 0 in every 4th column, "
                "at i = 999 in the next, and as two exact ties -1.0 at random i1 < i2 in the next, so a scan that "
                "skips the first or last row, a wrong slice stride or a tie resolved to the later index gives a "
                "wrong index; every 4th column is U[0,1) background",
            ),
        ],
        notes="Output int64 indices. allclose applies its tolerance to integers too: an index k returned by the "
        "kernel passes where the true index lies within 0.01 + 0.01 * k, so from k >= 99 on an index off by one "
        "(from k >= 199 off by two, ...) passes elementwise; T1 and T2 keep dim1 < 100, so there every index "
        "must be exact, and T0 still fails an off-by-one because some of its columns have small indices. "
        "On U[0,1) inputs (2^24 levels, 4096 values per column) exact ties at the min are rare, so "
        "T0_original barely tests the first-index rule; T1 and T3 do. The kernel compares with <, so a NaN is "
        "never selected where torch.argmin returns the first NaN (no suite holds NaN). The official input has "
        "128 x 4096 x 4095 = 2,146,959,360 elements, just below 2^31 - 1, so a 32-bit offset mutant does not "
        "overflow on any suite.",
    )
