"""KernelBench level 3, problem 47_NetVladNoGhostClusters: NetVLAD pooling with 32 clusters and no ghost
clusters over x 2048 x 100 x 512 (batch B, features per sample N, feature size D).

Model(32, 512, 0), C = K + G = 32 clusters, all kept:
    assignment = x.view(B*N, D) @ clusters                 [B*N, 32]   (clusters: D x 32)
    assignment = BatchNorm1d(32)(assignment)               training mode: batch statistics over the B*N rows
    assignment = softmax(assignment, dim=1)[:, :32]         (the ghost slice keeps every column here)
    a = sum_n assignment[b, n, :] * clusters2               [B, D, K]   (clusters2: 1 x D x K)
    vlad = (assignment^T @ x).transpose(1, 2) - a           [B, D, K]
    vlad = normalize(vlad, dim=1)                           L2 over D for each (b, k), eps 1e-12
    vlad = normalize(vlad.reshape(B, D*K), dim=1)           L2 over the D*K values of each b
returns vlad [B, 16384].

Nine kernels, one per layer:

    netvlad_assign_kernel       x [B*N, D], clusters           -> logits [B*N, C]
    netvlad_bn_stats_kernel     logits                         -> stats [2, C]  (row 0 mean, row 1 biased variance)
    netvlad_bn_kernel           logits, stats                  -> bn [B*N, C]
    netvlad_softmax_kernel      bn                             -> assign [B*N, C]
    netvlad_asum_kernel         assign                         -> a_sum [B, K]   (C = K: no ghost column to skip)
    netvlad_vlad_kernel         assign, x                      -> vlad [B, D, K] (the transpose folded into the store)
    netvlad_residual_kernel     vlad, a_sum, clusters2         -> res [B, D, K]  (vlad - a_sum * clusters2)
    netvlad_intra_norm_kernel   res                            -> intra [B, D, K]
    netvlad_final_norm_kernel   intra                          -> y [B, D*K]

The two matrix products are plain 16 x 16 shared-memory tiled GEMMs (guarded, zero-filled tile loads, a
barrier after the loads and another after the multiply-accumulate, fp32 accumulation); the second is batched
over b along gridDim.z and reads the assignment transposed. The BatchNorm statistics are one 256-thread
block per cluster column (a strided sum through a shared-memory tree for the mean, a second pass of squared
deviations through a second tree for the biased variance). The softmax is one thread per row of 32 (max,
sum of expf(v - max), normalised writes); a_sum, the residual and the BatchNorm normalisation are one thread
per output. Each L2 normalisation is one 256-thread block per vector: a strided sum of squares through a
shared-memory tree, then v / max(sqrt(sum), 1e-12), as F.normalize computes it.

Cost on the official input: 2 x 204800 x 512 x 32 = 6.7 GFLOP for the assignment and 2 x 2048 x 32 x 512 x
100 = 6.7 GFLOP for vlad (a few ms at the 6.4 TFLOP/s of this tiling), about 1 GB of memory traffic (x is 419
MB, read twice): about 5-15 ms per forward.
"""

CUDA = r"""
const int TILE = 16;                                // GEMM tile edge: blocks are TILE x TILE threads
const int RED_BLOCK = 256;                          // threads per block of every block reduction
const float NEG_SENTINEL = -3.402823466e+38f;       // -FLT_MAX: identity of the max reduction
const float BN_EPS = 1e-5f;                         // nn.BatchNorm1d default eps
const float NORM_EPS = 1e-12f;                      // F.normalize default eps

// Layer 1: logits = x.view(B*N, D) @ clusters  (clusters is [D, C], not transposed)
extern "C" __global__ void netvlad_assign_kernel(
    const float* __restrict__ x,        // [M, Kd]  (M = B*N rows, Kd = D)
    const float* __restrict__ w,        // [Kd, C]
    float* __restrict__ out,            // [M, C]
    int M, int Kd, int C)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[k0 + k, col0 + c]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.x * TILE + ty;   // (sample, feature) row b * N + n
    int col = blockIdx.y * TILE + tx;   // cluster

    float acc = 0.0f;
    int num_tiles = (Kd + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int kx = t * TILE + tx;         // the x column this thread loads
        int kw = t * TILE + ty;         // the w row this thread loads
        if (row < M && kx < Kd) {
            xs[ty][tx] = x[(long long)row * Kd + kx];
        } else {
            xs[ty][tx] = 0.0f;
        }
        if (kw < Kd && col < C) {
            ws[ty][tx] = w[(long long)kw * C + col];
        } else {
            ws[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += xs[ty][kk] * ws[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (row < M && col < C) {
        out[(long long)row * C + col] = acc;
    }
}

// Layer 2: BatchNorm1d(C) statistics (training mode): mean and biased variance of each column over the M rows
extern "C" __global__ void netvlad_bn_stats_kernel(
    const float* __restrict__ x,        // [M, C]
    float* __restrict__ stats,          // [2, C]: stats[c] = mean, stats[C + c] = biased variance
    int M, int C)
{
    __shared__ float red[RED_BLOCK];
    int c = blockIdx.x;                 // one block per column
    if (c >= C) return;
    int tid = threadIdx.x;

    // Pass 1: the column sum, strided over the block, then a tree reduction in shared memory.
    float thread_sum = 0.0f;
    for (int r = tid; r < M; r += blockDim.x) {
        thread_sum += x[(long long)r * C + c];
    }
    red[tid] = thread_sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float mean = red[0] / (float)M;
    __syncthreads();    // every thread has read red[0] before pass 2 overwrites it

    // Pass 2: the sum of squared deviations from the mean, same slices, same tree.
    float thread_sq = 0.0f;
    for (int r = tid; r < M; r += blockDim.x) {
        float d = x[(long long)r * C + c] - mean;
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
    if (tid == 0) {
        stats[c] = mean;
        stats[C + c] = red[0] / (float)M;   // biased: divide by the count, as training-mode BN does
    }
}

// Layer 3: BatchNorm1d(C) normalise: bn = (logits - mean) / sqrt(var + eps) * gamma + beta
extern "C" __global__ void netvlad_bn_kernel(
    const float* __restrict__ x,        // [M, C]
    const float* __restrict__ stats,    // [2, C]
    const float* __restrict__ gamma,    // [C]
    const float* __restrict__ beta,     // [C]
    float* __restrict__ out,            // [M, C]
    int M, int C)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)M * C;
    if (i >= total) return;

    int c = (int)(i % C);
    float mean = stats[c];
    float var = stats[C + c];
    float inv_std = 1.0f / sqrtf(var + BN_EPS);
    out[i] = (x[i] - mean) * inv_std * gamma[c] + beta[c];
}

// Layer 4: softmax over the C clusters of each row (with ghost clusters, C > K and they are dropped afterwards)
extern "C" __global__ void netvlad_softmax_kernel(
    const float* __restrict__ x,        // [M, C]
    float* __restrict__ out,            // [M, C]
    int M, int C)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M) return;
    const float* row = x + (long long)r * C;
    float* out_row = out + (long long)r * C;

    float row_max = NEG_SENTINEL;
    for (int c = 0; c < C; ++c) {
        row_max = fmaxf(row_max, row[c]);
    }
    float row_sum = 0.0f;
    for (int c = 0; c < C; ++c) {
        row_sum += expf(row[c] - row_max);
    }
    for (int c = 0; c < C; ++c) {
        out_row[c] = expf(row[c] - row_max) / row_sum;
    }
}

// Layer 5: a_sum[b, k] = sum_n assign[b * N + n, k] for the K real clusters
extern "C" __global__ void netvlad_asum_kernel(
    const float* __restrict__ assign,   // [B*N, C]
    float* __restrict__ a_sum,          // [B, K]
    int B, int N, int C, int K)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * K) return;
    int k = i % K;
    int b = i / K;

    float acc = 0.0f;
    for (int n = 0; n < N; ++n) {
        acc += assign[((long long)b * N + n) * C + k];
    }
    a_sum[i] = acc;
}

// Layer 6: vlad[b, d, k] = sum_n assign[b, n, k] * x[b, n, d]  ((assignment^T @ x).transpose(1, 2))
extern "C" __global__ void netvlad_vlad_kernel(
    const float* __restrict__ assign,   // [B, N, C]  (only the first K columns are used)
    const float* __restrict__ x,        // [B, N, D]
    float* __restrict__ vlad,           // [B, D, K]
    int B, int N, int C, int K, int D)
{
    __shared__ float as[TILE][TILE];    // as[n][k] = assign[b, n0 + n, k0 + k]
    __shared__ float xs[TILE][TILE];    // xs[n][d] = x[b, n0 + n, d0 + d]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int b = blockIdx.z;
    int k = blockIdx.x * TILE + tx;     // cluster (column of the output)
    int d = blockIdx.y * TILE + ty;     // feature (row of the output)
    int k_load = blockIdx.x * TILE + tx;    // the assignment column this thread loads
    int d_load = blockIdx.y * TILE + tx;    // the x column this thread loads

    const float* a_base = assign + (long long)b * N * C;
    const float* x_base = x + (long long)b * N * D;

    float acc = 0.0f;
    int num_tiles = (N + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int n = t * TILE + ty;          // the sample row this thread loads in both tiles
        if (n < N && k_load < K) {
            as[ty][tx] = a_base[(long long)n * C + k_load];
        } else {
            as[ty][tx] = 0.0f;
        }
        if (n < N && d_load < D) {
            xs[ty][tx] = x_base[(long long)n * D + d_load];
        } else {
            xs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int nn = 0; nn < TILE; ++nn) {
            acc += as[nn][tx] * xs[nn][ty];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (b < B && d < D && k < K) {
        vlad[((long long)b * D + d) * K + k] = acc;
    }
}

// Layer 7: res = vlad - a, with a[b, d, k] = a_sum[b, k] * clusters2[d, k]
extern "C" __global__ void netvlad_residual_kernel(
    const float* __restrict__ vlad,     // [B, D, K]
    const float* __restrict__ a_sum,    // [B, K]
    const float* __restrict__ c2,       // [D, K]  (clusters2 without its leading 1)
    float* __restrict__ res,            // [B, D, K]
    int B, int D, int K)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)B * D * K;
    if (i >= total) return;

    int k = (int)(i % K);
    int d = (int)((i / K) % D);
    long long b = i / ((long long)K * D);
    res[i] = vlad[i] - a_sum[b * K + k] * c2[(long long)d * K + k];
}

// Layer 8: intra normalisation, F.normalize(res, dim=1): each (b, k) column over its D features
extern "C" __global__ void netvlad_intra_norm_kernel(
    const float* __restrict__ x,        // [B, D, K]
    float* __restrict__ out,            // [B, D, K]
    int B, int D, int K)
{
    __shared__ float red[RED_BLOCK];
    int v = blockIdx.x;                 // vector (b, k): one block each
    if (v >= B * K) return;
    int tid = threadIdx.x;
    int k = v % K;
    int b = v / K;
    const float* base = x + (long long)b * D * K + k;
    float* out_base = out + (long long)b * D * K + k;

    float thread_sq = 0.0f;
    for (int d = tid; d < D; d += blockDim.x) {
        float e = base[(long long)d * K];
        thread_sq += e * e;
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float denom = fmaxf(sqrtf(red[0]), NORM_EPS);
    for (int d = tid; d < D; d += blockDim.x) {
        out_base[(long long)d * K] = base[(long long)d * K] / denom;
    }
}

// Layer 9: final normalisation, F.normalize(intra.reshape(B, D*K), dim=1)
extern "C" __global__ void netvlad_final_norm_kernel(
    const float* __restrict__ x,        // [B, L]  (L = D*K)
    float* __restrict__ out,            // [B, L]
    int B, int L)
{
    __shared__ float red[RED_BLOCK];
    int b = blockIdx.x;                 // one block per sample
    if (b >= B) return;
    int tid = threadIdx.x;
    const float* row = x + (long long)b * L;
    float* out_row = out + (long long)b * L;

    float thread_sq = 0.0f;
    for (int j = tid; j < L; j += blockDim.x) {
        thread_sq += row[j] * row[j];
    }
    red[tid] = thread_sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            red[tid] = red[tid] + red[tid + s];
        }
        __syncthreads();
    }
    float denom = fmaxf(sqrtf(red[0]), NORM_EPS);
    for (int j = tid; j < L; j += blockDim.x) {
        out_row[j] = row[j] / denom;
    }
}
"""

KERNELS = [
    "netvlad_assign_kernel",
    "netvlad_bn_stats_kernel",
    "netvlad_bn_kernel",
    "netvlad_softmax_kernel",
    "netvlad_asum_kernel",
    "netvlad_vlad_kernel",
    "netvlad_residual_kernel",
    "netvlad_intra_norm_kernel",
    "netvlad_final_norm_kernel",
]

TILE = 16               # must equal TILE in the CUDA source
RED_BLOCK = 256         # must equal RED_BLOCK (the shared buffer size) and be a power of two
BLOCK = 256             # one-thread-per-output kernels
CLUSTER_SIZE = 32       # get_init_inputs() = [32, 512, 0]: fixed by the weights
FEATURE_SIZE = 512
GHOST_CLUSTERS = 0
BN_EPS = 1e-5
MAX_GRID_Z = 65535      # the batch runs along gridDim.z of the vlad product
SPIKE_FRACTION = 0.01   # T2: about 1% of x's entries are U[0, 16) spikes on exact zeros
SPIKE_SCALE = 16.0


def register(K, torch, ctypes):
    import math

    def build(torch):
        # Model.__init__(32, 512, 0): clusters = (1/sqrt(512)) * randn(512, 32), BatchNorm1d(32) (ones, zeros:
        # no draw), clusters2 = (1/sqrt(512)) * randn(1, 512, 32), in this order.
        nn = torch.nn
        init_sc = 1 / math.sqrt(FEATURE_SIZE)
        clusters_n = CLUSTER_SIZE + GHOST_CLUSTERS
        clusters = nn.Parameter(init_sc * torch.randn(FEATURE_SIZE, clusters_n))
        bn = nn.BatchNorm1d(clusters_n)
        clusters2 = nn.Parameter(init_sc * torch.randn(1, FEATURE_SIZE, CLUSTER_SIZE))
        return {"clusters": clusters, "bn_w": bn.weight, "bn_b": bn.bias, "clusters2": clusters2}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        B, N, D = x.shape
        C = w["clusters"].shape[1]
        Kc = w["clusters2"].shape[2]
        M = B * N
        dev, dt = x.device, x.dtype
        logits = torch.empty(M, C, device=dev, dtype=dt)
        stats = torch.empty(2, C, device=dev, dtype=dt)
        bn = torch.empty(M, C, device=dev, dtype=dt)
        assign = torch.empty(M, C, device=dev, dtype=dt)
        a_sum = torch.empty(B, Kc, device=dev, dtype=dt)
        vlad = torch.empty(B, D, Kc, device=dev, dtype=dt)
        res = torch.empty(B, D, Kc, device=dev, dtype=dt)
        intra = torch.empty(B, D, Kc, device=dev, dtype=dt)
        out = torch.empty(B, D * Kc, device=dev, dtype=dt)
        seq = [
            ("netvlad_assign_kernel", (K.cdiv(M, TILE), K.cdiv(C, TILE), 1), (TILE, TILE, 1),
             [x, w["clusters"], logits], [(ctypes.c_int, M), (ctypes.c_int, D), (ctypes.c_int, C)]),
            ("netvlad_bn_stats_kernel", (C, 1, 1), (RED_BLOCK, 1, 1),
             [logits, stats], [(ctypes.c_int, M), (ctypes.c_int, C)]),
            ("netvlad_bn_kernel", (K.cdiv(M * C, BLOCK), 1, 1), (BLOCK, 1, 1),
             [logits, stats, w["bn_w"], w["bn_b"], bn], [(ctypes.c_int, M), (ctypes.c_int, C)]),
            ("netvlad_softmax_kernel", (K.cdiv(M, BLOCK), 1, 1), (BLOCK, 1, 1),
             [bn, assign], [(ctypes.c_int, M), (ctypes.c_int, C)]),
            ("netvlad_asum_kernel", (K.cdiv(B * Kc, BLOCK), 1, 1), (BLOCK, 1, 1),
             [assign, a_sum], [(ctypes.c_int, B), (ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, Kc)]),
            ("netvlad_vlad_kernel", (K.cdiv(Kc, TILE), K.cdiv(D, TILE), B), (TILE, TILE, 1),
             [assign, x, vlad],
             [(ctypes.c_int, B), (ctypes.c_int, N), (ctypes.c_int, C), (ctypes.c_int, Kc), (ctypes.c_int, D)]),
            ("netvlad_residual_kernel", (K.cdiv(B * D * Kc, BLOCK), 1, 1), (BLOCK, 1, 1),
             [vlad, a_sum, w["clusters2"], res], [(ctypes.c_int, B), (ctypes.c_int, D), (ctypes.c_int, Kc)]),
            ("netvlad_intra_norm_kernel", (B * Kc, 1, 1), (RED_BLOCK, 1, 1),
             [res, intra], [(ctypes.c_int, B), (ctypes.c_int, D), (ctypes.c_int, Kc)]),
            ("netvlad_final_norm_kernel", (B, 1, 1), (RED_BLOCK, 1, 1),
             [intra, out], [(ctypes.c_int, B), (ctypes.c_int, D * Kc)]),
        ]
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward, op for op (BatchNorm1d in training mode with batch statistics).
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        max_sample = x.size()[1]
        x = x.view(-1, FEATURE_SIZE)
        assignment = torch.matmul(x, w["clusters"])
        assignment = F.batch_norm(assignment, None, None, w["bn_w"], w["bn_b"], training=True, eps=BN_EPS)
        assignment = F.softmax(assignment, dim=1)
        assignment = assignment[:, :CLUSTER_SIZE]
        assignment = assignment.view(-1, max_sample, CLUSTER_SIZE)
        a_sum = torch.sum(assignment, dim=1, keepdim=True)
        a = a_sum * w["clusters2"]
        assignment = assignment.transpose(1, 2)
        x = x.view(-1, max_sample, FEATURE_SIZE)
        vlad = torch.matmul(assignment, x)
        vlad = vlad.transpose(1, 2)
        vlad = vlad - a
        vlad = F.normalize(vlad)
        vlad = vlad.reshape(-1, CLUSTER_SIZE * FEATURE_SIZE)
        return F.normalize(vlad)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, num_features, feature_size)]
        return [torch.rand(s["batch"], s["num_features"], FEATURE_SIZE)]

    def sparse_inputs(torch, s):
        shape = (s["batch"], s["num_features"], FEATURE_SIZE)
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p47_netvlad_no_ghost_clusters",
        level=3,
        problem="47_NetVladNoGhostClusters",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(2048, max=MAX_GRID_Z),
            "num_features": K.dim(100),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "num_features": 37},
                small=True,
                purpose="batch 3, 37 features per sample: the assignment GEMM's 111 rows are 6 x 16 + 15 and the "
                "vlad product's 37 samples 2 x 16 + 5, so their row guards and zero fills matter; the "
                "BatchNorm sees 111 rows per column (strided threads with zero or one value), the softmax's "
                "111 rows and the normalise's 3552 elements end in partial blocks; official U[0,1) values",
            ),
            K.suite(
                "T2_sparse_features",
                sparse_inputs,
                seeds=[3, 4],
                sizes={"batch": 4, "num_features": 50},
                purpose="about 1% of x's entries U[0,16) spikes on exact zeros: each (b, k) vlad column is "
                "dominated by the few features that spike in its sample, so after the two L2 normalisations "
                "single outputs reach far above the 1e-2 atol (at U[0,1) every output is about 1/128 and a "
                "constant passes, see notes) and a wrong d, k or n index, a wrong normaliser or a lost "
                "residual term moves them visibly",
            ),
            K.suite(
                "T3_small_count",
                rand_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "num_features": 3},
                purpose="batch 2, 3 features per sample: the BatchNorm normalises each of the 32 columns over 6 "
                "rows, so the biased variance it uses differs from the unbiased (Bessel) one by 20% and 250 of "
                "the 256 statistics threads hold no value (their zero starts matter); the vlad product has a "
                "single partial tile of 3 samples",
            ),
        ],
        notes="DEGENERATE at 1e-2: the two L2 normalisations leave every U[0,1) output near 1/sqrt(16384) = "
        "7.8e-3 (CPU, 64 x 100 x 512: |y| <= 0.0130, mean 0.0078), so the constant 1/128 passes the official "
        "check, all zeros miss it only by the few outputs above 0.01, and two different inputs' outputs pass "
        "against each other (4.3e-3 apart in allclose terms); facts Appendix C flags it const-pass and "
        "input-insensitive at 1e-2. T2_sparse_features makes outputs large enough to be checked (|y| up "
        "to 0.10, 9% above 0.01), T3_small_count a little (|y| up to 0.016). BatchNorm1d runs in training "
        "mode (batch statistics over the B*N rows); its weight is ones and bias zeros (default init), so "
        "mutants that drop gamma or beta are equivalent. With no ghost clusters C = K = 32: the kernels keep "
        "C and K apart (the ghost-free case of the same code), so mutants confusing them are equivalent here. Both matrix products are full fp32 in the reference "
        "(torch.matmul, no TF32). D = 512 and K = C = 32 are multiples of the tile, so those guards never "
        "fire (equivalent mutants); only B*N and N have remainders.",
    )
