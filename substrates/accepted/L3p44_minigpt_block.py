"""KernelBench level 3, problem 44_MiniGPTBlock: minGPT's transformer block (n_embd 768, 8 heads of
96, dropouts p=0.0, causal mask from a 1024 x 1024 buffer) on x 128 x 512 x 768:
x1 = x + attn(ln_1(x)); out = x1 + mlp(ln_2(x1)), mlp = c_fc 768->3072, NewGELU, c_proj 3072->768.

A pipeline of nine kernels, one per layer:

    ln_1            a = LayerNorm(x)                             [B,T,768]
    attn.c_attn     qkv = a @ W^T + b                            [B,T,2304]  (q | k | v)
    attn scores     att = (q @ k^T) / sqrt(96), -inf where j > i  [B,8,T,T]
    attn softmax    probs = softmax(att, dim=-1)                 [B,8,T,T]  (attn dropout p=0)
    attn av         y = probs @ v, heads merged                  [B,T,768]
    attn.c_proj     x1 = x + (y @ W^T + b)                       [B,T,768]  (resid dropout p=0)
    ln_2            c = LayerNorm(x1)                            [B,T,768]
    mlp.c_fc        h = NewGELU(c @ W^T + b)                     [B,T,3072]
    mlp.c_proj      out = x1 + (h @ W^T + b)                     [B,T,768]  (dropout p=0)

The residual adds and NewGELU are epilogues of the Linear before them. The LayerNorms run one
256-thread block per token: a shared-memory tree reduction for the mean, a second one for the
biased variance, then (x - mean) / sqrt(var + 1e-5) * weight + bias. The q/k/v split, the head
views and transposes and the final transpose(1, 2).contiguous().view(B, T, C) are index
arithmetic in the scores and av kernels (q at columns h*96 + d of qkv, k at 768 + h*96 + d, v at
1536 + h*96 + d; av writes head h to columns h*96 .. h*96 + 95). The causal mask is the comparison
j > i, exactly where the official tril(ones(1024, 1024))[:T, :T] buffer holds 0. Every matrix
product is a plain 16 x 16 shared-memory tiled GEMM (guarded, zero-filled tile loads, a barrier
after the loads and another after the multiply-accumulate); the attention products are batched
over (batch, head) through blockIdx.z. The softmax is one 256-thread block per row (max, then sum
of expf(x - max), each through a shared-memory tree).

Cost on the official input (B*T = 65536 tokens): c_attn 232 GFLOP, attn.c_proj 77, c_fc 309,
mlp.c_proj 309, q k^T 52 and probs v 52 (both over the full T x T square): about 1030 GFLOP, plus
2 x 1 GB of fp32 scores/probabilities through the softmax. The same 16 x 16 tiled GEMM runs at about
6.4 TFLOP/s on an H200 in L3p1_mlp (172 GFLOP in 27 ms), so expect roughly 0.17-0.3 s per forward.
"""

CUDA = r"""
const int TILE = 16;                                // GEMM tile edge: blocks are TILE x TILE threads
const int LN_BLOCK = 256;                           // LayerNorm threads per block; one block per token
const int SOFTMAX_BLOCK = 256;                      // softmax threads per block; one block per row
const float NEG_SENTINEL = -3.402823466e+38f;       // -FLT_MAX: identity of the max reduction

// Layer 1 (ln_1): a = (x - mean) / sqrt(var + eps) * gamma + beta over the last dim, per token
extern "C" __global__ void block_ln1_kernel(
    const float* __restrict__ x,        // [M = B*T, C]
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

// Layer 2 (attn.c_attn): qkv = a @ W^T + b, a viewed as [M = B*T, K = C], qkv as [M, N = 3C]
extern "C" __global__ void block_attn_qkv_gemm_kernel(
    const float* __restrict__ x,    // [M, K]  (ln_1 output)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (token b*T + t)
    int col = blockIdx.x * TILE + tx;   // output column (q, k or v feature)
    int w_row = blockIdx.x * TILE + ty; // the W row this thread loads into the tile

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

// Layer 3 (attn scores): att[b, h, i, j] = (q[b, i, h, :] . k[b, j, h, :]) * (1 / sqrt(HS)), -inf for j > i
extern "C" __global__ void block_attn_scores_kernel(
    const float* __restrict__ qkv,  // [B, T, 3C]: q at column h*HS + d, k at C + h*HS + d
    float* __restrict__ att,        // [B, NH, T, T]
    int B, int T, int C, int NH)
{
    __shared__ float qs[TILE][TILE];    // qs[r][d] = q[b, i0 + r, h, d0 + d]
    __shared__ float ks[TILE][TILE];    // ks[d][c] = k[b, j0 + c, h, d0 + d]  (stored transposed)
    const float NEG_INF = __int_as_float(0xff800000);   // masked_fill value float('-inf')

    int HS = C / NH;                    // head size
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bh = blockIdx.z;                // (batch, head) pair
    int b = bh / NH;
    int h = bh % NH;
    int i = blockIdx.y * TILE + ty;     // query position (row of att)
    int j = blockIdx.x * TILE + tx;     // key position (column of att)
    int k_pos = blockIdx.x * TILE + ty; // the key position this thread loads into the tile

    long long row_stride = 3LL * C;     // floats per token in qkv
    const float* q_base = qkv + (long long)b * T * row_stride + (long long)h * HS;
    const float* k_base = qkv + (long long)b * T * row_stride + C + (long long)h * HS;

    float acc = 0.0f;
    int num_tiles = (HS + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int d = t * TILE + tx;
        if (i < T && d < HS) {
            qs[ty][tx] = q_base[(long long)i * row_stride + d];
        } else {
            qs[ty][tx] = 0.0f;
        }
        if (k_pos < T && d < HS) {
            ks[tx][ty] = k_base[(long long)k_pos * row_stride + d];
        } else {
            ks[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int dd = 0; dd < TILE; ++dd) {
            acc += qs[ty][dd] * ks[dd][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (i < T && j < T) {
        float scale = 1.0f / sqrtf((float)HS);
        float s = acc * scale;
        if (j > i) {
            s = NEG_INF;    // causal mask: query i attends to keys 0..i only
        }
        att[(((long long)b * NH + h) * T + i) * T + j] = s;
    }
}

// Layer 4 (attn softmax over the last dim of att; attn_dropout has p = 0)
extern "C" __global__ void block_attn_softmax_kernel(
    const float* __restrict__ att,  // [rows = B*NH*T, T]
    float* __restrict__ probs,      // [rows, T]
    int rows, int T)
{
    __shared__ float red[SOFTMAX_BLOCK];
    int row = blockIdx.x;
    if (row >= rows) return;
    int tid = threadIdx.x;
    const float* att_row = att + (long long)row * T;
    float* probs_row = probs + (long long)row * T;

    // Phase 1: row max (the diagonal entry is always unmasked, so the max is finite).
    float thread_max = NEG_SENTINEL;
    for (int j = tid; j < T; j += blockDim.x) {
        thread_max = fmaxf(thread_max, att_row[j]);
    }
    red[tid] = thread_max;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = fmaxf(red[tid], red[tid + s]);
        }
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();    // every thread has read red[0] before phase 2 overwrites it

    // Phase 2: row sum of expf(att - row_max); masked entries give expf(-inf) = 0.
    float thread_sum = 0.0f;
    for (int j = tid; j < T; j += blockDim.x) {
        thread_sum += expf(att_row[j] - row_max);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float row_sum = red[0];

    // Phase 3: normalise and write every element of the row.
    for (int j = tid; j < T; j += blockDim.x) {
        probs_row[j] = expf(att_row[j] - row_max) / row_sum;
    }
}

// Layer 5 (attn av): y[b, i, h*HS + d] = sum_j probs[b, h, i, j] * v[b, j, h, d]  (heads merged on store)
extern "C" __global__ void block_attn_av_kernel(
    const float* __restrict__ probs,    // [B, NH, T, T]
    const float* __restrict__ qkv,      // [B, T, 3C]: v at column 2C + h*HS + d
    float* __restrict__ y,              // [B, T, C]
    int B, int T, int C, int NH)
{
    __shared__ float ps[TILE][TILE];    // ps[r][c] = probs[b, h, i0 + r, j0 + c]
    __shared__ float vs[TILE][TILE];    // vs[c][d] = v[b, j0 + c, h, d0 + d]

    int HS = C / NH;                    // head size
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bh = blockIdx.z;                // (batch, head) pair
    int b = bh / NH;
    int h = bh % NH;
    int i = blockIdx.y * TILE + ty;     // query position (row of y)
    int d = blockIdx.x * TILE + tx;     // channel within the head (column of y)

    long long row_stride = 3LL * C;     // floats per token in qkv
    const float* p_base = probs + (long long)bh * T * T;
    const float* v_base = qkv + (long long)b * T * row_stride + 2LL * C + (long long)h * HS;

    float acc = 0.0f;
    int num_tiles = (T + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int jp = t * TILE + tx;         // key position of the probability this thread loads
        int jv = t * TILE + ty;         // key position of the v row this thread loads
        if (i < T && jp < T) {
            ps[ty][tx] = p_base[(long long)i * T + jp];
        } else {
            ps[ty][tx] = 0.0f;
        }
        if (jv < T && d < HS) {
            vs[ty][tx] = v_base[(long long)jv * row_stride + d];
        } else {
            vs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int jj = 0; jj < TILE; ++jj) {
            acc += ps[ty][jj] * vs[jj][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (i < T && d < HS) {
        y[((long long)b * T + i) * C + (long long)h * HS + d] = acc;
    }
}

// Layer 6 (attn.c_proj + first residual): x1 = x + (y @ W^T + b); resid_dropout has p = 0
extern "C" __global__ void block_attn_proj_residual_kernel(
    const float* __restrict__ y,    // [M, K]  (attention output, heads merged)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    const float* __restrict__ res,  // [M, N]  (the block input x)
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = y[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (token b*T + t)
    int col = blockIdx.x * TILE + tx;   // output column (embedding feature)
    int w_row = blockIdx.x * TILE + ty; // the W row this thread loads into the tile

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

// Layer 7 (ln_2): c = (x1 - mean) / sqrt(var + eps) * gamma + beta over the last dim, per token
extern "C" __global__ void block_ln2_kernel(
    const float* __restrict__ x,        // [M = B*T, C]  (x1)
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

// Layer 8 (mlp.c_fc + NewGELU): h = gelu(c @ W^T + b), gelu(v) = 0.5 v (1 + tanh(sqrt(2/pi) (v + 0.044715 v^3)))
extern "C" __global__ void block_mlp_fc_gelu_kernel(
    const float* __restrict__ x,    // [M, K]  (ln_2 output)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    const float GELU_SQRT_2_OVER_PI = 0.7978845608028654f;  // math.sqrt(2.0 / math.pi)
    const float GELU_CUBIC = 0.044715f;
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (token b*T + t)
    int col = blockIdx.x * TILE + tx;   // output column (hidden feature)
    int w_row = blockIdx.x * TILE + ty; // the W row this thread loads into the tile

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
        float inner = GELU_SQRT_2_OVER_PI * (v + GELU_CUBIC * (v * v * v));
        out[(long long)row * N + col] = 0.5f * v * (1.0f + tanhf(inner));
    }
}

// Layer 9 (mlp.c_proj + second residual): out = x1 + (h @ W^T + b); mlp dropout has p = 0
extern "C" __global__ void block_mlp_proj_residual_kernel(
    const float* __restrict__ h,    // [M, K]  (GELU output, K = 4C)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    const float* __restrict__ res,  // [M, N]  (x1)
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = h[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (token b*T + t)
    int col = blockIdx.x * TILE + tx;   // output column (embedding feature)
    int w_row = blockIdx.x * TILE + ty; // the W row this thread loads into the tile

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
"""

KERNELS = [
    "block_ln1_kernel",
    "block_attn_qkv_gemm_kernel",
    "block_attn_scores_kernel",
    "block_attn_softmax_kernel",
    "block_attn_av_kernel",
    "block_attn_proj_residual_kernel",
    "block_ln2_kernel",
    "block_mlp_fc_gelu_kernel",
    "block_mlp_proj_residual_kernel",
]

TILE = 16               # must equal TILE in the CUDA source
LN_BLOCK = 256          # must equal LN_BLOCK (the shared buffer size) and be a power of two
SOFTMAX_BLOCK = 256     # must equal SOFTMAX_BLOCK and be a power of two
N_EMBD = 768            # get_init_inputs() = [768, 8, 0.0, 0.0, 1024]
N_HEAD = 8
ATTN_PDROP = 0.0
RESID_PDROP = 0.0
MAX_SEQLEN = 1024       # size of the causal-mask buffer: T may not exceed it
LN_EPS = 1e-5           # nn.LayerNorm default
MAX_GRID_YZ = 65535     # GEMM rows (B*T) are tiled along gridDim.y, (batch, head) pairs along gridDim.z
MAX_BATCH = (MAX_GRID_YZ * TILE) // MAX_SEQLEN    # 1023: B*T/16 <= 65535 blocks for every T <= 1024


def register(K, torch, ctypes):
    import math

    def build(torch):
        # Model.__init__(768, 8, 0.0, 0.0, 1024), in order: ln_1 (ones/zeros, no RNG); attn =
        # CausalSelfAttention: c_attn, c_proj (kaiming-uniform weight then uniform bias each), two
        # Dropouts, the causal buffer tril(ones(1024, 1024)) (no RNG); ln_2; then the mlp ModuleDict,
        # whose dict literal builds c_fc before c_proj (NewGELU and Dropout hold no parameters).
        nn = torch.nn
        ln_1 = nn.LayerNorm(N_EMBD)
        c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        attn_proj = nn.Linear(N_EMBD, N_EMBD)
        mask = torch.tril(torch.ones(MAX_SEQLEN, MAX_SEQLEN)).view(1, 1, MAX_SEQLEN, MAX_SEQLEN)
        ln_2 = nn.LayerNorm(N_EMBD)
        c_fc = nn.Linear(N_EMBD, 4 * N_EMBD)
        mlp_proj = nn.Linear(4 * N_EMBD, N_EMBD)
        return {
            "ln1_w": ln_1.weight, "ln1_b": ln_1.bias,
            "attn_w": c_attn.weight, "attn_b": c_attn.bias,
            "attn_proj_w": attn_proj.weight, "attn_proj_b": attn_proj.bias,
            "mask": mask,
            "ln2_w": ln_2.weight, "ln2_b": ln_2.bias,
            "fc_w": c_fc.weight, "fc_b": c_fc.bias,
            "mlp_proj_w": mlp_proj.weight, "mlp_proj_b": mlp_proj.bias,
        }

    W = K.weights(build)

    def gemm_step(kernel, a, w, b, out, res=None):
        M = a.shape[0] * a.shape[1]     # [B, T, K] viewed as [B*T, K]
        Kd = a.shape[2]
        N = w.shape[0]
        tensors = [a, w, b, out] if res is None else [a, w, b, res, out]
        return (
            kernel,
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            tensors,
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def ln_step(kernel, a, gamma, beta, out):
        M = a.shape[0] * a.shape[1]
        C = a.shape[2]
        return (
            kernel,
            (M, 1, 1),
            (LN_BLOCK, 1, 1),
            [a, gamma, beta, out],
            [(ctypes.c_int, M), (ctypes.c_int, C)],
        )

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        B, T, C = x.shape
        NH = N_HEAD
        HS = C // NH
        H4 = w["fc_w"].shape[0]

        def buf(*shape):
            return torch.empty(*shape, device=x.device, dtype=x.dtype)

        a = buf(B, T, C)
        qkv = buf(B, T, 3 * C)
        att = buf(B, NH, T, T)
        probs = buf(B, NH, T, T)
        y = buf(B, T, C)
        x1 = buf(B, T, C)
        c = buf(B, T, C)
        h = buf(B, T, H4)
        out = buf(B, T, C)
        attn_dims = [(ctypes.c_int, B), (ctypes.c_int, T), (ctypes.c_int, C), (ctypes.c_int, NH)]
        seq = [
            ln_step("block_ln1_kernel", x, w["ln1_w"], w["ln1_b"], a),
            gemm_step("block_attn_qkv_gemm_kernel", a, w["attn_w"], w["attn_b"], qkv),
            (
                "block_attn_scores_kernel",
                (K.cdiv(T, TILE), K.cdiv(T, TILE), B * NH),
                (TILE, TILE, 1),
                [qkv, att],
                attn_dims,
            ),
            (
                "block_attn_softmax_kernel",
                (B * NH * T, 1, 1),
                (SOFTMAX_BLOCK, 1, 1),
                [att, probs],
                [(ctypes.c_int, B * NH * T), (ctypes.c_int, T)],
            ),
            (
                "block_attn_av_kernel",
                (K.cdiv(HS, TILE), K.cdiv(T, TILE), B * NH),
                (TILE, TILE, 1),
                [probs, qkv, y],
                attn_dims,
            ),
            gemm_step("block_attn_proj_residual_kernel", y, w["attn_proj_w"], w["attn_proj_b"], x1, res=x),
            ln_step("block_ln2_kernel", x1, w["ln2_w"], w["ln2_b"], c),
            gemm_step("block_mlp_fc_gelu_kernel", c, w["fc_w"], w["fc_b"], h),
            gemm_step("block_mlp_proj_residual_kernel", h, w["mlp_proj_w"], w["mlp_proj_b"], out, res=x1),
        ]
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward, op for op, on the same parameters and the same mask buffer.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional

        def attn(x):
            B, T, C = x.size()
            q, k, v = F.linear(x, w["attn_w"], w["attn_b"]).split(N_EMBD, dim=2)
            k = k.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
            q = q.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
            v = v.view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
            att = att.masked_fill(w["mask"][:, :, :T, :T] == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            att = F.dropout(att, p=ATTN_PDROP, training=True)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T, C)
            return F.dropout(F.linear(y, w["attn_proj_w"], w["attn_proj_b"]), p=RESID_PDROP, training=True)

        def new_gelu(x):
            return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))

        def mlpf(x):
            hidden = new_gelu(F.linear(x, w["fc_w"], w["fc_b"]))
            return F.dropout(F.linear(hidden, w["mlp_proj_w"], w["mlp_proj_b"]), p=RESID_PDROP, training=True)

        x = x + attn(F.layer_norm(x, (N_EMBD,), w["ln1_w"], w["ln1_b"], LN_EPS))
        x = x + mlpf(F.layer_norm(x, (N_EMBD,), w["ln2_w"], w["ln2_b"], LN_EPS))
        return x

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, seq_len, n_embd)]
        return [torch.rand(s["batch"], s["seq"], N_EMBD)]

    def scaled_inputs(scale):
        def gen(torch, s):
            return [torch.rand(s["batch"], s["seq"], N_EMBD) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 2% of the entries U[0, 16), plus every 7th token entirely zero.
        shape = (s["batch"], s["seq"], N_EMBD)
        mask = torch.rand(shape) < 0.02
        spikes = torch.rand(shape) * 16.0
        x = torch.where(mask, spikes, torch.zeros(shape))
        x[:, ::7, :] = 0.0
        return [x]

    return K.substrate(
        name="L3p44_minigpt_block",
        level=3,
        problem="44_MiniGPTBlock",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(128, max=MAX_BATCH),
            "seq": K.dim(512, max=MAX_SEQLEN),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs(0.1),
                seeds=[1, 2],
                sizes={"batch": 2, "seq": 37},
                small=True,
                purpose="batch 2, seq 37 = 2 x 16 + 5: B*T = 74 GEMM rows miss the 16-row tile, the 37 x 37 "
                "score matrices leave a 5-wide tail of queries and keys (the masked triangle crosses partial "
                "tiles), and the 37-long softmax rows leave 219 of 256 threads idle, so every guard, tile zero "
                "fill, ceil-division and reduction identity matters; x = U[0,0.1): the LayerNorms undo the "
                "input scale, so the attention and MLP branches keep their size (~0.07 and ~0.16 on average) "
                "while the residual x shrinks 10x, and the 1e-2 tolerance (which scales with |out|) no longer "
                "hides branch faults behind the residual",
            ),
            K.suite(
                "T2_small_residual_eps",
                scaled_inputs(0.02),
                seeds=[3, 4],
                sizes={"batch": 4, "seq": 300},
                purpose="x = U[0,0.02): same sign, the residual is ~0.01 so the output is almost entirely the two "
                "branches, and ln_1's input variance (3.3e-5) is comparable to eps = 1e-5, so ln_1's output "
                "moves by up to ~0.25 if the eps is dropped or changed; ln_2 sees the attention branch at "
                "normal scale; the fp32 reference stays within ~1e-6 of fp64 (measured on the CPU); seq 300 = "
                "18 x 16 + 12 and 300 = 256 + 44 (a second softmax stride with a partial tail). A large-"
                "magnitude suite would do the opposite here: LayerNorm removes the input scale, so a larger x "
                "only grows the residual and with it the rtol share of the tolerance",
            ),
            K.suite(
                "T3_sparse_long",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 1, "seq": MAX_SEQLEN},
                purpose="seq 1024, the full extent of the causal buffer (4 full softmax strides, the last query "
                "attending to all 1024 keys), with sparse inputs: exact zeros except ~2% U[0,16) spikes, and "
                "every 7th token all zero, whose ln_1 output is exactly the LayerNorm bias only because of the "
                "eps (0 / sqrt(0 + eps); without it 0/0 = NaN); the spiky rows have large per-token means and "
                "variances, so mean or variance faults in the LayerNorm reductions show",
            ),
        ],
        notes="Dropouts have p = 0.0 (identity in training mode; ref calls F.dropout with p = 0 as the modules "
        "do). Both LayerNorms have their default init, weight = 1 and bias = 0, so mutants that drop or "
        "swap gamma/beta are equivalent on every input. The head size 96 = 6 x 16 and the feature sizes "
        "768 / 2304 / 3072 are multiples of the tile, so the d < HS, k < K and N guards never fire "
        "(equivalent mutants); 768 = 3 x 256, so LayerNorm rows fill every stride. Only B*T and T have "
        "remainders (T1, T2). The causal mask is the comparison j > i; the mask buffer is kept in W only "
        "for ref. The residual path dominates the output at the official U[0,1) scale (|out| ~0.5-2, so "
        "the tolerance is ~0.015-0.03 while the attention branch averages ~0.07): T1 and T2 shrink x to "
        "expose the branches. Official scores: 128 x 8 x 512 x 512 = 2.7e8 < 2^31 elements, so 32-bit "
        "offset mutants do not overflow on any suite.",
    )
