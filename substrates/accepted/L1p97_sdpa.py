"""KernelBench level 1, problem 97_ScaledDotProductAttention:
out = torch.nn.functional.scaled_dot_product_attention(Q, K, V) with Q, K, V 32 x 32 x 512 x 1024 in fp16.

The call uses every default: no mask, dropout_p = 0, not causal, scale = 1 / sqrt(E) with E = 1024
the last dimension of Q. So out[b, h] = softmax(Q[b, h] K[b, h]^T / sqrt(D), dim=-1) V[b, h].

Dtypes as in KernelBench v0.1, whose get_inputs() draws Q, K, V as fp16 on the GPU and whose harness
casts nothing: the kernel reads `__half` Q, K, V, converts each element to float as it stages it in
shared memory, keeps everything in fp32 (the scores, the softmax max and sum, the P V products) and
writes `__half` output, rounded once at the store (__float2half, round to nearest even).

One kernel, one 16 x 16 block per (tile of 16 query rows, head, batch). Thread (tx, ty) works for
query row q0 + ty throughout, in three phases:

  1. scores: for each tile of 16 keys, a 16 x 16 shared-memory tiled dot product over the head
     dimension (a Q tile and a transposed K tile per phase, converted to float on the load, a barrier
     after the loads and another after the multiply-accumulate); the scaled score of key j0 + tx goes
     to the block's shared row scores[ty][...], which holds the whole key sequence (L <= MAX_SEQ = 512).
  2. softmax statistics, per row: the 16 threads of a row take a strided running max, reduced
     through a shared 16-wide tree; then each replaces its scores by expf(score - max) (exact zeros
     for the padded keys past L) and sums them, reduced through a second tree.
  3. output: for each tile of 16 head-dimension columns, a tiled product of the shared probabilities
     with V tiles staged in shared memory as float (barrier after the load, barrier after the use),
     divided by the row sum and rounded to fp16 on the store.

Query-row, key and head-dimension tails are guarded and zero-filled, so any L <= 512 and any D work.
Flat offsets are 64-bit (the official tensors hold 2^29 elements each, 1 GiB in fp16).

Cost: Q K^T and P V are each 2 x 1024 heads x 512 x 512 x 1024 = 550 GFLOP, 1.1 TFLOP in all, run as
16 x 16 shared-memory tiled fp32 products (~5-6 TFLOP/s on an H200): about 0.2 s per forward, the
fp16 loads hardly changing that (the time goes into the shared-memory multiply-accumulate loops).
Each block re-reads its head's K and V (1 MiB each in fp16) and its Q rows once per key tile
(1 MiB) from L2, 96 GiB of L2 reads in all; DRAM traffic is about 4 GiB (3 GiB of fp16 inputs read
once, 1 GiB of fp16 output written), half the fp32 version's, as long as a head's K and V stay in L2
while its 32 blocks run (blockIdx.x, the query tile, varies fastest, so they run together).
"""

CUDA = r"""
#include <cuda_fp16.h>

const int TQ = 16;                              // query rows per block (blockDim.y)
const int TK = 16;                              // keys per score tile and columns per output tile (blockDim.x)
const int MAX_SEQ = 512;                        // longest key sequence a shared score row holds (a multiple of TK)
const int SCORE_STRIDE = MAX_SEQ + 1;           // padded row stride of the score rows (no bank conflicts)
const float NEG_SENTINEL = -3.402823466e+38f;   // -FLT_MAX: identity of the max reduction

extern "C" __global__ void sdpa_kernel(
    const __half* __restrict__ Q,   // [B, H, L, D]
    const __half* __restrict__ K,   // [B, H, L, D]
    const __half* __restrict__ V,   // [B, H, L, D]
    __half* __restrict__ out,       // [B, H, L, D]
    int B, int H, int L, int D)
{
    __shared__ float scores[TQ][SCORE_STRIDE];  // scores, then expf(score - max), of this block's query rows
    __shared__ float qs[TQ][TK];                // qs[r][d] = Q[b, h, q0 + r, d0 + d]  (tiles hold floats)
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
    const __half* Qh = Q + head_offset;         // [L, D] slices of this (batch, head)
    const __half* Kh = K + head_offset;
    const __half* Vh = V + head_offset;
    __half* Oh = out + head_offset;
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
                qs[ty][tx] = __half2float(Qh[(long long)q_row * D + d]);
            } else {
                qs[ty][tx] = 0.0f;
            }
            if (k_row < L && d < D) {
                ks[tx][ty] = __half2float(Kh[(long long)k_row * D + d]);
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
                vs[ty][tx] = __half2float(Vh[(long long)v_row * D + d]);
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
            Oh[(long long)q_row * D + d] = __float2half(acc / row_sum);   // the one rounding to fp16
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
        # Model.forward: fp16 in, fp16 out as in v0.1; the gate's fp64 evaluation runs the same call.
        Q, Kt, V = inputs
        return torch.nn.functional.scaled_dot_product_attention(Q, Kt, V)

    def shape(s):
        return (s["batch"], s["heads"], s["seq"], s["dim"])

    def half_rand(torch, s):
        return torch.rand(*shape(s), dtype=torch.float16)

    def rand_inputs(torch, s):
        # v0.1's get_inputs(): Q, K, V = torch.rand(batch, heads, seq, dim, device='cuda',
        # dtype=torch.float16) each, in that order. The suite is on_device: the runner makes the run's
        # device the default one, so these draw on the GPU from CUDA's generator, as v0.1 does.
        Q = half_rand(torch, s)
        Kt = half_rand(torch, s)
        V = half_rand(torch, s)
        return [Q, Kt, V]

    def signed_inputs(torch, s):
        # Q, K ~ U[-3, 3): scores of std 3 whatever the head dimension (peaked rows); V ~ U[-1, 1).
        Q = half_rand(torch, s) * 6.0 - 3.0
        Kt = half_rand(torch, s) * 6.0 - 3.0
        V = half_rand(torch, s) * 2.0 - 1.0
        return [Q, Kt, V]

    def large_score_inputs(torch, s):
        # Q, K ~ U[0, 8): same-sign scores q.k / sqrt(D) of mean 16 sqrt(D) (128 at D = 64), spread ~11
        # within a row: expf overflows without the max subtraction, and a few keys dominate each row.
        Q = half_rand(torch, s) * 8.0
        Kt = half_rand(torch, s) * 8.0
        V = half_rand(torch, s) * 2.0 - 1.0
        return [Q, Kt, V]

    def full_length_inputs(torch, s):
        # Q, K ~ U[0, 4): at D = 1024 the scores are ~128 with a spread of ~2.7 within a row (the official
        # U[0,1) gives ~8 and ~0.17: nearly uniform attention); V ~ U[-1, 1), a cancelling weighted sum.
        Q = half_rand(torch, s) * 4.0
        Kt = half_rand(torch, s) * 4.0
        V = half_rand(torch, s) * 2.0 - 1.0
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
                on_device=True,
                purpose="v0.1's get_inputs() under the v0.1 trial seeds: fp16 U[0,1) drawn on the GPU from "
                "CUDA's generator (nearly uniform attention: see notes)",
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
                "cancelling output (summed in fp32, so the cancellation costs no precision), so a wrong scale, "
                "max, sum or key index shows at 1e-2; fp16 in and out: fp16 vs fp64 reference ~2e-4",
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
                "well conditioned, so a correct kernel (fp16 in and out, fp32 inside) stays far inside 1e-2 of "
                "the fp64 reference (fp16 vs fp64 reference ~2e-4, the output rounding)",
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
                "last key tile, half the head dimension or its last tile in Q.K all miss by 33-92x the 1e-2 "
                "allowance here while passing T0_original; fp16 vs fp64 reference ~2e-4",
            ),
        ],
        notes="T0_original follows KernelBench v0.1: its get_inputs() draws Q, K, V with torch.rand(..., "
        "device='cuda', dtype=torch.float16), so the suite is on_device (drawn on the GPU from CUDA's "
        "generator after set_seed) and fp16, the harness casts nothing, the reference is fp16 SDPA and "
        "the check is allclose at 1e-2 on fp16 tensors; the kernel therefore reads and writes fp16 (fp32 "
        "inside). The targeted suites are fp16 too but drawn on the CPU (on_device=False). "
        "HEAD differs (changelog v0.2): its get_inputs() drops device and dtype, drawing fp32 from the CPU "
        "generator, and HEAD's harness checks fp32 at 1e-4. So T0_original here and HEAD's official inputs "
        "are different tensors (another generator and dtype: nothing matches element for element), the "
        "reference differs (fp16 SDPA here, fp32 at HEAD), and this fp16-output kernel could not pass a "
        "HEAD-style fp32 check at 1e-4 (its output rounding alone is ~5e-4 relative): results on this "
        "substrate compare with v0.1 only, not with HEAD or with this substrate's earlier fp32 version. "
        "Near-degenerate at the official inputs: Q, K, V ~ U[0,1) with D = 1024 give scores q.k / 32 "
        "of about 8 that vary by only ~0.16 along a row, so every softmax row is close to uniform (weights "
        "0.5 to 2.3 times 1/512) and every output is close to the mean of V's column (0.5, std ~0.013). "
        "Measured on 8 heads of fp16 U[0,1) at L = 512, D = 1024 (drawn on the CPU, the same distribution "
        "as the official GPU draw but not its values), a variant computed in fp64 and rounded to fp16 "
        "against the fp16 reference, T0_original cannot see: ignoring the softmax (uniform attention, 0.75 "
        "of the 1e-2 allowance at worst), a 1/D scale instead of 1/sqrt(D) (0.71), twice the scale (0.80), "
        "a dropped last key tile (0.65), dropping half the head dimension from Q.K (0.50) or its last tile "
        "(0.10), and a missing max subtraction (scores ~9 never overflow); it does see an omitted scale "
        "(53x) and V rows shifted by one key (barely: 1.08x on 1.4e-6 of the elements). T3_full_length "
        "repeats the official L and D with inputs that see all of these. "
        "The shared score rows hold at most MAX_SEQ = 512 keys, hence the declared maximum of seq. "
        "Q, K and V always have equal shapes here (as in get_inputs()), so one L serves queries and keys.",
    )
