"""KernelBench level 3, problem 49_Mamba2ReturnFinalState: the minimal Mamba-2 SSD chunked scan, returning the
final state, on X 2048 x 128 x 8 x 64 (batch b, length 128 = 2 chunks c of l = 64, heads h = 8, head size p =
64), with learned A [b, 128, h], B and C [b, 128, h, n = 16] (torch.randn parameters whose shapes fix b and the
length).

Model(2048, 128, 8, 64, 16, 64).forward(X), with cs = cumsum over l of A (per b, h, c):
    decay    = exp(cs[..., -1:] - cs)
    states   = einsum(B, decay, X)              states[b,c,h,p,n] = sum_l B[l,n] decay[l] X[l,p]
    chunk    = exp(segsum(pad(cs[..., -1], (1, 0))))        [b, h, 3, 3]
    new      = einsum(chunk, cat([0, states]))  new[b,z,h,p,n] = sum_c chunk[z,c] states'[c]
    return new[:, -1]                           [b, h, p, n]
The forward also computes L = exp(segsum(A)) and Y_diag = einsum(C, B, L, X), which nothing uses (dead code,
removed by the unmerged PR #108 per the facts); neither this pipeline nor `ref` computes them (the output is the
same bit for bit), so no kernel here would carry only equivalent mutants. C is a parameter that only Y_diag reads:
it is built (the RNG stream needs it) but unused.

Five kernels, one per layer:

    mamba_a_cumsum_kernel       A                -> cs [b,h,c,l]
    mamba_decay_states_kernel   cs               -> decay [b,h,c,l]
    mamba_states_kernel         B, decay, X      -> states [b,c,h,p,n]
    mamba_chunk_decay_kernel    cs               -> chunk [b,h,c+1,c+1]
    mamba_new_states_kernel     chunk, states    -> new [b,c+1,h,p,n]  (the output is the view new[:, -1])

The cumsum is one thread per (b, h, c) running over l; everything else is one thread per output element with
explicit loops, fp32 accumulation and 64-bit flat indices.

UNREFEREEABLE: A is a standard normal parameter, not constrained negative, so exp(cumsum) explodes: |out|
reaches 5.2e19 and the fp32 reference misses fp64 far beyond 1e-2 (facts sections 5 and 7): no fp32
implementation can be checked against it. The substrate is complete anyway; the GPU gate's fp64 evidence
classifies it.

Cost on the official input: states 2.1 G multiply-adds, the rest memory bound (X is 268 MB): about 5-10 ms per
forward.
"""

CUDA = r"""
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

"""

KERNELS = [
    "mamba_a_cumsum_kernel",
    "mamba_decay_states_kernel",
    "mamba_states_kernel",
    "mamba_chunk_decay_kernel",
    "mamba_new_states_kernel",
]

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
        decay = buf(NB, NH, NC, NL)
        states = buf(NB, NC, NH, NP, NN)
        chunk = buf(NB, NH, NZ, NZ)
        new_states = buf(NB, NZ, NH, NP, NN)
        i32 = ctypes.c_int
        seq = [
            ("mamba_a_cumsum_kernel", (K.cdiv(NB * NH * NC, BLOCK), 1, 1), (BLOCK, 1, 1), [w["A"], cs],
             [(i32, NB), (i32, NC), (i32, NL), (i32, NH)]),
            ("mamba_decay_states_kernel", (K.cdiv(NB * NH * NC * NL, BLOCK), 1, 1), (BLOCK, 1, 1), [cs, decay],
             [(i32, NB), (i32, NH), (i32, NC), (i32, NL)]),
            ("mamba_states_kernel", (K.cdiv(NB * NC * NH * NP * NN, BLOCK), 1, 1), (BLOCK, 1, 1),
             [w["B"], decay, X, states], [(i32, NB), (i32, NC), (i32, NL), (i32, NH), (i32, NP), (i32, NN)]),
            ("mamba_chunk_decay_kernel", (K.cdiv(NB * NH * NZ * NZ, BLOCK), 1, 1), (BLOCK, 1, 1), [cs, chunk],
             [(i32, NB), (i32, NH), (i32, NC), (i32, NL)]),
            ("mamba_new_states_kernel", (K.cdiv(NB * NZ * NH * NP * NN, BLOCK), 1, 1), (BLOCK, 1, 1),
             [chunk, states, new_states], [(i32, NB), (i32, NC), (i32, NH), (i32, NP), (i32, NN)]),
        ]
        return {"seq": seq, "out": new_states[:, -1]}

    def ref(inputs, torch):
        # Model.forward op for op, less the dead L / Y_diag; einops.rearrange is spelled out as the reshape /
        # permute it performs.
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

        X_blocks, A_blocks, B_blocks = [blocks(t) for t in (X, w["A"], w["B"])]
        A_blocks = A_blocks.permute(0, 3, 1, 2)         # rearrange "b c l h -> b h c l"
        A_cumsum = torch.cumsum(A_blocks, dim=-1)
        decay_states = torch.exp((A_cumsum[:, :, :, -1:] - A_cumsum))
        states = torch.einsum("bclhn,bhcl,bclhp->bchpn", B_blocks, decay_states, X_blocks)
        initial_states = torch.zeros_like(states[:, :1])
        states = torch.cat([initial_states, states], dim=1)
        decay_chunk = torch.exp(segsum(F.pad(A_cumsum[:, :, :, -1], (1, 0))))
        new_states = torch.einsum("bhzc,bchpn->bzhpn", decay_chunk, states)
        return new_states[:, -1]

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, seq_length, n_heads, d_head)]
        return [torch.rand(BATCH, SEQ_LEN, N_HEADS, s["d_head"])]

    def small_inputs(torch, s):
        return [torch.rand(BATCH, SEQ_LEN, N_HEADS, s["d_head"]) * 0.5]

    return K.substrate(
        name="L3p49_mamba2_return_final_state",
        level=3,
        problem="49_Mamba2ReturnFinalState",
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
                "and d_state 16): every p-indexed stride (X, states, new states) changes from 64 to 3 and the "
                "flat grids (2048 x 2 x 8 x 3 x 16 = 1.57 M states) change shape; official U[0,1) values",
            ),
            K.suite(
                "T2_head_size_20",
                small_inputs,
                seeds=[3, 4],
                sizes={"d_head": 20},
                purpose="head size 20: p strides of 20 and X = U[0,0.5), so a fault that scales X or drops a "
                "term differs from T0's",
            ),
        ],
        small_limit_s=10,
        notes="UNREFEREEABLE (facts sections 5 and 7): the randn parameter A makes exp(cumsum(A)) explode, |out| "
        "reaches 5.2e19 and the fp32 reference misses fp64 by far more than 1e-2 on every input; this is a property of "
        "the problem, not of the pipeline (with a well-conditioned A = -U[0,0.1) and random "
        "B, C at batch 3, kmut's CPU backend runs this pipeline within 1.5e-6 of the reference, with no NaN "
        "left). Only d_head is resizable: batch 2048, length 128 (2 chunks of 64), 8 "
        "heads and d_state 16 are fixed by the parameters (69 M of them), so even the smallest suite multiplies "
        "the 33.5 M-element B (the CPU reference takes about 0.9 s under load, hence small_limit_s = 10). The dead L / Y_diag computation of "
        "Model.forward is left out of both the pipeline and ref (docstring). The output is the view new[:, -1] "
        "of the last step's buffer; the chunk-0 and chunk-1 slices of new are computed too, as the einsum does.",
    )
