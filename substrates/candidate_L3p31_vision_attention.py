"""KernelBench level 3, problem 31_VisionAttention: multi-head self-attention over the pixels of an image,
a residual add and a LayerNorm, on x 2 x 128 x 128 x 128 (B = 2, embed E = 128, L = H*W = 16384 tokens).

Model(128, 4).forward(x):
    t = x.view(B, C, H*W).permute(2, 0, 1)            tokens [L, B, E] (nn.MultiheadAttention is seq-first)
    a, _ = MultiheadAttention(E=128, 4 heads)(t, t, t)
    y = LayerNorm(128)(a + t)
    return y.permute(1, 2, 0).view(B, C, H, W)

nn.MultiheadAttention in training mode (dropout 0.0) takes the general path of
F.multi_head_attention_forward: q, k, v = t @ in_proj_weight^T + in_proj_bias (split in three), heads of
32 features (head h = features 32h .. 32h + 31, batch-head index b * 4 + h), q scaled by 1/sqrt(32),
softmax(q k^T) v, heads merged, out_proj. need_weights=True also averages the attention weights over the
heads, which forward discards. Seven kernels, one per layer:

    vattn_qkv_kernel             x [B,E,L]           -> qkv [L,B,3E]     (permute folded into the loads)
    vattn_scores_kernel          qkv                 -> s [B*4,L,L]      (q . k / sqrt(32))
    vattn_softmax_kernel         s                   -> p [B*4,L,L]
    vattn_av_kernel              p, qkv              -> o [L,B,E]        (heads merged on store)
    vattn_out_proj_kernel        o                   -> a [L,B,E]
    vattn_residual_add_kernel    a, x                -> r [L,B,E]        (a + t)
    vattn_layernorm_kernel       r                   -> y [B,E,H,W]      (permute back folded into the stores)

The views and permutes are index arithmetic: token (l, b) feature e of t is x[b, e, l], and the
LayerNorm writes its row (l, b) to y[b, :, l]. The four matrix products are plain 16 x 16 shared-memory
tiled GEMMs (guarded, zero-filled tile loads, a barrier after the loads and another after the
multiply-accumulate, fp32 accumulation); the projections put the token rows along gridDim.x, the attention
products batch the 8 (batch, head) pairs along gridDim.z. The softmax is one 256-thread block per row of
16384 scores (a shared-memory tree for the row max, a second one for the sum of expf(s - max), then the
normalised writes); the LayerNorm is one 128-thread block per token (two-pass mean and biased variance
through two trees, eps 1e-5).

Cost on the official input: q k^T and p v are 2 x 8 x 16384^2 x 32 = 137 GFLOP each, the projections 4.3
GFLOP; the score and probability matrices are 2^31 floats (8.6 GB) each, so the softmax moves about 34 GB
(three reads and a write) and the products read 17 GB more. At the 6.4 TFLOP/s of this tiling in L3p1
(less with K = 32 in q k^T) and about 3-4 TB/s, expect 60-120 ms per forward; it needs about 17.5 GB of
device memory (the reference needs as much, twice that in fp64).
"""

CUDA = r"""
const int TILE = 16;                                // GEMM tile edge: blocks are TILE x TILE threads
const int SOFTMAX_BLOCK = 256;                      // softmax threads per block; one block per score row
const int LN_BLOCK = 128;                           // LayerNorm threads per block; one block per token
const float NEG_SENTINEL = -3.402823466e+38f;       // -FLT_MAX: identity of the max reduction
const float LN_EPS = 1e-5f;                         // nn.LayerNorm default eps

// Layer 1 (in_proj): qkv[l, b, :] = t[l, b, :] @ W_in^T + b_in, with t[l, b, e] = x[b, e, l]
extern "C" __global__ void vattn_qkv_kernel(
    const float* __restrict__ x,    // [B, E, L]  (the image, channels = embedding)
    const float* __restrict__ w,    // [3E, E]    (in_proj_weight: q rows, then k rows, then v rows)
    const float* __restrict__ bias, // [3E]
    float* __restrict__ qkv,        // [L, B, 3E] (rows M = L*B, row = l * B + b)
    int B, int E, int L)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = t[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int M = L * B;
    int N = 3 * E;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.x * TILE + ty;   // token row l * B + b
    int col = blockIdx.y * TILE + tx;   // q, k or v feature
    int w_row = blockIdx.y * TILE + ty; // the W row this thread loads into the tile
    int l = row / B;
    int b = row % B;

    float acc = 0.0f;
    int num_tiles = (E + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < E) {
            xs[ty][tx] = x[((long long)b * E + k) * L + l];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (w_row < N && k < E) {
            ws[tx][ty] = w[(long long)w_row * E + k];
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
        qkv[(long long)row * N + col] = acc + bias[col];
    }
}

// Layer 2 (scores): s[bh, i, j] = (q[i, b, h, :] . k[j, b, h, :]) / sqrt(HD), bh = b * NH + h
extern "C" __global__ void vattn_scores_kernel(
    const float* __restrict__ qkv,  // [L, B, 3E]: q at column h*HD + d, k at E + h*HD + d
    float* __restrict__ s,          // [B*NH, L, L]
    int B, int E, int L, int NH)
{
    __shared__ float qs[TILE][TILE];    // qs[r][d] = q[i0 + r, b, h, d0 + d]
    __shared__ float ks[TILE][TILE];    // ks[d][c] = k[j0 + c, b, h, d0 + d]  (stored transposed)

    int HD = E / NH;                    // head size
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bh = blockIdx.z;                // (batch, head) pair
    int b = bh / NH;
    int h = bh % NH;
    int i = blockIdx.y * TILE + ty;     // query token (row of s)
    int j = blockIdx.x * TILE + tx;     // key token (column of s)
    int k_tok = blockIdx.x * TILE + ty; // the key token this thread loads into the tile

    long long tok_stride = 3LL * E * B; // floats from token l to token l + 1 in qkv
    const float* q_base = qkv + (long long)b * 3 * E + (long long)h * HD;
    const float* k_base = qkv + (long long)b * 3 * E + E + (long long)h * HD;

    float acc = 0.0f;
    int num_tiles = (HD + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int d = t * TILE + tx;
        if (i < L && d < HD) {
            qs[ty][tx] = q_base[(long long)i * tok_stride + d];
        } else {
            qs[ty][tx] = 0.0f;
        }
        if (k_tok < L && d < HD) {
            ks[tx][ty] = k_base[(long long)k_tok * tok_stride + d];
        } else {
            ks[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int dd = 0; dd < TILE; ++dd) {
            acc += qs[ty][dd] * ks[dd][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (i < L && j < L) {
        float scale = 1.0f / sqrtf((float)HD);
        s[((long long)bh * L + i) * L + j] = acc * scale;
    }
}

// Layer 3 (softmax over the last dim of s; dropout p = 0)
extern "C" __global__ void vattn_softmax_kernel(
    const float* __restrict__ s,    // [rows = B*NH*L, L]
    float* __restrict__ p,          // [rows, L]
    long long rows, int L)
{
    __shared__ float red[SOFTMAX_BLOCK];
    long long row = blockIdx.x;
    if (row >= rows) return;
    int tid = threadIdx.x;
    const float* s_row = s + row * L;
    float* p_row = p + row * L;

    // Phase 1: row max.
    float thread_max = NEG_SENTINEL;
    for (int j = tid; j < L; j += blockDim.x) {
        thread_max = fmaxf(thread_max, s_row[j]);
    }
    red[tid] = thread_max;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) {
            red[tid] = fmaxf(red[tid], red[tid + st]);
        }
        __syncthreads();
    }
    float row_max = red[0];
    __syncthreads();    // every thread has read red[0] before phase 2 overwrites it

    // Phase 2: row sum of expf(s - row_max).
    float thread_sum = 0.0f;
    for (int j = tid; j < L; j += blockDim.x) {
        thread_sum += expf(s_row[j] - row_max);
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) {
            red[tid] = red[tid] + red[tid + st];
        }
        __syncthreads();
    }
    float row_sum = red[0];

    // Phase 3: normalise and write every element of the row.
    for (int j = tid; j < L; j += blockDim.x) {
        p_row[j] = expf(s_row[j] - row_max) / row_sum;
    }
}

// Layer 4 (av): o[i, b, h*HD + d] = sum_j p[bh, i, j] * v[j, b, h, d]  (heads merged on store)
extern "C" __global__ void vattn_av_kernel(
    const float* __restrict__ p,    // [B*NH, L, L]
    const float* __restrict__ qkv,  // [L, B, 3E]: v at column 2E + h*HD + d
    float* __restrict__ o,          // [L, B, E]
    int B, int E, int L, int NH)
{
    __shared__ float ps[TILE][TILE];    // ps[r][c] = p[bh, i0 + r, j0 + c]
    __shared__ float vs[TILE][TILE];    // vs[c][d] = v[j0 + c, b, h, d0 + d]

    int HD = E / NH;                    // head size
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bh = blockIdx.z;                // (batch, head) pair
    int b = bh / NH;
    int h = bh % NH;
    int i = blockIdx.y * TILE + ty;     // query token (row of o)
    int d = blockIdx.x * TILE + tx;     // feature within the head (column of o)

    long long tok_stride = 3LL * E * B; // floats from token l to token l + 1 in qkv
    const float* p_base = p + (long long)bh * L * L;
    const float* v_base = qkv + (long long)b * 3 * E + 2LL * E + (long long)h * HD;

    float acc = 0.0f;
    int num_tiles = (L + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int jp = t * TILE + tx;         // key token of the probability this thread loads
        int jv = t * TILE + ty;         // key token of the v row this thread loads
        if (i < L && jp < L) {
            ps[ty][tx] = p_base[(long long)i * L + jp];
        } else {
            ps[ty][tx] = 0.0f;
        }
        if (jv < L && d < HD) {
            vs[ty][tx] = v_base[(long long)jv * tok_stride + d];
        } else {
            vs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int jj = 0; jj < TILE; ++jj) {
            acc += ps[ty][jj] * vs[jj][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (i < L && d < HD) {
        o[((long long)i * B + b) * E + (long long)h * HD + d] = acc;
    }
}

// Layer 5 (out_proj): a = o @ W_out^T + b_out, o viewed as [M = L*B, E]
extern "C" __global__ void vattn_out_proj_kernel(
    const float* __restrict__ x,    // [M, K]  (o, heads merged)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ bias, // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.x * TILE + ty;   // token row l * B + b
    int col = blockIdx.y * TILE + tx;   // output feature
    int w_row = blockIdx.y * TILE + ty; // the W row this thread loads into the tile

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
        out[(long long)row * N + col] = acc + bias[col];
    }
}

// Layer 6 (residual): r[l, b, e] = a[l, b, e] + t[l, b, e], with t[l, b, e] = x[b, e, l]
extern "C" __global__ void vattn_residual_add_kernel(
    const float* __restrict__ a,    // [L, B, E]  (attention output)
    const float* __restrict__ x,    // [B, E, L]  (the image)
    float* __restrict__ r,          // [L, B, E]
    int B, int E, int L)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)L * B * E;
    if (i >= total) return;

    int e = (int)(i % E);
    int b = (int)((i / E) % B);
    long long l = i / ((long long)E * B);
    r[i] = a[i] + x[((long long)b * E + e) * L + l];
}

// Layer 7 (norm): y = (r - mean) / sqrt(var + eps) * gamma + beta over the E features of each token,
// stored as y[b, e, l] (the permute(1, 2, 0).view(B, C, H, W) back to the image layout)
extern "C" __global__ void vattn_layernorm_kernel(
    const float* __restrict__ r,        // [L, B, E]
    const float* __restrict__ gamma,    // [E]
    const float* __restrict__ beta,     // [E]
    float* __restrict__ y,              // [B, E, L]
    int B, int E, int L)
{
    __shared__ float red[LN_BLOCK];
    int row = blockIdx.x;               // token row l * B + b
    if (row >= L * B) return;
    int tid = threadIdx.x;
    int l = row / B;
    int b = row % B;
    const float* r_row = r + (long long)row * E;

    // Phase 1: mean of the token's features.
    float thread_sum = 0.0f;
    for (int e = tid; e < E; e += blockDim.x) {
        thread_sum += r_row[e];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) {
            red[tid] = red[tid] + red[tid + st];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)E;
    __syncthreads();    // every thread has read red[0] before phase 2 overwrites it

    // Phase 2: biased variance (squared deviations from the mean).
    float thread_sq = 0.0f;
    for (int e = tid; e < E; e += blockDim.x) {
        float dv = r_row[e] - mean;
        thread_sq += dv * dv;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tid < st) {
            red[tid] = red[tid] + red[tid + st];
        }
        __syncthreads();
    }
    float var = red[0] / (float)E;
    float inv_std = 1.0f / sqrtf(var + LN_EPS);

    // Phase 3: normalise, affine, and store in the image layout.
    for (int e = tid; e < E; e += blockDim.x) {
        y[((long long)b * E + e) * L + l] = (r_row[e] - mean) * inv_std * gamma[e] + beta[e];
    }
}
"""

KERNELS = [
    "vattn_qkv_kernel",
    "vattn_scores_kernel",
    "vattn_softmax_kernel",
    "vattn_av_kernel",
    "vattn_out_proj_kernel",
    "vattn_residual_add_kernel",
    "vattn_layernorm_kernel",
]

TILE = 16               # must equal TILE in the CUDA source
SOFTMAX_BLOCK = 256     # must equal SOFTMAX_BLOCK (the shared buffer size) and be a power of two
LN_BLOCK = 128          # must equal LN_BLOCK (the shared buffer size) and be a power of two
BLOCK = 256             # residual add: 1D blocks over the flat index
EMBED = 128             # get_init_inputs() = [128, 4]: fixed by the weights
NUM_HEADS = 4
LN_EPS = 1e-5
MAX_SIDE = 512          # height, width <= 512: L <= 262144, so L / 16 query tiles fit gridDim.y (65535)
MAX_BATCH = 4096        # B * 4 (batch, head) pairs along gridDim.z; B * L token rows along gridDim.x
SCALE = 4.0             # T2: x = U[0, 4)
SPIKE_FRACTION = 0.02   # T3: about 2% of the values are U[0, 16) spikes, the rest exact zeros
SPIKE_SCALE = 16.0


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(128, 4): nn.MultiheadAttention(128, 4) (its out_proj Linear draws kaiming-uniform
        # weight and bias at construction, then _reset_parameters draws xavier_uniform_ in_proj_weight and
        # sets in_proj_bias and out_proj.bias to zero), then nn.LayerNorm(128) (ones, zeros: no draw).
        nn = torch.nn
        attn = nn.MultiheadAttention(EMBED, NUM_HEADS)
        norm = nn.LayerNorm(EMBED)
        return {
            "in_w": attn.in_proj_weight, "in_b": attn.in_proj_bias,
            "out_w": attn.out_proj.weight, "out_b": attn.out_proj.bias,
            "ln_w": norm.weight, "ln_b": norm.bias,
        }

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        B, E, H, W_in = x.shape
        L = H * W_in
        NH = NUM_HEADS
        HD = E // NH
        M = L * B
        N3 = w["in_w"].shape[0]
        qkv = torch.empty(L, B, N3, device=x.device, dtype=x.dtype)
        s = torch.empty(B * NH, L, L, device=x.device, dtype=x.dtype)
        p = torch.empty(B * NH, L, L, device=x.device, dtype=x.dtype)
        o = torch.empty(L, B, E, device=x.device, dtype=x.dtype)
        a = torch.empty(L, B, E, device=x.device, dtype=x.dtype)
        r = torch.empty(L, B, E, device=x.device, dtype=x.dtype)
        y = torch.empty(B, E, H, W_in, device=x.device, dtype=x.dtype)
        attn_dims = [(ctypes.c_int, B), (ctypes.c_int, E), (ctypes.c_int, L), (ctypes.c_int, NH)]
        seq = [
            (
                "vattn_qkv_kernel",
                (K.cdiv(M, TILE), K.cdiv(N3, TILE), 1),
                (TILE, TILE, 1),
                [x, w["in_w"], w["in_b"], qkv],
                [(ctypes.c_int, B), (ctypes.c_int, E), (ctypes.c_int, L)],
            ),
            (
                "vattn_scores_kernel",
                (K.cdiv(L, TILE), K.cdiv(L, TILE), B * NH),
                (TILE, TILE, 1),
                [qkv, s],
                attn_dims,
            ),
            (
                "vattn_softmax_kernel",
                (B * NH * L, 1, 1),
                (SOFTMAX_BLOCK, 1, 1),
                [s, p],
                [(ctypes.c_longlong, B * NH * L), (ctypes.c_int, L)],
            ),
            (
                "vattn_av_kernel",
                (K.cdiv(HD, TILE), K.cdiv(L, TILE), B * NH),
                (TILE, TILE, 1),
                [p, qkv, o],
                attn_dims,
            ),
            (
                "vattn_out_proj_kernel",
                (K.cdiv(M, TILE), K.cdiv(E, TILE), 1),
                (TILE, TILE, 1),
                [o, w["out_w"], w["out_b"], a],
                [(ctypes.c_int, M), (ctypes.c_int, E), (ctypes.c_int, E)],
            ),
            (
                "vattn_residual_add_kernel",
                (K.cdiv(M * E, BLOCK), 1, 1),
                (BLOCK, 1, 1),
                [a, x, r],
                [(ctypes.c_int, B), (ctypes.c_int, E), (ctypes.c_int, L)],
            ),
            (
                "vattn_layernorm_kernel",
                (M, 1, 1),
                (LN_BLOCK, 1, 1),
                [r, w["ln_w"], w["ln_b"], y],
                [(ctypes.c_int, B), (ctypes.c_int, E), (ctypes.c_int, L)],
            ),
        ]
        return {"seq": seq, "out": y}

    def ref(inputs, torch):
        # Model.forward: nn.MultiheadAttention.forward in training mode calls
        # F.multi_head_attention_forward with these arguments (need_weights=True, dropout 0.0).
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        B, C, H, W_in = x.shape
        t = x.view(B, C, H * W_in).permute(2, 0, 1)
        # The official parameters require grad (the harness runs them under no_grad), and matmul's choice
        # between folding the non-contiguous [L, B, E] tokens into one GEMM and a batched product depends on
        # requires_grad; the same storage wrapped as Parameters keeps the reference bit-equal to Model.forward.
        P = torch.nn.Parameter
        attn_output, _ = F.multi_head_attention_forward(
            t, t, t, EMBED, NUM_HEADS,
            P(w["in_w"]), P(w["in_b"]),
            None, None, False, 0.0,
            P(w["out_w"]), P(w["out_b"]),
            training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
            average_attn_weights=True, is_causal=False,
        )
        y = F.layer_norm(attn_output + t, (EMBED,), w["ln_w"], w["ln_b"], LN_EPS)
        return y.permute(1, 2, 0).view(B, C, H, W_in)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, num_channels, image_height, image_width)]
        return [torch.rand(s["batch"], EMBED, s["height"], s["width"])]

    def scaled_inputs(torch, s):
        return [torch.rand(s["batch"], EMBED, s["height"], s["width"]) * SCALE]

    def spiky_inputs(torch, s):
        shape = (s["batch"], EMBED, s["height"], s["width"])
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p31_vision_attention",
        level=3,
        problem="31_VisionAttention",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(2, max=MAX_BATCH),
            "height": K.dim(128, max=MAX_SIDE),
            "width": K.dim(128, max=MAX_SIDE),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "height": 5, "width": 7},
                small=True,
                purpose="batch 3, 5 x 7 = 35 tokens = 2 x 16 + 3: the 105 token rows of the projections and the 35 x "
                "35 score matrices end in partial tiles (query, key and value-row guards and zero fills "
                "matter), the softmax rows of 35 leave 221 of 256 threads idle, and the residual add's 13440 "
                "elements are 52.5 blocks; batch 3 makes the (l, b) row order and the b * 4 + h head index "
                "visible; x = U[0,4) as in T2_large_same_sign so this CPU suite also sees value faults",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 2, "height": 17, "width": 19},
                purpose="same-sign x = U[0,4): q and k grow 4x, the scores 16x, so the softmax is far from uniform "
                "(at U[0,1) over 16384 keys it is nearly flat, and a wrong score scale or a lost key hides in "
                "the average); without the max subtraction expf would still be finite here, but a wrong max or "
                "a dropped row term moves the outputs; 323 = 20 x 16 + 3 tokens",
            ),
            K.suite(
                "T3_sparse",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 1, "height": 24, "width": 40},
                purpose="about 2% of the input values are U[0,16) spikes on exact zeros: most tokens have a few "
                "large features, so individual keys dominate their queries' softmax and a wrong key/value "
                "token index, head offset or feature index moves specific outputs instead of averaging out; "
                "the residual and LayerNorm see rows dominated by single features; 960 = 60 x 16 tokens, H != W",
            ),
        ],
        notes="nn.MultiheadAttention initialises in_proj_bias and out_proj.bias to zero, so mutants that drop "
        "either bias (or the LayerNorm's zero bias and unit weight) are equivalent. The reference materialises "
        "the 2 x 4 x 16384 x 16384 attention weights (need_weights=True) just as this pipeline does; the "
        "official score tensor has exactly 2^31 elements, so every score index is 64-bit (the largest one, "
        "2^31 - 1, still fits an int, so 32-bit index mutants need not overflow on T0). All matrix products "
        "are full fp32 in the reference (cuBLAS; no convolution, so no TF32). At the official U[0,1) input "
        "the softmax over 16384 keys is nearly flat, so attention faults average out; T2 and T3 sharpen it. "
        "The head size 32 and E = 128, 384 are multiples of the tile, so the d < HD, k < E and column guards "
        "never fire (equivalent mutants); tokens and token rows have remainders in T1 and T2.",
    )
