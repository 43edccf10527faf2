"""KernelBench level 3, problem 32_ConvolutionalVisionTransformer: a convolutional ViT on 10 x 3 x 32 x 32, 1000
classes: a 4x4 stride-4 patch convolution, one linear projection of the whole flattened feature map to a single
token, a zero cls token, six post-LN nn.TransformerEncoderLayer(128, 4 heads, FFN 512, ReLU, dropout 0.0,
batch_first=True), and a linear head on the cls token.

A pipeline of 58 kernels, one per layer, in the order Model.forward runs them:

    cvt_conv1_kernel               Conv2d(3, 128, kernel_size=4, stride=4) + bias    [B,3,32,32] -> [B,128,8,8]
    cvt_linear_proj_kernel         x.flatten(1) @ W^T + b: Linear(8192, 128)         -> [B, 128]
    cvt_tokens_kernel              torch.cat((cls_token, x.unsqueeze(1)), 1)          -> [B, 2, 128]
    6 x TransformerEncoderLayer, nine kernels each (L = 1..6), tokens as rows b * 2 + t:
      cvt_layerL_qkv_kernel              in_proj: x @ in_proj_weight^T + in_proj_bias    -> [2B, 384]
      cvt_layerL_scores_kernel           q . k / sqrt(32) per (image, head)             -> [B, 4, 2, 2]
      cvt_layerL_softmax_kernel          softmax over the 2 keys
      cvt_layerL_av_kernel               probabilities @ v, heads side by side           -> [2B, 128]
      cvt_layerL_out_proj_residual_kernel x + out_proj(attention)
      cvt_layerL_norm1_kernel            LayerNorm(128)
      cvt_layerL_linear1_relu_kernel     relu(linear1(x))                                -> [2B, 512]
      cvt_layerL_linear2_residual_kernel x + linear2(h)
      cvt_layerL_norm2_kernel            LayerNorm(128)
    cvt_fc_out_kernel              fc_out(x[:, 0]): Linear(128, 1000) on the cls token -> [B, 1000]

batch_first=True, so each image's two tokens (cls, its projection) attend to each other. The layers are
built one by one (a ModuleList, not deep copies), so their weights differ. Every dropout has p = 0.0
(identity in training mode), which is also the harness's training mode: TransformerEncoderLayer takes
its op-by-op path (x = norm1(x + sa(x)); x = norm2(x + ff(x))). GEMMs are 16 x 16 shared-memory tiled
(guarded, zero-filled tile loads, a barrier after the loads and another after the multiply-accumulate),
as in L3p44_minigpt_block; scores, softmax rows and attention outputs are one thread each; each
LayerNorm row is one 256-thread block (128 features: half the threads hold no value) with shared-memory
tree reductions for the mean and the biased variance. Every accumulation is fp32.

Only the batch is resizable: the 32 x 32 image is fixed by linear_proj's 8192 = 128 x 8 x 8 inputs. GEMMs
tile the 2B token rows along gridDim.y and fc_out puts the batch there, so B <= 65535.

Cost on the official input: 39 M multiply-adds in all (linear_proj 10.5 M, the six layers 3.9 M each over
20 token rows, conv1 3.9 M, fc_out 1.3 M): the 58 launches dominate, well under 1 ms on an H200.
"""

from string import Template

TILE = 16               # must equal TILE in the CUDA source: GEMM blocks are TILE x TILE threads
LN_BLOCK = 256          # must equal LN_BLOCK in the CUDA source (shared buffer size), a power of two
BLOCK = 256             # threads per block of the convolution, token, attention and head kernels
MAX_GRID_Y = 65535      # GEMMs tile the token rows along gridDim.y
NUM_CLASSES = 1000      # get_init_inputs() = [1000, 128, 4]; the other arguments keep their defaults
EMBED_DIM = 128
NUM_HEADS = 4
NUM_LAYERS = 6
MLP_RATIO = 4.0
PATCH = 4
IN_CHANNELS = 3
IMAGE_SIZE = 32
NUM_PATCHES = (IMAGE_SIZE // PATCH) ** 2        # 64
FF_DIM = int(EMBED_DIM * MLP_RATIO)             # 512
TOKENS = 2                                      # cls + the one projected token
DROPOUT = 0.0
LN_EPS = 1e-5           # nn.TransformerEncoderLayer layer_norm_eps default
MAX_BATCH = min(MAX_GRID_Y, (MAX_GRID_Y * TILE) // TOKENS)   # fc_out puts the batch on gridDim.y: 65535
T2_SCALE = 60.0         # T2: x = 60 * U[0, 1)
T3_DENSITY = 0.02       # T3: 2% of the entries U[0, 1), the rest exactly 0

PRELUDE = r"""
const int TILE = 16;        // GEMM blocks are TILE x TILE threads; K is consumed TILE at a time
const int LN_BLOCK = 256;   // threads per LayerNorm block (one block per token row)

// conv1: Conv2d(3, 128, kernel_size=4, stride=4) with bias, no padding   [B,3,32,32] -> [B,128,8,8]
extern "C" __global__ void cvt_conv1_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KSIZE, KSIZE]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int OH, int OW)
{
    const int KSIZE = 4;                                // kernel_size=patch_size
    const int STRIDE = 4;                               // stride=patch_size: the windows tile the image

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)N * C_out * OH * OW;
    if (i >= total) return;

    int ow = (int)(i % OW);
    int oh = (int)((i / OW) % OH);
    int co = (int)((i / ((long long)OW * OH)) % C_out);
    int n = (int)(i / ((long long)OW * OH * C_out));

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

// linear_proj: x.flatten(start_dim=1) @ W^T + b, Linear(8192, 128)   [B, 8192] -> [B, 128]
extern "C" __global__ void cvt_linear_proj_kernel(
    const float* __restrict__ x,    // [M, K]  conv1's output, contiguous [B, 128, 8, 8] read as [B, 8192]
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // image
    int col = blockIdx.x * TILE + tx;   // embedding feature
    int w_row = blockIdx.x * TILE + ty; // the w row this thread loads into the tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = x[(long long)row * K + k];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        out[(long long)row * N + col] = acc + b[col];
    }
}

// torch.cat((cls_token.expand(B, -1, -1), x.unsqueeze(1)), dim=1)   -> [B, 2, E]
extern "C" __global__ void cvt_tokens_kernel(
    const float* __restrict__ proj,     // [B, E]  linear_proj output
    const float* __restrict__ cls,      // [E]     cls_token
    float* __restrict__ out,            // [B, 2, E]
    int B, int E)
{
    const int T = 2;                    // the cls token, then the image's token

    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)B * T * E;
    if (i >= total) return;

    int e = (int)(i % E);
    int t = (int)((i / E) % T);
    int b = (int)(i / ((long long)E * T));
    if (t == 0) {
        out[i] = cls[e];
    } else {
        out[i] = proj[(long long)b * E + e];
    }
}

// fc_out(x[:, 0]): Linear(128, num_classes) on the cls token of every image   [B, 2, E] -> [B, 1000]
extern "C" __global__ void cvt_fc_out_kernel(
    const float* __restrict__ x,    // [B, T, K]  the last layer's output; only token 0 is read
    const float* __restrict__ w,    // [N_out, K]
    const float* __restrict__ b,    // [N_out]
    float* __restrict__ out,        // [B, N_out]
    int B, int T, int K, int N_out)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;    // class
    int row = blockIdx.y;                               // image
    if (row >= B || col >= N_out) return;

    const float* cls_row = x + (long long)row * T * K;  // x[row, 0, :]
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += cls_row[k] * w[(long long)col * K + k];
    }
    out[(long long)row * N_out + col] = acc + b[col];
}
"""

# One encoder layer: ${L} is the layer number (1..6).
LAYER_TEMPLATE = Template(r"""
// layer ${L}: self_attn in_proj, qkv = x @ in_proj_weight^T + in_proj_bias   [B*T, E] -> [B*T, 3E]
extern "C" __global__ void cvt_layer${L}_qkv_kernel(
    const float* __restrict__ x,    // [M, K]  M = B * T tokens (row b * T + t), K = E
    const float* __restrict__ w,    // [N, K]  N = 3E: q rows, then k rows, then v rows
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int w_row = blockIdx.x * TILE + ty; // the w row this thread loads into the tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = x[(long long)row * K + k];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        out[(long long)row * N + col] = acc + b[col];
    }
}


// layer ${L}: scores = q . k / sqrt(head_dim) for every image b and head h, over the T tokens of the image
extern "C" __global__ void cvt_layer${L}_scores_kernel(
    const float* __restrict__ qkv,  // [B * T, 3E]: q at column h*HD + d, k at E + h*HD + d
    float* __restrict__ att,        // [B, NH, T, T]
    int B, int T, int E, int NH)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)B * NH * T * T;
    if (idx >= total) return;

    int j = (int)(idx % T);                             // key token
    int i = (int)((idx / T) % T);                       // query token
    int h = (int)((idx / ((long long)T * T)) % NH);     // head
    int b = (int)(idx / ((long long)T * T * NH));       // image

    int HD = E / NH;                                    // head dimension
    long long stride = 3LL * E;                         // floats per token row of qkv
    const float* q = qkv + ((long long)b * T + i) * stride + (long long)h * HD;
    const float* k = qkv + ((long long)b * T + j) * stride + E + (long long)h * HD;

    float acc = 0.0f;
    for (int d = 0; d < HD; ++d) {
        acc += q[d] * k[d];
    }
    float scale = 1.0f / sqrtf((float)HD);
    att[idx] = acc * scale;
}

// layer ${L}: softmax over the T keys of every (image, head, query) row
extern "C" __global__ void cvt_layer${L}_softmax_kernel(
    const float* __restrict__ att,  // [R, T]  R = B * NH * T rows
    float* __restrict__ probs,      // [R, T]
    int R, int T)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= R) return;

    const float* in_row = att + (long long)r * T;
    float* out_row = probs + (long long)r * T;
    float row_max = in_row[0];
    for (int j = 1; j < T; ++j) {
        row_max = fmaxf(row_max, in_row[j]);            // stabiliser: subtract the row max
    }
    float sum = 0.0f;
    for (int j = 0; j < T; ++j) {
        sum += expf(in_row[j] - row_max);
    }
    for (int j = 0; j < T; ++j) {
        out_row[j] = expf(in_row[j] - row_max) / sum;
    }
}

// layer ${L}: y = probs @ v, heads side by side: y[b * T + i, h*HD + d]
extern "C" __global__ void cvt_layer${L}_av_kernel(
    const float* __restrict__ probs,    // [B, NH, T, T]
    const float* __restrict__ qkv,      // [B * T, 3E]: v at column 2E + h*HD + d
    float* __restrict__ y,              // [B * T, E]
    int B, int T, int E, int NH)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)B * T * E;
    if (idx >= total) return;

    int e = (int)(idx % E);                             // output feature h*HD + d
    int i = (int)((idx / E) % T);                       // query token
    int b = (int)(idx / ((long long)E * T));            // image
    int HD = E / NH;
    int h = e / HD;

    const float* p = probs + (((long long)b * NH + h) * T + i) * T;
    long long stride = 3LL * E;
    float acc = 0.0f;
    for (int j = 0; j < T; ++j) {
        acc += p[j] * qkv[((long long)b * T + j) * stride + 2LL * E + e];
    }
    y[idx] = acc;
}

// layer ${L}: x + dropout1(out_proj(y)) (dropout p = 0)   [B*T, E]
extern "C" __global__ void cvt_layer${L}_out_proj_residual_kernel(
    const float* __restrict__ y,    // [M, K]  attention output
    const float* __restrict__ w,    // [N, K]  out_proj.weight
    const float* __restrict__ b,    // [N]
    const float* __restrict__ res,  // [M, N]  the layer input x
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = y[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int w_row = blockIdx.x * TILE + ty;

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = y[(long long)row * K + k];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        long long o = (long long)row * N + col;
        out[o] = res[o] + (acc + b[col]);
    }
}

${norm1}
// layer ${L}: h = relu(linear1(x))   [B*T, E] -> [B*T, FF]  (the dropout after it has p = 0)
extern "C" __global__ void cvt_layer${L}_linear1_relu_kernel(
    const float* __restrict__ x,    // [M, K]
    const float* __restrict__ w,    // [N, K]  linear1.weight
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int w_row = blockIdx.x * TILE + ty;

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = x[(long long)row * K + k];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;    // F.relu
    }
}

// layer ${L}: x + dropout2(linear2(h)) (dropout p = 0)   [B*T, FF] -> [B*T, E]
extern "C" __global__ void cvt_layer${L}_linear2_residual_kernel(
    const float* __restrict__ h,    // [M, K]  K = FF
    const float* __restrict__ w,    // [N, K]  linear2.weight
    const float* __restrict__ b,    // [N]
    const float* __restrict__ res,  // [M, N]  norm1's output
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = h[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;
    int w_row = blockIdx.x * TILE + ty;

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = h[(long long)row * K + k];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            ws[tx][ty] = w[(long long)w_row * K + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < N) {
        long long o = (long long)row * N + col;
        out[o] = res[o] + (acc + b[col]);
    }
}
${norm2}""")

LAYERNORM_TEMPLATE = Template(r"""
// layer ${L}: ${which} = LayerNorm(128, eps=1e-5), one block per token row
extern "C" __global__ void cvt_layer${L}_${which}_kernel(
    const float* __restrict__ x,        // [M, C]
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
    float* __restrict__ out,            // [M, C]
    int M, int C)
{
    const float LN_EPS = 1e-5f;         // nn.TransformerEncoderLayer layer_norm_eps default
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

LAYER_KERNELS = ["qkv", "scores", "softmax", "av", "out_proj_residual", "norm1", "linear1_relu",
                 "linear2_residual", "norm2"]


def kernel_list():
    names = ["cvt_conv1_kernel", "cvt_linear_proj_kernel", "cvt_tokens_kernel"]
    for L in range(1, NUM_LAYERS + 1):
        names += [f"cvt_layer{L}_{k}_kernel" for k in LAYER_KERNELS]
    return names + ["cvt_fc_out_kernel"]


def cuda_source():
    parts = [PRELUDE]
    for L in range(1, NUM_LAYERS + 1):
        parts.append(LAYER_TEMPLATE.substitute(
            L=L,
            norm1=LAYERNORM_TEMPLATE.substitute(L=L, which="norm1"),
            norm2=LAYERNORM_TEMPLATE.substitute(L=L, which="norm2")))
    return "".join(parts)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1000, 128, 4), in order: conv1 Conv2d(3, 128, 4, stride=4), linear_proj
        # Linear(8192, 128), six TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True) built
        # one after another (each: MultiheadAttention with its out_proj Linear, then xavier in_proj_weight,
        # zero in_proj_bias and out_proj.bias; linear1, linear2; two LayerNorms), cls_token = zeros (no
        # draw), fc_out Linear(128, 1000).
        nn = torch.nn
        conv1 = nn.Conv2d(IN_CHANNELS, EMBED_DIM, kernel_size=PATCH, stride=PATCH)
        proj = nn.Linear(EMBED_DIM * NUM_PATCHES, EMBED_DIM)
        layers = [nn.TransformerEncoderLayer(d_model=EMBED_DIM, nhead=NUM_HEADS, dim_feedforward=FF_DIM,
                                             dropout=DROPOUT, batch_first=True) for _ in range(NUM_LAYERS)]
        cls = nn.Parameter(torch.zeros(1, 1, EMBED_DIM))
        fc = nn.Linear(EMBED_DIM, NUM_CLASSES)
        params = {"conv1.w": conv1.weight, "conv1.b": conv1.bias, "proj.w": proj.weight, "proj.b": proj.bias}
        for L, m in enumerate(layers, start=1):
            params.update({
                f"l{L}.in_w": m.self_attn.in_proj_weight, f"l{L}.in_b": m.self_attn.in_proj_bias,
                f"l{L}.out_w": m.self_attn.out_proj.weight, f"l{L}.out_b": m.self_attn.out_proj.bias,
                f"l{L}.ff1_w": m.linear1.weight, f"l{L}.ff1_b": m.linear1.bias,
                f"l{L}.ff2_w": m.linear2.weight, f"l{L}.ff2_b": m.linear2.bias,
                f"l{L}.n1_w": m.norm1.weight, f"l{L}.n1_b": m.norm1.bias,
                f"l{L}.n2_w": m.norm2.weight, f"l{L}.n2_b": m.norm2.bias,
            })
        params.update({"cls": cls, "fc.w": fc.weight, "fc.b": fc.bias})
        return params

    W = K.weights(build)

    def gemm_step(kernel, a, w, b, out, res=None):
        M, Kd = a.shape[0], a.shape[1]
        N = w.shape[0]
        tensors = [a, w, b, out] if res is None else [a, w, b, res, out]
        return (kernel, (K.cdiv(N, TILE), K.cdiv(M, TILE), 1), (TILE, TILE, 1), tensors,
                [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)])

    def ln_step(kernel, a, gamma, beta, out):
        return (kernel, (a.shape[0], 1, 1), (LN_BLOCK, 1, 1), [a, gamma, beta, out],
                [(ctypes.c_int, a.shape[0]), (ctypes.c_int, a.shape[1])])

    def launch(inputs, torch):
        (img,) = inputs
        w = W(img)
        B, C_in, H, Wd = img.shape
        E, T = EMBED_DIM, TOKENS
        OH = (H - PATCH) // PATCH + 1
        OW = (Wd - PATCH) // PATCH + 1

        def buf(*shape):
            return torch.empty(*shape, device=img.device, dtype=img.dtype)

        conv = buf(B, E, OH, OW)
        proj = buf(B, E)
        x = buf(B * T, E)
        seq = [
            ("cvt_conv1_kernel", (K.cdiv(B * E * OH * OW, BLOCK), 1, 1), (BLOCK, 1, 1),
             [img, w["conv1.w"], w["conv1.b"], conv],
             [(ctypes.c_int, B), (ctypes.c_int, C_in), (ctypes.c_int, H), (ctypes.c_int, Wd), (ctypes.c_int, E),
              (ctypes.c_int, OH), (ctypes.c_int, OW)]),
            gemm_step("cvt_linear_proj_kernel", conv.view(B, E * OH * OW), w["proj.w"], w["proj.b"], proj),
            ("cvt_tokens_kernel", (K.cdiv(B * T * E, BLOCK), 1, 1), (BLOCK, 1, 1), [proj, w["cls"], x],
             [(ctypes.c_int, B), (ctypes.c_int, E)]),
        ]
        attn_dims = [(ctypes.c_int, B), (ctypes.c_int, T), (ctypes.c_int, E), (ctypes.c_int, NUM_HEADS)]
        for L in range(1, NUM_LAYERS + 1):
            p = f"cvt_layer{L}_"
            qkv = buf(B * T, 3 * E)
            att = buf(B, NUM_HEADS, T, T)
            probs = buf(B, NUM_HEADS, T, T)
            y = buf(B * T, E)
            r1 = buf(B * T, E)
            x1 = buf(B * T, E)
            h = buf(B * T, FF_DIM)
            r2 = buf(B * T, E)
            x2 = buf(B * T, E)
            seq += [
                gemm_step(p + "qkv_kernel", x, w[f"l{L}.in_w"], w[f"l{L}.in_b"], qkv),
                (p + "scores_kernel", (K.cdiv(B * NUM_HEADS * T * T, BLOCK), 1, 1), (BLOCK, 1, 1), [qkv, att],
                 attn_dims),
                (p + "softmax_kernel", (K.cdiv(B * NUM_HEADS * T, BLOCK), 1, 1), (BLOCK, 1, 1), [att, probs],
                 [(ctypes.c_int, B * NUM_HEADS * T), (ctypes.c_int, T)]),
                (p + "av_kernel", (K.cdiv(B * T * E, BLOCK), 1, 1), (BLOCK, 1, 1), [probs, qkv, y], attn_dims),
                gemm_step(p + "out_proj_residual_kernel", y, w[f"l{L}.out_w"], w[f"l{L}.out_b"], r1, res=x),
                ln_step(p + "norm1_kernel", r1, w[f"l{L}.n1_w"], w[f"l{L}.n1_b"], x1),
                gemm_step(p + "linear1_relu_kernel", x1, w[f"l{L}.ff1_w"], w[f"l{L}.ff1_b"], h),
                gemm_step(p + "linear2_residual_kernel", h, w[f"l{L}.ff2_w"], w[f"l{L}.ff2_b"], r2, res=x1),
                ln_step(p + "norm2_kernel", r2, w[f"l{L}.n2_w"], w[f"l{L}.n2_b"], x2),
            ]
            x = x2
        out = buf(B, NUM_CLASSES)
        seq.append(("cvt_fc_out_kernel", (K.cdiv(NUM_CLASSES, BLOCK), B, 1), (BLOCK, 1, 1),
                    [x, w["fc.w"], w["fc.b"], out],
                    [(ctypes.c_int, B), (ctypes.c_int, T), (ctypes.c_int, E), (ctypes.c_int, NUM_CLASSES)]))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward, op for op; each encoder layer is TransformerEncoderLayer's training-mode path with
        # batch_first=True: MultiheadAttention transposes to (T, B, E), runs multi_head_attention_forward
        # and transposes back.
        with torch.no_grad():
            return forward(inputs, torch)

    def forward(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        B = x.size(0)
        x = F.conv2d(x, w["conv1.w"], w["conv1.b"], stride=PATCH)
        x = x.flatten(start_dim=1)
        x = F.linear(x, w["proj.w"], w["proj.b"])
        cls_tokens = w["cls"].expand(B, -1, -1)
        x = torch.cat((cls_tokens, x.unsqueeze(1)), dim=1)
        for L in range(1, NUM_LAYERS + 1):
            q = x.transpose(1, 0)
            # The model's in_proj_weight is an nn.Parameter, and ATen's matmul folds a non-contiguous 3-D
            # input (this transposed q) into one mm when the weight requires grad but runs a broadcast bmm
            # when it does not; the two round differently, so the same tensor goes in with requires_grad set.
            # (Under no_grad, as the harness runs the model, nothing is recorded for autograd.)
            in_w = w[f"l{L}.in_w"].detach().requires_grad_(True)
            sa = F.multi_head_attention_forward(
                q, q, q, EMBED_DIM, NUM_HEADS, in_w, w[f"l{L}.in_b"], None, None, False, DROPOUT,
                w[f"l{L}.out_w"], w[f"l{L}.out_b"], training=True, key_padding_mask=None, need_weights=False,
                attn_mask=None, average_attn_weights=True, is_causal=False)[0].transpose(1, 0)
            x = F.layer_norm(x + F.dropout(sa, p=DROPOUT, training=True), (EMBED_DIM,), w[f"l{L}.n1_w"],
                             w[f"l{L}.n1_b"], LN_EPS)
            ff = F.linear(F.dropout(F.relu(F.linear(x, w[f"l{L}.ff1_w"], w[f"l{L}.ff1_b"])), p=DROPOUT, training=True),
                          w[f"l{L}.ff2_w"], w[f"l{L}.ff2_b"])
            x = F.layer_norm(x + F.dropout(ff, p=DROPOUT, training=True), (EMBED_DIM,), w[f"l{L}.n2_w"],
                             w[f"l{L}.n2_b"], LN_EPS)
        return F.linear(x[:, 0], w["fc.w"], w["fc.b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, in_channels, image_size, image_size)]
        return [torch.rand(s["batch"], IN_CHANNELS, IMAGE_SIZE, IMAGE_SIZE)]

    def large_inputs(torch, s):
        return [torch.rand(s["batch"], IN_CHANNELS, IMAGE_SIZE, IMAGE_SIZE) * T2_SCALE]

    def spiky_inputs(torch, s):
        shape = (s["batch"], IN_CHANNELS, IMAGE_SIZE, IMAGE_SIZE)
        mask = torch.rand(shape) < T3_DENSITY
        return [torch.where(mask, torch.rand(shape), torch.zeros(shape))]

    return K.substrate(
        name="L3p32_convolutional_vision_transformer",
        level=3,
        problem="32_ConvolutionalVisionTransformer",
        cuda=cuda_source(),
        kernel_name=kernel_list(),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(10, max=MAX_BATCH)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3},
                small=True,
                purpose="batch 3: 6 token rows, so every GEMM runs one partial 16-row tile (10 dead rows, zero-filled "
                "tile loads) and linear_proj a single row tile over K = 8192 = 512 tiles; the 24 softmax rows "
                "and 48 scores fill a fraction of one 256-thread block (the conv and token grids are whole "
                "blocks at every batch: 8192 and 256 values per image); two seeds' "
                "outputs differ by 130x the tolerance, so the network is input-sensitive; TF32 emulated gap "
                "7e-4 (fp32 alone 2e-6)",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 37},
                purpose="same sign, x = 60 * U[0,1), batch 37 (74 token rows = 4 x 16 + 10): the cls token is zero and "
                "in_proj_bias is zero, so the image token's attention scores grow with the square of the input "
                "scale and reach about 124 here (1.7 at U[0,1)), past expf's overflow at 88.7: a softmax that "
                "does not subtract the row max produces inf / inf = NaN, and one that does is nearly one-hot. The "
                "LayerNorms keep the output's size, so the TF32 gap of conv1 stays at 1.5e-3 (emulated; 3.9e-3 at "
                "100 x U[0,1), where the scores reach 346)",
            ),
            K.suite(
                "T3_sparse_spikes",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 13},
                purpose="sparse spikes, batch 13 (26 token rows = 16 + 10): exact zeros except 2% of the entries "
                "U[0,1), so most conv1 windows (48 taps) hold no spike and their output is the bias alone, "
                "which then fills most of linear_proj's 8192 inputs, while the few windows with spikes test "
                "the window offsets; TF32 emulated gap 4e-4",
            ),
        ],
notes="Only conv1 runs in TF32 in the reference (the linears are full fp32): CPU emulation with TF32-rounded "
        "inputs and weights gives a fp64 gap of 9e-4 on T0_original (fp32 alone 1.1e-6). cls_token is zeros "
        "and MultiheadAttention's in_proj_bias and out_proj.bias are zero (its init), LayerNorms have weight 1 "
        "and bias 0: mutants that drop these are equivalent, and the cls token's own query and value are zero "
        "in layer 1, so its layer-1 attention weights are 1/2 each whatever the scores. Dropouts are p = 0.0 "
        "(identity; ref calls F.dropout with p = 0 as the modules do). With two tokens per image the softmax "
        "rows have two entries, and the LayerNorm rows of 128 leave half of the 256 threads without a value "
        "(their zero partial sums matter). ReLU (v > 0 ? v : 0) maps NaN to 0 where torch propagates it; "
        "finite inputs are unaffected.",
    )
