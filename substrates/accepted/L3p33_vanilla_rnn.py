"""KernelBench level 3, problem 33_VanillaRNN: one step of a vanilla RNN cell on x 256 x 16384 with the
initial hidden state h 256 x 16384 given as the second input.

Model(16384, 16384, 8192).forward(x, initial_hidden) copies initial_hidden into its hidden-state
buffer, concatenates (x, hidden) along dim 1, applies i2h = Linear(32768 -> 16384) and tanh (the new
hidden state), then h2o = Linear(16384 -> 8192), and returns the h2o output. The pipeline has one
kernel per layer:

    rnn_hidden_copy_kernel   h [B,16384] -> hidden [B,16384]          (self.hidden.copy_(initial_hidden))
    rnn_concat_kernel        x, hidden   -> combined [B,32768]        (torch.cat((x, hidden), dim=1))
    rnn_i2h_tanh_kernel      combined    -> new hidden [B,16384]      (tanh(i2h(combined)))
    rnn_h2o_kernel           new hidden  -> y [B,8192]                (h2o(hidden))

The copy and the concatenation run one thread per output element over a 64-bit flat index. The two
Linear layers are plain 16 x 16 shared-memory tiled GEMMs (one thread per output element, guarded and
zero-filled tile loads, a barrier after the loads and another after the multiply-accumulate, fp32
accumulation), with the bias and tanhf (i2h) or the bias alone (h2o) in the epilogue.

Cost: 2 x 256 x (32768 x 16384 + 16384 x 8192) = 344 GFLOP per forward; at the 6.4 TFLOP/s the same
tiling reached on 1_MLP that is about 55 ms on an H200 (the copy and concat move 50 MB, under 0.1 ms).
"""

CUDA = r"""
const int TILE = 16;    // GEMM tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

// self.hidden.copy_(initial_hidden)
extern "C" __global__ void rnn_hidden_copy_kernel(
    const float* __restrict__ h_in,     // [B, H]  (initial_hidden, the second input)
    float* __restrict__ hidden,         // [B, H]
    int B, int H)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long total = (long long)B * H;
    if (i >= total) return;
    hidden[i] = h_in[i];
}

// combined = torch.cat((x, hidden), dim=1)
extern "C" __global__ void rnn_concat_kernel(
    const float* __restrict__ x,        // [B, I]
    const float* __restrict__ hidden,   // [B, H]
    float* __restrict__ combined,       // [B, I + H]
    int B, int I, int H)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    int C = I + H;                      // width of a combined row
    long long total = (long long)B * C;
    if (i >= total) return;

    int col = (int)(i % C);
    int row = (int)(i / C);
    float v;
    if (col < I) {
        v = x[(long long)row * I + col];
    } else {
        v = hidden[(long long)row * H + (col - I)];
    }
    combined[i] = v;
}

// new hidden = tanh(combined @ W_i2h^T + b_i2h)
extern "C" __global__ void rnn_i2h_tanh_kernel(
    const float* __restrict__ x,    // [M, K]  (combined)
    const float* __restrict__ w,    // [N, K]  (i2h.weight)
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]  (the new hidden state)
    int M, int N, int K)
{
    __shared__ float a_tile[TILE][TILE];    // a_tile[r][k] = x[row0 + r, k0 + k]
    __shared__ float w_tile[TILE][TILE];    // w_tile[k][c] = w[col0 + c, k0 + k]  (transposed on load)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;       // batch row of this thread's output
    int col = blockIdx.x * TILE + tx;       // hidden unit of this thread's output
    int w_row = blockIdx.x * TILE + ty;     // weight row this thread loads into w_tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            a_tile[ty][tx] = x[(long long)row * K + k];
        } else {
            a_tile[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            w_tile[tx][ty] = w[(long long)w_row * K + k];
        } else {
            w_tile[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are complete
        for (int kk = 0; kk < TILE; ++kk) {
            acc += a_tile[ty][kk] * w_tile[kk][tx];
        }
        __syncthreads();    // every thread is done reading before the next tiles are loaded
    }

    if (row < M && col < N) {
        out[(long long)row * N + col] = tanhf(acc + b[col]);
    }
}

// y = hidden @ W_h2o^T + b_h2o
extern "C" __global__ void rnn_h2o_kernel(
    const float* __restrict__ x,    // [M, K]  (the new hidden state)
    const float* __restrict__ w,    // [N, K]  (h2o.weight)
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float a_tile[TILE][TILE];    // a_tile[r][k] = x[row0 + r, k0 + k]
    __shared__ float w_tile[TILE][TILE];    // w_tile[k][c] = w[col0 + c, k0 + k]  (transposed on load)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;       // batch row of this thread's output
    int col = blockIdx.x * TILE + tx;       // output feature of this thread's output
    int w_row = blockIdx.x * TILE + ty;     // weight row this thread loads into w_tile

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int t = 0; t < num_tiles; ++t) {
        int k = t * TILE + tx;
        if (row < M && k < K) {
            a_tile[ty][tx] = x[(long long)row * K + k];
        } else {
            a_tile[ty][tx] = 0.0f;
        }
        if (w_row < N && k < K) {
            w_tile[tx][ty] = w[(long long)w_row * K + k];
        } else {
            w_tile[tx][ty] = 0.0f;
        }
        __syncthreads();    // both tiles are complete
        for (int kk = 0; kk < TILE; ++kk) {
            acc += a_tile[ty][kk] * w_tile[kk][tx];
        }
        __syncthreads();    // every thread is done reading before the next tiles are loaded
    }

    if (row < M && col < N) {
        out[(long long)row * N + col] = acc + b[col];
    }
}
"""

KERNELS = ["rnn_hidden_copy_kernel", "rnn_concat_kernel", "rnn_i2h_tanh_kernel", "rnn_h2o_kernel"]

BLOCK = 256                 # copy and concat: 1D blocks over the flat output index
TILE = 16                   # must equal TILE in the CUDA source
INPUT_SIZE = 16384          # get_init_inputs(): [16384, 16384, 8192]; fixed by the weights
HIDDEN_SIZE = 16384
OUTPUT_SIZE = 8192
HIDDEN_BUFFER_BATCH = 256   # module-level batch_size used by Model.__init__ for its hidden buffer
MAX_GRID_Y = 65535          # the batch is tiled along gridDim.y in the GEMMs


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__ draws self.hidden = torch.randn((batch_size, hidden_size)) BEFORE it creates
        # i2h and h2o, so that draw comes first here too; the tensor itself is never used (forward
        # always overwrites it with the second input) and is not kept. nn.Tanh draws nothing.
        nn = torch.nn
        torch.randn((HIDDEN_BUFFER_BATCH, HIDDEN_SIZE))
        i2h = nn.Linear(INPUT_SIZE + HIDDEN_SIZE, HIDDEN_SIZE)
        h2o = nn.Linear(HIDDEN_SIZE, OUTPUT_SIZE)
        return {"i2h_w": i2h.weight, "i2h_b": i2h.bias, "h2o_w": h2o.weight, "h2o_b": h2o.bias}

    W = K.weights(build)

    def gemm_step(kernel, a, w, b, out):
        M, Kd = a.shape
        N = w.shape[0]
        return (
            kernel,
            (K.cdiv(N, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [a, w, b, out],
            [(ctypes.c_int, M), (ctypes.c_int, N), (ctypes.c_int, Kd)],
        )

    def launch(inputs, torch):
        x, h = inputs
        w = W(x)
        B, I = x.shape
        H = h.shape[1]
        hidden = torch.empty(B, H, device=x.device, dtype=x.dtype)
        combined = torch.empty(B, I + H, device=x.device, dtype=x.dtype)
        new_hidden = torch.empty(B, w["i2h_w"].shape[0], device=x.device, dtype=x.dtype)
        out = torch.empty(B, w["h2o_w"].shape[0], device=x.device, dtype=x.dtype)
        seq = [
            (
                "rnn_hidden_copy_kernel",
                (K.cdiv(B * H, BLOCK), 1, 1),
                (BLOCK, 1, 1),
                [h, hidden],
                [(ctypes.c_int, B), (ctypes.c_int, H)],
            ),
            (
                "rnn_concat_kernel",
                (K.cdiv(B * (I + H), BLOCK), 1, 1),
                (BLOCK, 1, 1),
                [x, hidden, combined],
                [(ctypes.c_int, B), (ctypes.c_int, I), (ctypes.c_int, H)],
            ),
            gemm_step("rnn_i2h_tanh_kernel", combined, w["i2h_w"], w["i2h_b"], new_hidden),
            gemm_step("rnn_h2o_kernel", new_hidden, w["h2o_w"], w["h2o_b"], out),
        ]
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward with initial_hidden given: the stored hidden state is replaced by it, so the
        # output depends on (x, initial_hidden) only.
        x, h = inputs
        w = W(x)
        F = torch.nn.functional
        hidden = h.clone()
        combined = torch.cat((x, hidden), dim=1)
        hidden = torch.tanh(F.linear(combined, w["i2h_w"], w["i2h_b"]))
        return F.linear(hidden, w["h2o_w"], w["h2o_b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_size), torch.rand(batch_size, hidden_size)]
        return [torch.rand(s["batch"], INPUT_SIZE), torch.rand(s["batch"], HIDDEN_SIZE)]

    def scaled_inputs(scale):
        # Same sign, `scale` times the official U[0,1) range, for x and h alike (x drawn first).
        def gen(torch, s):
            return [torch.rand(s["batch"], INPUT_SIZE) * scale, torch.rand(s["batch"], HIDDEN_SIZE) * scale]

        return gen

    def sparse_inputs(torch, s):
        # About 2% of the entries of x and of h nonzero with values in [0, 10); the rest exact zeros.
        def one(n):
            mask = torch.rand(s["batch"], n) < 0.02
            spikes = torch.rand(s["batch"], n) * 10.0
            return torch.where(mask, spikes, torch.zeros(s["batch"], n))

        x = one(INPUT_SIZE)
        h = one(HIDDEN_SIZE)
        return [x, h]

    return K.substrate(
        name="L3p33_vanilla_rnn",
        level=3,
        problem="33_VanillaRNN",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(256, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs(4.0),
                seeds=[1, 2],
                sizes={"batch": 3},
                small=True,
                purpose="batch 3: both Linear layers get one row of blocks with 3 live rows and 13 dead ones, so "
                "their store and activation-tile row guards matter (the copy and concat cover 49152 and 98304 "
                "elements, exact multiples of the 256-thread block, as at every batch: their tail guards never "
                "fire); x and h are U[0,4) as in T2_large_same_sign so that this CPU-cheap suite also sees "
                "value faults (see there)",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(4.0),
                seeds=[3, 4],
                sizes={"batch": 40},
                purpose="x and h U[0,4): same-sign inputs 4x the official range put the i2h pre-activations at a "
                "standard deviation of about 1.3 (0.33 officially), in tanh's bend but not saturated, and the "
                "outputs at about +-1.8 (0.8 officially); losing one 16-wide K tile of i2h then moves an output "
                "by about 4.6e-2 in allclose terms (1.5e-2 officially, barely above the 1e-2 tolerance); a "
                "larger scale would saturate tanh and hide i2h faults again; the fp32 reference stays within "
                "about 1e-6 of fp64; batch 40 = 2 x 16 + 8 is a row remainder",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 17},
                purpose="about 2% of x and of h nonzero with values in [0,10), the rest exact zeros: each i2h "
                "pre-activation is its bias plus about 650 isolated large terms instead of an average over 32768, "
                "so a wrong column in the concatenation (an off-by-one at the x | h boundary, h rows read with "
                "x's stride, swapped halves) or a wrong k index in i2h changes the result visibly, and the "
                "zeros make a missing copy or a stale hidden state obvious; batch 17 = 16 + 1 leaves a single "
                "live row in the second row of blocks",
            ),
        ],
        notes="The official Model keeps a hidden-state buffer of shape (256, 16384) drawn with torch.randn in "
        "__init__ (before i2h and h2o, so the weight builder makes that draw first to keep the RNG stream "
        "identical, and discards it). forward always receives initial_hidden, copies it into that buffer and "
        "then replaces the buffer with the new hidden state, so the output is a pure function of (x, "
        "initial_hidden). The batch is declared resizable: the math (cat, Linear, tanh, Linear) is well "
        "defined at any batch and ref and every kernel take it from the input shapes; only the official "
        "Model object itself would reject a first call at a batch other than 256, because copy_ into its "
        "(256, 16384) buffer cannot broadcast. The i2h bias is U(+-1/181) and the h2o bias U(+-1/128), both "
        "below the 1e-2 atol: leaving out either moves the outputs by less than the tolerance on T0 "
        "(tau about 6.6e-3 for i2h), so those mutants are near-equivalent. All feature sizes (16384, 32768, "
        "8192) are multiples of the tile and of the 256-thread block, so the GEMMs' k < K and N guards and "
        "the copy/concat tail guards never fire; only the batch has GEMM row remainders. 671 M fp32 "
        "parameters (2.7 GB; 5.4 GB more for the fp64 reference copy).",
    )
