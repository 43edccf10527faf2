"""KernelBench level 3, problem 3_DeepNarrowMLP: 17 Linear layers (8192->1024, fifteen 1024->1024,
1024->8192) with a ReLU after each of the first 16, on x 1024 x 8192.

Model(8192, [1024] * 16, 8192) builds an nn.Sequential of Linear/ReLU pairs and a final Linear:
32.5 M fp32 parameters. The pipeline has one kernel per Linear layer, each ReLU fused into the
epilogue of the Linear before it:

    dnmlp_fc0_relu_kernel    [B,8192] -> [B,1024]
    dnmlp_fc1_relu_kernel    [B,1024] -> [B,1024]
    ...                      (fc1 .. fc15 are 1024 -> 1024)
    dnmlp_fc15_relu_kernel   [B,1024] -> [B,1024]
    dnmlp_fc16_kernel        [B,1024] -> [B,8192]   (network output, no activation)

Every kernel is a plain 16 x 16 shared-memory tiled GEMM (one thread per output element, guarded and
zero-filled tile loads, a barrier after the loads and another after the multiply-accumulate, fp32
accumulation, bias and ReLU in the epilogue). The seventeen definitions are generated below from one
template string, but each is a distinct, fully written-out __global__ with its own name in the CUDA
source, so a mutation belongs to exactly one layer.

Cost: 2 x 1024 x 32.5e6 = 67 GFLOP per forward; at the 6.4 TFLOP/s the same tiling reached on
1_MLP that is about 11 ms on an H200, plus 17 launches.
"""

_GEMM_TEMPLATE = r"""
// Layer @IDX@: @DESC@
extern "C" __global__ void @NAME@(
    const float* __restrict__ x,    // [M, K]  (@INPUT@)
    const float* __restrict__ w,    // [N, K]
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
@EPILOGUE@
    }
}
"""

_RELU_EPILOGUE = """        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;"""

_LINEAR_EPILOGUE = """        out[(long long)row * N + col] = acc + b[col];"""

TILE = 16                       # must equal TILE in the CUDA source
INPUT_SIZE = 8192               # get_init_inputs(): [8192, [1024] * 16, 8192]; fixed by the weights
HIDDEN_SIZES = (1024,) * 16
OUTPUT_SIZE = 8192
NUM_LAYERS = len(HIDDEN_SIZES) + 1      # 17 Linear layers
MAX_GRID_Y = 65535              # the batch is tiled along gridDim.y


def _kernel_name(i):
    return f"dnmlp_fc{i}_relu_kernel" if i < NUM_LAYERS - 1 else f"dnmlp_fc{i}_kernel"


def _make_cuda():
    # One distinct, fully written-out kernel per layer (string generation only, no compilation).
    parts = ["\nconst int TILE = 16;    // tile edge: blocks are TILE x TILE threads, K is consumed TILE at a time\n"]
    for i in range(NUM_LAYERS):
        last = i == NUM_LAYERS - 1
        desc = f"h{i} = relu(h{i - 1} @ W{i}^T + b{i})" if not last else f"y = h{i - 1} @ W{i}^T + b{i} (no activation)"
        if i == 0:
            desc = "h0 = relu(x @ W0^T + b0)"
        parts.append(
            _GEMM_TEMPLATE.replace("@IDX@", str(i))
            .replace("@DESC@", desc)
            .replace("@NAME@", _kernel_name(i))
            .replace("@INPUT@", "x" if i == 0 else f"h{i - 1}")
            .replace("@EPILOGUE@", _LINEAR_EPILOGUE if last else _RELU_EPILOGUE)
        )
    return "".join(parts)


CUDA = _make_cuda()
KERNELS = [_kernel_name(i) for i in range(NUM_LAYERS)]


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__ appends Linear(in, out) then ReLU for each hidden size, then a final Linear,
        # inside an nn.Sequential; the ReLUs draw nothing, so these 17 Linears built in order get the
        # official parameters.
        nn = torch.nn
        sizes = [INPUT_SIZE, *HIDDEN_SIZES, OUTPUT_SIZE]
        params = {}
        for i in range(NUM_LAYERS):
            fc = nn.Linear(sizes[i], sizes[i + 1])
            params[f"w{i}"] = fc.weight
            params[f"b{i}"] = fc.bias
        return params

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
        (x,) = inputs
        w = W(x)
        M = x.shape[0]
        seq = []
        h = x
        for i in range(NUM_LAYERS):
            out = torch.empty(M, w[f"w{i}"].shape[0], device=x.device, dtype=x.dtype)
            seq.append(gemm_step(KERNELS[i], h, w[f"w{i}"], w[f"b{i}"], out))
            h = out
        return {"seq": seq, "out": h}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        h = x
        for i in range(NUM_LAYERS - 1):
            h = torch.relu(F.linear(h, w[f"w{i}"], w[f"b{i}"]))
        last = NUM_LAYERS - 1
        return F.linear(h, w[f"w{last}"], w[f"b{last}"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, input_size)]
        return [torch.rand(s["batch"], INPUT_SIZE)]

    def scaled_inputs(scale):
        # Same sign, `scale` times the official U[0,1) range.
        def gen(torch, s):
            return [torch.rand(s["batch"], INPUT_SIZE) * scale]

        return gen

    def sparse_inputs(torch, s):
        # About 1% of the entries nonzero with values in [1e6, 1e7); the rest exact zeros.
        x = torch.zeros(s["batch"], INPUT_SIZE)
        mask = torch.rand(s["batch"], INPUT_SIZE) < 0.01
        x[mask] = 1.0e6 + torch.rand(int(mask.sum())) * 9.0e6
        return [x]

    return K.substrate(
        name="L3p3_deep_narrow_mlp",
        level=3,
        problem="3_DeepNarrowMLP",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(1024, max=MAX_GRID_Y * TILE)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                scaled_inputs(1.0e6),
                seeds=[1, 2],
                sizes={"batch": 3},
                small=True,
                purpose="batch 3: every layer has one row of blocks with 3 live rows and 13 dead ones, so the row "
                "guards on the stores and on the activation-tile loads matter in all 17 layers; x = U[0,1e6) "
                "(see T2_large_same_sign for why the scale) makes the output depend on the input (input part up "
                "to about 0.9 on top of the about 0.05 bias-driven constant) while the late layers' biases still "
                "count, so this CPU-cheap suite also sees value faults in every layer",
            ),
            K.suite(
                "T2_large_same_sign",
                scaled_inputs(1.0e7),
                seeds=[3, 4],
                sizes={"batch": 100},
                purpose="x = U[0,1e7): with the default init each Linear+ReLU shrinks the input-dependent part of "
                "the activations about 2.5x, so at the official U[0,1) scale the output varies across the batch "
                "by only about 1e-7 (every layer before the last few is invisible at 1e-2); 1e7 lifts the "
                "input-driven output to about +-9 (batch std about 0.5), so faults in any of the 17 layers "
                "reach the output, and a 16-bit accumulator overflows in the early layers (activations about "
                "1e6); the network is nearly homogeneous, so fp32 keeps its relative accuracy: the fp32 "
                "reference is within about 1e-5 of fp64, three orders under the 1e-2 ceiling; batch 100 = "
                "6 x 16 + 4 is a second row remainder",
            ),
            K.suite(
                "T3_sparse",
                sparse_inputs,
                seeds=[5, 6],
                sizes={"batch": 32},
                purpose="about 1% of x nonzero with values in [1e6, 1e7), the rest exact zeros: each layer-0 output "
                "is its bias plus about 80 large isolated terms rather than an average over 8192 inputs, so a "
                "wrong k index, a transposed tile or a wrong tile offset in the first (8192-wide) layer is not "
                "averaged away; the output is input-driven (up to about 1) and the fp32 reference is within "
                "about 1e-6 of fp64; batch 32 is two full rows of blocks",
            ),
        ],
        notes="Degenerate at the official inputs: with the default nn.Linear init every Linear+ReLU shrinks the "
        "input-dependent part of the activations about 2.5x, so after 17 layers the official output (|y| up to "
        "about 0.05) is almost the same for every input (batch standard deviation about 1e-7, max |y - y(x=0)| "
        "about 1e-6): T0_original only checks the bias path of the last layers, and almost any fault in the "
        "first ten layers is invisible on it. The scaled suites (1e6 and 1e7 times U[0,1), and sparse spikes "
        "of 1e6..1e7) carry the input to the output. All feature sizes (8192, 1024, 8192) are fixed by the "
        "weights and are multiples of the 16-wide tile, so the k < K and N guards never fire (mutants confined "
        "to them are equivalent here); only the batch has remainders (T1, T2). The seventeen kernels come from "
        "one Python template string but are distinct named __global__ functions in the CUDA source.",
    )
