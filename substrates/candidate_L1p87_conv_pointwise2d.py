"""KernelBench level 1, problem 87_conv_pointwise_2D: a 1 x 1 Conv2d(64, 128) on 1024 x 1024 images.

Model(64, 128) builds nn.Conv2d(64, 128, kernel_size=1, stride=1, padding=0, bias=False) (Model's
default bias=False): the weight [128, 64, 1, 1] is the only parameter. x = torch.rand(16, 64, 1024,
1024); the output is 16 x 128 x 1024 x 1024 (2.15 G elements, over 2^31: flat offsets are 64-bit).

A pointwise conv is a GEMM per batch item: out[n, co, p] = sum_ci w[co, ci] * x[n, ci, p] over the
flattened pixels p = h * W + w. One kernel, a 32 x 32 shared-memory tiled GEMM: a block is
32 x 32 threads, one per output (co, p) of batch item n = blockIdx.z; each phase stages a 32 x 32
tile of the weight (rows co, input channels ci) and of the input (channels ci, pixels p) in shared
memory, with a barrier after the loads and another after the multiply-accumulate. Loads are
guarded and zero-filled past C_out, past C_in and past H * W; the store is guarded.

Cost: 2.15 G outputs x 64 multiply-adds = 137 G MAC (275 GFLOP) plus 4.3 GB read and 8.6 GB
written; at ~4-6 TFLOP/s for a plain tiled GEMM about 50-70 ms per forward on an H200 (cuDNN
reference: 3.4 ms).
"""

CUDA = r"""
const int TILE = 32;    // tile edge: blocks are TILE x TILE threads, the input channels are consumed TILE at a time

extern "C" __global__ void conv_pointwise2d_kernel(
    const float* __restrict__ x,        // [N, C_in, H, W], read as [N, C_in, H * W]
    const float* __restrict__ w,        // [C_out, C_in, 1, 1], read as [C_out, C_in]
    float* __restrict__ out,            // [N, C_out, H, W], written as [N, C_out, H * W]
    int N, int C_in, int C_out, int H, int W)
{
    __shared__ float Ws[TILE][TILE];    // Ws[r][c] = w[co0 + r, ci0 + c]
    __shared__ float Xs[TILE][TILE];    // Xs[r][c] = x[n, ci0 + r, p0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int n = blockIdx.z;                                 // batch item
    int co = blockIdx.y * TILE + ty;                    // output channel of this thread
    long long p = (long long)blockIdx.x * TILE + tx;    // flattened pixel of this thread
    long long P = (long long)H * W;                     // pixels per channel

    float acc = 0.0f;
    int num_tiles = (C_in + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int w_ci = t * TILE + tx;       // the input channel of the weight element this thread loads
        if (co < C_out && w_ci < C_in) {
            Ws[ty][tx] = w[(long long)co * C_in + w_ci];
        } else {
            Ws[ty][tx] = 0.0f;
        }
        int x_ci = t * TILE + ty;       // the input channel of the pixel this thread loads
        if (x_ci < C_in && p < P) {
            Xs[ty][tx] = x[((long long)n * C_in + x_ci) * P + p];
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
IN_CHANNELS = 64        # fixed by the weight [128, 64, 1, 1]
OUT_CHANNELS = 128
MAX_GRID_Z = 65535      # the batch runs along gridDim.z


def register(K, torch, ctypes):
    def build(torch):
        # Model(64, 128).__init__: nn.Conv2d(64, 128, kernel_size=1, stride=1, padding=0, bias=False):
        # one kaiming-uniform weight, no bias drawn.
        conv1d = torch.nn.Conv2d(IN_CHANNELS, OUT_CHANNELS, kernel_size=1, stride=1, padding=0, bias=False)
        return {"w": conv1d.weight}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, H, W_in = x.shape
        C_out = w["w"].shape[0]
        out = torch.empty((N, C_out, H, W_in), device=x.device, dtype=x.dtype)
        return (
            "conv_pointwise2d_kernel",
            (K.cdiv(H * W_in, TILE), K.cdiv(C_out, TILE), N),
            (TILE, TILE, 1),
            [x, w["w"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        return torch.nn.functional.conv2d(x, w["w"], None, stride=1, padding=0)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 4): outputs 4x the official ones.
        return [torch.rand(s["batch"], IN_CHANNELS, s["height"], s["width"]) * 4.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 5% of the pixels set to U[1, 9).
        shape = (s["batch"], IN_CHANNELS, s["height"], s["width"])
        mask = torch.rand(shape) < 0.05
        spikes = 1.0 + torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L1p87_conv_pointwise2d",
        level=1,
        problem="87_conv_pointwise_2D",
        cuda=CUDA,
        kernel_name="conv_pointwise2d_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16, max=MAX_GRID_Z),
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
                purpose="45 = 32 + 13 pixels per channel, so the second pixel tile holds 13 live pixels and the "
                "p < H * W load guard and the store guard matter (the official 1024 x 1024 fills every tile); "
                "with 2 batch items a pixel read past its channel lands in the next channel or image, and "
                "H != W; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 30, "width": 33},
                purpose="same-sign U[0,4) inputs (x4): outputs of std about 1.4 up to about 5.6 (0.34 and 1.6 on the official inputs), so a "
                "dropped input channel, a lost channel tile (32 of the 64 terms) or a truncated accumulator "
                "moves outputs far beyond 1e-2; kept at x4 because the reference conv is TF32 (Appendix A "
                "flags this problem): a CPU emulation of TF32 rounding keeps the reference within about "
                "1.3e-3 of the exact result here; 990 = 30 x 32 + 30 pixels",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "height": 16, "width": 37},
                purpose="about 5% isolated U[1,9) spikes on exact zeros (about 3.2 of the 64 channels of a "
                "pixel): each output is a few specific weights times its pixel's spikes, so a transposed "
                "weight tile ([C_in, C_out] order), a wrong channel stride, a pixel offset or a channel "
                "shift changes it outright; about 4% of the pixels hold no spike and give exactly 0; an "
                "emulated TF32 reference stays within about 1.2e-3 of the exact result; 592 = 18 x 32 + 16 pixels",
            ),
        ],
        notes="Model's default bias=False: no bias (Model names the layer conv1d; it is an nn.Conv2d). "
        "The reference runs nn.Conv2d through cuDNN with TF32 (Appendix A: ref != exact at 1e-4), so this "
        "exact fp32 kernel differs from the reference beyond 1e-4 but passes 1e-2. C_out = 128 and "
        "C_in = 64 are multiples of the 32-wide tile (fixed by the weight), so the co < C_out and "
        "ci < C_in guards never fire: faults on them are equivalent; the official 1024 x 1024 pixels fill "
        "every pixel tile, so only the targeted suites exercise the p < H * W guards. The official output "
        "has 2.15 G elements: a 32-bit output offset overflows on T0_original.",
    )
