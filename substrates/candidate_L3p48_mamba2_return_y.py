"""KernelBench level 3, problem 48_Mamba2ReturnY: the minimal Mamba-2 SSD chunked scan, returning Y, on
X 2048 x 128 x 8 x 64 (batch b, length 128 = 2 chunks c of l = 64, heads h = 8, head size p = 64), with
learned A [b, 128, h], B and C [b, 128, h, n = 16] (torch.randn parameters whose shapes fix b and the length).

Model(2048, 128, 8, 64, 16, 64).forward(X), with cs = cumsum over l of A (per b, h, c):
    L        = exp(segsum(A))                   L[b,h,c,l,s] = exp(cs[l] - cs[s]) for s <= l, else 0
    Y_diag   = einsum(C, B, L, X)               Y_diag[b,c,l,h,p] = sum_s (sum_n C[l,n] B[s,n]) L[l,s] X[s,p]
    decay    = exp(cs[..., -1:] - cs)
    states   = einsum(B, decay, X)              states[b,c,h,p,n] = sum_l B[l,n] decay[l] X[l,p]
    chunk    = exp(segsum(pad(cs[..., -1], (1, 0))))        [b, h, 3, 3]
    new      = einsum(chunk, cat([0, states]))  new[b,z,h,p,n] = sum_c chunk[z,c] states'[c]
    Y_off    = einsum(C, new[:, :-1], exp(cs))  Y_off[b,c,l,h,p] = sum_n C[l,n] new[c,p,n] exp(cs[l])
    Y        = Y_diag + Y_off                   rearranged to [b, 128, h, p] (a view of [b, c, l, h, p])

Ten kernels, one per layer (the two four-operand einsums are split at their natural intermediate):

    mamba_a_cumsum_kernel       A                -> cs [b,h,c,l]
    mamba_segsum_exp_kernel     cs               -> Lmat [b,h,c,l,s]
    mamba_diag_scores_kernel    C, B, Lmat       -> S [b,c,h,l,s]     (C B^T masked and decayed by L)
    mamba_y_diag_kernel         S, X             -> Y_diag [b,c,l,h,p]
    mamba_decay_states_kernel   cs               -> decay [b,h,c,l]
    mamba_states_kernel         B, decay, X      -> states [b,c,h,p,n]
    mamba_chunk_decay_kernel    cs               -> chunk [b,h,c+1,c+1]
    mamba_new_states_kernel     chunk, states    -> new [b,c+1,h,p,n] (the zero initial state is chunk 0)
    mamba_y_off_kernel          C, new, cs       -> Y_off [b,c,l,h,p]
    mamba_y_combine_kernel      Y_diag, Y_off    -> Y [b,c*l,h,p]

The cumsum is one thread per (b, h, c) running over l; Y_diag is a 16 x 16 shared-memory tiled GEMM batched
over (b, c, h) along gridDim.z (guarded, zero-filled tile loads, a barrier after the loads and another
after the multiply-accumulate); everything else is one thread per output element with explicit loops, fp32
accumulation and 64-bit flat indices.

UNREFEREEABLE: A is a standard normal parameter, not constrained negative, so exp(cumsum) explodes: |Y|
reaches 3.5e20 and the fp32 reference misses fp64 far beyond 1e-2 (facts section 5 and 7): no fp32
implementation can be checked against it. The substrate is complete anyway; the GPU gate's fp64 evidence
classifies it.

Cost on the official input: the diagonal scores 2.1 G multiply-adds, Y_diag 8.6 G (tiled), states 2.1 G,
Y_off 2.1 G, plus the 134 M-element L and score tensors (537 MB each): about 20-40 ms per forward.
"""

CUDA = r"""
const int TILE = 16;    // GEMM tile edge of the Y_diag product

// A_cumsum = cumsum(rearrange(A, "b (c l) h -> b h c l"), dim=-1)
extern "C" __global__ void mamba_a_cumsum_kernel(
    const float* __restrict__ A,    // [b, c*l, h]
    float* __restrict__ cs,         // [b, h, c, l]
    int NB, int NC, int NL, int NH)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;      // one thread per (b, h, c)
    if (i >= NB * NH * NC) return;
    int c = i % NC;
    int h = (i / NC) % NH;
    int b = i / (NC * NH);

    float run = 0.0f;
    for (int l = 0; l < NL; ++l) {
        run += A[((long long)b * NC * NL + (long long)c * NL + l) * NH + h];
        cs[(long long)i * NL + l] = run;
    }
}

// L = exp(segsum(A_blocks)): L[b,h,c,l,s] = exp(cs[l] - cs[s]) where s <= l, exp(-inf) = 0 above the diagonal
extern "C" __global__ void mamba_segsum_exp_kernel(
    const float* __restrict__ cs,   // [b, h, c, l]
    float* __restrict__ Lmat,       // [b, h, c, l, s]
    int NB, int NH, int NC, int NL)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)NB * NH * NC * NL * NL;
    if (i >= total) return;
    int s = (int)(i % NL);
    int l = (int)((i / NL) % NL);
    long long bhc = i / ((long long)NL * NL);       // (b * NH + h) * NC + c

    float v = 0.0f;
    if (s <= l) {
        v = expf(cs[bhc * NL + l] - cs[bhc * NL + s]);
    }
    Lmat[i] = v;
}

// diagonal-block scores: S[b,c,h,l,s] = (sum_n C[b,c,l,h,n] * B[b,c,s,h,n]) * L[b,h,c,l,s]
extern "C" __global__ void mamba_diag_scores_kernel(
    const float* __restrict__ Cm,   // [b, c, l, h, n]
    const float* __restrict__ Bm,   // [b, c, l, h, n]
    const float* __restrict__ Lmat, // [b, h, c, l, s]
    float* __restrict__ S,          // [b, c, h, l, s]
    int NB, int NC, int NL, int NH, int NN)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)NB * NC * NH * NL * NL;
    if (i >= total) return;
    int s = (int)(i % NL);
    int l = (int)((i / NL) % NL);
    int h = (int)((i / ((long long)NL * NL)) % NH);
    int c = (int)((i / ((long long)NL * NL * NH)) % NC);
    long long b = i / ((long long)NL * NL * NH * NC);

    const float* c_row = Cm + (((b * NC + c) * NL + l) * NH + h) * NN;
    const float* b_row = Bm + (((b * NC + c) * NL + s) * NH + h) * NN;
    float acc = 0.0f;
    for (int n = 0; n < NN; ++n) {
        acc += c_row[n] * b_row[n];
    }
    S[i] = acc * Lmat[(((b * NH + h) * NC + c) * NL + l) * NL + s];
}

// Y_diag[b,c,l,h,p] = sum_s S[b,c,h,l,s] * X[b,c,s,h,p]: one 64 x 64 x 64 product per (b, c, h)
extern "C" __global__ void mamba_y_diag_kernel(
    const float* __restrict__ S,    // [b, c, h, l, s]
    const float* __restrict__ X,    // [b, c, l, h, p]
    float* __restrict__ Yd,         // [b, c, l, h, p]
    int NC, int NL, int NH, int NP)
{
    __shared__ float ss[TILE][TILE];    // ss[r][k] = S[bch, l0 + r, s0 + k]
    __shared__ float xs[TILE][TILE];    // xs[k][q] = X[b, c, s0 + k, h, p0 + q]

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int bch = blockIdx.z;               // (b * NC + c) * NH + h
    int h = bch % NH;
    long long bc = bch / NH;            // b * NC + c
    int l = blockIdx.y * TILE + ty;     // output row (position in the chunk)
    int p = blockIdx.x * TILE + tx;     // output column (head feature)

    const float* s_base = S + (long long)bch * NL * NL;
    const float* x_base = X + bc * NL * NH * NP + (long long)h * NP;

    float acc = 0.0f;
    int num_tiles = (NL + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int ks = t * TILE + tx;         // the s column of S this thread loads
        int kx = t * TILE + ty;         // the s row of X this thread loads
        if (l < NL && ks < NL) {
            ss[ty][tx] = s_base[(long long)l * NL + ks];
        } else {
            ss[ty][tx] = 0.0f;
        }
        if (kx < NL && p < NP) {
            xs[ty][tx] = x_base[(long long)kx * NH * NP + p];
        } else {
            xs[ty][tx] = 0.0f;
        }
        __syncthreads();    // both tiles are loaded
        for (int kk = 0; kk < TILE; ++kk) {
            acc += ss[ty][kk] * xs[kk][tx];
        }
        __syncthreads();    // everyone is done with the tiles before the next load
    }

    if (l < NL && p < NP) {
        Yd[((bc * NL + l) * NH + h) * NP + p] = acc;
    }
}

// decay_states = exp(A_cumsum[..., -1:] - A_cumsum)
extern "C" __global__ void mamba_decay_states_kernel(
    const float* __restrict__ cs,   // [b, h, c, l]
    float* __restrict__ decay,      // [b, h, c, l]
    int NB, int NH, int NC, int NL)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)NB * NH * NC * NL;
    if (i >= total) return;
    long long bhc = i / NL;
    decay[i] = expf(cs[bhc * NL + (NL - 1)] - cs[i]);
}

// states[b,c,h,p,n] = sum_l B[b,c,l,h,n] * decay[b,h,c,l] * X[b,c,l,h,p]
extern "C" __global__ void mamba_states_kernel(
    const float* __restrict__ Bm,       // [b, c, l, h, n]
    const float* __restrict__ decay,    // [b, h, c, l]
    const float* __restrict__ X,        // [b, c, l, h, p]
    float* __restrict__ states,         // [b, c, h, p, n]
    int NB, int NC, int NL, int NH, int NP, int NN)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)NB * NC * NH * NP * NN;
    if (i >= total) return;
    int n = (int)(i % NN);
    int p = (int)((i / NN) % NP);
    int h = (int)((i / ((long long)NN * NP)) % NH);
    int c = (int)((i / ((long long)NN * NP * NH)) % NC);
    long long b = i / ((long long)NN * NP * NH * NC);

    const float* d_row = decay + ((b * NH + h) * NC + c) * NL;
    float acc = 0.0f;
    for (int l = 0; l < NL; ++l) {
        long long pos = (b * NC + c) * NL + l;      // (b, c, l)
        acc += Bm[(pos * NH + h) * NN + n] * d_row[l] * X[(pos * NH + h) * NP + p];
    }
    states[i] = acc;
}

// decay_chunk = exp(segsum(pad(A_cumsum[..., -1], (1, 0)))): [b, h, z, c] over NC + 1 chunk boundaries
extern "C" __global__ void mamba_chunk_decay_kernel(
    const float* __restrict__ cs,   // [b, h, c, l]
    float* __restrict__ chunk,      // [b, h, NC + 1, NC + 1]
    int NB, int NH, int NC, int NL)
{
    int NZ = NC + 1;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= NB * NH * NZ * NZ) return;
    int cc = i % NZ;                // column (source boundary)
    int z = (i / NZ) % NZ;          // row (target boundary)
    long long bh = i / (NZ * NZ);

    // cumsum of the padded vector v = [0, cs[.., 0, NL-1], ..., cs[.., NC-1, NL-1]] up to z and up to cc
    float cum_z = 0.0f;
    float cum_c = 0.0f;
    for (int j = 1; j < NZ; ++j) {
        float v = cs[(bh * NC + (j - 1)) * NL + (NL - 1)];
        if (j <= z) cum_z += v;
        if (j <= cc) cum_c += v;
    }
    float out = 0.0f;
    if (cc <= z) {
        out = expf(cum_z - cum_c);
    }
    chunk[i] = out;
}

// new_states[b,z,h,p,n] = sum_c chunk[b,h,z,c] * cat([initial_states = 0, states], dim=1)[b,c,h,p,n]
extern "C" __global__ void mamba_new_states_kernel(
    const float* __restrict__ chunk,    // [b, h, NC + 1, NC + 1]
    const float* __restrict__ states,   // [b, NC, h, p, n]
    float* __restrict__ new_states,     // [b, NC + 1, h, p, n]
    int NB, int NC, int NH, int NP, int NN)
{
    int NZ = NC + 1;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)NB * NZ * NH * NP * NN;
    if (i >= total) return;
    long long hpn = i % ((long long)NH * NP * NN);
    int h = (int)(hpn / ((long long)NP * NN));
    int z = (int)((i / ((long long)NH * NP * NN)) % NZ);
    long long b = i / ((long long)NH * NP * NN * NZ);

    float acc = 0.0f;
    for (int cc = 0; cc < NZ; ++cc) {
        float s = 0.0f;                                 // chunk 0 is the zero initial state
        if (cc > 0) {
            s = states[(b * NC + (cc - 1)) * NH * NP * NN + hpn];
        }
        acc += chunk[((b * NH + h) * NZ + z) * NZ + cc] * s;
    }
    new_states[i] = acc;
}

// Y_off[b,c,l,h,p] = sum_n C[b,c,l,h,n] * new_states[b,c,h,p,n] * exp(A_cumsum[b,h,c,l])  (states = new[:, :-1])
extern "C" __global__ void mamba_y_off_kernel(
    const float* __restrict__ Cm,           // [b, c, l, h, n]
    const float* __restrict__ new_states,   // [b, NC + 1, h, p, n]
    const float* __restrict__ cs,           // [b, h, c, l]
    float* __restrict__ Yo,                 // [b, c, l, h, p]
    int NB, int NC, int NL, int NH, int NP, int NN)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)NB * NC * NL * NH * NP;
    if (i >= total) return;
    int p = (int)(i % NP);
    int h = (int)((i / NP) % NH);
    int l = (int)((i / ((long long)NP * NH)) % NL);
    int c = (int)((i / ((long long)NP * NH * NL)) % NC);
    long long b = i / ((long long)NP * NH * NL * NC);

    const float* c_row = Cm + (((b * NC + c) * NL + l) * NH + h) * NN;
    const float* s_row = new_states + (((b * (NC + 1) + c) * NH + h) * NP + p) * NN;
    float acc = 0.0f;
    for (int n = 0; n < NN; ++n) {
        acc += c_row[n] * s_row[n];
    }
    Yo[i] = acc * expf(cs[((b * NH + h) * NC + c) * NL + l]);
}

// Y = Y_diag + Y_off ([b, c, l, h, p] is already [b, c*l, h, p] in memory)
extern "C" __global__ void mamba_y_combine_kernel(
    const float* __restrict__ Yd,   // [b, c, l, h, p]
    const float* __restrict__ Yo,   // [b, c, l, h, p]
    float* __restrict__ Y,          // [b, c*l, h, p]
    long long total)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= total) return;
    Y[i] = Yd[i] + Yo[i];
}
"""

KERNELS = [
    "mamba_a_cumsum_kernel",
    "mamba_segsum_exp_kernel",
    "mamba_diag_scores_kernel",
    "mamba_y_diag_kernel",
    "mamba_decay_states_kernel",
    "mamba_states_kernel",
    "mamba_chunk_decay_kernel",
    "mamba_new_states_kernel",
    "mamba_y_off_kernel",
    "mamba_y_combine_kernel",
]

TILE = 16               # must equal TILE in the CUDA source
BLOCK = 256             # one-thread-per-output kernels
BATCH = 2048            # get_init_inputs() = [2048, 128, 8, 64, 16, 64]: batch, length, heads and d_state are
SEQ_LEN = 128           # fixed by the parameters A, B, C; only the head size d_head of X is free
N_HEADS = 8
D_HEAD = 64
D_STATE = 16
BLOCK_LEN = 64


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__: A = randn(b, L, h), B = randn(b, L, h, n), C = randn(b, L, h, n), in this order.
        nn = torch.nn
        A = nn.Parameter(torch.randn(BATCH, SEQ_LEN, N_HEADS))
        B = nn.Parameter(torch.randn(BATCH, SEQ_LEN, N_HEADS, D_STATE))
        C = nn.Parameter(torch.randn(BATCH, SEQ_LEN, N_HEADS, D_STATE))
        return {"A": A, "B": B, "C": C}

    W = K.weights(build)

    def launch(inputs, torch):
        (X,) = inputs
        w = W(X)
        NB, NLEN, NH, NP = X.shape
        NN = w["B"].shape[3]
        NL = BLOCK_LEN
        NC = NLEN // NL
        NZ = NC + 1
        dev, dt = X.device, X.dtype

        def buf(*shape):
            return torch.empty(*shape, device=dev, dtype=dt)

        cs = buf(NB, NH, NC, NL)
        Lmat = buf(NB, NH, NC, NL, NL)
        S = buf(NB, NC, NH, NL, NL)
        Yd = buf(NB, NC, NL, NH, NP)
        decay = buf(NB, NH, NC, NL)
        states = buf(NB, NC, NH, NP, NN)
        chunk = buf(NB, NH, NZ, NZ)
        new_states = buf(NB, NZ, NH, NP, NN)
        Yo = buf(NB, NC, NL, NH, NP)
        Y = buf(NB, NLEN, NH, NP)
        i32 = ctypes.c_int
        n_l = NB * NH * NC * NL * NL
        seq = [
            ("mamba_a_cumsum_kernel", (K.cdiv(NB * NH * NC, BLOCK), 1, 1), (BLOCK, 1, 1), [w["A"], cs],
             [(i32, NB), (i32, NC), (i32, NL), (i32, NH)]),
            ("mamba_segsum_exp_kernel", (K.cdiv(n_l, BLOCK), 1, 1), (BLOCK, 1, 1), [cs, Lmat],
             [(i32, NB), (i32, NH), (i32, NC), (i32, NL)]),
            ("mamba_diag_scores_kernel", (K.cdiv(n_l, BLOCK), 1, 1), (BLOCK, 1, 1), [w["C"], w["B"], Lmat, S],
             [(i32, NB), (i32, NC), (i32, NL), (i32, NH), (i32, NN)]),
            ("mamba_y_diag_kernel", (K.cdiv(NP, TILE), K.cdiv(NL, TILE), NB * NC * NH), (TILE, TILE, 1), [S, X, Yd],
             [(i32, NC), (i32, NL), (i32, NH), (i32, NP)]),
            ("mamba_decay_states_kernel", (K.cdiv(NB * NH * NC * NL, BLOCK), 1, 1), (BLOCK, 1, 1), [cs, decay],
             [(i32, NB), (i32, NH), (i32, NC), (i32, NL)]),
            ("mamba_states_kernel", (K.cdiv(NB * NC * NH * NP * NN, BLOCK), 1, 1), (BLOCK, 1, 1),
             [w["B"], decay, X, states], [(i32, NB), (i32, NC), (i32, NL), (i32, NH), (i32, NP), (i32, NN)]),
            ("mamba_chunk_decay_kernel", (K.cdiv(NB * NH * NZ * NZ, BLOCK), 1, 1), (BLOCK, 1, 1), [cs, chunk],
             [(i32, NB), (i32, NH), (i32, NC), (i32, NL)]),
            ("mamba_new_states_kernel", (K.cdiv(NB * NZ * NH * NP * NN, BLOCK), 1, 1), (BLOCK, 1, 1),
             [chunk, states, new_states], [(i32, NB), (i32, NC), (i32, NH), (i32, NP), (i32, NN)]),
            ("mamba_y_off_kernel", (K.cdiv(NB * NC * NL * NH * NP, BLOCK), 1, 1), (BLOCK, 1, 1),
             [w["C"], new_states, cs, Yo], [(i32, NB), (i32, NC), (i32, NL), (i32, NH), (i32, NP), (i32, NN)]),
            ("mamba_y_combine_kernel", (K.cdiv(Y.numel(), BLOCK), 1, 1), (BLOCK, 1, 1), [Yd, Yo, Y],
             [(ctypes.c_longlong, Y.numel())]),
        ]
        return {"seq": seq, "out": Y}

    def ref(inputs, torch):
        # Model.forward op for op; einops.rearrange is spelled out as the reshape / permute it performs.
        (X,) = inputs
        w = W(X)
        F = torch.nn.functional

        def blocks(t):      # rearrange(t, "b (c l) ... -> b c l ...", l=BLOCK_LEN)
            return t.reshape(t.shape[0], t.shape[1] // BLOCK_LEN, BLOCK_LEN, *t.shape[2:])

        def segsum(x):
            T = x.size(-1)
            x_cumsum = torch.cumsum(x, dim=-1)
            x_segsum = x_cumsum[..., :, None] - x_cumsum[..., None, :]
            mask = torch.tril(torch.ones(T, T, device=x.device, dtype=bool), diagonal=0)
            return x_segsum.masked_fill(~mask, -torch.inf)

        X_blocks, A_blocks, B_blocks, C_blocks = [blocks(t) for t in (X, w["A"], w["B"], w["C"])]
        A_blocks = A_blocks.permute(0, 3, 1, 2)         # rearrange "b c l h -> b h c l"
        A_cumsum = torch.cumsum(A_blocks, dim=-1)
        L = torch.exp(segsum(A_blocks))
        Y_diag = torch.einsum("bclhn,bcshn,bhcls,bcshp->bclhp", C_blocks, B_blocks, L, X_blocks)
        decay_states = torch.exp((A_cumsum[:, :, :, -1:] - A_cumsum))
        states = torch.einsum("bclhn,bhcl,bclhp->bchpn", B_blocks, decay_states, X_blocks)
        initial_states = torch.zeros_like(states[:, :1])
        states = torch.cat([initial_states, states], dim=1)
        decay_chunk = torch.exp(segsum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
        new_states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)
        states = new_states[:, :-1]
        state_decay_out = torch.exp(A_cumsum)
        Y_off = torch.einsum("bclhn,bchpn,bhcl->bclhp", C_blocks, states, state_decay_out)
        Y = Y_diag + Y_off
        return Y.reshape(Y.shape[0], Y.shape[1] * Y.shape[2], Y.shape[3], Y.shape[4])   # "b c l h p -> b (c l) h p"

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, seq_length, n_heads, d_head)]
        return [torch.rand(BATCH, SEQ_LEN, N_HEADS, s["d_head"])]

    def small_inputs(torch, s):
        return [torch.rand(BATCH, SEQ_LEN, N_HEADS, s["d_head"]) * 0.5]

    return K.substrate(
        name="L3p48_mamba2_return_y",
        level=3,
        problem="48_Mamba2ReturnY",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"d_head": K.dim(D_HEAD)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"d_head": 3},
                small=True,
                purpose="head size 3 (the only free dimension: the parameters fix batch 2048, length 128, 8 heads "
                "and d_state 16): the Y_diag product's 16-wide column tile holds 3 live columns, so its column "
                "guards and zero fills matter, and every p-indexed stride (X, states, Y) changes from 64 to 3; "
                "official U[0,1) values",
            ),
            K.suite(
                "T2_head_size_20",
                small_inputs,
                seeds=[3, 4],
                sizes={"d_head": 20},
                purpose="head size 20 = 16 + 4: a full and a partial column tile in Y_diag, p strides of 20, and "
                "X = U[0,0.5), so a fault that scales X or drops a term differs from T0's",
            ),
        ],
        small_limit_s=20,
        notes="UNREFEREEABLE (facts sections 5 and 7): the randn parameter A makes exp(cumsum(A)) explode, |Y| reaches "
        "3.5e20 and the fp32 reference misses fp64 by far more than 1e-2 on every input; this is a property of the "
        "problem, not of the pipeline (with a well-conditioned A = -U[0,0.1) and random "
        "B, C at batch 3, kmut's CPU backend runs this pipeline within 4.8e-6 of the reference, with no NaN "
        "left). Only d_head is resizable: batch 2048, length 128 (2 chunks of 64), 8 heads "
        "and d_state 16 are fixed by the parameters (69 M of them), so even the smallest suite builds the 134 M-element "
        "L tensor and the CPU reference takes about 5 s (hence small_limit_s = 20). The reference's einsums and "
        "this pipeline contract in different orders, which at these magnitudes changes results far beyond the "
        "tolerance; the pipeline follows the formulas exactly (exp(-inf) above the diagonal written as 0).",
    )
