"""KernelBench level 1, problem 67_conv_standard_1D: nn.Conv1d(64, 128, 3) on a long signal.

Model(64, 128, 3) builds nn.Conv1d(64, 128, 3, stride=1, padding=0, dilation=1, groups=1,
bias=False) (Model's default bias=False): the weight [128, 64, 3] is the only parameter.
x = torch.rand(32, 64, 131072); the output is 32 x 128 x 131070 (537 M elements, under 2^31; flat
offsets are 64-bit anyway).

One kernel, a shared-memory tiled implicit GEMM: out[n, co, l] = sum_r w[co, r] * col[r, l] with
r = ci * KW + k running over C_in * KW = 192 and col[r, l] = x[n, ci, l + k] (stride 1, no padding,
no dilation). A block is 32 x 32 threads, one per output (co, l) of one batch item n = blockIdx.z;
each phase stages a 32 x 32 tile of the weight (rows co, reduction r) and of the gathered input
columns (reduction r, positions l) in shared memory, with a barrier after the loads and another
after the multiply-accumulate. Loads are guarded and zero-filled past C_out, past the reduction
length and past L_out; the store is guarded.

Cost: 537 M outputs x 192 multiply-adds = 103 G MAC (206 GFLOP); at ~4-6 TFLOP/s for a plain 32 x 32
tiled GEMM about 35-50 ms per forward on an H200 (cuDNN reference: 2.38 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, the reduction is consumed TILE at a time

extern "C" __global__ void conv1d_kernel(
    const float* __restrict__ x,        // [N, C_in, L]
    const float* __restrict__ w,        // [C_out, C_in, KW], read as [C_out, C_in * KW]
    float* __restrict__ out,            // [N, C_out, L_out]
    int N, int C_in, int L, int C_out, int KW, int L_out)
{
    __shared__ float Ws[TILE][TILE];    // Ws[r][c] = w[co0 + r, r0 + c]
    __shared__ float Xs[TILE][TILE];    // Xs[r][c] = x[n, ci, l0 + c + k] for reduction index r0 + r = ci * KW + k

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int n = blockIdx.z;                 // batch item
    int co = blockIdx.y * TILE + ty;    // output channel of this thread
    int l = blockIdx.x * TILE + tx;     // output position of this thread

    int R = C_in * KW;                  // reduction length
    float acc = 0.0f;
    int num_tiles = (R + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int wr = t * TILE + tx;         // the reduction index of the weight element this thread loads
        if (co < C_out && wr < R) {
            Ws[ty][tx] = w[(long long)co * R + wr];
        } else {
            Ws[ty][tx] = 0.0f;
        }
        int xr = t * TILE + ty;         // the reduction index of the input element this thread loads
        int ci = xr / KW;
        int k = xr % KW;
        if (xr < R && l < L_out) {
            Xs[ty][tx] = x[((long long)n * C_in + ci) * L + l + k];
        } else {
            Xs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += Ws[ty][kk] * Xs[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (co < C_out && l < L_out) {
        out[((long long)n * C_out + co) * L_out + l] = acc;
    }
}
"""

TILE = 32               # must equal TILE in the CUDA source
IN_CHANNELS = 64        # fixed by the weight [128, 64, 3]
OUT_CHANNELS = 128
KERNEL = 3
MAX_GRID_Z = 65535      # the batch runs along gridDim.z


def register(K, torch, ctypes):
    def build(torch):
        # Model(64, 128, 3).__init__: nn.Conv1d(64, 128, 3, stride=1, padding=0, dilation=1,
        # groups=1, bias=False): one kaiming-uniform weight, no bias drawn.
        conv1d = torch.nn.Conv1d(IN_CHANNELS, OUT_CHANNELS, KERNEL, stride=1, padding=0, dilation=1, groups=1, bias=False)
        return {"w": conv1d.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, L = x.shape
        C_out, _, KW = w["w"].shape
        L_out = L - KW + 1
        out = torch.empty((N, C_out, L_out), device=x.device, dtype=x.dtype)
        return (
            "conv1d_kernel",
            (K.cdiv(L_out, TILE), K.cdiv(C_out, TILE), N),
            (TILE, TILE, 1),
            [x, w["w"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, L),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KW),
                (ctypes.c_int, L_out),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv1d(x, w["w"], None, stride=1, padding=0, dilation=1, groups=1)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, length)
        return [torch.rand(s["batch"], IN_CHANNELS, s["length"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): outputs 4x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["length"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the samples set to U[1, 17).
        shape = (s["batch"], IN_CHANNELS, s["length"])
        mask = torch.rand(shape) < 0.02
        spikes = 1.0 + torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p67_conv1d",
        level=1,
        problem="67_conv_standard_1D",
        cuda=CUDA,
        kernel_name="conv1d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(32, max=MAX_GRID_Z),
            "length": K.dim(131072, min=KERNEL),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "length": 77},
                small=True,
                purpose="L_out = 75 = 2 x 32 + 11, so the last column tile of every batch item holds 11 live "
                "positions: the l < L_out load guard and the store guard matter (the official 131070 leaves 30 "
                "of 32); with 3 batch items a wrong batch stride or a gridDim.z confusion shows, and the last "
                "window of each row ends on the last input sample, so an off-by-one window reads the next "
                "channel's first sample; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "length": 1003},
                purpose="same-sign U[0,4) inputs (x4): outputs of std about 1.3 up to about 5.5 (0.32 and 1.5 on "
                "the official inputs), so a dropped channel or tap, a lost reduction tile (32 of the 192 terms) "
                "or a truncated accumulator moves outputs far beyond 1e-2; kept at x4 because the reference conv "
                "is TF32 (Appendix A flags this problem): a CPU emulation of TF32 rounding (inputs and weight "
                "rounded to nearest, exact accumulation) keeps the reference within about 1.4e-3 of the exact "
                "result here (x8 would reach 2.7e-3, the official inputs 4e-4); L_out = 1001 = 31 x 32 + 9",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "length": 515},
                purpose="about 2% isolated U[1,17) spikes on exact zeros (about 3.8 of the 192 taps of a "
                "window): each output depends on a few specific (channel, tap) pairs, so a flipped or shifted "
                "window, a wrong ci/k split of the reduction index (r / KW, r % KW), a wrong channel stride "
                "or a transposed weight tile changes it outright; about 2% of the windows hold no spike and "
                "give exactly 0; an emulated TF32 reference stays within about 1.6e-3 of the exact result; "
                "L_out = 513 = 16 x 32 + 1",
            ),
        ],
        notes="Model's default bias=False: no bias; stride 1, no padding, no dilation, so the kernel has no "
        "padding guards (every tap of a live output is inside the input). The reference runs nn.Conv1d "
        "through cuDNN with TF32 (Appendix A: ref != exact at 1e-4), so this exact fp32 kernel differs from "
        "the reference beyond 1e-4 but passes 1e-2. C_out = 128 and C_in * KW = 192 are multiples of the "
        "32-wide tile (fixed by the weight), so the co < C_out and r < R guards never fire at any size: "
        "faults on them are equivalent. The official L_out = 131070 leaves a 30-wide tail tile per row.",
    )
