"""KernelBench level 3, problem 34_VanillaRNNHidden: a vanilla RNN cell unrolled over a sequence, on
x 256 x 8 x 1024 (seq_len T, batch B, input I) with the initial hidden state h0 8 x 256 as second input.

Model(1024, 256, 128).forward(x, h0): hidden = h0; for t in 0..T-1: combined = cat(x[t], hidden) [B, 1280],
hidden = tanh(i2h(combined)) (Linear 1280 -> 256), output_t = h2o(hidden) (Linear 256 -> 128); returns
stack(outputs) [T, B, 128].

The pipeline has one kernel per layer; the two recurrent layers are launched once per time step (each
launch is one step of the pipeline, writing its own slice of a [T, ...] buffer), and the output layer,
which feeds nothing back, once over all time steps:

    rnn_concat_kernel      x[t], hidden_{t-1}   -> combined[t] [B, 1280]   (T launches, t = 0..T-1)
    rnn_i2h_tanh_kernel    combined[t]          -> hidden[t]   [B, 256]    (interleaved with the concat)
    rnn_h2o_kernel         hidden [T*B, 256]    -> y [T, B, 128]           (one launch: the stack)

so the pipeline is concat_0, i2h_0, concat_1, i2h_1, ..., concat_{T-1}, i2h_{T-1}, h2o: 2T + 1 = 513
steps on the official input. hidden_{-1} is h0. Depth in this pipeline is the launch index: a fault in
the i2h kernel enters at its first launch (step 1) and is carried by the recurrence through every later
step, while a fault in the concatenation at step 2t enters at time t.

The concatenation is one thread per element over a 64-bit flat index. The two Linear layers are plain 16 x
16 shared-memory tiled GEMMs (one thread per output element, guarded and zero-filled tile loads, a barrier
after the loads and another after the multiply-accumulate, fp32 accumulation), with the bias and tanhf
(i2h) or the bias alone (h2o) in the epilogue.

Cost: 2 x 256 x 8 x (1280 x 256 + 256 x 128) = 1.5 GFLOP in all, latency bound: 512 small launches of a
few to a few tens of microseconds (the i2h GEMM of one step is 16 blocks of 80 K tiles), about 10-20 ms
per forward on an H200.
"""

CUDA = r"""
const int TILE = 16;    // GEMM tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time

// combined = torch.cat((x[t], hidden), dim=1), one launch per time step
extern "C" __global__ void rnn_concat_kernel(
    const float* __restrict__ x_t,      // [B, I]  (x[t])
    const float* __restrict__ hidden,   // [B, H]  (hidden state after step t - 1; h0 at t = 0)
    float* __restrict__ combined,       // [B, I + H]  (combined[t])
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
        v = x_t[(long long)row * I + col];
    } else {
        v = hidden[(long long)row * H + (col - I)];
    }
    combined[i] = v;
}

// hidden[t] = tanh(combined[t] @ W_i2h^T + b_i2h), one launch per time step
extern "C" __global__ void rnn_i2h_tanh_kernel(
    const float* __restrict__ x,    // [M, K]  (combined[t], M = B)
    const float* __restrict__ w,    // [N, K]  (i2h.weight)
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]  (hidden[t])
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

// y[t] = hidden[t] @ W_h2o^T + b_h2o for every t at once (torch.stack of the per-step outputs)
extern "C" __global__ void rnn_h2o_kernel(
    const float* __restrict__ x,    // [M, K]  (hidden, M = T * B rows)
    const float* __restrict__ w,    // [N, K]  (h2o.weight)
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]  (y viewed as [T * B, O])
    int M, int N, int K)
{
    __shared__ float a_tile[TILE][TILE];    // a_tile[r][k] = x[row0 + r, k0 + k]
    __shared__ float w_tile[TILE][TILE];    // w_tile[k][c] = w[col0 + c, k0 + k]  (transposed on load)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;       // (time, batch) row of this thread's output
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

KERNELS = ["rnn_concat_kernel", "rnn_i2h_tanh_kernel", "rnn_h2o_kernel"]

BLOCK = 256             # concat: 1D blocks over the flat output index
TILE = 16               # must equal TILE in the CUDA source
INPUT_SIZE = 1024       # get_init_inputs() = [1024, 256, 128]: fixed by the weights
HIDDEN_SIZE = 256
OUTPUT_SIZE = 128
MAX_SEQ = 4096          # the h2o GEMM tiles its T * B rows along gridDim.y (at most 65535 blocks of 16):
MAX_BATCH = 255         # 4096 * 255 = 1044480 <= 65535 * 16 = 1048560
SPIKE_FRACTION = 0.03   # T3: about 3% of x's entries are U[0, 8) spikes, and whole time steps are zero
SPIKE_SCALE = 8.0


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(1024, 256, 128): i2h = Linear(1280, 256), h2o = Linear(256, 128) (each draws its
        # kaiming-uniform weight then its bias), Tanh (no parameters).
        nn = torch.nn
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
        x, h0 = inputs
        w = W(x)
        T, B, I = x.shape
        H = w["i2h_w"].shape[0]
        O = w["h2o_w"].shape[0]
        combined = torch.empty(T, B, I + H, device=x.device, dtype=x.dtype)
        hidden = torch.empty(T, B, H, device=x.device, dtype=x.dtype)
        out = torch.empty(T, B, O, device=x.device, dtype=x.dtype)
        seq = []
        prev = h0
        for t in range(T):
            seq.append((
                "rnn_concat_kernel",
                (K.cdiv(B * (I + H), BLOCK), 1, 1),
                (BLOCK, 1, 1),
                [x[t], prev, combined[t]],
                [(ctypes.c_int, B), (ctypes.c_int, I), (ctypes.c_int, H)],
            ))
            seq.append(gemm_step("rnn_i2h_tanh_kernel", combined[t], w["i2h_w"], w["i2h_b"], hidden[t]))
            prev = hidden[t]
        seq.append(gemm_step("rnn_h2o_kernel", hidden.view(T * B, H), w["h2o_w"], w["h2o_b"], out.view(T * B, O)))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward, step for step.
        x, h0 = inputs
        w = W(x)
        F = torch.nn.functional
        hidden = h0.to(x.device)
        outputs = []
        for t in range(x.size(0)):
            combined = torch.cat((x[t], hidden), dim=1)
            hidden = torch.tanh(F.linear(combined, w["i2h_w"], w["i2h_b"]))
            outputs.append(F.linear(hidden, w["h2o_w"], w["h2o_b"]))
        return torch.stack(outputs, dim=0)

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(sequence_length, batch_size, input_size), torch.rand(batch_size, hidden_size)]
        return [torch.rand(s["seq"], s["batch"], INPUT_SIZE), torch.rand(s["batch"], HIDDEN_SIZE)]

    def scaled_inputs(scale):
        def gen(torch, s):
            return [torch.rand(s["seq"], s["batch"], INPUT_SIZE) * scale, torch.rand(s["batch"], HIDDEN_SIZE) * scale]

        return gen

    def sparse_inputs(torch, s):
        # x: about 3% U[0, 8) spikes on exact zeros, and every third time step entirely zero; h0 U[0, 4).
        shape = (s["seq"], s["batch"], INPUT_SIZE)
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        x = torch.where(mask, spikes, torch.zeros(shape))
        x[::3] = 0.0
        return [x, torch.rand(s["batch"], HIDDEN_SIZE) * 4.0]

    return K.substrate(
        name="L3p34_vanilla_rnn_hidden",
        level=3,
        problem="34_VanillaRNNHidden",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "seq": K.dim(256, max=MAX_SEQ),
            "batch": K.dim(8, max=MAX_BATCH),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs(2.0),
                seeds=[1, 2],
                sizes={"seq": 6, "batch": 3},
                small=True,
                purpose="6 steps of batch 3: every GEMM has one row of blocks with 3 live rows and 13 dead ones "
                "(the h2o GEMM 18 rows: a second row of blocks with 2 live rows), so the row guards and the zero "
                "fill of the activation tiles matter, and the concatenation's 3 x 1280 = 3840 = 15 x 256 "
                "elements; x and h0 U[0,2) so the pre-activations reach tanh's bend and a lost K tile or a "
                "wrong h / x column moves the outputs well beyond the tolerance",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(4.0),
                seeds=[3, 4],
                sizes={"seq": 40, "batch": 5},
                purpose="x and h0 U[0,4): same-sign inputs 4x the official range push the i2h pre-activations "
                "well into tanh's bend (standard deviation about 1.3 instead of 0.33) without saturating it, so "
                "value faults in i2h move the hidden state and, through the recurrence, every later output; 40 "
                "steps of batch 5, 200 h2o rows = 12 x 16 + 8",
            ),
            K.suite(
                "T3_sparse_steps",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"seq": 64, "batch": 9},
                purpose="x is about 3% U[0,8) spikes on exact zeros with every third time step entirely zero, h0 "
                "U[0,4): on the zero steps the new hidden state is tanh(W_hh h + b) alone, so a concatenation "
                "that reads the wrong step of x, the hidden state of the wrong step (or h0 again), or the x | h "
                "boundary one column off changes those steps' outputs visibly; batch 9",
            ),
        ],
        notes="The recurrence is a pipeline of 2T + 1 launches (513 officially): the concatenation and the i2h "
        "layer are each one kernel launched once per time step, the h2o layer once over all steps; depth is "
        "the launch index (see the docstring). The i2h weights are U(+-1/sqrt(1280)), so the recurrent part "
        "is contractive (spectral radius of W_hh about 0.26) and the fp32 reference stays within about 1e-6 "
        "of fp64 over 256 steps; faults injected at one step fade over a few later steps unless they recur at "
        "every launch. The hidden and output features (256, 128, 1280) are multiples of the tile, so the N "
        "and K guards of the GEMMs never fire (equivalent mutants); only the batch rows have remainders. "
        "Each step's output is a slice of a [T, B, ...] buffer (a contiguous view).",
    )
