"""KernelBench level 1, problem 56_conv_standard_2D__asymmetric_input__asymmetric_kernel: Conv2d(64, 128, (5, 7)).

Model(64, 128, (5, 7)) builds nn.Conv2d(64, 128, (5, 7), stride=(1, 1), padding=(0, 0),
dilation=(1, 1), groups=1, bias=False) (Model's default bias=False): the weight [128, 64, 5, 7]
(KH = 5 along the height, KW = 7 along the width) is the only parameter. x = torch.rand(8, 64,
512, 256); the output is 8 x 128 x 508 x 250 (130 M elements; flat offsets are 64-bit).

One kernel, a shared-memory tiled implicit GEMM per batch item: out[n, co, p] = sum_r w[co, r] *
col[r, p] over the flattened output positions p = oh * OW + ow and the reduction index
r = (ci * KH + kh) * KW + kw (C_in * KH * KW = 2240 terms), with col[r, p] = x[n, ci, oh + kh,
ow + kw] (stride 1, no padding). A block is 32 x 32 threads, one per output (co, p) of batch item
n = blockIdx.z; each phase stages a 32 x 32 tile of the weight (rows co, reduction r) and of the
gathered input (reduction r, positions p) in shared memory, with a barrier after the loads and
another after the multiply-accumulate. Loads are guarded and zero-filled past C_out, past the
reduction length and past OH * OW; the store is guarded.

Cost: 130 M outputs x 2240 multiply-adds = 291 G MAC (583 GFLOP); at ~4-6 TFLOP/s for a plain
32 x 32 tiled GEMM about 100-150 ms per forward on an H200 (cuDNN reference: 2.7 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, the reduction is consumed TILE at a time

extern "C" __global__ void conv2d_asym_kernel_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KH, KW], read as [C_out, C_in * KH * KW]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    __shared__ float Ws[TILE][TILE];    // Ws[r][c] = w[co0 + r, r0 + c]
    __shared__ float Xs[TILE][TILE];    // Xs[r][c] = x[n, ci, oh + kh, ow + kw] for r0 + r = (ci, kh, kw), p0 + c = (oh, ow)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int n = blockIdx.z;                 // batch item
    int co = blockIdx.y * TILE + ty;    // output channel of this thread
    int p = blockIdx.x * TILE + tx;     // flattened output position oh * OW + ow of this thread

    int P = OH * OW;                    // output positions per channel
    int taps = KH * KW;
    int R = C_in * taps;                // reduction length
    int oh = p / OW;
    int ow = p % OW;

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
        int ci = xr / taps;
        int kh = (xr % taps) / KW;
        int kw = xr % KW;
        if (xr < R && p < P) {
            Xs[ty][tx] = x[(((long long)n * C_in + ci) * H + oh + kh) * W + ow + kw];
        } else {
            Xs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += Ws[ty][kk] * Xs[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (co < C_out && p < P) {
        out[((long long)n * C_out + co) * P + p] = acc;
    }
}
"""

TILE = 32               # must equal TILE in the CUDA source
IN_CHANNELS = 64        # fixed by the weight [128, 64, 5, 7]
OUT_CHANNELS = 128
KERNEL_H = 5
KERNEL_W = 7
MAX_GRID_Z = 65535      # the batch runs along gridDim.z


def register(K, torch, ctypes):
    def build(torch):
        # Model(64, 128, (5, 7)).__init__: nn.Conv2d(64, 128, (5, 7), stride=(1, 1), padding=(0, 0),
        # dilation=(1, 1), groups=1, bias=False): one kaiming-uniform weight, no bias drawn.
        conv2d = torch.nn.Conv2d(
            IN_CHANNELS, OUT_CHANNELS, (KERNEL_H, KERNEL_W), stride=(1, 1), padding=(0, 0), dilation=(1, 1),
            groups=1, bias=False,
        )
        return {"w": conv2d.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w["w"].shape
        OH = H - KH + 1
        OW = W_in - KW + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "conv2d_asym_kernel_kernel",
            (K.cdiv(OH * OW, TILE), K.cdiv(C_out, TILE), N),
            (TILE, TILE, 1),
            [x, w["w"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv2d(x, w["w"], None, stride=1, padding=0, dilation=1, groups=1)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): outputs 4x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 0.3% of the pixels set to U[1, 17).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.003
        spikes = 1.0 + torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p56_conv2d_asym_kernel",
        level=1,
        problem="56_conv_standard_2D__asymmetric_input__asymmetric_kernel",
        cuda=CUDA,
        kernel_name="conv2d_asym_kernel_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(8, max=MAX_GRID_Z),
            "height": K.dim(512, min=KERNEL_H),
            "width": K.dim(256, min=KERNEL_W),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 10, "width": 15},
                small=True,
                purpose="output 6 x 9 per channel: 54 = 32 + 22 positions, so the second column tile holds 22 "
                "live positions and the p < OH * OW load guard and the store guard matter; the 5 x 7 kernel "
                "against H = 10 and W = 15 means swapping KH and KW (a window laid 7 tall and 5 wide) changes "
                "the taps and the output shape, and every tile spans several output rows, so a wrong oh/ow "
                "split of the flattened position shows; the last window of each image ends on its last pixel; "
                "2 batch items; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 24, "width": 40},
                purpose="same-sign U[0,4) inputs (x4): outputs of std about 1.3 up to about 5 (0.33 and 1.3 on the official inputs), so a "
                "dropped channel or tap row, a lost reduction tile (32 of the 2240 terms, 1.4%, but of std about 0.16 "
                "per output here) or a truncated accumulator moves outputs beyond 1e-2; kept at x4 because the "
                "reference conv is TF32 (Appendix A flags this problem): a CPU emulation of TF32 rounding keeps "
                "the reference within about 1.4e-3 of the exact result here; 20 x 34 = 680 = 21 x 32 + 8 positions",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 37, "width": 23},
                purpose="about 0.3% isolated U[1,17) spikes on exact zeros (about 6.7 of the 2240 taps of a "
                "window): each output depends on a few specific (channel, kh, kw) taps, so kh/kw swaps, a "
                "flipped or transposed kernel, a wrong (ci, kh, kw) split of the reduction index or a wrong "
                "channel stride changes it outright; about 0.1% of the windows hold no spike and give exactly 0; "
                "an emulated TF32 reference stays within about 6e-4 of the exact result; 33 x 17 = 561 positions",
            ),
        ],
        notes="Model's default bias=False: no bias; stride 1, no padding, so the kernel has no padding guards "
        "(every tap of a live output is inside the input). The reference runs nn.Conv2d through cuDNN with "
        "TF32 (Appendix A: ref != exact at 1e-4), so this exact fp32 kernel differs from the reference beyond "
        "1e-4 but passes 1e-2. C_out = 128 and C_in * 35 = 2240 are multiples of the 32-wide tile (fixed by "
        "the weight), so the co < C_out and r < R guards never fire: faults on them are equivalent. The "
        "official 508 x 250 = 127000 positions leave a 24-wide tail tile per image.",
    )
