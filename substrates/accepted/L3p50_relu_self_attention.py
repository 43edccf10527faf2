"""KernelBench level 3, problem 50_ReLUSelfAttention: minGPT-style causal self-attention with ReLU in
place of the softmax (n_embd 768, 12 heads of 64, causal mask from a 1024 x 1024 buffer) on
x 16 x 1024 x 768. The forward applies no output projection.

A pipeline of four kernels, one per layer:

    c_attn    qkv = x @ W_attn^T + b_attn                  [B,T,768] -> [B,T,2304]  (q | k | v)
    scores    att = (q @ k^T) / sqrt(64), -inf where j > i  -> [B,12,T,T]
    relu      att = relu(att)  (relu(-inf) = 0)             -> [B,12,T,T]
    av        y = att @ v, heads merged                     -> [B,T,768]  (the output)

The split into q, k, v, the view into heads, the transposes and the final
transpose(1, 2).contiguous().view(B, T, C) are index arithmetic: the scores and av kernels read
q, k and v straight out of the [B, T, 3C] c_attn output (q at columns h*64 + d, k at 768 + h*64 + d,
v at 1536 + h*64 + d), and av writes head h's output to columns h*64 .. h*64 + 63. The causal mask
is the comparison j > i, exactly where the official tril(ones(1024, 1024))[:T, :T] buffer holds 0.
The three matrix products are plain 16 x 16 shared-memory tiled GEMMs (guarded, zero-filled tile
loads, a barrier after the loads and another after the multiply-accumulate); the attention products
are batched over (batch, head) through blockIdx.z. The ReLU is one thread per score over a 64-bit
flat index.

Model.__init__ also creates c_proj (Linear 768 -> 768), which forward never uses; the weight builder
creates it too so that the RNG stream, and with it every other parameter, matches.

Cost on the official input (B*T = 16384 tokens): c_attn 58 GFLOP, q k^T 26 GFLOP and att v 26 GFLOP
(both over the full T x T square): about 110 GFLOP, plus 2 x 0.8 GB of fp32 scores through the
ReLU. The same 16 x 16 tiled GEMM runs at about 6.4 TFLOP/s on an H200 in L3p1_mlp (172 GFLOP in
27 ms), so expect roughly 20-40 ms per forward.
"""

CUDA = r"""
const int TILE = 16;                                // GEMM tile edge: blocks are TILE x TILE threads

// Layer 1 (c_attn): qkv = x @ W^T + b, x viewed as [M = B*T, K = C], qkv as [M, N = 3C]
extern "C" __global__ void relu_attn_qkv_gemm_kernel(
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
extern "C" __global__ void relu_attn_scores_kernel(
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

// Layer 3 (relu in place of softmax): r = max(att, 0), so masked -inf scores become 0
extern "C" __global__ void relu_attn_relu_kernel(
    const float* __restrict__ att,  // [B, NH, T, T]
    float* __restrict__ r,          // [B, NH, T, T]
    long long n)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    float v = att[idx];
    r[idx] = v > 0.0f ? v : 0.0f;
}

// Layer 4 (av): y[b, i, h*HS + d] = sum_j r[b, h, i, j] * v[b, j, h, d]  (heads merged on store)
extern "C" __global__ void relu_attn_av_kernel(
    const float* __restrict__ r,        // [B, NH, T, T]
    const float* __restrict__ qkv,      // [B, T, 3C]: v at column 2C + h*HS + d
    float* __restrict__ y,              // [B, T, C]
    int B, int T, int C, int NH)
{
    __shared__ float rs[TILE][TILE];    // rs[r][c] = r[b, h, i0 + r, j0 + c]
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
    const float* r_base = r + (long long)bh * T * T;
    const float* v_base = qkv + (long long)b * T * row_stride + 2LL * C + (long long)h * HS;

    float acc = 0.0f;
    int num_tiles = (T + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int jr = t * TILE + tx;         // key position of the score this thread loads
        int jv = t * TILE + ty;         // key position of the v row this thread loads
        if (i < T && jr < T) {
            rs[ty][tx] = r_base[(long long)i * T + jr];
        } else {
            rs[ty][tx] = 0.0f;
        }
        if (jv < T && d < HS) {
            vs[ty][tx] = v_base[(long long)jv * row_stride + d];
        } else {
            vs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int jj = 0; jj < TILE; ++jj) {
            acc += rs[ty][jj] * vs[jj][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (i < T && d < HS) {
        y[((long long)b * T + i) * C + (long long)h * HS + d] = acc;
    }
}
"""

KERNELS = [
    "relu_attn_qkv_gemm_kernel",
    "relu_attn_scores_kernel",
    "relu_attn_relu_kernel",
    "relu_attn_av_kernel",
]

TILE = 16               # must equal TILE in the CUDA source
RELU_BLOCK = 256        # relu kernel: 1D blocks over the flat score index
N_EMBD = 768            # get_init_inputs() = [768, 12, 1024]
N_HEAD = 12
MAX_SEQLEN = 1024       # size of the causal-mask buffer: T may not exceed it (official T = 1024)
MAX_GRID_YZ = 65535     # GEMM rows (B*T) are tiled along gridDim.y, (batch, head) pairs along gridDim.z
MAX_BATCH = (MAX_GRID_YZ * TILE) // MAX_SEQLEN    # 1023: B*T/16 <= 65535 blocks for every T <= 1024


def register(K, torch, ctypes):
    import math

    def build(torch):
        # Model.__init__(768, 12, 1024): c_attn, then c_proj (created although forward never uses it:
        # its kaiming-uniform weight and uniform bias are RNG draws), then the causal buffer
        # tril(ones(1024, 1024)).view(1, 1, 1024, 1024), which draws nothing.
        nn = torch.nn
        c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        c_proj = nn.Linear(N_EMBD, N_EMBD)   # unused by forward; kept for the RNG stream
        del c_proj
        mask = torch.tril(torch.ones(MAX_SEQLEN, MAX_SEQLEN)).view(1, 1, MAX_SEQLEN, MAX_SEQLEN)
        return {"attn_w": c_attn.weight, "attn_b": c_attn.bias, "mask": mask}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        B, T, C = x.shape
        NH = N_HEAD
        HS = C // NH
        M = B * T
        N = w["attn_w"].shape[0]
        qkv = torch.empty(B, T, N, device=x.device, dtype=x.dtype)
        att = torch.empty(B, NH, T, T, device=x.device, dtype=x.dtype)
        r = torch.empty(B, NH, T, T, device=x.device, dtype=x.dtype)
        y = torch.empty(B, T, C, device=x.device, dtype=x.dtype)
        n_scores = B * NH * T * T
        attn_dims = [(ctypes.c_int, B), (ctypes.c_int, T), (ctypes.c_int, C), (ctypes.c_int, NH)]
        seq = [
            (
                "relu_attn_qkv_gemm_kernel",
                (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
                (TILE, TILE, 1),
                [x, w["attn_w"], w["attn_b"], qkv],
                [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, C)],
            ),
            (
                "relu_attn_scores_kernel",
                (K.cdiv(T, TILE), K.cdiv(T, TILE), B * NH),
                (TILE, TILE, 1),
                [qkv, att],
                attn_dims,
            ),
            (
                "relu_attn_relu_kernel",
                (K.cdiv(n_scores, RELU_BLOCK), 1, 1),
                (RELU_BLOCK, 1, 1),
                [att, r],
                [(ctypes.c_longlong, n_scores)],
            ),
            (
                "relu_attn_av_kernel",
                (K.cdiv(HS, TILE), K.cdiv(T, TILE), B * NH),
                (TILE, TILE, 1),
                [r, qkv, y],
                attn_dims,
            ),
        ]
        return {"seq": seq, "out": y}

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
        att = F.relu(att)
        y = att @ v
        return y.transpose(1, 2).contiguous().view(B, T, C)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, max_seqlen, n_embd)]
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
        name="L3p50_relu_self_attention",
        level=3,
        problem="50_ReLUSelfAttention",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(16, max=MAX_BATCH),
            "seq": K.dim(MAX_SEQLEN, max=MAX_SEQLEN),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs(2.0),
                seeds=[1, 2],
                sizes={"batch": 2, "seq": 37},
                small=True,
                purpose="batch 2, seq 37 = 2 x 16 + 5: B*T = 74 GEMM rows miss the 16-row tile, the 37 x 37 "
                "score matrices leave a 5-wide tail of queries and keys (the masked triangle crosses partial "
                "tiles), and the 32856 scores miss the 256-thread relu block, so every guard, tile zero "
                "fill and ceil-division matters; x = U[0,2) makes the outputs ~8x the U[0,1) ones (mean |y| "
                "~2, far above the 1e-2 atol at this short sequence) so value faults show",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(4.0),
                seeds=[3, 4],
                sizes={"batch": 2, "seq": 300},
                purpose="same-sign x = U[0,4): scores grow ~16x (|score| up to ~9) and the outputs ~64x (up to "
                "~5e3), so the check is purely relative (rtol 1e-2) for nearly every element and a lost "
                "score, a wrong scale or a mask fault cannot hide under the atol; 37% of the unmasked scores "
                "stay negative (ReLU still clips), and the fp32 reference stays within ~5e-5 of fp64 "
                "(measured on the CPU), far inside the ceiling; seq 300 = 18 x 16 + 12",
            ),
            K.suite(
                "T3_sparse_long",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 1, "seq": 1000},
                purpose="seq 1000 = 62 x 16 + 8, near the 1024 limit of the causal buffer, with a partial tile "
                "at the end of every long score row and of the av reduction; sparse inputs: exact zeros "
                "except ~2% U[0,16) spikes, and every 7th token all zero (its q, k, v are the biases alone), "
                "so individual keys dominate the ReLU scores and a wrong key/value index or head offset moves "
                "specific outputs instead of being averaged away",
            ),
        ],
        notes="No softmax: att = relu(masked scores), so masked entries (-inf) become exact zeros and the "
        "outputs are unnormalised sums over up to 1024 keys (|y| up to ~280 at the official U[0,1) input, "
        "so rtol dominates the tolerance). c_proj is created but never applied, as in the official "
        "Model. The ReLU (v > 0 ? v : 0) maps NaN to 0 where torch propagates it; finite inputs are "
        "unaffected. The head size 64 = 4 x 16 and the features 768 / 2304 are multiples of the tile, so "
        "the d < HS, k < K and N guards never fire (equivalent mutants); only B*T and T have remainders "
        "(T1, T2, T3). The causal mask is the comparison j > i; the mask buffer is kept in W only for "
        "ref. Official scores: 16 x 12 x 1024 x 1024 = 2.0e8 < 2^31 elements, so 32-bit offset mutants "
        "do not overflow on any suite.",
    )
