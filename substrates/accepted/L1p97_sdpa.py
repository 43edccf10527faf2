"""KernelBench level 1, problem 97_ScaledDotProductAttention:
out = torch.nn.functional.scaled_dot_product_attention(Q, K, V) with Q, K, V 32 x 32 x 512 x 1024.

The call uses every default: no mask, dropout_p = 0, not causal, scale = 1 / sqrt(E) with E = 1024
the last dimension of Q. So out[b, h] = softmax(Q[b, h] K[b, h]^T / sqrt(D), dim=-1) V[b, h].

One kernel, one 16 x 16 block per (tile of 16 query rows, head, batch). Thread (tx, ty) works for
query row q0 + ty throughout, in three phases:

  1. scores: for each tile of 16 keys, a 16 x 16 shared-memory tiled dot product over the head
     dimension (a Q tile and a transposed K tile per phase, a barrier after the loads and another
     after the multiply-accumulate); the scaled score of key j0 + tx goes to the block's shared row
     scores[ty][...], which holds the whole key sequence (L <= MAX_SEQ = 512).
  2. softmax statistics, per row: the 16 threads of a row take a strided running max, reduced
     through a shared 16-wide tree; then each replaces its scores by expf(score - max) (exact zeros
     for the padded keys past L) and sums them, reduced through a second tree.
  3. output: for each tile of 16 head-dimension columns, a tiled product of the shared probabilities
     with V tiles staged in shared memory (barrier after the load, barrier after the use), divided by
     the row sum on the store.

Query-row, key and head-dimension tails are guarded and zero-filled, so any L <= 512 and any D work.
Flat offsets are 64-bit (the official tensors hold 2^29 elements each).

Cost: Q K^T and P V are each 2 x 1024 heads x 512 x 512 x 1024 = 550 GFLOP, 1.1 TFLOP in all, run as
16 x 16 shared-memory tiled products (~5-6 TFLOP/s on an H200): about 0.2 s per forward (the
reference, a fused attention kernel, takes 24.8 ms). Each block re-reads its head's K and V (2 MB
each) and its Q rows once per key tile from L2; DRAM traffic is about 8 GB.
"""

CUDA = r"""
const int TQ = 16;                              // query rows per block (blockDim.y)
const int TK = 16;                              // keys per score tile and columns per output tile (blockDim.x)
const int MAX_SEQ = 512;                        // longest key sequence a shared score row holds (a multiple of TK)
const int SCORE_STRIDE = MAX_SEQ + 1;           // padded row stride of the score rows (no bank conflicts)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction

extern "C" __global__ void sdpa_kernel(
    const float* __restrict__ Q,    // [B, H, L, D]
    const float* __restrict__ K,    // [B, H, L, D]
    const float* __restrict__ V,    // [B, H, L, D]
    float* __restrict__ out,        // [B, H, L, D]
    int B, int H, int L, int D)
{
    __shared__ float scores[TQ][SCORE_STRIDE];  // scores, then expf(score - max), of this block's query rows
    __shared__ float qs[TQ][TK];                // qs[r][d] = Q[b, h, q0 + r, d0 + d]
    __shared__ float ks[TK][TK];                // ks[d][c] = K[b, h, j0 + c, d0 + d]  (stored transposed)
    __shared__ float vs[TK][TK];                // vs[c][d] = V[b, h, j0 + c, d0 + d]
    __shared__ float red[TQ][TK];               // per-row reduction buffer

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int h = blockIdx.y;                         // head
    int b = blockIdx.z;                         // batch
    if (b >= B || h >= H) return;
    int q_row = blockIdx.x * TQ + ty;           // the query row of this thread
    long long head_offset = ((long long)b * H + h) * L * D;
    const float* Qh = Q + head_offset;          // [L, D] slices of this (batch, head)
    const float* Kh = K + head_offset;
    const float* Vh = V + head_offset;
    float* Oh = out + head_offset;
    float scale = 1.0f / sqrtf((float)D);       // the default scale 1 / sqrt(E)

    // Phase 1: scores[ty][j] = (Q[q_row, :] . K[j, :]) * scale for every key j < L.
    int num_d_tiles = (D + TK - 1) / TK;
    for (int j0 = 0; j0 < L; j0 += TK) {
        int j = j0 + tx;                        // the key whose score this thread accumulates
        int k_row = j0 + ty;                    // the key row this thread loads into the tile
        float acc = 0.0f;
        for (int t = 0; t < num_d_tiles; ++t) {
            int d = t * TK + tx;
            if (q_row < L && d < D) {
                qs[ty][tx] = Qh[(long long)q_row * D + d];
            } else {
                qs[ty][tx] = 0.0f;
            }
            if (k_row < L && d < D) {
                ks[tx][ty] = Kh[(long long)k_row * D + d];
            } else {
                ks[tx][ty] = 0.0f;
            }
            __syncthreads();    // both tiles are loaded
            for (int dd = 0; dd < TK; ++dd) {
                acc += qs[ty][dd] * ks[dd][tx];
            }
            __syncthreads();    // everyone is done with the tiles before the next load
        }
        if (j < L) {
            scores[ty][j] = acc * scale;
        }
    }
    __syncthreads();    // every score of the block's rows is written

    // Phase 2a: row max over the L scores of row ty (16 threads per row, then a 16-wide tree).
    float thread_max = NEG_SENTINEL;
    for (int j = tx; j < L; j += TK) {
        thread_max = fmaxf(thread_max, scores[ty][j]);
    }
    red[ty][tx] = thread_max;
    __syncthreads();
    for (int s = TK / 2; s > 0; s >>= 1) {
        if (tx < s) {
            red[ty][tx] = fmaxf(red[ty][tx], red[ty][tx + s]);
        }
        __syncthreads();
    }
    float row_max = red[ty][0];
    __syncthreads();    // every thread has read red before phase 2b overwrites it

    // Phase 2b: unnormalised probabilities expf(score - max) in place, exact zeros for the padded
    // keys L .. L_pad - 1 of the last key tile, and their row sum through a second tree.
    int L_pad = ((L + TK - 1) / TK) * TK;
    float thread_sum = 0.0f;
    for (int j = tx; j < L_pad; j += TK) {
        float p = 0.0f;
        if (j < L) {
            p = expf(scores[ty][j] - row_max);
        }
        scores[ty][j] = p;
        thread_sum += p;
    }
    red[ty][tx] = thread_sum;
    __syncthreads();
    for (int s = TK / 2; s > 0; s >>= 1) {
        if (tx < s) {
            red[ty][tx] = red[ty][tx] + red[ty][tx + s];
        }
        __syncthreads();
    }
    float row_sum = red[ty][0];

    // Phase 3: out[q_row, d] = sum_j p[ty][j] * V[j, d] / row_sum, one 16-column tile of D at a time.
    for (int d0 = 0; d0 < D; d0 += TK) {
        int d = d0 + tx;                        // the output column of this thread
        float acc = 0.0f;
        for (int j0 = 0; j0 < L; j0 += TK) {
            int v_row = j0 + ty;                // the V row this thread loads into the tile
            if (v_row < L && d < D) {
                vs[ty][tx] = Vh[(long long)v_row * D + d];
            } else {
                vs[ty][tx] = 0.0f;
            }
            __syncthreads();    // the V tile is loaded (and, the first time, every probability)
            for (int jj = 0; jj < TK; ++jj) {
                acc += scores[ty][j0 + jj] * vs[jj][tx];
            }
            __syncthreads();    // everyone is done with the V tile before the next load
        }
        if (q_row < L && d < D) {
            Oh[(long long)q_row * D + d] = acc / row_sum;
        }
    }
}
"""

TQ = 16                 # must equal TQ in the CUDA source (blockDim.y)
TK = 16                 # must equal TK in the CUDA source (blockDim.x)
MAX_SEQ = 512           # must equal MAX_SEQ in the CUDA source
MAX_GRID_YZ = 65535     # heads along gridDim.y, batch along gridDim.z


def register(K, torch, ctypes):
    def launch(inputs, torch):
        Q, Kt, V = inputs
        B, H, L, D = Q.shape
        out = torch.empty_like(Q)
        return (
            "sdpa_kernel",
            (K.cdiv(L, TQ), H, B),
            (TK, TQ, 1),
            [Q, Kt, V, out],
            [(ctypes.c_int, B), (ctypes.c_int, H), (ctypes.c_int, L), (ctypes.c_int, D)],
        )

    def ref(inputs, torch):
        Q, Kt, V = inputs
        return torch.nn.functional.scaled_dot_product_attention(Q, Kt, V)

    def shape(s):
        return (s["batch"], s["heads"], s["seq"], s["dim"])

    def rand_inputs(torch, s):
        # get_inputs(): Q, K, V = torch.rand(batch, heads, seq, dim) each, in that order
        Q = torch.rand(*shape(s))
        Kt = torch.rand(*shape(s))
        V = torch.rand(*shape(s))
        return [Q, Kt, V]

    def signed_inputs(torch, s):
        # Q, K ~ U[-3, 3): scores of std 3 whatever the head dimension (peaked rows); V ~ U[-1, 1).
        Q = torch.rand(*shape(s)) * 6.0 - 3.0
        Kt = torch.rand(*shape(s)) * 6.0 - 3.0
        V = torch.rand(*shape(s)) * 2.0 - 1.0
        return [Q, Kt, V]

    def large_score_inputs(torch, s):
        # Q, K ~ U[0, 8): same-sign scores q.k / sqrt(D) of mean 16 sqrt(D) (128 at D = 64), spread ~11
        # within a row: expf overflows without the max subtraction, and a few keys dominate each row.
        Q = torch.rand(*shape(s)) * 8.0
        Kt = torch.rand(*shape(s)) * 8.0
        V = torch.rand(*shape(s)) * 2.0 - 1.0
        return [Q, Kt, V]

    def full_length_inputs(torch, s):
        # Q, K ~ U[0, 4): at D = 1024 the scores are ~128 with a spread of ~2.7 within a row (the official
        # U[0,1) gives ~8 and ~0.17: nearly uniform attention); V ~ U[-1, 1), a cancelling weighted sum.
        Q = torch.rand(*shape(s)) * 4.0
        Kt = torch.rand(*shape(s)) * 4.0
        V = torch.rand(*shape(s)) * 2.0 - 1.0
        return [Q, Kt, V]

    return K.substrate(
        name="L1p97_sdpa",
        level=1,
        problem="97_ScaledDotProductAttention",
        cuda=CUDA,
        kernel_name="sdpa_kernel",
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(32, max=MAX_GRID_YZ),
            "heads": K.dim(32, max=MAX_GRID_YZ),
            "seq": K.dim(512, max=MAX_SEQ),
            "dim": K.dim(1024),
        },
        suites=[
            K.suite(
                "T0_original",
                rand_inputs,
                purpose="the official get_inputs() under the v0.1 trial seeds (nearly uniform attention: see notes)",
            ),
            K.suite(
                "T1_remainder",
                signed_inputs,
                seeds=[1, 2],
                sizes={"batch": 2, "heads": 3, "seq": 37, "dim": 40},
                small=True,
                purpose="L = 37 = 2 x 16 + 5 and D = 40 = 2 x 16 + 8: the last query tile has 5 live rows, the "
                "last key tile 5 live keys (their zero probabilities and the key guards matter) and the last "
                "head-dimension tile 8 live columns; 2 batches x 3 heads so batch/head offsets and a b/h swap "
                "matter; Q, K ~ U[-3,3) give scores of std 3 (peaked, sign-mixed rows) and V ~ U[-1,1) a "
                "cancelling output, so a wrong scale, max, sum or key index shows at 1e-2",
            ),
            K.suite(
                "T2_large_scores",
                large_score_inputs,
                seeds=[3, 4],
                sizes={"batch": 1, "heads": 4, "seq": 100, "dim": 64},
                purpose="same-sign Q, K ~ U[0,8) at D = 64: scores ~128 (spread ~11 within a row) exceed expf's fp32 range "
                "(88.7), so a kernel that drops the max subtraction overflows to inf/NaN, and every row is "
                "dominated by one or a few keys, so a wrong key index, a skipped key tile or a missing scale "
                "picks the wrong V rows (V ~ U[-1,1)); L = 100 = 6 x 16 + 4 is a remainder; the softmax is "
                "well conditioned, so a correct fp32 kernel stays far inside 1e-2 of the fp64 reference",
            ),
            K.suite(
                "T3_full_length",
                full_length_inputs,
                seeds=[5, 6],
                sizes={"batch": 1, "heads": 2, "seq": 512, "dim": 1024},
                purpose="the official sequence length and head dimension (L = 512 = MAX_SEQ fills the shared "
                "score rows and all 32 key tiles; D = 1024 runs all 64 head-dimension tiles) with Q, K ~ U[0,4): "
                "scores ~128 with a spread of ~2.7 within a row, so attention is far from uniform and expf "
                "overflows without the max subtraction; V ~ U[-1,1). Uniform attention, a 1/D scale, a dropped "
                "key tile or head-dimension tile all miss by 7-90x the 1e-2 allowance here while passing "
                "T0_original; fp32 vs fp64 reference ~2e-5",
            ),
        ],
        notes="Near-degenerate at the official inputs: Q, K, V ~ U[0,1) with D = 1024 give scores q.k / 32 "
        "of about 8 that vary by only ~0.17 along a row, so every softmax row is close to uniform (weights "
        "0.4 to 2.2 times 1/512) and every output is close to the mean of V's column (0.5, std ~0.013). "
        "Measured on 8 official heads, T0_original cannot see: ignoring the softmax (uniform attention, "
        "0.72 of the 1e-2 allowance at worst), a 1/D scale instead of 1/sqrt(D) (0.70), twice the scale "
        "(0.80), a dropped last key tile (0.60), dropping half the head dimension from Q.K (0.49), and a "
        "missing max subtraction (scores ~8 never overflow); it does see an omitted scale (52x) and V "
        "rows shifted by one key (barely: 1.09x on 2e-6 of the elements). T3_full_length repeats the "
        "official L and D with inputs that see all of these. "
        "The shared score rows hold at most MAX_SEQ = 512 keys, hence the declared maximum of seq. "
        "Q, K and V always have equal shapes here (as in get_inputs()), so one L serves queries and keys. "
        "At HEAD get_inputs() draws fp32 CPU tensors (reproduced here); KernelBench v0.1 drew them as "
        "fp16 on the GPU (changelog v0.2).",
    )
