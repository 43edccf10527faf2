"""KernelBench level 1, problem 86_conv_depthwise_separable_2D: depthwise 3 x 3 conv, then a 1 x 1 conv 64 -> 128.

Model(64, 128, 3, 1, 1, 1) builds, in this order, nn.Conv2d(64, 64, 3, stride=1, padding=1,
dilation=1, groups=64, bias=False) (the depthwise weight [64, 1, 3, 3]) and nn.Conv2d(64, 128,
kernel_size=1, bias=False) (the pointwise weight [128, 64, 1, 1]); Model's default bias=False, so
these two weights are the only parameters. x = torch.rand(16, 64, 512, 512); the depthwise conv
keeps the size (OH = (H + 2 * 1 - 1 * (3 - 1) - 1) / 1 + 1 = H), so the output is 16 x 128 x 512 x 512
(537 M elements, under 2^31; flat offsets are 64-bit anyway).

One kernel (level 1: one kernel per problem), a shared-memory tiled GEMM whose B operand is the
depthwise output computed on the fly: out[n, co, p] = sum_ci pw[co, ci] * dw_out[n, ci, p] over the
flattened output pixels p = oh * OW + ow, with dw_out[n, ci, oh, ow] = sum over (kh, kw) of
dw[ci, 0, kh, kw] * x[n, ci, oh * stride - pad + kh * dilation, ow * stride - pad + kw * dilation], a
tap counting only inside the input (zero padding). A block is 32 x 32 threads, one per output
(co, p) of batch item n = blockIdx.z; each phase takes 32 input channels: every thread loads one
pointwise weight into shared memory and computes one depthwise output (its channel ci0 + ty at
pixel p0 + tx, over the 3 x 3 window in fp32) into shared memory, then, after a barrier, each
thread accumulates its output over the 32 channels in fp32, and a second barrier protects the tiles
before the next phase. Loads are guarded and zero-filled past C_out, past C_in and past OH * OW; the
store is guarded. Stride, padding and dilation are model constants passed as kernel arguments.

Cost: the pointwise part is 537 M outputs x 64 multiply-adds = 34 G MAC; each block recomputes the
depthwise outputs of its pixels for all 64 channels (9 multiply-adds each), once per 32-channel
output tile (4 times): about 10 G MAC; about 90 GFLOP in all, roughly 20-40 ms per forward on an
H200 (cuDNN reference: 3.34 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, the input channels are consumed TILE at a time

extern "C" __global__ void conv_depthwise_separable2d_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W]
    const float* __restrict__ dw,       // [C_in, 1, KH, KW]   depthwise weight
    const float* __restrict__ pw,       // [C_out, C_in, 1, 1] pointwise weight, read as [C_out, C_in]
    float* __restrict__ out,            // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW,
    int stride, int pad, int dilation)
{
    __shared__ float Ws[TILE][TILE];    // Ws[r][c] = pw[co0 + r, ci0 + c]
    __shared__ float Ds[TILE][TILE];    // Ds[r][c] = depthwise output of channel ci0 + r at pixel p0 + c

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int n = blockIdx.z;                 // batch item
    int co = blockIdx.y * TILE + ty;    // output channel of this thread
    int p = blockIdx.x * TILE + tx;     // flattened output pixel oh * OW + ow of this thread

    int P = OH * OW;                    // output pixels per channel
    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    int num_tiles = (C_in + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int w_ci = t * TILE + tx;       // the input channel of the pointwise weight this thread loads
        if (co < C_out && w_ci < C_in) {
            Ws[ty][tx] = pw[(long long)co * C_in + w_ci];
        } else {
            Ws[ty][tx] = 0.0f;
        }
        int ci = t * TILE + ty;         // the channel of the depthwise output this thread computes
        float d = 0.0f;
        if (ci < C_in && p < P) {
            for (int kh = 0; kh < KH; ++kh) {
                int ih = oh * stride - pad + kh * dilation;
                if (ih < 0 || ih >= H) continue;        // zero padding above and below
                for (int kw = 0; kw < KW; ++kw) {
                    int iw = ow * stride - pad + kw * dilation;
                    if (iw < 0 || iw >= W) continue;    // zero padding left and right
                    float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                    float wv = dw[((long long)ci * KH + kh) * KW + kw];
                    d += xv * wv;
                }
            }
        }
        Ds[ty][tx] = d;
        __syncthreads();    // the weight tile and the depthwise tile are complete
        for (int kk = 0; kk < TILE; ++kk) {
            acc += Ws[ty][kk] * Ds[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next phase
    }

    if (co < C_out && p < P) {
        out[((long long)n * C_out + co) * P + p] = acc;
    }
}
"""

TILE = 32               # must equal TILE in the CUDA source
IN_CHANNELS = 64        # fixed by the weights [64, 1, 3, 3] and [128, 64, 1, 1]
OUT_CHANNELS = 128
KERNEL = 3
STRIDE = 1              # Model(64, 128, 3, stride=1, padding=1, dilation=1)
PADDING = 1
DILATION = 1
MAX_GRID_Z = 65535      # the batch runs along gridDim.z


def register(K, torch, ctypes):
    def build(torch):
        # Model(64, 128, 3, 1, 1, 1).__init__, in order: the depthwise nn.Conv2d(64, 64, 3, stride=1,
        # padding=1, dilation=1, groups=64, bias=False), then the pointwise nn.Conv2d(64, 128,
        # kernel_size=1, bias=False): two kaiming-uniform weights, no bias drawn.
        depthwise = torch.nn.Conv2d(
            IN_CHANNELS, IN_CHANNELS, KERNEL, stride=STRIDE, padding=PADDING, dilation=DILATION,
            groups=IN_CHANNELS, bias=False,
        )
        pointwise = torch.nn.Conv2d(IN_CHANNELS, OUT_CHANNELS, kernel_size=1, bias=False)
        return {"dw": depthwise.weight, "pw": pointwise.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        _, _, KH, KW = w["dw"].shape
        C_out = w["pw"].shape[0]
        OH = (H + 2 * PADDING - DILATION * (KH - 1) - 1) // STRIDE + 1
        OW = (W_in + 2 * PADDING - DILATION * (KW - 1) - 1) // STRIDE + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "conv_depthwise_separable2d_kernel",
            (K.cdiv(OH * OW, TILE), K.cdiv(C_out, TILE), N),
            (TILE, TILE, 1),
            [x, w["dw"], w["pw"], out],
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
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
                (ctypes.c_int, DILATION),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv2d(
            x, w["dw"], None, stride=STRIDE, padding=PADDING, dilation=DILATION, groups=IN_CHANNELS
        )
        return torch.nn.functional.conv2d(y, w["pw"], None)

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
        name="L1p86_conv_depthwise_separable2d",
        level=1,
        problem="86_conv_depthwise_separable_2D",
        cuda=CUDA,
        kernel_name="conv_depthwise_separable2d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16, max=MAX_GRID_Z),
            "height": K.dim(512),
            "width": K.dim(512),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "height": 5, "width": 9},
                small=True,
                purpose="45 = 32 + 13 output pixels per channel, so the second pixel tile holds 13 live pixels "
                "and the p < OH * OW guards matter (the official 512 x 512 fills every tile); on a 5 x 9 image "
                "24 of the 45 pixels touch the zero padding, so a dropped or shifted padding guard, a wrong pad "
                "or a window anchored at oh instead of oh - 1 shows; H != W, so swapped H/W show; 2 batch items; "
                "official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 23, "width": 29},
                purpose="same-sign U[0,4) inputs (x4): outputs of std about 0.85 up to about 3.5 (0.22 and 0.9 on the official inputs), so a "
                "dropped channel or tap, a lost 32-channel tile or a truncated accumulator moves outputs far "
                "beyond 1e-2; kept at x4 because both reference convs are TF32 (Appendix A flags this problem): "
                "a CPU emulation of TF32 rounding (each conv's input and weight rounded to nearest, exact "
                "accumulation) keeps the reference within about 1.4e-3 of the exact result here; "
                "667 = 20 x 32 + 27 pixels",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 19, "width": 26},
                purpose="about 1% isolated U[1,17) spikes on exact zeros: each spike reaches the 3 x 3 pixels "
                "around it in its own channel with a different depthwise weight at each, then every output "
                "channel through one pointwise weight, so a flipped or transposed depthwise window, a "
                "depthwise weight taken from the wrong channel, a transposed pointwise weight or a wrong "
                "channel stride changes outputs outright, where the dense mean of U[0,1) inputs would hide "
                "part of it; under 1% of the pixels (mostly at the border) see no spike in any channel's window "
                "and give exactly 0; an emulated TF32 reference stays within about 9e-4 of the exact "
                "result; 494 = 15 x 32 + 14 pixels",
            ),
        ],
        notes="Model's default bias=False: neither conv has a bias. Both convs run in one kernel (level 1 "
        "allows one); the depthwise output is recomputed once per 32-channel output tile instead of being "
        "stored. The reference runs both nn.Conv2d through cuDNN with TF32 (Appendix A: ref != exact at "
        "1e-4), so this exact fp32 kernel differs from the reference beyond 1e-4 but passes 1e-2. C_out = "
        "128 and C_in = 64 are multiples of the 32-wide tile (fixed by the weights), so the co < C_out and "
        "ci < C_in guards never fire: faults on them are equivalent; with stride 1 and dilation 1 a fault "
        "that swaps them is equivalent too. The official 512 x 512 pixels fill every pixel tile.",
    )
