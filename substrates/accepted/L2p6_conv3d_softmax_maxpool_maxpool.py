"""KernelBench level 2, problem 6_Conv3d_Softmax_MaxPool_MaxPool.

conv3d 3 -> 16 (3x3x3, stride 1, no padding, with bias), softmax over the channels (dim=1), then two
MaxPool3d(2) (kernel 2, stride 2, floor mode). x is 128 x 3 x 16 x 32 x 32; the convolution gives
128 x 16 x 14 x 30 x 30, the first pool 7 x 15 x 15 and the second 128 x 16 x 3 x 7 x 7.

In floor mode the two stacked pools are exactly one max over a 4 x 4 x 4 window of conv positions
(final index p covers pool-1 indices 2p, 2p + 1, which cover conv indices 4p .. 4p + 3, all inside
the conv output), so every final output needs the softmax at 64 conv positions, and each softmax
needs all 16 channels there.

One kernel, one block per final spatial position (n, pd, ph, pw): 1024 threads = 64 window
positions x 16 channels, thread t = pos * C_out + c. Phase 1: each thread computes its conv output
(fp32 loop over the 3 input channels and the 3x3x3 window) plus bias. Phase 2: a shared-memory tree
over the 16 channels of each position gives the channel max. Phase 3: each thread takes
expf(v - max), a second channel tree gives the sum, and the thread divides. Phase 4: a tree over
the 64 positions of each channel gives the pooled max, which the position-0 thread of each channel
writes. A __syncthreads() follows every shared-memory write phase and every tree level. The channel
trees need C_out to be a power of two (16, fixed by the weights) and the block is WIN * C_out.

Cost: 18816 blocks x 1024 threads x 81 multiply-adds = 1.6 G MAC plus 19 M expf: a few ms per
forward on an H200 (cuDNN reference: 0.86 ms).
"""

CUDA = r"""
const int POOL = 2;                     // each MaxPool3d: kernel 2, stride 2
const int SPAN = POOL * POOL;           // two stacked pools: 4 conv positions per axis
const int WIN = SPAN * SPAN * SPAN;     // 64 conv positions per final output
const int SM_BLOCK = 1024;              // threads per block: WIN positions x 16 channels

extern "C" __global__ void conv3d_softmax_maxpool_maxpool_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_out, C_in, KD, KH, KW]
    const float* __restrict__ conv_b,   // [C_out]
    float* __restrict__ out,            // [N, C_out, PD, PH, PW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int PD, int PH, int PW)
{
    __shared__ float red[SM_BLOCK];     // red[pos * C_out + c]
    int g = blockIdx.x;                 // final spatial position ((n * PD + pd) * PH + ph) * PW + pw
    if (g >= N * PD * PH * PW) return;
    int pw = g % PW;
    int ph = (g / PW) % PH;
    int pd = (g / (PW * PH)) % PD;
    int n = g / (PW * PH * PD);

    int tid = threadIdx.x;
    int c = tid % C_out;                // channel of this thread
    int pos = tid / C_out;              // window position, dx fastest
    int dx = pos % SPAN;
    int dy = (pos / SPAN) % SPAN;
    int dz = pos / (SPAN * SPAN);
    int od = pd * SPAN + dz;            // conv output coordinates
    int oh = ph * SPAN + dy;
    int ow = pw * SPAN + dx;

    // Phase 1: the conv output of (position, channel).
    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kd = 0; kd < KD; ++kd) {
            for (int kh = 0; kh < KH; ++kh) {
                for (int kw = 0; kw < KW; ++kw) {
                    int id = od + kd;
                    int ih = oh + kh;
                    int iw = ow + kw;
                    float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                    float wv = w[((((long long)c * C_in + ci) * KD + kd) * KH + kh) * KW + kw];
                    acc += xv * wv;
                }
            }
        }
    }
    float v = acc + conv_b[c];

    // Phase 2: max over the channels of each position (tree over c).
    red[tid] = v;
    __syncthreads();
    for (int s = C_out / 2; s > 0; s >>= 1) {
        if (c < s) {
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }
    float ch_max = red[pos * C_out];
    __syncthreads();    // every thread has read its position's max before red is overwritten

    // Phase 3: softmax over the channels: sum of expf(v - max) (tree over c), then divide.
    float e = expf(v - ch_max);
    red[tid] = e;
    __syncthreads();
    for (int s = C_out / 2; s > 0; s >>= 1) {
        if (c < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float ch_sum = red[pos * C_out];
    __syncthreads();    // every thread has read its position's sum before red is overwritten
    float prob = e / ch_sum;

    // Phase 4: both max pools: max over the WIN positions of each channel (tree over pos).
    red[tid] = prob;
    __syncthreads();
    for (int s = WIN / 2; s > 0; s >>= 1) {
        if (pos < s) {
            red[tid] = fmaxf(red[tid], red[tid + s * C_out]);
        }
        __syncthreads();
    }
    if (pos == 0) {
        out[((((long long)n * C_out + c) * PD + pd) * PH + ph) * PW + pw] = red[c];
    }
}
"""

POOL = 2                  # MaxPool3d(pool_kernel_size=2), twice; must equal POOL in the CUDA source
WIN = (POOL * POOL) ** 3  # conv positions per final output; must equal WIN in the CUDA source
POSITIONS_PER_BLOCK = 1   # one block per final spatial position
IN_CHANNELS = 3           # fixed by the conv weight [16, 3, 3, 3, 3]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(3, 16, 3, pool_kernel_size=2): nn.Conv3d, then two parameterless MaxPool3d.
        nn = torch.nn
        conv = nn.Conv3d(3, 16, 3)
        return {"conv_w": conv.weight, "conv_b": conv.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        C_out, _, KD, KH, KW = w["conv_w"].shape
        OD, OH, OW = D - KD + 1, H - KH + 1, W_in - KW + 1
        PD = ((OD - POOL) // POOL + 1 - POOL) // POOL + 1     # pool 1, then pool 2 (floor mode)
        PH = ((OH - POOL) // POOL + 1 - POOL) // POOL + 1
        PW = ((OW - POOL) // POOL + 1 - POOL) // POOL + 1
        out = torch.empty((N, C_out, PD, PH, PW), device=x.device, dtype=x.dtype)
        positions = N * PD * PH * PW
        return (
            "conv3d_softmax_maxpool_maxpool_kernel",
            (K.cdiv(positions, POSITIONS_PER_BLOCK), 1, 1),
            (WIN * C_out, 1, 1),
            [x, w["conv_w"], w["conv_b"], out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, D),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KD),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, PD),
                (ctypes.c_int, PH),
                (ctypes.c_int, PW),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv3d(x, w["conv_w"], w["conv_b"])
        y = torch.softmax(y, dim=1)
        y = torch.nn.functional.max_pool3d(y, POOL)
        y = torch.nn.functional.max_pool3d(y, POOL)
        return y

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, depth, height, width)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def large_inputs(torch, s):
        # Same-sign U[0, 8): logits of std about 3, so the softmax is peaked.
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"]) * 8.0]

    def spiky_inputs(torch, s):
        # Exact zeros with about 0.2% of the voxels set to U[0, 200).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.002
        spikes = torch.rand(shape) * 200.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p6_conv3d_softmax_maxpool_maxpool",
        level=2,
        problem="6_Conv3d_Softmax_MaxPool_MaxPool",
        cuda=CUDA,
        kernel_name="conv3d_softmax_maxpool_maxpool_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128),
            "depth": K.dim(16, min=6),
            "height": K.dim(32, min=6),
            "width": K.dim(32, min=6),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 10, "height": 15, "width": 21},
                small=True,
                purpose="conv output 8 x 13 x 19, pool-1 4 x 6 x 9, pool-2 2 x 3 x 4: floor mode drops conv row "
                "12, conv column 18 and pool-1 column 8, so a ceil-mode size, a wrong window origin or a "
                "wrong pooled-size formula reads conv positions the reference never uses or misses some; "
                "PD, PH and PW all differ, so swapped axes show; 48 blocks; official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "depth": 12, "height": 20, "width": 24},
                purpose="same-sign U[0,8) inputs: logits of std about 3 (0.39 on the official inputs), so the "
                "softmax is peaked and outputs spread over 0.0003..0.99 (mean 0.31) instead of 0.04..0.22: "
                "a wrong channel max or sum, a missing division, a channel-offset error or a wrong pooled "
                "position moves outputs by up to about 1; with 81 taps a CPU emulation of TF32 rounding "
                "(round-to-nearest and truncation) puts the reference within 6.5e-4 of the exact result",
            ),
            K.suite(
                "T3_sparse_ties",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 3, "depth": 11, "height": 18, "width": 26},
                purpose="about 0.2% isolated U[0,200) spikes on exact zeros: about 15% of the conv windows "
                "hold a spike (logits up to about 37, a nearly one-hot softmax there); every other position "
                "gives exactly softmax(conv_bias), so the max over the 64 positions meets exact ties, and "
                "25-30% of the outputs see no spike at all (output softmax(conv_bias)[c], isolating the "
                "softmax constants); the peaks sit at specific taps, so kd/kh/kw swaps or wrong window "
                "origins move them; the TF32 reference stays within about 1.7e-3 of the exact result "
                "(CPU emulation, both rounding modes)",
            ),
        ],
        notes="The softmax's max subtraction is equivalent on every suite: logits stay below about 37 "
        "(T3), far from expf's overflow at 88.7; pushing spikes high enough to overflow (about U[0,1000)) "
        "brings the TF32 reference within about 6e-3 of the tolerance's edge (CPU emulation), so no suite "
        "does. The two pools are fused into one 4 x 4 x 4 window max, which equals the reference exactly "
        "in floor mode. On the official inputs the outputs lie in about 0.04..0.22 (softmax over 16 channels of "
        "logits with std 0.39), so faults that move them by less than about 0.01 pass T0.",
    )
