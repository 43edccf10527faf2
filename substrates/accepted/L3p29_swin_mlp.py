"""KernelBench level 3, problem 29_SwinMLP: Swin-MLP-T (the Swin Transformer layout with window attention
replaced by a grouped Conv1d "spatial MLP" over the tokens of each window) on 10 x 3 x 224 x 224, 1000 classes,
with the problem's defaults: patch 4, embed 96, depths [2, 2, 6, 2], heads [3, 6, 12, 24], window 7, MLP ratio 4.

A pipeline of 71 kernels, one per layer, in the order Model.forward runs them:

    swin_patch_embed_kernel       Conv2d(3, 96, 4, stride=4) + bias, flatten(2).transpose(1, 2)  -> [B, 3136, 96]
    swin_patch_norm_kernel        patch_embed.norm = LayerNorm(96)        (pos_drop has p = 0)
    stage s = 1..4 (56 x 56 x 96, 28 x 28 x 192, 14 x 14 x 384, 7 x 7 x 768 tokens x channels),
    2, 2, 6, 2 SwinMLPBlocks, five kernels each (block k):
      swin_stage{s}_block{k}_norm1_kernel                 LayerNorm(C)
      swin_stage{s}_block{k}_spatial_mlp_residual_kernel  shift (zero padding), window partition, per-head
                                                         spatial MLP Conv1d(nH*49, nH*49, 1, groups=nH),
                                                         window reverse, crop, and x = shortcut + x
      swin_stage{s}_block{k}_norm2_kernel                 LayerNorm(C)
      swin_stage{s}_block{k}_fc1_gelu_kernel              GELU(fc1(x)), C -> 4C (exact erf GELU)
      swin_stage{s}_block{k}_fc2_residual_kernel          x + fc2(h), 4C -> C
    after stages 1-3, PatchMerging, two kernels:
      swin_stage{s}_merge_norm_kernel                     cat(x0, x1, x2, x3) of the 2x2 neighbours, LayerNorm(4C)
      swin_stage{s}_merge_reduction_kernel                Linear(4C, 2C, bias=False)
    swin_norm_kernel              LayerNorm(768)
    swin_avgpool_kernel           AdaptiveAvgPool1d(1) over the 49 tokens, flatten  -> [B, 768]
    swin_head_kernel              Linear(768, 1000)

The spatial-MLP kernel does in one pass what the block does with views: odd blocks of stages 1-3 shift
by padding the norm1 output with window_size - shift = 4 zero rows/columns above/left and shift = 3
below/right (F.pad, not a roll), partition the padded map into 7 x 7 windows, mix the 49 tokens of a
window per head with that head's 49 x 49 weights, and crop the padding off again; so an output token
at (h, w) sits at (h + 4, w + 4) of the padded frame, and the window tokens it mixes are zero where
they fall in the padding. Even blocks and all of stage 4 (7 x 7 tokens, one window: the block sets
shift 0 when the resolution is not larger than the window) do not shift. drop_path is nn.Identity
in this model and every dropout has p = 0.0.

The CUDA source is generated in `register` from templates: every layer gets its own named `__global__`
with its window, shift padding and head count as named constants, so a mutation lands in one layer.
GEMMs are 16 x 16 shared-memory tiled (guarded, zero-filled tile loads, a barrier after the loads and
another after the multiply-accumulate); each LayerNorm row is one 256-thread block with shared-memory
tree reductions for the mean and the biased variance; the patch embedding, spatial MLP, pool and head
run one thread per output element. Every accumulation is fp32.

Only the batch is resizable: PatchEmbed asserts the 224 x 224 input, and every block's resolution is
fixed at construction. GEMMs tile the B x 3136 token rows of stage 1 along gridDim.y, so B <= 334.

Cost on the official input: 3.0 G multiply-adds per image (the twelve MLPs 0.23 G each, the three
merges 58 M each, the spatial MLPs 1.8-15 M each, the patch embedding 14 M), 30 G for the batch of 10: 60
GFLOP at the ~2-4 TFLOP/s of a 16 x 16 tiled GEMM is 15-30 ms; the LayerNorms and spatial MLPs add
a few ms: one forward should take about 25-50 ms on an H200.
"""

from string import Template

TILE = 16               # must equal TILE in the CUDA source: GEMM blocks are TILE x TILE threads
LN_BLOCK = 256          # must equal LN_BLOCK in the CUDA source (shared buffer size), a power of two
BLOCK = 256             # threads per block of the patch embedding, spatial MLP, pool and head kernels
MAX_GRID_Y = 65535      # GEMMs tile the token rows along gridDim.y
IMG_SIZE = 224          # get_init_inputs() = []: every Model default
PATCH = 4
IN_CHANS = 3
NUM_CLASSES = 1000
EMBED_DIM = 96
DEPTHS = [2, 2, 6, 2]
NUM_HEADS = [3, 6, 12, 24]
WINDOW = 7
MLP_RATIO = 4.0
LN_EPS = 1e-5           # nn.LayerNorm default
RES0 = IMG_SIZE // PATCH                    # 56 tokens per side in stage 1
NUM_FEATURES = EMBED_DIM * 2 ** (len(DEPTHS) - 1)   # 768
MAX_BATCH = (MAX_GRID_Y * TILE) // (RES0 * RES0)    # 334
T2_DENSITY = 0.01       # T2: 1% of the entries U[0, 1), the rest exactly 0
T3_FRAME = 8           # T3: U[0, 1) only in a frame 8 pixels (2 patch rows/columns) wide, zeros inside


def block_config(stage, k):
    """(dim, resolution, heads, window, shift) of block k of a stage, as SwinMLPBlock.__init__ sets them."""
    dim = EMBED_DIM * 2 ** stage
    res = RES0 // 2 ** stage
    window, shift = WINDOW, (0 if k % 2 == 0 else WINDOW // 2)
    if res <= window:       # the window would cover the whole map: no partition, no shift
        shift, window = 0, res
    return dim, res, NUM_HEADS[stage], window, shift


PRELUDE = r"""
const int TILE = 16;        // GEMM blocks are TILE x TILE threads; K is consumed TILE at a time
const int LN_BLOCK = 256;   // threads per LayerNorm block (one block per token row)

// patch_embed.proj: Conv2d(3, 96, kernel_size=4, stride=4) + bias, written token-major:
// out[b, oh * OW + ow, c] (the model's flatten(2).transpose(1, 2))
extern "C" __global__ void swin_patch_embed_kernel(
    const float* __restrict__ x,    // [B, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KSIZE, KSIZE]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [B, OH * OW, C_out]
    int B, int C_in, int H, int W, int C_out, int OH, int OW)
{
    const int KSIZE = 4;                                // kernel_size=patch_size
    const int STRIDE = 4;                               // stride=patch_size: the windows tile the image

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)B * OH * OW * C_out;
    if (i >= total) return;

    int co = (int)(i % C_out);                          // channel fastest: token-major output
    int ow = (int)((i / C_out) % OW);
    int oh = (int)((i / ((long long)C_out * OW)) % OH);
    int n = (int)(i / ((long long)C_out * OW * OH));

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KSIZE; ++kh) {
            int ih = oh * STRIDE + kh;                  // OH = (H - KSIZE) / STRIDE + 1: always inside
            for (int kw = 0; kw < KSIZE; ++kw) {
                int iw = ow * STRIDE + kw;
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KSIZE + kh) * KSIZE + kw];
                acc += xv * wv;
            }
        }
    }
    out[i] = acc + b[co];
}

// avgpool: AdaptiveAvgPool1d(1) over x.transpose(1, 2), then flatten: the mean over the tokens
extern "C" __global__ void swin_avgpool_kernel(
    const float* __restrict__ x,    // [B, L, C]
    float* __restrict__ out,        // [B, C]
    int B, int L, int C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;      // b * C + c
    if (i >= B * C) return;
    int c = i % C;
    int b = i / C;

    float sum = 0.0f;
    for (int l = 0; l < L; ++l) {
        sum += x[((long long)b * L + l) * C + c];
    }
    out[i] = sum / (float)L;
}

// head: Linear(768, num_classes)   [B, 768] -> [B, 1000]
extern "C" __global__ void swin_head_kernel(
    const float* __restrict__ x,    // [B, K]
    const float* __restrict__ w,    // [N_out, K]
    const float* __restrict__ b,    // [N_out]
    float* __restrict__ out,        // [B, N_out]
    int B, int K, int N_out)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;    // class
    int row = blockIdx.y;                               // image
    if (row >= B || col >= N_out) return;

    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += x[(long long)row * K + k] * w[(long long)col * K + k];
    }
    out[(long long)row * N_out + col] = acc + b[col];
}
"""

LAYERNORM_TEMPLATE = Template(r"""
// ${what}: LayerNorm(${c}, eps=1e-5), one block per token row
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,        // [M, C]
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
    float* __restrict__ out,            // [M, C]
    int M, int C)
{
    const float LN_EPS = 1e-5f;         // nn.LayerNorm default eps
    __shared__ float red[LN_BLOCK];
    int row = blockIdx.x;
    if (row >= M) return;
    int tid = threadIdx.x;
    const float* x_row = x + (long long)row * C;
    float* out_row = out + (long long)row * C;

    // Phase 1: mean of the row.
    float thread_sum = 0.0f;
    for (int c = tid; c < C; c += blockDim.x) {
        thread_sum += x_row[c];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / C;
    __syncthreads();    // every thread has read red[0] before phase 2 overwrites it

    // Phase 2: biased variance, mean of (x - mean)^2.
    float thread_sq = 0.0f;
    for (int c = tid; c < C; c += blockDim.x) {
        float dlt = x_row[c] - mean;
        thread_sq += dlt * dlt;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float var = red[0] / C;
    float inv_std = 1.0f / sqrtf(var + LN_EPS);

    // Phase 3: normalise, scale and shift every element of the row.
    for (int c = tid; c < C; c += blockDim.x) {
        out_row[c] = (x_row[c] - mean) * inv_std * gamma[c] + beta[c];
    }
}
""")

MERGE_NORM_TEMPLATE = Template(r"""
// ${what}: PatchMerging gather x = cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]], -1)
// then LayerNorm(${c4}); one block per merged token
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,        // [B, H, W, C]  the stage's tokens
    const float* __restrict__ gamma,    // [4C]
    const float* __restrict__ beta,     // [4C]
    float* __restrict__ out,            // [B, (H/2) * (W/2), 4C]
    int B, int H, int W, int C)
{
    const float LN_EPS = 1e-5f;         // nn.LayerNorm default eps
    __shared__ float red[LN_BLOCK];
    int OH = H / 2;
    int OW = W / 2;
    int row = blockIdx.x;               // merged token: b * OH * OW + oh * OW + ow
    if (row >= B * OH * OW) return;
    int tid = threadIdx.x;
    int ow = row % OW;
    int oh = (row / OW) % OH;
    int b = row / (OW * OH);
    int F4 = 4 * C;
    float* out_row = out + (long long)row * F4;

    // Feature f = q * C + c comes from neighbour q: row offset q % 2, column offset q / 2.
    // Phase 1: mean of the gathered row.
    float thread_sum = 0.0f;
    for (int f = tid; f < F4; f += blockDim.x) {
        int q = f / C;
        int c = f % C;
        int h = 2 * oh + (q % 2);
        int w = 2 * ow + (q / 2);
        thread_sum += x[(((long long)b * H + h) * W + w) * C + c];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / F4;
    __syncthreads();    // every thread has read red[0] before phase 2 overwrites it

    // Phase 2: biased variance.
    float thread_sq = 0.0f;
    for (int f = tid; f < F4; f += blockDim.x) {
        int q = f / C;
        int c = f % C;
        int h = 2 * oh + (q % 2);
        int w = 2 * ow + (q / 2);
        float dlt = x[(((long long)b * H + h) * W + w) * C + c] - mean;
        thread_sq += dlt * dlt;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float var = red[0] / F4;
    float inv_std = 1.0f / sqrtf(var + LN_EPS);

    // Phase 3: normalise the gathered row into the merged token.
    for (int f = tid; f < F4; f += blockDim.x) {
        int q = f / C;
        int c = f % C;
        int h = 2 * oh + (q % 2);
        int w = 2 * ow + (q / 2);
        float v = x[(((long long)b * H + h) * W + w) * C + c];
        out_row[f] = (v - mean) * inv_std * gamma[f] + beta[f];
    }
}
""")

SPATIAL_MLP_TEMPLATE = Template(r"""
// ${what}: ${shift_text}, window partition (${ws} x ${ws}), spatial_mlp =
// Conv1d(${nh} * ${wsq}, ${nh} * ${wsq}, 1, groups=${nh}) over each window's tokens per head, window reverse,
// crop, then x = shortcut + x   [B, ${res} x ${res}, ${c}]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ x,        // [B, H, W, C]  norm1 output
    const float* __restrict__ w,        // [NH * WS*WS, WS*WS]  spatial_mlp.weight (kernel size 1)
    const float* __restrict__ bias,     // [NH * WS*WS]
    const float* __restrict__ shortcut, // [B, H, W, C]  the block input
    float* __restrict__ out,            // [B, H, W, C]
    int B, int H, int W, int C)
{
    const int WS = ${ws};                                  // window size
    const int PAD_T = ${pad};                              // zero rows above: window_size - shift_size (0: no shift)
    const int PAD_L = ${pad};                              // zero columns on the left, likewise
    const int NH = ${nh};                                  // heads: the groups of the spatial MLP

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)B * H * W * C;
    if (i >= total) return;

    int c = (int)(i % C);
    int ow = (int)((i / C) % W);
    int oh = (int)((i / ((long long)C * W)) % H);
    int b = (int)(i / ((long long)C * W * H));

    int hp = oh + PAD_T;                                // the token's place in the padded frame
    int wp = ow + PAD_L;
    int wy = hp / WS;                                   // its window
    int wx = wp / WS;
    int r = (hp % WS) * WS + (wp % WS);                 // its index among the window's WS*WS tokens
    int head = c / (C / NH);                            // channels are split into NH heads of C / NH

    const float* w_row = w + ((long long)head * WS * WS + r) * (WS * WS);
    float acc = 0.0f;
    for (int j = 0; j < WS * WS; ++j) {
        int sh = wy * WS + j / WS - PAD_T;              // window token j, back in the unpadded frame
        int sw = wx * WS + j % WS - PAD_L;
        if (sh < 0 || sh >= H || sw < 0 || sw >= W) continue;  // F.pad zeros
        acc += w_row[j] * x[(((long long)b * H + sh) * W + sw) * C + c];
    }
    out[i] = shortcut[i] + (acc + bias[head * WS * WS + r]);
}
""")

GEMM_TEMPLATE = Template(r"""
// ${what}   [M, K] -> [M, N]
extern "C" __global__ void ${kernel}(
    const float* __restrict__ a,    // [M, K]  ${a_what}
    const float* __restrict__ w,    // [N, K]  nn.Linear weight
${extra_params}    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
${consts}    __shared__ float as[TILE][TILE];    // as[r][k] = a[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // token
    int col = blockIdx.x * TILE + tx;   // output feature
    int w_row = blockIdx.x * TILE + ty; // the w row this thread loads into the tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            as[ty][tx] = a[(long long)row * K + k];
        } else {
            as[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += as[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
${epilogue}
    }
}
""")

GEMM_VARIANTS = {
    # kind: (extra tensor parameters between w and out, constants, epilogue)
    "fc1_gelu": (
        "    const float* __restrict__ b,    // [N]\n",
        "    const float INV_SQRT2 = 0.7071067811865476f;   // GELU(v) = 0.5 v (1 + erf(v / sqrt(2)))\n",
        "        float v = acc + b[col];\n"
        "        out[(long long)row * N + col] = 0.5f * v * (1.0f + erff(v * INV_SQRT2));",
    ),
    "fc2_residual": (
        "    const float* __restrict__ b,    // [N]\n"
        "    const float* __restrict__ res,  // [M, N]  the residual x\n",
        "",
        "        long long o = (long long)row * N + col;\n"
        "        out[o] = res[o] + (acc + b[col]);",
    ),
    "reduction": (
        "",
        "",
        "        out[(long long)row * N + col] = acc;           // bias=False",
    ),
}


def layer_plan():
    """Every layer in pipeline order: (kernel, kind, info)."""
    plan = [
        ("swin_patch_embed_kernel", "patch_embed", {}),
        ("swin_patch_norm_kernel", "ln", dict(key="patch_norm", c=EMBED_DIM, what="patch_embed.norm")),
    ]
    for stage, depth in enumerate(DEPTHS):
        for k in range(depth):
            dim, res, nh, window, shift = block_config(stage, k)
            pre = f"swin_stage{stage + 1}_block{k + 1}"
            key = f"s{stage + 1}b{k + 1}"
            where = f"layers[{stage}].blocks[{k}]"
            plan += [
                (f"{pre}_norm1_kernel", "ln", dict(key=f"{key}.norm1", c=dim, what=f"{where}.norm1")),
                (f"{pre}_spatial_mlp_residual_kernel", "spatial",
                 dict(key=key, c=dim, res=res, nh=nh, ws=window, shift=shift, what=where)),
                (f"{pre}_norm2_kernel", "ln", dict(key=f"{key}.norm2", c=dim, what=f"{where}.norm2")),
                (f"{pre}_fc1_gelu_kernel", "fc1_gelu",
                 dict(key=f"{key}.fc1", what=f"{where}.mlp.fc1 + GELU: Linear({dim}, {int(dim * MLP_RATIO)})",
                      a_what="norm2 output")),
                (f"{pre}_fc2_residual_kernel", "fc2_residual",
                 dict(key=f"{key}.fc2", what=f"{where}: x + mlp.fc2(h), Linear({int(dim * MLP_RATIO)}, {dim})",
                      a_what="GELU output")),
            ]
        if stage < len(DEPTHS) - 1:
            dim = EMBED_DIM * 2 ** stage
            where = f"layers[{stage}].downsample"
            plan += [
                (f"swin_stage{stage + 1}_merge_norm_kernel", "merge_norm",
                 dict(key=f"s{stage + 1}.merge_norm", c4=4 * dim, what=where)),
                (f"swin_stage{stage + 1}_merge_reduction_kernel", "reduction",
                 dict(key=f"s{stage + 1}.reduction", what=f"{where}.reduction: Linear({4 * dim}, {2 * dim}, bias=False)",
                      a_what="merged, normalised tokens")),
            ]
    plan += [
        ("swin_norm_kernel", "ln", dict(key="norm", c=NUM_FEATURES, what="norm")),
        ("swin_avgpool_kernel", "avgpool", {}),
        ("swin_head_kernel", "head", {}),
    ]
    return plan


def cuda_source(plan):
    parts = [PRELUDE]
    for kernel, kind, info in plan:
        if kind == "ln":
            parts.append(LAYERNORM_TEMPLATE.substitute(kernel=kernel, what=info["what"], c=info["c"]))
        elif kind == "merge_norm":
            parts.append(MERGE_NORM_TEMPLATE.substitute(kernel=kernel, what=info["what"], c4=info["c4"]))
        elif kind == "spatial":
            pad = info["ws"] - info["shift"] if info["shift"] > 0 else 0
            shift_text = (f"shift by zero padding ({pad} above/left, {info['shift']} below/right)" if info["shift"] > 0
                          else "no shift")
            parts.append(SPATIAL_MLP_TEMPLATE.substitute(
                kernel=kernel, what=info["what"], shift_text=shift_text, ws=info["ws"], wsq=info["ws"] ** 2,
                nh=info["nh"], pad=pad, res=info["res"], c=info["c"]))
        elif kind in GEMM_VARIANTS:
            extra, consts, epilogue = GEMM_VARIANTS[kind]
            parts.append(GEMM_TEMPLATE.substitute(kernel=kernel, what=info["what"], a_what=info["a_what"],
                                                  extra_params=extra, consts=consts, epilogue=epilogue))
    return "".join(parts)


def register(K, torch, ctypes):
    plan = layer_plan()

    def build(torch):
        # Model.__init__() with its defaults, in order: patch_embed (proj Conv2d(3, 96, 4, 4), norm
        # LayerNorm(96)), pos_drop, then per stage its blocks (norm1, spatial_mlp Conv1d(nH*w^2, nH*w^2, 1,
        # groups=nH), drop_path Identity, norm2, mlp = fc1, GELU, fc2, Dropout) and, after stages 1-3, its
        # PatchMerging (reduction Linear(4C, 2C, bias=False) before norm LayerNorm(4C)); then norm
        # LayerNorm(768), avgpool, head Linear(768, 1000). torch.linspace for the drop-path rates draws nothing.
        nn = torch.nn
        params = {}

        def ln(key, c):
            m = nn.LayerNorm(c)
            params[key + ".g"], params[key + ".b"] = m.weight, m.bias

        proj = nn.Conv2d(IN_CHANS, EMBED_DIM, kernel_size=PATCH, stride=PATCH)
        params["patch.w"], params["patch.b"] = proj.weight, proj.bias
        ln("patch_norm", EMBED_DIM)
        for stage, depth in enumerate(DEPTHS):
            for k in range(depth):
                dim, res, nh, window, shift = block_config(stage, k)
                key = f"s{stage + 1}b{k + 1}"
                ln(f"{key}.norm1", dim)
                conv = nn.Conv1d(nh * window ** 2, nh * window ** 2, kernel_size=1, groups=nh)
                params[f"{key}.spatial.w"], params[f"{key}.spatial.b"] = conv.weight, conv.bias
                ln(f"{key}.norm2", dim)
                fc1 = nn.Linear(dim, int(dim * MLP_RATIO))
                fc2 = nn.Linear(int(dim * MLP_RATIO), dim)
                params[f"{key}.fc1.w"], params[f"{key}.fc1.b"] = fc1.weight, fc1.bias
                params[f"{key}.fc2.w"], params[f"{key}.fc2.b"] = fc2.weight, fc2.bias
            if stage < len(DEPTHS) - 1:
                dim = EMBED_DIM * 2 ** stage
                params[f"s{stage + 1}.reduction.w"] = nn.Linear(4 * dim, 2 * dim, bias=False).weight
                ln(f"s{stage + 1}.merge_norm", 4 * dim)
        ln("norm", NUM_FEATURES)
        head = nn.Linear(NUM_FEATURES, NUM_CLASSES)
        params["head.w"], params["head.b"] = head.weight, head.bias
        return params

    W = K.weights(build)

    def launch(inputs, torch):
        (img,) = inputs
        w = W(img)
        B = img.shape[0]

        def buf(*shape):
            return torch.empty(*shape, device=img.device, dtype=img.dtype)

        def gemm(kernel, a, wt, out, extra):
            M, Kd = a.shape
            N = wt.shape[0]
            return (kernel, (K.cdiv(N, TILE), K.cdiv(M, TILE), 1), (TILE, TILE, 1), [a, wt, *extra, out],
                    [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)])

        res, dim = RES0, EMBED_DIM
        x = buf(B * res * res, dim)
        seq = [("swin_patch_embed_kernel", (K.cdiv(B * res * res * dim, BLOCK), 1, 1), (BLOCK, 1, 1),
                [img, w["patch.w"], w["patch.b"], x],
                [(ctypes.c_int, B), (ctypes.c_int, IN_CHANS), (ctypes.c_int, img.shape[2]), (ctypes.c_int, img.shape[3]),
                 (ctypes.c_int, dim), (ctypes.c_int, res), (ctypes.c_int, res)])]
        shortcut = None     # the current block's input (the spatial MLP's residual)
        mid = None          # the spatial MLP's output: norm2's input and fc2's residual
        for kernel, kind, info in plan[1:]:
            if kind == "ln":
                key = info["key"]
                if key.endswith("norm1"):
                    shortcut = x
                out = buf(*x.shape)
                seq.append((kernel, (x.shape[0], 1, 1), (LN_BLOCK, 1, 1), [x, w[key + ".g"], w[key + ".b"], out],
                            [(ctypes.c_int, x.shape[0]), (ctypes.c_int, x.shape[1])]))
                x = out
            elif kind == "spatial":
                key = info["key"]
                out = buf(*x.shape)
                seq.append((kernel, (K.cdiv(x.numel(), BLOCK), 1, 1), (BLOCK, 1, 1),
                            [x, w[key + ".spatial.w"], w[key + ".spatial.b"], shortcut, out],
                            [(ctypes.c_int, B), (ctypes.c_int, res), (ctypes.c_int, res), (ctypes.c_int, dim)]))
                x = mid = out
            elif kind == "fc1_gelu":
                key = info["key"]
                out = buf(x.shape[0], w[key + ".w"].shape[0])
                seq.append(gemm(kernel, x, w[key + ".w"], out, [w[key + ".b"]]))
                x = out
            elif kind == "fc2_residual":
                key = info["key"]
                out = buf(x.shape[0], w[key + ".w"].shape[0])
                seq.append(gemm(kernel, x, w[key + ".w"], out, [w[key + ".b"], mid]))
                x = out
            elif kind == "merge_norm":
                key = info["key"]
                out = buf(B * (res // 2) * (res // 2), 4 * dim)
                seq.append((kernel, (out.shape[0], 1, 1), (LN_BLOCK, 1, 1), [x, w[key + ".g"], w[key + ".b"], out],
                            [(ctypes.c_int, B), (ctypes.c_int, res), (ctypes.c_int, res), (ctypes.c_int, dim)]))
                x = out
                res //= 2
            elif kind == "reduction":
                key = info["key"]
                out = buf(x.shape[0], w[key + ".w"].shape[0])
                seq.append(gemm(kernel, x, w[key + ".w"], out, []))
                x = out
                dim *= 2
            elif kind == "avgpool":
                out = buf(B, dim)
                seq.append((kernel, (K.cdiv(B * dim, BLOCK), 1, 1), (BLOCK, 1, 1), [x, out],
                            [(ctypes.c_int, B), (ctypes.c_int, res * res), (ctypes.c_int, dim)]))
                x = out
            else:  # head
                out = buf(B, NUM_CLASSES)
                seq.append((kernel, (K.cdiv(NUM_CLASSES, BLOCK), B, 1), (BLOCK, 1, 1), [x, w["head.w"], w["head.b"], out],
                            [(ctypes.c_int, B), (ctypes.c_int, dim), (ctypes.c_int, NUM_CLASSES)]))
                x = out
        return {"seq": seq, "out": x}

    def ref(inputs, torch):
        # Model.forward (forward_features, then head), op for op, with the model's views.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def ln(key, t, c):
            return F.layer_norm(t, (c,), w[key + ".g"], w[key + ".b"], LN_EPS)

        def window_partition(t, ws):
            B, H, Wd, C = t.shape
            t = t.view(B, H // ws, ws, Wd // ws, ws, C)
            return t.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, C)

        def window_reverse(windows, ws, H, Wd):
            B = int(windows.shape[0] / (H * Wd / ws / ws))
            t = windows.view(B, H // ws, Wd // ws, ws, ws, -1)
            return t.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, Wd, -1)

        def block(t, key, dim, res, nh, ws, shift):
            B, L, C = t.shape
            shortcut = t
            t = ln(key + ".norm1", t, dim).view(B, res, res, C)
            pad = [ws - shift, shift, ws - shift, shift]
            shifted = F.pad(t, [0, 0, pad[0], pad[1], pad[2], pad[3]], "constant", 0) if shift > 0 else t
            _, Hp, Wp, _ = shifted.shape
            win = window_partition(shifted, ws).view(-1, ws * ws, C)
            heads = win.view(-1, ws * ws, nh, C // nh).transpose(1, 2).reshape(-1, nh * ws * ws, C // nh)
            mixed = F.conv1d(heads, w[key + ".spatial.w"], w[key + ".spatial.b"], groups=nh)
            mixed = mixed.view(-1, nh, ws * ws, C // nh).transpose(1, 2).reshape(-1, ws * ws, C)
            shifted = window_reverse(mixed.reshape(-1, ws, ws, C), ws, Hp, Wp)
            t = shifted[:, pad[2]:-pad[3], pad[0]:-pad[1], :].contiguous() if shift > 0 else shifted
            t = shortcut + t.view(B, res * res, C)
            h = F.linear(ln(key + ".norm2", t, dim), w[key + ".fc1.w"], w[key + ".fc1.b"])
            h = F.dropout(F.gelu(h), p=0.0, training=True)
            h = F.dropout(F.linear(h, w[key + ".fc2.w"], w[key + ".fc2.b"]), p=0.0, training=True)
            return t + h

        def merge(t, key, dim, res):
            B, L, C = t.shape
            t = t.view(B, res, res, C)
            t = torch.cat([t[:, 0::2, 0::2, :], t[:, 1::2, 0::2, :], t[:, 0::2, 1::2, :], t[:, 1::2, 1::2, :]], -1)
            t = t.view(B, -1, 4 * C)
            return F.linear(ln(key + ".merge_norm", t, 4 * dim), w[key + ".reduction.w"])

        x = F.conv2d(x, w["patch.w"], w["patch.b"], stride=PATCH).flatten(2).transpose(1, 2)
        x = ln("patch_norm", x, EMBED_DIM)
        x = F.dropout(x, p=0.0, training=True)
        for stage, depth in enumerate(DEPTHS):
            for k in range(depth):
                dim, res, nh, window, shift = block_config(stage, k)
                x = block(x, f"s{stage + 1}b{k + 1}", dim, res, nh, window, shift)
            if stage < len(DEPTHS) - 1:
                x = merge(x, f"s{stage + 1}", EMBED_DIM * 2 ** stage, RES0 // 2 ** stage)
        x = ln("norm", x, NUM_FEATURES)
        x = F.adaptive_avg_pool1d(x.transpose(1, 2), 1)
        x = torch.flatten(x, 1)
        return F.linear(x, w["head.w"], w["head.b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, image_size, image_size)]
        return [torch.rand(s["batch"], IN_CHANS, IMG_SIZE, IMG_SIZE)]

    def spiky_inputs(torch, s):
        # Exact zeros except about 1% of the entries, which are U[0, 1).
        shape = (s["batch"], IN_CHANS, IMG_SIZE, IMG_SIZE)
        mask = torch.rand(shape) < T2_DENSITY
        return [torch.where(mask, torch.rand(shape), torch.zeros(shape))]

    def frame_inputs(torch, s):
        # U[0, 1) in the outer 8-pixel frame (the two outermost token rows and columns), exact zeros inside.
        x = torch.rand(s["batch"], IN_CHANS, IMG_SIZE, IMG_SIZE)
        x[:, :, T3_FRAME:-T3_FRAME, T3_FRAME:-T3_FRAME] = 0.0
        return [x]

    return K.substrate(
        name="L3p29_swin_mlp",
        level=3,
        problem="29_SwinMLP",
        cuda=cuda_source(plan),
        kernel_name=[step[0] for step in plan],
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(10, max=MAX_BATCH)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_one_image",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 1},
                small=True,
                purpose="a batch of 1, the cheapest legal input (PatchEmbed asserts 224 x 224): 3136, 784, 196 and 49 "
                "token rows per stage, so stage 3's and stage 4's GEMMs end in 4- and 1-row tail tiles (stages 1 "
                "and 2 happen to be whole tiles), LayerNorm rows of 96 and 192 leave 160 and 64 of the 256 "
                "threads without a value, and the spatial MLPs still cross every shifted-window border (3.0 G "
                "multiply-adds; TF32 emulated gap 1.5e-4)",
            ),
            K.suite(
                "T2_sparse_spikes",
                spiky_inputs,
                seeds=[3, 4],
                sizes={"batch": 3},
                purpose="sparse spikes, batch 3: exact zeros except 1% of the pixels U[0,1), so most 4x4 patches are "
                "empty and embed to one and the same token (the conv bias), against which the few spiked tokens "
                "stand out; the spatial MLPs then spread each spike over its window only, so a fault in the window, "
                "shift or head indexing moves that contribution to tokens where the background is otherwise "
                "uniform; 588 and 147 token rows in stages 3 and 4 (12- and 3-row tail tiles); two seeds' outputs "
                "differ by 14x the tolerance; TF32 emulated gap 1.6e-4",
            ),
            K.suite(
                "T3_border_frame",
                frame_inputs,
                seeds=[5, 6],
                sizes={"batch": 2},
                purpose="U[0,1) only in the outer 8-pixel frame (the two outermost token rows and columns), exact zeros "
                "inside, batch 2: the content sits exactly where the shifted blocks' zero padding (4 above/left, "
                "3 below/right) and the crop meet the map, and where the 2x2 patch merges pair border tokens; "
                "two seeds' outputs still differ by 7x the tolerance; TF32 emulated gap 1.6e-4",
            ),
        ],
notes="The reference runs its patch convolution and the twelve spatial-MLP Conv1d layers in TF32 on a GPU "
        "(the Linears are full fp32): CPU emulation with TF32-rounded inputs and weights gives a fp64 gap of "
        "2.2e-4 on T0_original (fp32 alone 2.5e-7). Every LayerNorm has weight 1 and bias 0 (default init), so "
        "mutants that drop gamma or beta are equivalent. The shift is a zero padding, not a torch.roll, and "
        "stage 4 (7 x 7 tokens = one window) never shifts, as the model's constructor decides. drop_path is "
        "nn.Identity here (the drop_path_rate list is computed but unused) and every dropout has p = 0.0 (ref "
        "calls F.dropout with p = 0 as the modules do). The patch LayerNorm removes the input's scale, so no "
        "large-magnitude suite is offered: its effect would be an eps effect only. In a CPU emulation, a "
        "window grid shifted by one token (padding 3/4 instead of 4/3) moves the output by 24-33x the "
        "tolerance on every suite.",
    )
