"""KernelBench level 2, problem 61_ConvTranspose3d_ReLU_GroupNorm.

ConvTranspose3d(64, 128, 3) without bias (stride 1, no padding), ReLU, then GroupNorm(8 groups of 16
channels, eps 1e-5, affine weight ones and bias zeros). x is 16 x 64 x 32 x 32 x 32; each output size
is S + 2, so the output is 16 x 128 x 34 x 34 x 34 (80.5 M elements).

One kernel, one 512-thread block per (sample, group): the block owns the group's 16 x 34 x 34 x 34 =
628,864 outputs, a contiguous range of the output. Pass 1: the threads stride over the group; each
computes its element's transposed convolution in gather form (for every tap (kd, kh, kw) it keeps the
input voxel id = (od + pad - kd) / stride where that is a non-negative multiple of the stride inside
the input, likewise for the height and width, and sums x[n, ci, id, ih, iw] * w[ci, co, kd, kh, kw]
over the 64 input channels in fp32; the ConvTranspose3d weight is [C_in, C_out, KD, KH, KW]), applies
ReLU, stores the value in the output (as scratch) and adds it to a per-thread sum; a shared-memory
tree reduces the sums to the group mean. Pass 2: the same threads read back the values they stored
and sum their squared deviations from the mean; a second tree gives the biased variance. Pass 3: each
value is normalised, (v - mean) / sqrtf(var + eps), and scaled and shifted by its channel's GroupNorm
weight and bias, in place. A __syncthreads() follows every shared-memory write phase and every tree
level. In-group indices and offsets are 64-bit. Stride and padding are model constants passed as
kernel arguments.

Cost: 80.5 M outputs x up to 1728 multiply-adds (27 taps x 64 channels; all taps hit away from the
border) = 139 G MAC. Only 128 blocks run, one per SM with 16 of its 64 warps: expect roughly 0.2-0.3 s
per forward on an H200 (cuDNN reference: 3.3 ms). The block has 512 threads, not 1024: NVRTC
(sm_90) gives this kernel 96 registers per thread, and 1024 x 96 exceeds the SM's 65,536 registers,
so a 1024-thread block would not launch.
"""

CUDA = r"""
const int GN_BLOCK = 512;       // threads per block; one block per (sample, group) (power of two)
const float GN_EPS = 1e-5f;     // nn.GroupNorm default eps

extern "C" __global__ void convtranspose3d_relu_groupnorm_kernel(
    const float* __restrict__ x,        // [N, C_in, D, H, W]
    const float* __restrict__ w,        // [C_in, C_out, KD, KH, KW]  (no conv bias)
    const float* __restrict__ gn_w,     // [C_out]
    const float* __restrict__ gn_b,     // [C_out]
    float* __restrict__ out,            // [N, C_out, OD, OH, OW]
    int N, int C_in, int D, int H, int W, int C_out, int KD, int KH, int KW,
    int OD, int OH, int OW, int stride, int pad, int G)
{
    __shared__ float red[GN_BLOCK];
    int blk = blockIdx.x;               // n * G + g
    if (blk >= N * G) return;
    int g = blk % G;
    int n = blk / G;
    int tid = threadIdx.x;
    int cpg = C_out / G;                // channels per group
    long long vol = (long long)OD * OH * OW;
    long long count = (long long)cpg * vol;
    float* out_group = out + ((long long)n * C_out + (long long)g * cpg) * vol;

    // Pass 1: relu(conv_transpose) for every element of the group, into out; the sum.
    float thread_sum = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        int ow = (int)(e % OW);
        int oh = (int)((e / OW) % OH);
        int od = (int)((e / ((long long)OW * OH)) % OD);
        int co = g * cpg + (int)(e / vol);
        float acc = 0.0f;
        for (int kd = 0; kd < KD; ++kd) {
            int td = od + pad - kd;                     // = id * stride when the tap hits
            if (td < 0 || td % stride != 0) continue;
            int id = td / stride;
            if (id >= D) continue;
            for (int kh = 0; kh < KH; ++kh) {
                int th = oh + pad - kh;
                if (th < 0 || th % stride != 0) continue;
                int ih = th / stride;
                if (ih >= H) continue;
                for (int kw = 0; kw < KW; ++kw) {
                    int tw = ow + pad - kw;
                    if (tw < 0 || tw % stride != 0) continue;
                    int iw = tw / stride;
                    if (iw >= W) continue;
                    for (int ci = 0; ci < C_in; ++ci) {
                        float xv = x[((((long long)n * C_in + ci) * D + id) * H + ih) * W + iw];
                        float wv = w[((((long long)ci * C_out + co) * KD + kd) * KH + kh) * KW + kw];
                        acc += xv * wv;
                    }
                }
            }
        }
        float v = acc > 0.0f ? acc : 0.0f;
        out_group[e] = v;
        thread_sum += v;
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)count;
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of squared deviations from the mean, same reduction.
    float thread_sq = 0.0f;
    for (long long e = tid; e < count; e += blockDim.x) {
        float d = out_group[e] - mean;
        thread_sq += d * d;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float var = red[0] / (float)count;  // biased, as group_norm
    float inv_std = 1.0f / sqrtf(var + GN_EPS);

    // Pass 3: normalise and apply the channel's affine, in place.
    for (long long e = tid; e < count; e += blockDim.x) {
        int co = g * cpg + (int)(e / vol);
        out_group[e] = (out_group[e] - mean) * inv_std * gn_w[co] + gn_b[co];
    }
}
"""

BLOCK = 512             # must equal GN_BLOCK (the shared buffer size), a power of two; see the docstring
GROUPS_PER_BLOCK = 1    # one block normalises one (sample, group)
STRIDE = 1              # ConvTranspose3d(64, 128, 3): stride 1, no padding
PADDING = 0
IN_CHANNELS = 64        # fixed by the weight [64, 128, 3, 3, 3]
NUM_GROUPS = 8
GN_EPS = 1e-5


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(64, 128, 3, groups=8, bias=False): nn.ConvTranspose3d(64, 128, 3, bias=False),
        # then nn.GroupNorm(8, 128) (weight ones, bias zeros; it draws nothing).
        nn = torch.nn
        conv_t = nn.ConvTranspose3d(64, 128, 3, bias=False)
        gn = nn.GroupNorm(num_groups=NUM_GROUPS, num_channels=128)
        return {"w": conv_t.weight, "gn_w": gn.weight, "gn_b": gn.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        N, C_in, D, H, W_in = x.shape
        _, C_out, KD, KH, KW = w["w"].shape
        OD = (D - 1) * STRIDE - 2 * PADDING + KD
        OH = (H - 1) * STRIDE - 2 * PADDING + KH
        OW = (W_in - 1) * STRIDE - 2 * PADDING + KW
        out = torch.empty((N, C_out, OD, OH, OW), device=x.device, dtype=x.dtype)
        return (
            "convtranspose3d_relu_groupnorm_kernel",
            (K.cdiv(N * NUM_GROUPS, GROUPS_PER_BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, w["w"], w["gn_w"], w["gn_b"], out],
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
                (ctypes.c_int, OD),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
                (ctypes.c_int, STRIDE),
                (ctypes.c_int, PADDING),
                (ctypes.c_int, NUM_GROUPS),
            ],
        )

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        y = torch.nn.functional.conv_transpose3d(x, w["w"], None, stride=STRIDE)
        y = torch.relu(y)
        return torch.nn.functional.group_norm(y, NUM_GROUPS, w["gn_w"], w["gn_b"], GN_EPS)

    def rand_inputs(torch, s):
        # get_inputs(): x = torch.rand(batch_size, in_channels, D, H, W)
        return [torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])]

    def per_sample_inputs(torch, s):
        # Sample n is (0.5 + n) * U[0,1) - 0.25 * n: every sample with its own mean and spread.
        n = torch.arange(s["batch"], dtype=torch.float32).view(-1, 1, 1, 1, 1)
        u = torch.rand(s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        return [(0.5 + n) * u - 0.25 * n]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the voxels set to U[0, 8).
        shape = (s["batch"], IN_CHANNELS, s["depth"], s["height"], s["width"])
        mask = torch.rand(shape) < 0.01
        spikes = torch.rand(shape) * 8.0
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L2p61_convtranspose3d_relu_groupnorm",
        level=2,
        problem="61_ConvTranspose3d_ReLU_GroupNorm",
        cuda=CUDA,
        kernel_name="convtranspose3d_relu_groupnorm_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16),
            "depth": K.dim(32),
            "height": K.dim(32),
            "width": K.dim(32),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "depth": 3, "height": 4, "width": 5},
                small=True,
                purpose="output 5 x 6 x 7 per channel, groups of 16 x 210 = 3360 = 6 x 512 + 288 elements: "
                "the last stride over each group is partial, so the e < count guards matter; with inputs "
                "this small only 1 x 2 x 3 of the 5 x 6 x 7 outputs per channel see all 27 taps, the rest "
                "lie near a border where some taps fall outside the input, so a dropped or shifted bound or "
                "a flipped kernel shows; OD, OH and OW all differ, "
                "so swapped axes show; official U[0,1) values",
            ),
            K.suite(
                "T2_per_sample_shift_scale",
                per_sample_inputs,
                seeds=[3, 4],
                sizes={"batch": 3, "depth": 4, "height": 6, "width": 7},
                purpose="sample n = (0.5 + n) * U[0,1) - 0.25 n (ranges [0, 0.5), [-0.25, 1.25), [-0.5, 2)): "
                "each sample has its own mean and spread, which move every channel's output by its own "
                "amount, and ReLU is nonlinear, so the fraction of zeros and the group statistics differ "
                "by sample and group: a block that normalises with another sample's or group's statistics, "
                "a channel offset error or a missing mean subtraction shows",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "depth": 5, "height": 7, "width": 6},
                purpose="about 1% isolated U[0,8) spikes on exact zeros (about 17 of the 1728 terms of an "
                "output): without a bias, outputs far from every spike are exactly 0 before the norm, and "
                "each spike lands on the 3 x 3 x 3 block of outputs its taps reach with a different weight "
                "at each, so a flipped kernel, a wrong tap offset or a [C_out, C_in] weight transpose moves "
                "outputs",
            ),
        ],
        notes="GroupNorm's affine parameters are its init, weight ones and bias zeros, and no suite can change "
        "them: a kernel that skips the affine or reads gn_w/gn_b at a wrong in-range channel passes. The "
        "reference runs nn.ConvTranspose3d through cuDNN with TF32 (facts: ref != exact at 1e-4), so this "
        "exact fp32 kernel differs from the reference beyond 1e-4 but passes 1e-2; a CPU emulation of "
        "TF32 operand rounding puts the reference 2.4-3.3e-3 from the exact result on every suite, T0 "
        "included (1728 terms per output), so no suite magnifies the inputs. Stride 1 and padding 0 "
        "make the parity tests (td % stride != 0) never true and the division by the stride an identity, "
        "so mutants confined to them are mostly equivalent. ReLU is written as v > 0 ? v : 0, which maps "
        "NaN to 0 where torch.relu propagates it (finite inputs are unaffected).",
    )
