"""KernelBench level 3, problem 28_VisionTransformer: a ViT (16x16 patches, dim 512, 6 post-LN encoder layers,
8 heads, FFN 2048, ReLU) on 2 x 3 x 224 x 224, 10 classes, exactly as KernelBench writes it, quirks included.

A pipeline of 58 kernels, one per layer, in the order Model.forward runs them:

    vit_patch_embed_kernel         img.unfold(2,16,16).unfold(3,16,16).reshape(B, -1, 768), then
                                   patch_to_embedding Linear(768, 512)              -> [B, 196, 512]
    vit_tokens_kernel              torch.cat((cls_token, x), 1) + pos_embedding     -> [B, 197, 512]
    6 x TransformerEncoderLayer(512, 8, 2048, dropout=0.0), post-LN, ReLU, nine kernels each:
      vit_layerL_qkv_kernel              in_proj: x @ in_proj_weight^T + in_proj_bias    -> [S*Nb, 1536]
      vit_layerL_scores_kernel           q . k / sqrt(64) per (position, head)           -> [Nb, 8, S, S]
      vit_layerL_softmax_kernel          softmax over the keys
      vit_layerL_av_kernel               probabilities @ v, heads side by side           -> [S*Nb, 512]
      vit_layerL_out_proj_residual_kernel x + out_proj(attention)                        -> [S*Nb, 512]
      vit_layerL_norm1_kernel            LayerNorm(512)
      vit_layerL_linear1_relu_kernel     relu(linear1(x))                                -> [S*Nb, 2048]
      vit_layerL_linear2_residual_kernel x + linear2(h)
      vit_layerL_norm2_kernel            LayerNorm(512)
    vit_head_fc1_gelu_kernel       x[:, 0] (token 0 of every image), Linear(512, 2048), exact GELU
    vit_head_fc2_kernel            Linear(2048, 10)                                   -> [B, 10]

Two quirks of the model are kept, not fixed:
* The unfold result [B, 3, 14, 14, 16, 16] is not contiguous, and reshape(B, -1, 768) flattens it in
  its logical order (channel, patch row, patch column, pixel row, pixel column): "patch" t of an image
  is elements 768 t .. 768 t + 767 of that order, i.e. three consecutive 16x16 patches of one colour
  plane (patch rows straddle channels). vit_patch_embed_kernel decodes exactly that index.
* nn.TransformerEncoderLayer is built with batch_first=False, so the [B, 197, 512] tensor is read as
  (sequence S = B, batch Nb = 197, embedding): attention mixes the B images at each of the 197
  positions, not the positions of one image. Position 0 holds cls_token + pos_embedding[0] in every
  image, identical across images, and every later op is per position, so x[:, 0] and with it the
  output are the same for any input images (facts section 4: exactly identical outputs). The
  kernels compute every position anyway, as the model does.

Every dropout has p = 0.0 (identity in training mode), the TransformerEncoder has no final norm, and
its six layers are deep copies of one layer, so they start from the same weights. GEMMs are 16 x 16
shared-memory tiled (guarded, zero-filled tile loads, a barrier after the loads and another after the
multiply-accumulate), as in L3p44_minigpt_block; the attention over S = B images is one thread per
score, per softmax row and per output element; each LayerNorm row is one 256-thread block with
shared-memory tree reductions for the mean and the biased variance. Every accumulation is fp32.

Only the batch is resizable: the 224 x 224 image and 16 x 16 patches are fixed by pos_embedding's
197 positions. The GEMMs tile the B * 197 rows along gridDim.y, so B <= 5322.

Cost on the official input (B = 2, 394 token rows): 1.24 G multiply-adds per encoder layer (qkv
0.31 G, out_proj 0.10 G, FFN 0.83 G), 7.4 G for the six, plus 0.15 G for the patch embedding: 15
GFLOP at the ~1-3 TFLOP/s of a 16 x 16 tiled GEMM is 5-15 ms; the attention itself is negligible
(197 x 8 x 2 x 2 scores): one forward should take about 10-20 ms on an H200.
"""

from string import Template

TILE = 16               # must equal TILE in the CUDA source: GEMM blocks are TILE x TILE threads
LN_BLOCK = 256          # must equal LN_BLOCK in the CUDA source (shared buffer size), a power of two
BLOCK = 256             # threads per block of the attention, token and head kernels
MAX_GRID_Y = 65535      # GEMMs tile the B * 197 token rows along gridDim.y
IMAGE_SIZE = 224        # get_init_inputs() = [224, 16, 10, 512, 6, 8, 2048, 3, 0.0, 0.0]
PATCH = 16
NUM_CLASSES = 10
DIM = 512
DEPTH = 6
HEADS = 8
MLP_DIM = 2048
CHANNELS = 3
DROPOUT = 0.0
EMB_DROPOUT = 0.0
NUM_PATCHES = (IMAGE_SIZE // PATCH) ** 2        # 196
PATCH_DIM = CHANNELS * PATCH * PATCH            # 768
TOKENS = NUM_PATCHES + 1                        # 197
LN_EPS = 1e-5           # nn.LayerNorm / TransformerEncoderLayer default
MAX_BATCH = (MAX_GRID_Y * TILE) // TOKENS       # 5322
T3_SCALE = 1000.0       # T3: x = 1000 * U[0, 1)

PRELUDE = r"""
const int TILE = 16;        // GEMM blocks are TILE x TILE threads; K is consumed TILE at a time
const int LN_BLOCK = 256;   // threads per LayerNorm block (one block per token row)

// patch_to_embedding over the unfolded image: out[b, t, e] = sum_f patch(b, t, f) * w[e, f] + bias[e], where
// patch(b, t, f) is element q = t * 768 + f of img[b].unfold(2, P, P).unfold(3, P, P) in its logical order
// (c, patch row, patch column, pixel row, pixel column), which is what reshape(B, -1, P*P*C) flattens.
extern "C" __global__ void vit_patch_embed_kernel(
    const float* __restrict__ img,  // [B, C, IMG, IMG]
    const float* __restrict__ w,    // [D, F]  F = P * P * C
    const float* __restrict__ bias, // [D]
    float* __restrict__ out,        // [B * NP, D]  NP = (IMG / P)^2 patches per image
    int B, int C, int IMG, int P, int D)
{
    __shared__ float as[TILE][TILE];    // as[r][k] = patch(row0 + r, k0 + k)
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int GRID_P = IMG / P;               // patches per side
    int NP = GRID_P * GRID_P;           // patches per image
    int F = P * P * C;                  // features per patch
    int M = B * NP;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row: image b = row / NP, patch t = row % NP
    int col = blockIdx.x * TILE + tx;   // embedding feature
    int w_row = blockIdx.x * TILE + ty; // the w row this thread loads into the tile

    float acc = 0.0f;
    int num_tiles = (F + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < F) {
            int b = row / NP;
            long long q = (long long)(row % NP) * F + k;    // logical index inside img[b].unfold.unfold
            int j = (int)(q % P);                           // pixel column in the patch
            int i = (int)((q / P) % P);                     // pixel row in the patch
            int pw = (int)((q / ((long long)P * P)) % GRID_P);            // patch column
            int ph = (int)((q / ((long long)P * P * GRID_P)) % GRID_P);   // patch row
            int c = (int)(q / ((long long)P * P * NP));                   // colour plane
            as[ty][tx] = img[(((long long)b * C + c) * IMG + (ph * P + i)) * IMG + (pw * P + j)];
        } else {
            as[ty][tx] = 0.0f;
        }
        if (w_row < D && k < F) {
            ws[tx][ty] = w[(long long)w_row * F + k];
        } else {
            ws[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += as[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < D) {
        out[(long long)row * D + col] = acc + bias[col];
    }
}

// torch.cat((cls_token.expand(B, -1, -1), x), dim=1); x += pos_embedding; dropout(p=0.0) is the identity
extern "C" __global__ void vit_tokens_kernel(
    const float* __restrict__ patches,  // [B, NP, D]  patch embeddings
    const float* __restrict__ cls,      // [D]         cls_token
    const float* __restrict__ pos,      // [NP + 1, D] pos_embedding
    float* __restrict__ out,            // [B, NP + 1, D]
    int B, int NP, int D)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int T = NP + 1;
    long long total = (long long)B * T * D;
    if (i >= total) return;

    int e = (int)(i % D);
    int t = (int)((i / D) % T);
    int b = (int)(i / ((long long)D * T));

    float v;
    if (t == 0) {
        v = cls[e];                                             // the cls token comes first
    } else {
        v = patches[((long long)b * NP + (t - 1)) * D + e];     // then the patches, shifted by one
    }
    out[i] = v + pos[(long long)t * D + e];
}

// mlp_head[0..1] on x[:, 0]: GELU(Linear(512, 2048)) of token 0 of every image (exact erf form)
extern "C" __global__ void vit_head_fc1_gelu_kernel(
    const float* __restrict__ x,    // [B, T, K]  the encoder output; only token 0 is read
    const float* __restrict__ w,    // [N_out, K]
    const float* __restrict__ b,    // [N_out]
    float* __restrict__ out,        // [B, N_out]
    int B, int T, int K, int N_out)
{
    const float INV_SQRT2 = 0.7071067811865476f;   // GELU(v) = 0.5 v (1 + erf(v / sqrt(2)))

    int col = blockIdx.x * blockDim.x + threadIdx.x;    // hidden feature
    int row = blockIdx.y;                               // image
    if (row >= B || col >= N_out) return;

    const float* cls_row = x + (long long)row * T * K;  // x[row, 0, :]
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        acc += cls_row[k] * w[(long long)col * K + k];
    }
    float v = acc + b[col];
    out[(long long)row * N_out + col] = 0.5f * v * (1.0f + erff(v * INV_SQRT2));
}

// mlp_head[3]: Linear(2048, num_classes) (mlp_head[2] is Dropout(0.0), the identity)
extern "C" __global__ void vit_head_fc2_kernel(
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

# One encoder layer: ${L} is the layer number (1..6).
LAYER_TEMPLATE = Template(r"""
// layer ${L}: self_attn in_proj, qkv = x @ in_proj_weight^T + in_proj_bias   [S*Nb, E] -> [S*Nb, 3E]
extern "C" __global__ void vit_layer${L}_qkv_kernel(
    const float* __restrict__ x,    // [M, K]  M = S * Nb tokens (row s * Nb + n), K = E
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

// layer ${L}: scores = q . k / sqrt(head_dim) for every position n and head h, over the S sequence entries
extern "C" __global__ void vit_layer${L}_scores_kernel(
    const float* __restrict__ qkv,  // [S * Nb, 3E]: q at column h*HD + d, k at E + h*HD + d
    float* __restrict__ att,        // [Nb, NH, S, S]
    int S, int Nb, int E, int NH)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)Nb * NH * S * S;
    if (idx >= total) return;

    int j = (int)(idx % S);                             // key entry
    int i = (int)((idx / S) % S);                       // query entry
    int h = (int)((idx / ((long long)S * S)) % NH);     // head
    int n = (int)(idx / ((long long)S * S * NH));       // position (the "batch" of the attention)

    int HD = E / NH;                                    // head dimension
    long long stride = 3LL * E;                         // floats per token row of qkv
    const float* q = qkv + ((long long)i * Nb + n) * stride + (long long)h * HD;
    const float* k = qkv + ((long long)j * Nb + n) * stride + E + (long long)h * HD;

    float acc = 0.0f;
    for (int d = 0; d < HD; ++d) {
        acc += q[d] * k[d];
    }
    float scale = 1.0f / sqrtf((float)HD);
    att[idx] = acc * scale;
}

// layer ${L}: softmax over the S keys of every (position, head, query) row
extern "C" __global__ void vit_layer${L}_softmax_kernel(
    const float* __restrict__ att,  // [R, S]  R = Nb * NH * S rows
    float* __restrict__ probs,      // [R, S]
    int R, int S)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= R) return;

    const float* in_row = att + (long long)r * S;
    float* out_row = probs + (long long)r * S;
    float row_max = in_row[0];
    for (int j = 1; j < S; ++j) {
        row_max = fmaxf(row_max, in_row[j]);            // stabiliser: subtract the row max
    }
    float sum = 0.0f;
    for (int j = 0; j < S; ++j) {
        sum += expf(in_row[j] - row_max);
    }
    for (int j = 0; j < S; ++j) {
        out_row[j] = expf(in_row[j] - row_max) / sum;
    }
}

// layer ${L}: y = probs @ v, heads side by side: y[s * Nb + n, h*HD + d]
extern "C" __global__ void vit_layer${L}_av_kernel(
    const float* __restrict__ probs,    // [Nb, NH, S, S]
    const float* __restrict__ qkv,      // [S * Nb, 3E]: v at column 2E + h*HD + d
    float* __restrict__ y,              // [S * Nb, E]
    int S, int Nb, int E, int NH)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)S * Nb * E;
    if (idx >= total) return;

    int e = (int)(idx % E);                             // output feature h*HD + d
    int n = (int)((idx / E) % Nb);                      // position
    int i = (int)(idx / ((long long)E * Nb));           // query entry
    int HD = E / NH;
    int h = e / HD;

    const float* p = probs + (((long long)n * NH + h) * S + i) * S;
    long long stride = 3LL * E;
    float acc = 0.0f;
    for (int j = 0; j < S; ++j) {
        acc += p[j] * qkv[((long long)j * Nb + n) * stride + 2LL * E + e];
    }
    y[idx] = acc;
}

// layer ${L}: x + dropout1(out_proj(y)) (dropout p = 0)   [S*Nb, E]
extern "C" __global__ void vit_layer${L}_out_proj_residual_kernel(
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
// layer ${L}: h = relu(linear1(x))   [S*Nb, E] -> [S*Nb, FF]  (the dropout after it has p = 0)
extern "C" __global__ void vit_layer${L}_linear1_relu_kernel(
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

// layer ${L}: x + dropout2(linear2(h)) (dropout p = 0)   [S*Nb, FF] -> [S*Nb, E]
extern "C" __global__ void vit_layer${L}_linear2_residual_kernel(
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
// layer ${L}: ${which} = LayerNorm(512, eps=1e-5), one block per token row
extern "C" __global__ void vit_layer${L}_${which}_kernel(
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
    names = ["vit_patch_embed_kernel", "vit_tokens_kernel"]
    for L in range(1, DEPTH + 1):
        names += [f"vit_layer{L}_{k}_kernel" for k in LAYER_KERNELS]
    return names + ["vit_head_fc1_gelu_kernel", "vit_head_fc2_kernel"]


def cuda_source():
    parts = [PRELUDE]
    for L in range(1, DEPTH + 1):
        parts.append(LAYER_TEMPLATE.substitute(
            L=L,
            norm1=LAYERNORM_TEMPLATE.substitute(L=L, which="norm1"),
            norm2=LAYERNORM_TEMPLATE.substitute(L=L, which="norm2")))
    return "".join(parts)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(224, 16, 10, 512, 6, 8, 2048, 3, 0.0, 0.0), in order: pos_embedding = randn(1, 197,
        # 512), patch_to_embedding Linear(768, 512), cls_token = randn(1, 1, 512), (dropout), the encoder
        # layer (MultiheadAttention: out_proj Linear, then xavier in_proj_weight, zero in_proj_bias and
        # out_proj.bias; linear1, linear2; two LayerNorms) and TransformerEncoder(layer, 6), which deep-copies
        # it six times without drawing; mlp_head = [Linear(512, 2048), GELU, Dropout, Linear(2048, 10)].
        nn = torch.nn
        pos = nn.Parameter(torch.randn(1, TOKENS, DIM))
        patch = nn.Linear(PATCH_DIM, DIM)
        cls = nn.Parameter(torch.randn(1, 1, DIM))
        layer = nn.TransformerEncoderLayer(d_model=DIM, nhead=HEADS, dim_feedforward=MLP_DIM, dropout=DROPOUT)
        encoder = nn.TransformerEncoder(layer, num_layers=DEPTH)
        fc1 = nn.Linear(DIM, MLP_DIM)
        fc2 = nn.Linear(MLP_DIM, NUM_CLASSES)
        params = {"pos": pos, "patch.w": patch.weight, "patch.b": patch.bias, "cls": cls}
        for L, m in enumerate(encoder.layers, start=1):
            params.update({
                f"l{L}.in_w": m.self_attn.in_proj_weight, f"l{L}.in_b": m.self_attn.in_proj_bias,
                f"l{L}.out_w": m.self_attn.out_proj.weight, f"l{L}.out_b": m.self_attn.out_proj.bias,
                f"l{L}.ff1_w": m.linear1.weight, f"l{L}.ff1_b": m.linear1.bias,
                f"l{L}.ff2_w": m.linear2.weight, f"l{L}.ff2_b": m.linear2.bias,
                f"l{L}.n1_w": m.norm1.weight, f"l{L}.n1_b": m.norm1.bias,
                f"l{L}.n2_w": m.norm2.weight, f"l{L}.n2_b": m.norm2.bias,
            })
        params.update({"fc1.w": fc1.weight, "fc1.b": fc1.bias, "fc2.w": fc2.weight, "fc2.b": fc2.bias})
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
        B = img.shape[0]
        S, Nb, E = B, TOKENS, DIM       # batch_first=False: the images are the sequence

        def buf(*shape):
            return torch.empty(*shape, device=img.device, dtype=img.dtype)

        patches = buf(B * NUM_PATCHES, DIM)
        seq = [
            ("vit_patch_embed_kernel", (K.cdiv(DIM, TILE), K.cdiv(B * NUM_PATCHES, TILE), 1), (TILE, TILE, 1),
             [img, w["patch.w"], w["patch.b"], patches],
             [(ctypes.c_int, B), (ctypes.c_int, CHANNELS), (ctypes.c_int, IMAGE_SIZE), (ctypes.c_int, PATCH),
              (ctypes.c_int, DIM)]),
        ]
        x = buf(S * Nb, E)
        seq.append(("vit_tokens_kernel", (K.cdiv(B * TOKENS * DIM, BLOCK), 1, 1), (BLOCK, 1, 1),
                    [patches, w["cls"], w["pos"], x],
                    [(ctypes.c_int, B), (ctypes.c_int, NUM_PATCHES), (ctypes.c_int, DIM)]))
        attn_dims = [(ctypes.c_int, S), (ctypes.c_int, Nb), (ctypes.c_int, E), (ctypes.c_int, HEADS)]
        for L in range(1, DEPTH + 1):
            p = f"vit_layer{L}_"
            qkv = buf(S * Nb, 3 * E)
            att = buf(Nb, HEADS, S, S)
            probs = buf(Nb, HEADS, S, S)
            y = buf(S * Nb, E)
            r1 = buf(S * Nb, E)
            x1 = buf(S * Nb, E)
            h = buf(S * Nb, MLP_DIM)
            r2 = buf(S * Nb, E)
            x2 = buf(S * Nb, E)
            seq += [
                gemm_step(p + "qkv_kernel", x, w[f"l{L}.in_w"], w[f"l{L}.in_b"], qkv),
                (p + "scores_kernel", (K.cdiv(Nb * HEADS * S * S, BLOCK), 1, 1), (BLOCK, 1, 1), [qkv, att], attn_dims),
                (p + "softmax_kernel", (K.cdiv(Nb * HEADS * S, BLOCK), 1, 1), (BLOCK, 1, 1), [att, probs],
                 [(ctypes.c_int, Nb * HEADS * S), (ctypes.c_int, S)]),
                (p + "av_kernel", (K.cdiv(S * Nb * E, BLOCK), 1, 1), (BLOCK, 1, 1), [probs, qkv, y], attn_dims),
                gemm_step(p + "out_proj_residual_kernel", y, w[f"l{L}.out_w"], w[f"l{L}.out_b"], r1, res=x),
                ln_step(p + "norm1_kernel", r1, w[f"l{L}.n1_w"], w[f"l{L}.n1_b"], x1),
                gemm_step(p + "linear1_relu_kernel", x1, w[f"l{L}.ff1_w"], w[f"l{L}.ff1_b"], h),
                gemm_step(p + "linear2_residual_kernel", h, w[f"l{L}.ff2_w"], w[f"l{L}.ff2_b"], r2, res=x1),
                ln_step(p + "norm2_kernel", r2, w[f"l{L}.n2_w"], w[f"l{L}.n2_b"], x2),
            ]
            x = x2
        hid = buf(B, MLP_DIM)
        out = buf(B, NUM_CLASSES)
        seq += [
            ("vit_head_fc1_gelu_kernel", (K.cdiv(MLP_DIM, BLOCK), B, 1), (BLOCK, 1, 1), [x, w["fc1.w"], w["fc1.b"], hid],
             [(ctypes.c_int, B), (ctypes.c_int, TOKENS), (ctypes.c_int, DIM), (ctypes.c_int, MLP_DIM)]),
            ("vit_head_fc2_kernel", (K.cdiv(NUM_CLASSES, BLOCK), B, 1), (BLOCK, 1, 1), [hid, w["fc2.w"], w["fc2.b"], out],
             [(ctypes.c_int, B), (ctypes.c_int, MLP_DIM), (ctypes.c_int, NUM_CLASSES)]),
        ]
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward, op for op; each encoder layer is TransformerEncoderLayer's training-mode path
        # (post-LN: x = norm1(x + sa(x)); x = norm2(x + ff(x))) on the (S = B, Nb = 197, E) reading.
        (img,) = inputs
        w = W(img)
        F = torch.nn.functional
        p = PATCH
        x = img.unfold(2, p, p).unfold(3, p, p).reshape(img.shape[0], -1, p * p * img.shape[1])
        x = F.linear(x, w["patch.w"], w["patch.b"])
        cls_tokens = w["cls"].expand(img.shape[0], -1, -1)
        x = torch.cat((cls_tokens, x), dim=1)
        x += w["pos"]
        x = F.dropout(x, p=EMB_DROPOUT, training=True)
        for L in range(1, DEPTH + 1):
            sa = F.multi_head_attention_forward(
                x, x, x, DIM, HEADS, w[f"l{L}.in_w"], w[f"l{L}.in_b"], None, None, False, DROPOUT,
                w[f"l{L}.out_w"], w[f"l{L}.out_b"], training=True, key_padding_mask=None, need_weights=False,
                attn_mask=None, average_attn_weights=True, is_causal=False)[0]
            x = F.layer_norm(x + F.dropout(sa, p=DROPOUT, training=True), (DIM,), w[f"l{L}.n1_w"], w[f"l{L}.n1_b"],
                             LN_EPS)
            ff = F.linear(F.dropout(F.relu(F.linear(x, w[f"l{L}.ff1_w"], w[f"l{L}.ff1_b"])), p=DROPOUT, training=True),
                          w[f"l{L}.ff2_w"], w[f"l{L}.ff2_b"])
            x = F.layer_norm(x + F.dropout(ff, p=DROPOUT, training=True), (DIM,), w[f"l{L}.n2_w"], w[f"l{L}.n2_b"],
                             LN_EPS)
        x = x[:, 0]
        x = F.gelu(F.linear(x, w["fc1.w"], w["fc1.b"]))
        x = F.dropout(x, p=DROPOUT, training=True)
        return F.linear(x, w["fc2.w"], w["fc2.b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(2, channels, image_size, image_size)]
        return [torch.rand(s["batch"], CHANNELS, IMAGE_SIZE, IMAGE_SIZE)]

    def large_inputs(torch, s):
        return [torch.rand(s["batch"], CHANNELS, IMAGE_SIZE, IMAGE_SIZE) * T3_SCALE]

    return K.substrate(
        name="L3p28_vision_transformer",
        level=3,
        problem="28_VisionTransformer",
        cuda=cuda_source(),
        kernel_name=kernel_list(),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(2, max=MAX_BATCH)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_one_image",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 1},
                small=True,
                purpose="a batch of 1, the cheapest legal input (image size and patch count are fixed by "
                "pos_embedding): the attention sequence has length S = 1, so every softmax row is the single "
                "value 1 and the attention output is v itself; 197 token rows = 12 x 16 + 5 leave a 5-row tail "
                "tile in every GEMM, and the whole encoder still runs on every position (3.7 G multiply-adds)",
            ),
            K.suite(
                "T2_three_images",
                rand_inputs,
                seeds=[3, 4],
                sizes={"batch": 3},
                purpose="a batch of 3: sequence length S = 3 (softmax rows of three, 197 x 8 x 9 scores, so the "
                "score and probability index decodes (i, j, head, position) differ from the official S = 2), and "
                "591 = 36 x 16 + 15 token rows, so every GEMM ends in a 15-row tail tile",
            ),
            K.suite(
                "T3_large_scale",
                large_inputs,
                seeds=[5, 6],
                sizes={"batch": 2},
                purpose="x = 1000 * U[0,1) at the official batch of 2: the output is independent of the images "
                "(see notes), so only a fault that leaks image content into position 0 (the cls token) can "
                "change it; the large scale makes such a leak large (the patch embeddings are about 1000x the "
                "cls token) before the post-LN LayerNorms rescale it",
            ),
        ],
notes="DEGENERATE, input-insensitive (facts section 4: exactly identical outputs for different inputs). "
        "nn.TransformerEncoderLayer is built with batch_first=False, so attention runs over the B images at each "
        "of the 197 positions; position 0 of every image is cls_token + pos_embedding[0], the same vector, and "
        "every other op is per position, so the output is the same function of the weights for any input and "
        "the two rows of the official output are equal. Measured on the CPU (fp32 ref): the five official trial "
        "outputs are bit-identical in every row, T3's (1000x inputs) equal them bit for bit, and batches of 1 and 3 "
        "give the same rows within 2.5e-7 (the 1/S softmax weights round differently). Every mutant confined to positions 1-196 "
        "(most of the patch embedding, the token kernel's patch branch, those rows of every GEMM) is therefore "
        "equivalent on every input; faults in position 0's rows, in the shared weights' use, in the attention "
        "over S, in the LayerNorms and in the head are visible. The unfold/reshape quirk (a 'patch' is 768 "
        "consecutive elements of the unfolded tensor's logical order) is reproduced as the model computes it. "
        "Dropouts are p = 0.0 (identity; ref calls F.dropout with p = 0 as the modules do). The six encoder "
        "layers are deep copies of one layer, so their weights are equal; LayerNorms have weight 1 and bias 0 "
        "and MultiheadAttention's in_proj_bias and out_proj.bias are zero (its init), so mutants dropping them "
        "are equivalent. All matmuls are full fp32 in the reference (no TF32: no convolutions).",
    )
