"""KernelBench level 3, problem 43_MinGPTCausalAttention: minGPT's causal self-attention layer
(n_embd 768, 8 heads of 96, dropouts p=0.0, causal mask from a 1024 x 1024 buffer) on x 128 x 512 x 768.

A pipeline of five kernels, one per layer:

    c_attn    qkv = x @ W_attn^T + b_attn                  [B,T,768] -> [B,T,2304]  (q | k | v)
    scores    att = (q @ k^T) / sqrt(96), -inf where j > i  -> [B,8,T,T]
    softmax   probs = softmax(att, dim=-1)                  -> [B,8,T,T]  (attn dropout p=0: identity)
    av        y = probs @ v, heads merged                   -> [B,T,768]
    c_proj    out = y @ W_proj^T + b_proj                   -> [B,T,768]  (resid dropout p=0: identity)

The split into q, k, v, the view into heads, the transposes and the final
transpose(1, 2).contiguous().view(B, T, C) are views or copies in torch; here they are index
arithmetic: the scores and av kernels read q, k and v straight out of the [B, T, 3C] c_attn output
(q at columns h*96 + d, k at 768 + h*96 + d, v at 1536 + h*96 + d), and av writes head h's output
to columns h*96 .. h*96 + 95 of y. The causal mask is applied as the comparison j > i, which is
exactly where the official tril(ones(1024, 1024))[:T, :T] buffer holds 0.

The four matrix products (c_attn, q k^T, probs v, c_proj) are plain 16 x 16 shared-memory tiled
GEMMs (guarded, zero-filled tile loads, a barrier after the loads and another after the
multiply-accumulate); the attention products are batched over (batch, head) through blockIdx.z.
The softmax is one 256-thread block per row: a shared-memory tree reduction for the row max, a
second one for the sum of expf(x - max), then the normalised writes.

Cost on the official input (B*T = 65536 rows): c_attn 232 GFLOP, c_proj 77 GFLOP, q k^T 52 GFLOP
and probs v 52 GFLOP (both computed in full, masked half included): about 410 GFLOP, plus 2 x 1 GB
of fp32 scores/probabilities through the softmax. The same 16 x 16 tiled GEMM runs at about
6.4 TFLOP/s on an H200 in L3p1_mlp (172 GFLOP in 27 ms); the short K = 96 of q k^T and the softmax
traffic cost more, so expect roughly 70-150 ms per forward.
"""

CUDA = r"""
const int TILE = 16;                                // GEMM tile edge: blocks are TILE x TILE threads
const int SOFTMAX_BLOCK = 256;                      // softmax threads per block; one block per row
const float NEG_SENTINEL = -3.402823466e+38f;       // -FLT_MAX: identity of the max reduction

// Layer 1 (c_attn): qkv = x @ W^T + b, x viewed as [M = B*T, K = C], qkv as [M, N = 3C]
extern "C" __global__ void attn_qkv_gemm_kernel(
    const float* __restrict__ x,    // [M, K]
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

// Layer 2 (scores): att[b, h, i, j] = (q[b, i, h, :] . k[b, j, h, :]) * (1 / sqrt(HS)), -inf for j > i
extern "C" __global__ void attn_scores_kernel(
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

// Layer 3 (softmax over the last dim of att; attn_dropout has p = 0)
extern "C" __global__ void attn_softmax_kernel(
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

// Layer 4 (av): y[b, i, h*HS + d] = sum_j probs[b, h, i, j] * v[b, j, h, d]  (heads merged on store)
extern "C" __global__ void attn_av_kernel(
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

// Layer 5 (c_proj): out = y @ W^T + b, y viewed as [M = B*T, K = C]; resid_dropout has p = 0
extern "C" __global__ void attn_proj_gemm_kernel(
    const float* __restrict__ x,    // [M, K]  (y, heads merged)
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
    int col = blockIdx.x * TILE + tx;   // output column (embedding feature)
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
"""

KERNELS = [
    "attn_qkv_gemm_kernel",
    "attn_scores_kernel",
    "attn_softmax_kernel",
    "attn_av_kernel",
    "attn_proj_gemm_kernel",
]

TILE = 16               # must equal TILE in the CUDA source
SOFTMAX_BLOCK = 256     # must equal SOFTMAX_BLOCK (the shared buffer size) and be a power of two
N_EMBD = 768            # get_init_inputs() = [768, 8, 0.0, 0.0, 1024]
N_HEAD = 8
ATTN_PDROP = 0.0
RESID_PDROP = 0.0
MAX_SEQLEN = 1024       # size of the causal-mask buffer: T may not exceed it
MAX_GRID_YZ = 65535     # GEMM rows (B*T) are tiled along gridDim.y, (batch, head) pairs along gridDim.z
MAX_BATCH = (MAX_GRID_YZ * TILE) // MAX_SEQLEN    # 1023: B*T/16 <= 65535 blocks for every T <= 1024


def register(K, torch, ctypes):
    import math

    def build(torch):
        # Model.__init__(768, 8, 0.0, 0.0, 1024): c_attn, c_proj (the only RNG draws: each Linear's
        # kaiming-uniform weight then uniform bias), two Dropouts (no parameters), then the causal
        # buffer tril(ones(1024, 1024)).view(1, 1, 1024, 1024), which draws nothing.
        nn = torch.nn
        c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        c_proj = nn.Linear(N_EMBD, N_EMBD)
        mask = torch.tril(torch.ones(MAX_SEQLEN, MAX_SEQLEN)).view(1, 1, MAX_SEQLEN, MAX_SEQLEN)
        return {
            "attn_w": c_attn.weight, "attn_b": c_attn.bias,
            "proj_w": c_proj.weight, "proj_b": c_proj.bias,
            "mask": mask,
        }

    W = K.weights(build)

    def gemm_step(kernel, a, w, b, out):
        M = a.shape[0] * a.shape[1]     # [B, T, K] viewed as [B*T, K]
        Kd = a.shape[2]
        N = w.shape[0]
        return (
            kernel,
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [a, w, b, out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        B, T, C = x.shape
        NH = N_HEAD
        HS = C // NH
        qkv = torch.empty(B, T, 3 * C, device=x.device, dtype=x.dtype)
        att = torch.empty(B, NH, T, T, device=x.device, dtype=x.dtype)
        probs = torch.empty(B, NH, T, T, device=x.device, dtype=x.dtype)
        y = torch.empty(B, T, C, device=x.device, dtype=x.dtype)
        out = torch.empty(B, T, C, device=x.device, dtype=x.dtype)
        attn_dims = [(ctypes.c_int, B), (ctypes.c_int, T), (ctypes.c_int, C), (ctypes.c_int, NH)]
        seq = [
            gemm_step("attn_qkv_gemm_kernel", x, w["attn_w"], w["attn_b"], qkv),
            (
                "attn_scores_kernel",
                (K.cdiv(T, TILE), K.cdiv(T, TILE), B * NH),
                (TILE, TILE, 1),
                [qkv, att],
                attn_dims,
            ),
            (
                "attn_softmax_kernel",
                (B * NH * T, 1, 1),
                (SOFTMAX_BLOCK, 1, 1),
                [att, probs],
                [(ctypes.c_int, B * NH * T), (ctypes.c_int, T)],
            ),
            (
                "attn_av_kernel",
                (K.cdiv(HS, TILE), K.cdiv(T, TILE), B * NH),
                (TILE, TILE, 1),
                [probs, qkv, y],
                attn_dims,
            ),
            gemm_step("attn_proj_gemm_kernel", y, w["proj_w"], w["proj_b"], out),
        ]
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward, op for op, on the same parameters and the same mask buffer.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
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
        return F.dropout(F.linear(y, w["proj_w"], w["proj_b"]), p=RESID_PDROP, training=True)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, seq_len, n_embd)]
        return [torch.rand(s["batch"], s["seq"], N_EMBD)]

    def scaled_inputs(scale):
        def gen(torch, s):
            return [torch.rand(s["batch"], s["seq"], N_EMBD) * scale]

        return gen

    def spiky_inputs(torch, s):
        # Exact zeros with about 5% of the entries U[0, 32), plus every 7th token entirely zero.
        shape = (s["batch"], s["seq"], N_EMBD)
        mask = torch.rand(shape) < 0.05
        spikes = torch.rand(shape) * 32.0
        x = torch.where(mask, spikes, torch.zeros(shape))
        x[:, ::7, :] = 0.0
        return [x]

    return K.substrate(
        name="L3p43_mingpt_causal_attention",
        level=3,
        problem="43_MinGPTCausalAttention",
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
                scaled_inputs(4.0),
                seeds=[1, 2],
                sizes={"batch": 2, "seq": 37},
                small=True,
                purpose="batch 2, seq 37 = 2 x 16 + 5: B*T = 74 GEMM rows miss the 16-row tile, the 37 x 37 "
                "score matrices leave a 5-wide tail of queries and keys (the masked upper triangle crosses "
                "partial tiles), and the 37-long softmax rows leave 219 of the 256 threads idle, so every "
                "row/column guard, tile zero fill, ceil-division and reduction identity matters; x = U[0,4) "
                "(as in T2) makes the outputs ~4x larger than at U[0,1), so this cheap CPU suite also sees "
                "value faults",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(8.0),
                seeds=[3, 4],
                sizes={"batch": 4, "seq": 300},
                purpose="same-sign x = U[0,8): q.k logits grow ~64x, so the softmax is peaked (a missing max "
                "subtraction or 1/sqrt(96) scale, or a wrong mask, shows) and the outputs reach |y| ~6 with a "
                "spread across tokens ~20x the U[0,1) one (~0.02, near the 1e-2 atol); the fp32 reference stays "
                "within ~7e-6 of fp64 (measured on the CPU), far inside the ceiling; seq 300 = 18 x 16 + 12 "
                "and 300 = 256 + 44 gives a second softmax stride with a partial tail",
            ),
            K.suite(
                "T3_sparse_long",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 1, "seq": MAX_SEQLEN},
                purpose="seq 1024, the full extent of the causal buffer (4 full softmax strides, the last query "
                "attending to all 1024 keys), with sparse inputs: exact zeros except ~5% U[0,32) spikes, and "
                "every 7th token all zero (its q, k, v are the biases alone), so individual keys stand out in "
                "the softmax and a wrong key/value index or head offset moves specific outputs instead of being "
                "averaged away; outputs vary across tokens by ~1.0 (mean |y| ~0.8), and the fp32 reference "
                "stays within ~1e-5 of fp64 (measured on the CPU)",
            ),
        ],
        notes="Dropouts have p = 0.0 (identity in training mode; ref calls F.dropout with p = 0 as the module "
        "does). The head size 96 = 6 x 16 and the embedding 768 / 2304 are multiples of the tile, so the "
        "d < HS, k < K and N guards never fire: mutants confined to them are equivalent; only B*T and T "
        "have remainders (T1, T2). The causal mask is the comparison j > i; the mask buffer is kept in W "
        "only for ref. The official scores tensor has 128 x 8 x 512 x 512 = 2.7e8 < 2^31 elements, so "
        "32-bit-offset mutants in the attention kernels do not overflow on any suite. Both attention "
        "products run over the full T x T square (the masked half contributes exact zeros). At the "
        "official U[0,1) scale the outputs are |y| <= ~0.7 and vary across tokens by only ~0.02, so a "
        "fault in the softmax or the probs @ v product that keeps the rows near a uniform average can "
        "pass T0 at 1e-2; T2 is the discriminating suite.",
    )
