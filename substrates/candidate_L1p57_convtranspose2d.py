"""KernelBench level 1, problem 57_conv_transposed_2D__square_input__square_kernel: ConvTranspose2d(64, 64, 3).

Model(64, 64, 3) builds nn.ConvTranspose2d(64, 64, 3, stride=1, padding=0, output_padding=0,
groups=1, bias=False) (Model's default bias=False): the weight [64, 64, 3, 3] = [C_in, C_out, KH, KW]
is the only parameter. x = torch.rand(8, 64, 1024, 1024); each output size is (S - 1) * 1 - 0 + 3 =
S + 2, so the output is 8 x 64 x 1026 x 1026 (539 M elements, under 2^31; flat offsets are 64-bit
anyway).

One kernel, a shared-memory tiled implicit GEMM per batch item in gather form: with stride 1 and no
padding, input pixel (ih, iw) feeds output (ih + kh, iw + kw), so out[n, co, oh, ow] = sum over
(ci, kh, kw) of w[ci, co, kh, kw] * x[n, ci, oh - kh, ow - kw], a tap counting only where
0 <= oh - kh < H and 0 <= ow - kw < W (the full-convolution border). The reduction index is
r = (ci * KH + kh) * KW + kw (576 terms) and the columns are the flattened output positions
p = oh * OW + ow. A block is 32 x 32 threads, one per output (co, p) of batch item n = blockIdx.z;
each phase stages a 32 x 32 tile of the weight (rows co, reduction r; w is [C_in, C_out, KH, KW],
so the row of co is strided by C_out * KH * KW between channels ci) and of the gathered input
(reduction r, positions p) in shared memory, with a barrier after the loads and another after the
multiply-accumulate. Loads are guarded and zero-filled past C_out, past the reduction length, past
OH * OW and outside the input; the store is guarded.

Cost: 539 M outputs x 576 multiply-adds = 310 G MAC (620 GFLOP), of which only the border loses
taps; at ~4-6 TFLOP/s for a plain 32 x 32 tiled GEMM about 100-150 ms per forward on an H200
(cuDNN reference: 5.21 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, the reduction is consumed TILE at a time

extern "C" __global__ void convtranspose2d_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KH, KW]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    __shared__ float Ws[TILE][TILE];    // Ws[r][c] = w[ci, co0 + r, kh, kw] for r0 + c = (ci, kh, kw)
    __shared__ float Xs[TILE][TILE];    // Xs[r][c] = x[n, ci, oh - kh, ow - kw] for r0 + r = (ci, kh, kw), p0 + c = (oh, ow)

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
        int wci = wr / taps;
        int wtap = wr % taps;           // kh * KW + kw
        if (co < C_out && wr < R) {
            Ws[ty][tx] = w[((long long)wci * C_out + co) * taps + wtap];
        } else {
            Ws[ty][tx] = 0.0f;
        }
        int xr = t * TILE + ty;         // the reduction index of the input element this thread loads
        int ci = xr / taps;
        int kh = (xr % taps) / KW;
        int kw = xr % KW;
        int ih = oh - kh;               // the input pixel that reaches (oh, ow) through tap (kh, kw)
        int iw = ow - kw;
        if (xr < R && p < P && ih >= 0 && ih < H && iw >= 0 && iw < W) {
            Xs[ty][tx] = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
        } else {
            Xs[ty][tx] = 0.0f;          // the tap falls outside the input: no contribution
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
IN_CHANNELS = 64        # fixed by the weight [64, 64, 3, 3]
OUT_CHANNELS = 64
KERNEL = 3
MAX_GRID_Z = 65535      # the batch runs along gridDim.z


def register(K, torch, ctypes):
    def build(torch):
        # Model(64, 64, 3).__init__: nn.ConvTranspose2d(64, 64, 3, stride=1, padding=0,
        # output_padding=0, groups=1, bias=False): one weight, no bias drawn.
        conv_transpose2d = torch.nn.ConvTranspose2d(
            IN_CHANNELS, OUT_CHANNELS, KERNEL, stride=1, padding=0, output_padding=0, groups=1, bias=False
        )
        return {"w": conv_transpose2d.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        _, C_out, KH, KW = w["w"].shape
        OH = H + KH - 1
        OW = W_in + KW - 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "convtranspose2d_kernel",
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
        return torch.nn.functional.conv_transpose2d(x, w["w"], None, stride=1, padding=0, output_padding=0, groups=1)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): outputs 4x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the pixels set to U[1, 17).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = 1.0 + torch.rand(shape) * 16.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p57_convtranspose2d",
        level=1,
        problem="57_conv_transposed_2D__square_input__square_kernel",
        cuda=CUDA,
        kernel_name="convtranspose2d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(8, max=MAX_GRID_Z),
            "height": K.dim(1024),
            "width": K.dim(1024),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 5, "width": 9},
                small=True,
                purpose="output 7 x 11 per channel: 77 = 2 x 32 + 13 positions, so the last column tile holds 13 "
                "live positions and the p < OH * OW load guard and the store guard matter; on a 5 x 9 input "
                "the border outputs, whose taps fall partly outside the input (the ih/iw >= 0 and < H/W "
                "guards), are 60 of the 77, so a dropped or shifted border guard, a gather written as "
                "oh + kh (a plain conv) or OH = H - 2 shows; H != W, so swapped H/W show; 2 batch items; "
                "official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 17, "width": 29},
                purpose="same-sign U[0,4) inputs (x4): outputs of std about 1.15 up to about 4.3 (0.31 and 1.2 on the official inputs), so "
                "a dropped channel or tap row, a lost reduction tile (32 of the 576 terms) or a truncated "
                "accumulator moves outputs far beyond 1e-2; kept at x4 because the reference conv is TF32 "
                "(Appendix A flags this problem): a CPU emulation of TF32 rounding keeps the reference within "
                "about 1.6e-3 of the exact result here; 19 x 31 = 589 = 18 x 32 + 13 positions",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 28, "width": 21},
                purpose="about 1% isolated U[1,17) spikes on exact zeros: each input spike is scattered over the "
                "3 x 3 block of outputs it reaches with a different weight at each, so a flipped kernel (taps "
                "gathered as oh + kh - 2, which a dense mean partly hides), kh/kw swaps, a weight read as [C_out, C_in, KH, KW] (the plain-conv layout) or a wrong (ci, kh, kw) "
                "split of the reduction index changes outputs outright; at least 0.3% of the outputs see no spike "
                "and give exactly 0; an emulated TF32 reference stays within about 1.1e-3 of the exact result",
            ),
        ],
        notes="Model's default bias=False: no bias; stride 1, no padding, so OH = H + KH - 1 and every "
        "output sees the taps whose input pixel lies inside the input. The reference runs "
        "nn.ConvTranspose2d through cuDNN with TF32 (Appendix A: ref != exact at 1e-4), so this exact fp32 "
        "kernel differs from the reference beyond 1e-4 but passes 1e-2. C_out = 64 and C_in * 9 = 576 are "
        "multiples of the 32-wide tile (fixed by the weight), so the co < C_out and r < R guards never fire: "
        "faults on them are equivalent. The official 1026 x 1026 = 1052676 positions leave a 4-wide tail "
        "tile per image; C_in = C_out = 64, so a fault that swaps the two channel counts is equivalent.",
    )
