"""KernelBench level 3, problem 35_LSTM: a 6-layer LSTM (input 128, hidden 256, batch_first) followed by a
Linear 256 -> 10 on its last time step, on x 10 x 512 x 128 (batch B, sequence T, input I).

Model(128, 256, 6, 10, 0.0).forward(x) draws h0 = torch.randn(6, B, 256) and c0 = torch.randn(6, B, 256)
on x's device (they are not inputs), runs nn.LSTM(x, (h0, c0)) and returns fc(out[:, -1, :]) [B, 10].

Layer l of the LSTM (PyTorch gate order i, f, g, o) computes, for t = 0..T-1,
    gates = x_l[:, t] @ W_ih^T + b_ih + h_{t-1} @ W_hh^T + b_hh            [B, 4H]
    i, f, o = sigmoid(gates[i], gates[f], gates[o]);  g = tanh(gates[g])
    c_t = f * c_{t-1} + i * g;  h_t = o * tanh(c_t)
and x_{l+1} = (h_0 .. h_{T-1}). The pipeline has, per layer, one input-projection kernel launched once
(the non-recurrent W_ih part for all time steps, as cuDNN also does it) and one step kernel launched once
per time step, then the fc kernel:

    lstm<l>_input_proj_kernel   x_l [B, T, K]            -> gin_l [B, T, 4H]       (1 launch per layer)
    lstm<l>_step_kernel         gin_l, state_l[t-1]       -> state_l[t] [2, B, H]   (T launches per layer)
    lstm_fc_kernel              state_6[T-1]              -> y [B, 10]

state_l[t] packs (h_t, c_t), since a step writes only its last tensor argument; state_l is [T, 2, B, H]
and layer l + 1 reads its input sequence from the h halves. The pipeline is proj_1, step_1(0..T-1),
proj_2, ..., step_6(T-1), fc: 6 (T + 1) + 1 = 3079 launches officially. Depth is the launch index: a fault
in a step kernel enters at that layer's first step and is carried by its recurrence and every layer above.

Initial state: the official h0 and c0 are fresh torch.randn draws in every forward, which no kernel can
reproduce. The pipeline starts every layer from zeros instead (K.zeros buffers), and `ref` draws h0 and c0
exactly as Model.forward does. The LSTM forgets its initial state: on the official weights the output
moves by 1.2e-2 (T = 8), 5e-4 (16), 1.6e-5 (24), 5e-7 (32) and below 1e-8 (48 and more) in allclose terms
between random and zero initial states (CPU, U[0,1) inputs; 1.6e-5 at T = 32 and 6e-7 at T = 48 for U[0,4)),
so every suite has T >= 48 and the two agree there to far below the tolerance. The fp64 evaluation of
`ref` draws its own h0 and c0 (fp32 draws cast to double), equally forgotten.

The input projections are plain 16 x 16 shared-memory tiled GEMMs (guarded, zero-filled tile loads, a
barrier after the loads and another after the multiply-accumulate, fp32 accumulation) whose rows are
(batch, time) pairs read through two strides (x: [B, T, I]; a lower layer's state: [T, 2, B, H]). The step
kernel is one thread per (batch, hidden unit): four dot products of length H with the previous hidden
state, the biases, sigmoid as 1 / (1 + expf(-v)), tanhf, and both new values. The fc is one thread per
output.

Cost on the official input: the input projections are 2 x 5120 x 1024 x (128 + 5 x 256) = 14.8 GFLOP, the
recurrent products 2 x 3072 x 10 x 1024 x 256 = 16.1 GFLOP, but the 3072 step launches are latency bound
(2560 threads each, 1024 multiply-adds with strided weight loads from L2): about 20-40 us each, so about
60-130 ms per forward.
"""

LAYER_TEMPLATE = r"""
// ---------------------------------------------------------------- LSTM layer LAYER
// input projection: gin[b, t, :] = x_l[b, t, :] @ W_ih^T + b_ih for every time step at once
extern "C" __global__ void LAYER_input_proj_kernel(
    const float* __restrict__ src,      // x_l: element (b, t, k) at b * stride_b + t * stride_t + k
    const float* __restrict__ w,        // [N, K]  (weight_ih, N = 4H)
    const float* __restrict__ bias,     // [N]     (bias_ih)
    float* __restrict__ gin,            // [B, T, N]  (rows M = B * T, row = b * T + t)
    int B, int T, int K, int N, long long stride_b, long long stride_t)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x_l[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int M = B * T;
    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.x * TILE + ty;   // (batch, time) row b * T + t
    int col = blockIdx.y * TILE + tx;   // gate unit
    int w_row = blockIdx.y * TILE + ty; // the W row this thread loads into the tile
    int b = row / T;
    int t = row % T;
    const float* src_row = src + (long long)b * stride_b + (long long)t * stride_t;

    float acc = 0.0f;
    int num_tiles = (K + TILE - 1) / TILE;
    for (int kt = 0; kt < num_tiles; ++kt) {
        int k = kt * TILE + tx;
        if (row < M && k < K) {
            xs[ty][tx] = src_row[k];
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
        gin[(long long)row * N + col] = acc + bias[col];
    }
}

// one time step t: gates = gin[:, t] + h_{t-1} @ W_hh^T + b_hh; c_t = f c_{t-1} + i g; h_t = o tanh(c_t)
extern "C" __global__ void LAYER_step_kernel(
    const float* __restrict__ gin,          // [B, T, 4H]  (input projections, b_ih included)
    const float* __restrict__ state_prev,   // [2, B, H]: h_{t-1}, then c_{t-1}
    const float* __restrict__ w,            // [4H, H]  (weight_hh: rows i, f, g, o)
    const float* __restrict__ bias,         // [4H]     (bias_hh)
    float* __restrict__ state,              // [2, B, H]: h_t, then c_t
    int B, int T, int H, int t)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * H) return;
    int j = idx % H;                        // hidden unit
    int b = idx / H;                        // batch row

    const float* g_row = gin + ((long long)b * T + t) * 4 * H;
    const float* h_prev = state_prev + (long long)b * H;
    float c_prev = state_prev[(long long)B * H + (long long)b * H + j];

    float acc_i = g_row[j] + bias[j];
    float acc_f = g_row[H + j] + bias[H + j];
    float acc_g = g_row[2 * H + j] + bias[2 * H + j];
    float acc_o = g_row[3 * H + j] + bias[3 * H + j];
    for (int k = 0; k < H; ++k) {
        float hk = h_prev[k];
        acc_i += w[(long long)j * H + k] * hk;
        acc_f += w[(long long)(H + j) * H + k] * hk;
        acc_g += w[(long long)(2 * H + j) * H + k] * hk;
        acc_o += w[(long long)(3 * H + j) * H + k] * hk;
    }

    float ig = 1.0f / (1.0f + expf(-acc_i));
    float fg = 1.0f / (1.0f + expf(-acc_f));
    float gg = tanhf(acc_g);
    float og = 1.0f / (1.0f + expf(-acc_o));
    float c = fg * c_prev + ig * gg;
    float h = og * tanhf(c);
    state[(long long)b * H + j] = h;
    state[(long long)B * H + (long long)b * H + j] = c;
}
"""

PRELUDE = r"""
const int TILE = 16;    // GEMM tile edge: blocks are TILE x TILE threads
"""

FC_KERNEL = r"""
// ---------------------------------------------------------------- fc
// y = fc(out[:, -1, :]): the top layer's hidden state after the last time step, @ W_fc^T + b_fc
extern "C" __global__ void lstm_fc_kernel(
    const float* __restrict__ state_last,   // [2, B, H]: h_{T-1} of the top layer, then c_{T-1}
    const float* __restrict__ w,            // [O, H]
    const float* __restrict__ bias,         // [O]
    float* __restrict__ out,                // [B, O]
    int B, int H, int O)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= B * O) return;
    int o = idx % O;
    int b = idx / O;

    float acc = 0.0f;
    for (int k = 0; k < H; ++k) {
        acc += state_last[(long long)b * H + k] * w[(long long)o * H + k];
    }
    out[idx] = acc + bias[o];
}
"""

NUM_LAYERS = 6          # get_init_inputs() = [128, 256, 6, 10, 0.0]: fixed by the weights
INPUT_SIZE = 128
HIDDEN_SIZE = 256
OUTPUT_SIZE = 10
DROPOUT = 0.0
LAYER_NAMES = [f"lstm{l + 1}" for l in range(NUM_LAYERS)]
CUDA = PRELUDE + "".join(LAYER_TEMPLATE.replace("LAYER", name) for name in LAYER_NAMES) + FC_KERNEL
KERNELS = [f"{name}_{part}_kernel" for name in LAYER_NAMES for part in ("input_proj", "step")] + ["lstm_fc_kernel"]

TILE = 16               # must equal TILE in the CUDA source
BLOCK = 256             # step and fc kernels: 1D blocks
MIN_SEQ = 48            # the initial state is forgotten to below 1e-6 (see the docstring)
SCALE = 4.0             # T2: x = U[0, 4)
SPIKE_FRACTION = 0.05   # T3: about 5% of x's entries are U[0, 8) spikes on exact zeros
SPIKE_SCALE = 8.0


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__: nn.LSTM(128, 256, 6, batch_first=True, dropout=0.0) (for each layer weight_ih,
        # weight_hh, bias_ih, bias_hh, all U(+-1/16)), then fc = nn.Linear(256, 10).
        nn = torch.nn
        lstm = nn.LSTM(INPUT_SIZE, HIDDEN_SIZE, NUM_LAYERS, batch_first=True, dropout=DROPOUT, bidirectional=False)
        fc = nn.Linear(HIDDEN_SIZE, OUTPUT_SIZE)
        return {"lstm": list(lstm._flat_weights), "fc_w": fc.weight, "fc_b": fc.bias}

    W = K.weights(build)

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        B, T, I = x.shape
        H = HIDDEN_SIZE
        init = K.zeros(NUM_LAYERS, 2, B, H, like=x)     # zero initial (h, c) for every layer
        seq = []
        src, K_in, stride_b, stride_t = x, I, T * I, I
        state = None
        for l, name in enumerate(LAYER_NAMES):
            w_ih, w_hh, b_ih, b_hh = w["lstm"][4 * l : 4 * l + 4]
            N4 = w_ih.shape[0]
            gin = torch.empty(B, T, N4, device=x.device, dtype=x.dtype)
            state = torch.empty(T, 2, B, H, device=x.device, dtype=x.dtype)
            seq.append((
                f"{name}_input_proj_kernel",
                (K.cdiv(B * T, TILE), K.cdiv(N4, TILE), 1),
                (TILE, TILE, 1),
                [src, w_ih, b_ih, gin],
                [(ctypes.c_int, B), (ctypes.c_int, T), (ctypes.c_int, K_in), (ctypes.c_int, N4),
                 (ctypes.c_longlong, stride_b), (ctypes.c_longlong, stride_t)],
            ))
            for t in range(T):
                prev = init[l] if t == 0 else state[t - 1]
                seq.append((
                    f"{name}_step_kernel",
                    (K.cdiv(B * H, BLOCK), 1, 1),
                    (BLOCK, 1, 1),
                    [gin, prev, w_hh, b_hh, state[t]],
                    [(ctypes.c_int, B), (ctypes.c_int, T), (ctypes.c_int, H), (ctypes.c_int, t)],
                ))
            # the next layer reads h_t of this one: element (b, t, k) at state[t, 0, b, k]
            src, K_in, stride_b, stride_t = state, H, H, 2 * B * H
        O = w["fc_w"].shape[0]
        out = torch.empty(B, O, device=x.device, dtype=x.dtype)
        seq.append((
            "lstm_fc_kernel",
            (K.cdiv(B * O, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [state[T - 1], w["fc_w"], w["fc_b"], out],
            [(ctypes.c_int, B), (ctypes.c_int, H), (ctypes.c_int, O)],
        ))
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        # Model.forward: fresh randn initial states on x's device, nn.LSTM (which calls the same
        # torch.lstm with its flat weights), fc on the last time step.
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        batch_size = x.size(0)
        h0 = torch.randn(NUM_LAYERS, batch_size, HIDDEN_SIZE, device=x.device).to(x.dtype)
        c0 = torch.randn(NUM_LAYERS, batch_size, HIDDEN_SIZE, device=x.device).to(x.dtype)
        out, _, _ = torch.lstm(x, (h0, c0), w["lstm"], True, NUM_LAYERS, DROPOUT, True, False, True)
        return F.linear(out[:, -1, :], w["fc_w"], w["fc_b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, sequence_length, input_size)]
        return [torch.rand(s["batch"], s["seq"], INPUT_SIZE)]

    def scaled_inputs(torch, s):
        return [torch.rand(s["batch"], s["seq"], INPUT_SIZE) * SCALE]

    def spiky_inputs(torch, s):
        shape = (s["batch"], s["seq"], INPUT_SIZE)
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p35_lstm",
        level=3,
        problem="35_LSTM",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={
            "batch": K.dim(10),
            "seq": K.dim(512, min=MIN_SEQ),
        },
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                rand_inputs,
                seeds=[1, 2],
                sizes={"batch": 3, "seq": 49},
                small=True,
                purpose="batch 3, 49 steps: the input projections' 147 (batch, time) rows are 9 x 16 + 3, so their "
                "row guards and zero fills matter, and b * T + t with T = 49 makes a wrong batch or time stride "
                "visible; the fc's 30 outputs leave 226 threads of its block idle; 49 >= 48 steps forget the "
                "random initial state of the reference (see the docstring); official U[0,1) values",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs,
                seeds=[3, 4],
                sizes={"batch": 5, "seq": 64},
                purpose="same-sign x = U[0,4): the first layer's gate pre-activations grow 4x into the sigmoid and "
                "tanh bends, so its hidden states vary 4x more with the input and the most input-sensitive "
                "output this degenerate problem allows (see notes) reaches the fc; 64 steps, 320 = 20 x 16 rows",
            ),
            K.suite(
                "T3_sparse",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 2, "seq": 96},
                purpose="about 5% of x's entries U[0,8) spikes on exact zeros: the first layer's input projection "
                "is its bias alone on most entries and isolated large terms elsewhere, so a wrong k, time or "
                "batch index in it, or a gate-block offset error, changes specific first-layer states instead of "
                "averaging out; 96 steps, batch 2",
            ),
        ],
        notes="DEGENERATE (input-insensitive): every LSTM layer attenuates the dependence on its input about 4x "
        "(last-step hidden-state differences between two random inputs: 0.18, 0.036, 0.011, 0.0026, 8.5e-4, "
        "1.9e-4 in layers 1-6, CPU), so the output |y| <= 0.083 is nearly constant: two different U[0,1) "
        "inputs give outputs 5.6e-5 apart in allclose terms (2.2e-4 at U[0,4), at most 7e-4 at any scale up to "
        "U[0,64)); facts Appendix C flags it INPUT-INSENSITIVE at 1e-4. Faults in the lower layers reach the "
        "output attenuated accordingly, so many are undetectable at 1e-2. The reference draws random h0/c0 in "
        "forward; this pipeline starts from zeros, which the LSTM forgets within 48 steps (docstring). The "
        "cuDNN LSTM of the GPU reference runs its matrix products in TF32 by default (facts sections 0 and 7); "
        "the output is so small that this stays far inside 1e-2 (facts: the default reference matches fp64 at "
        "1e-4 on this problem). Every B * H is a multiple of the 256-thread step block (H = 256), so the step "
        "kernels' guard never fires; the 4H = 1024 and K = 128 / 256 feature sizes are multiples of the tile.",
    )
