"""KernelBench level 1, problem 64_conv_transposed_1D: ConvTranspose1d(128, 128, 3) on a long signal.

Model(128, 128, 3) builds nn.ConvTranspose1d(128, 128, 3, stride=1, padding=0, output_padding=0,
groups=1, bias=False) (Model's default bias=False): the weight [128, 128, 3] = [C_in, C_out, KW] is
the only parameter. x = torch.rand(64, 128, 65536); L_out = (L - 1) * 1 - 0 + 3 = L + 2, so the
output is 64 x 128 x 65538 (537 M elements, under 2^31; flat offsets are 64-bit anyway).

One kernel, a shared-memory tiled implicit GEMM per batch item in gather form: with stride 1 and no
padding, input sample i feeds outputs i + k, so out[n, co, l] = sum over (ci, k) of w[ci, co, k] *
x[n, ci, l - k], a tap counting only where 0 <= l - k < L. The reduction index is r = ci * KW + k
(384 terms). A block is 32 x 32 threads, one per output (co, l) of batch item n = blockIdx.z; each
phase stages a 32 x 32 tile of the weight (rows co, reduction r; w is [C_in, C_out, KW], so
consecutive ci of one co are C_out * KW apart) and of the gathered input (reduction r, positions l)
in shared memory, with a barrier after the loads and another after the multiply-accumulate. Loads
are guarded and zero-filled past C_out, past the reduction length, past L_out and outside the
input; the store is guarded.

Cost: 537 M outputs x 384 multiply-adds = 206 G MAC (412 GFLOP); at ~4-6 TFLOP/s for a plain
32 x 32 tiled GEMM about 70-100 ms per forward on an H200 (cuDNN reference: 4.31 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, the reduction is consumed TILE at a time

extern "C" __global__ void convtranspose1d_kernel(
    const float* __restrict__ x,        // [N, C_in, L]
    const float* __restrict__ w,        // [C_in, C_out, KW]
    float* __restrict__ out,            // [N, C_out, L_out]
    int N, int C_in, int L, int C_out, int KW, int L_out)
{
    __shared__ float Ws[TILE][TILE];    // Ws[r][c] = w[ci, co0 + r, k] for r0 + c = ci * KW + k
    __shared__ float Xs[TILE][TILE];    // Xs[r][c] = x[n, ci, l0 + c - k] for r0 + r = ci * KW + k

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
        int wci = wr / KW;
        int wk = wr % KW;
        if (co < C_out && wr < R) {
            Ws[ty][tx] = w[((long long)wci * C_out + co) * KW + wk];
        } else {
            Ws[ty][tx] = 0.0f;
        }
        int xr = t * TILE + ty;         // the reduction index of the input element this thread loads
        int ci = xr / KW;
        int k = xr % KW;
        int il = l - k;                 // the input sample that reaches output l through tap k
        if (xr < R && l < L_out && il >= 0 && il < L) {
            Xs[ty][tx] = x[((long long)n * C_in + ci) * L + il];
        } else {
            Xs[ty][tx] = 0.0f;          // the tap falls outside the input: no contribution
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
IN_CHANNELS = 128       # fixed by the weight [128, 128, 3]
OUT_CHANNELS = 128
KERNEL = 3
MAX_GRID_Z = 65535      # the batch runs along gridDim.z


def register(K, torch, ctypes):
    def build(torch):
        # Model(128, 128, 3).__init__: nn.ConvTranspose1d(128, 128, 3, stride=1, padding=0,
        # output_padding=0, groups=1, bias=False): one weight, no bias drawn.
        conv1d_transpose = torch.nn.ConvTranspose1d(
            IN_CHANNELS, OUT_CHANNELS, KERNEL, stride=1, padding=0, output_padding=0, groups=1, bias=False
        )
        return {"w": conv1d_transpose.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, L = x.shape
        _, C_out, KW = w["w"].shape
        L_out = L + KW - 1
        out = torch.empty((N, C_out, L_out), device=x.device, dtype=x.dtype)
        return (
            "convtranspose1d_kernel",
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
        return torch.nn.functional.conv_transpose1d(x, w["w"], None, stride=1, padding=0, output_padding=0, groups=1)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, length)
        return [torch.rand(s["batch"], IN_CHANNELS, s["length"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): outputs 4x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["length"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the samples set to U[1, 17).
        shape = (s["batch"], IN_CHANNELS, s["length"])
        mask = torch.rand(shape) < 0.01
        spikes = 1.0 + torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p64_convtranspose1d",
        level=1,
        problem="64_conv_transposed_1D",
        cuda=CUDA,
        kernel_name="convtranspose1d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(64, max=MAX_GRID_Z),
            "length": K.dim(65536),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "length": 41},
                small=True,
                purpose="L_out = 43 = 32 + 11, so the last column tile holds 11 live positions and the "
                "l < L_out load guard and the store guard matter; the first two and last two outputs of every "
                "row lose taps outside the input (the il >= 0 and il < L guards), and a read past a row's end "
                "lands in the next channel's samples, so a dropped or shifted border guard, a gather written "
                "as l + k (a plain conv) or L_out = L - 2 shows; 3 batch items; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "length": 1000},
                purpose="same-sign U[0,4) inputs (x4): outputs of std about 1.3 up to about 4.9 (0.31 and 1.3 on the official inputs), so a "
                "dropped channel or tap, a lost reduction tile (32 of the 384 terms) or a truncated accumulator "
                "moves outputs far beyond 1e-2; kept at x4 because the reference conv is TF32 (Appendix A "
                "flags this problem): a CPU emulation of TF32 rounding keeps the reference within about 1.5e-3 "
                "of the exact result here; L_out = 1002 = 31 x 32 + 10",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "length": 517},
                purpose="about 1% isolated U[1,17) spikes on exact zeros: each input spike reaches 3 outputs "
                "with a different weight at each, so a flipped kernel, a weight read as [C_out, C_in, KW] (the "
                "plain-conv layout, not transposed), a wrong ci/k split of the reduction index or a wrong "
                "channel stride changes outputs outright; about 2% of the outputs see no spike and give "
                "exactly 0; an emulated TF32 reference stays within about 1e-3 of the exact result; "
                "L_out = 519 = 16 x 32 + 7",
            ),
        ],
        notes="Model's default bias=False: no bias; stride 1, no padding, so L_out = L + KW - 1. The "
        "reference runs nn.ConvTranspose1d through cuDNN with TF32 (Appendix A: ref != exact at 1e-4), so "
        "this exact fp32 kernel differs from the reference beyond 1e-4 but passes 1e-2. C_out = 128 and "
        "C_in * 3 = 384 are multiples of the 32-wide tile (fixed by the weight), so the co < C_out and "
        "r < R guards never fire: faults on them are equivalent; C_in = C_out = 128, so a fault that swaps "
        "the two channel counts is equivalent too. The official L_out = 65538 leaves a 2-wide tail tile per row.",
    )
