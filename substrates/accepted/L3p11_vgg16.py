"""KernelBench level 3, problem 11_VGG16: VGG-16 on a 10 x 3 x 224 x 224 batch, 1000 classes.

A pipeline of 21 kernels, one per layer:

    block 1: conv1_1 3->64, conv1_2 64->64 (3x3, padding 1, + ReLU), pool1   224 -> 112
    block 2: conv2_1 64->128, conv2_2 128->128, pool2                        112 -> 56
    block 3: conv3_1 128->256, conv3_2, conv3_3 256->256, pool3              56 -> 28
    block 4: conv4_1 256->512, conv4_2, conv4_3 512->512, pool4              28 -> 14
    block 5: conv5_1, conv5_2, conv5_3 512->512, pool5                       14 -> 7
    (torch.flatten(x, 1) is a view: fc1 reads the contiguous pool5 buffer [N,512,7,7] as [N,25088])
    fc1 25088->4096 + ReLU, fc2 4096->4096 + ReLU, fc3 4096->1000

Dropout(p=0.0) after fc1 and fc2 is the identity even in training mode (ATen returns its input
unchanged for p == 0 and draws no random numbers), so it has no kernel. Every ReLU is fused into the
epilogue of the layer before it, every max-pool (2x2, stride 2) is its own kernel.

Convolutions and pools run one thread per output element on a 3D grid: x covers the output pixels
of one plane (flat index oh * OW + ow, 256-thread blocks), y the channel and z the image, so the
planes of 56x56, 28x28, 14x14 and 7x7 leave a partial last block (a flat index over whole tensors
would not: every layer's element count is a multiple of 256). Each conv thread loops over the input
channels and the 3x3 window with explicit zero-padding guards, accumulating in fp32. The three
classifier layers are plain 16 x 16 shared-memory tiled GEMMs as in L3p1_mlp (guarded, zero-filled
tile loads, a barrier after the loads and another after the multiply-accumulate); a batch of 10
fills 10 of the 16 rows of the only row tile, and fc3's 1000 outputs leave a partial column tile.

Only the batch is resizable: the 224 x 224 input size is fixed by fc1's 25088 = 512 x 7 x 7 inputs.

Cost: the convolutions are 15.35 G multiply-adds per image (30.7 GFLOP), 307 GFLOP for the official
batch of 10; the classifier is 0.12 G multiply-adds per image plus a single pass over its 411 MB of
fc1 weights. A naive direct convolution of this shape sustains a few fp32 TFLOP/s on an H200
(weights are block-uniform broadcasts, input rows are coalesced and re-read from L1/L2), so the
expected forward is about 0.1-0.3 s, the classifier a few ms of it.
"""

CUDA = r"""
const int TILE = 16;    // classifier GEMMs: blocks are TILE x TILE threads, K is consumed TILE at a time

// features[0]: Conv2d(3, 64, kernel_size=3, padding=1) + ReLU   [N,3,224,224] -> [N,64,224,224]
extern "C" __global__ void vgg_conv1_1_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[2]: Conv2d(64, 64, kernel_size=3, padding=1) + ReLU   [N,64,224,224] -> [N,64,224,224]
extern "C" __global__ void vgg_conv1_2_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[4]: MaxPool2d(kernel_size=2, stride=2)   [N,64,224,224] -> [N,64,112,112]
extern "C" __global__ void vgg_pool1_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;                               // kernel_size=2
    const int POOL_S = 2;                               // stride=2
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // Floor mode: OH = (H - POOL_K) / POOL_S + 1, so every window lies inside the input.
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = m;
}

// features[5]: Conv2d(64, 128, kernel_size=3, padding=1) + ReLU   [N,64,112,112] -> [N,128,112,112]
extern "C" __global__ void vgg_conv2_1_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[7]: Conv2d(128, 128, kernel_size=3, padding=1) + ReLU   [N,128,112,112] -> [N,128,112,112]
extern "C" __global__ void vgg_conv2_2_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[9]: MaxPool2d(kernel_size=2, stride=2)   [N,128,112,112] -> [N,128,56,56]
extern "C" __global__ void vgg_pool2_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;                               // kernel_size=2
    const int POOL_S = 2;                               // stride=2
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // Floor mode: OH = (H - POOL_K) / POOL_S + 1, so every window lies inside the input.
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = m;
}

// features[10]: Conv2d(128, 256, kernel_size=3, padding=1) + ReLU   [N,128,56,56] -> [N,256,56,56]
extern "C" __global__ void vgg_conv3_1_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[12]: Conv2d(256, 256, kernel_size=3, padding=1) + ReLU   [N,256,56,56] -> [N,256,56,56]
extern "C" __global__ void vgg_conv3_2_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[14]: Conv2d(256, 256, kernel_size=3, padding=1) + ReLU   [N,256,56,56] -> [N,256,56,56]
extern "C" __global__ void vgg_conv3_3_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[16]: MaxPool2d(kernel_size=2, stride=2)   [N,256,56,56] -> [N,256,28,28]
extern "C" __global__ void vgg_pool3_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;                               // kernel_size=2
    const int POOL_S = 2;                               // stride=2
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // Floor mode: OH = (H - POOL_K) / POOL_S + 1, so every window lies inside the input.
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = m;
}

// features[17]: Conv2d(256, 512, kernel_size=3, padding=1) + ReLU   [N,256,28,28] -> [N,512,28,28]
extern "C" __global__ void vgg_conv4_1_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[19]: Conv2d(512, 512, kernel_size=3, padding=1) + ReLU   [N,512,28,28] -> [N,512,28,28]
extern "C" __global__ void vgg_conv4_2_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[21]: Conv2d(512, 512, kernel_size=3, padding=1) + ReLU   [N,512,28,28] -> [N,512,28,28]
extern "C" __global__ void vgg_conv4_3_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[23]: MaxPool2d(kernel_size=2, stride=2)   [N,512,28,28] -> [N,512,14,14]
extern "C" __global__ void vgg_pool4_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;                               // kernel_size=2
    const int POOL_S = 2;                               // stride=2
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // Floor mode: OH = (H - POOL_K) / POOL_S + 1, so every window lies inside the input.
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = m;
}

// features[24]: Conv2d(512, 512, kernel_size=3, padding=1) + ReLU   [N,512,14,14] -> [N,512,14,14]
extern "C" __global__ void vgg_conv5_1_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[26]: Conv2d(512, 512, kernel_size=3, padding=1) + ReLU   [N,512,14,14] -> [N,512,14,14]
extern "C" __global__ void vgg_conv5_2_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[28]: Conv2d(512, 512, kernel_size=3, padding=1) + ReLU   [N,512,14,14] -> [N,512,14,14]
extern "C" __global__ void vgg_conv5_3_relu_kernel(
    const float* __restrict__ x,    // [N, C_in, H, W]
    const float* __restrict__ w,    // [C_out, C_in, KH, KW]
    const float* __restrict__ b,    // [C_out]
    float* __restrict__ out,        // [N, C_out, OH, OW]
    int N, int C_in, int H, int W, int C_out, int KH, int KW, int OH, int OW)
{
    const int PAD = 1;                                  // padding=1 on every side, stride 1

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int co = blockIdx.y;                                // output channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || co >= C_out || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    float acc = 0.0f;
    for (int ci = 0; ci < C_in; ++ci) {
        for (int kh = 0; kh < KH; ++kh) {
            int ih = oh - PAD + kh;
            if (ih < 0 || ih >= H) continue;            // zero padding above and below
            for (int kw = 0; kw < KW; ++kw) {
                int iw = ow - PAD + kw;
                if (iw < 0 || iw >= W) continue;        // zero padding left and right
                float xv = x[(((long long)n * C_in + ci) * H + ih) * W + iw];
                float wv = w[(((long long)co * C_in + ci) * KH + kh) * KW + kw];
                acc += xv * wv;
            }
        }
    }

    float v = acc + b[co];
    out[((long long)n * C_out + co) * OH * OW + p] = v > 0.0f ? v : 0.0f;
}

// features[30]: MaxPool2d(kernel_size=2, stride=2)   [N,512,14,14] -> [N,512,7,7]
extern "C" __global__ void vgg_pool5_kernel(
    const float* __restrict__ x,    // [N, C, H, W]
    float* __restrict__ out,        // [N, C, OH, OW]
    int N, int C, int H, int W, int OH, int OW)
{
    const int POOL_K = 2;                               // kernel_size=2
    const int POOL_S = 2;                               // stride=2
    const float LOWEST = -3.402823466e+38f;             // -FLT_MAX: identity of the max

    int p = blockIdx.x * blockDim.x + threadIdx.x;      // output pixel: oh * OW + ow
    int c = blockIdx.y;                                 // channel
    int n = blockIdx.z;                                 // image
    if (p >= OH * OW || c >= C || n >= N) return;

    int oh = p / OW;
    int ow = p % OW;

    // Floor mode: OH = (H - POOL_K) / POOL_S + 1, so every window lies inside the input.
    float m = LOWEST;
    for (int kh = 0; kh < POOL_K; ++kh) {
        for (int kw = 0; kw < POOL_K; ++kw) {
            int ih = oh * POOL_S + kh;
            int iw = ow * POOL_S + kw;
            float v = x[(((long long)n * C + c) * H + ih) * W + iw];
            if (v > m) m = v;
        }
    }
    out[((long long)n * C + c) * OH * OW + p] = m;
}

// classifier[0..1]: Linear(25088, 4096) + ReLU; x is the pool5 buffer [N, 512, 7, 7] read as [N, 25088]
extern "C" __global__ void vgg_fc1_relu_kernel(
    const float* __restrict__ x,    // [M, K]  (pool5 output, flattened)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (image)
    int col = blockIdx.x * TILE + tx;   // output column (out feature)
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
        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;
    }
}

// classifier[3..4]: Linear(4096, 4096) + ReLU (classifier[2] is Dropout(p=0.0): the identity)
extern "C" __global__ void vgg_fc2_relu_kernel(
    const float* __restrict__ x,    // [M, K]  (fc1 output)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (image)
    int col = blockIdx.x * TILE + tx;   // output column (out feature)
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
        float v = acc + b[col];
        out[(long long)row * N + col] = v > 0.0f ? v : 0.0f;
    }
}

// classifier[6]: Linear(4096, num_classes), no activation (classifier[5] is Dropout(p=0.0))
extern "C" __global__ void vgg_fc3_kernel(
    const float* __restrict__ x,    // [M, K]  (fc2 output)
    const float* __restrict__ w,    // [N, K]
    const float* __restrict__ b,    // [N]
    float* __restrict__ out,        // [M, N]
    int M, int N, int K)
{
    __shared__ float xs[TILE][TILE];    // xs[r][k] = x[row0 + r, k0 + k]
    __shared__ float ws[TILE][TILE];    // ws[k][c] = w[col0 + c, k0 + k]  (stored transposed)

    int tx = threadIdx.x;
    int ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;   // output row (image)
    int col = blockIdx.x * TILE + tx;   // output column (out feature)
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
"""

KERNELS = [
    "vgg_conv1_1_relu_kernel",
    "vgg_conv1_2_relu_kernel",
    "vgg_pool1_kernel",
    "vgg_conv2_1_relu_kernel",
    "vgg_conv2_2_relu_kernel",
    "vgg_pool2_kernel",
    "vgg_conv3_1_relu_kernel",
    "vgg_conv3_2_relu_kernel",
    "vgg_conv3_3_relu_kernel",
    "vgg_pool3_kernel",
    "vgg_conv4_1_relu_kernel",
    "vgg_conv4_2_relu_kernel",
    "vgg_conv4_3_relu_kernel",
    "vgg_pool4_kernel",
    "vgg_conv5_1_relu_kernel",
    "vgg_conv5_2_relu_kernel",
    "vgg_conv5_3_relu_kernel",
    "vgg_pool5_kernel",
    "vgg_fc1_relu_kernel",
    "vgg_fc2_relu_kernel",
    "vgg_fc3_kernel",
]

# features, in order: ("conv", kernel, C_in, C_out) or ("pool", kernel)
FEATURES = [
    ("conv", "vgg_conv1_1_relu_kernel", 3, 64),
    ("conv", "vgg_conv1_2_relu_kernel", 64, 64),
    ("pool", "vgg_pool1_kernel"),
    ("conv", "vgg_conv2_1_relu_kernel", 64, 128),
    ("conv", "vgg_conv2_2_relu_kernel", 128, 128),
    ("pool", "vgg_pool2_kernel"),
    ("conv", "vgg_conv3_1_relu_kernel", 128, 256),
    ("conv", "vgg_conv3_2_relu_kernel", 256, 256),
    ("conv", "vgg_conv3_3_relu_kernel", 256, 256),
    ("pool", "vgg_pool3_kernel"),
    ("conv", "vgg_conv4_1_relu_kernel", 256, 512),
    ("conv", "vgg_conv4_2_relu_kernel", 512, 512),
    ("conv", "vgg_conv4_3_relu_kernel", 512, 512),
    ("pool", "vgg_pool4_kernel"),
    ("conv", "vgg_conv5_1_relu_kernel", 512, 512),
    ("conv", "vgg_conv5_2_relu_kernel", 512, 512),
    ("conv", "vgg_conv5_3_relu_kernel", 512, 512),
    ("pool", "vgg_pool5_kernel"),
]

BLOCK = 256            # conv and pool kernels: threads per block along the output pixels of a plane
TILE = 16              # classifier GEMMs: must equal TILE in the CUDA source
PAD = 1                # every conv: kernel_size=3, padding=1, stride 1 (must equal PAD in the kernels)
POOL_K = 2             # every MaxPool2d(kernel_size=2, stride=2)
POOL_S = 2
IN_CHANNELS = 3
IMAGE = 224            # fixed: fc1 takes 512 * 7 * 7 = 25088 features
FC_SIZES = (512 * 7 * 7, 4096, 4096)
NUM_CLASSES = 1000     # get_init_inputs() = [1000]
MAX_GRID_YZ = 65535    # the batch runs along gridDim.z of the conv and pool kernels
LARGE_SCALE = 1.0e5    # T1/T2: x = U[0, 1e5)
SPIKE_FRACTION = 0.01  # T3: about 1% of the input values are spikes
SPIKE_SCALE = 5.0e5    # T3: spikes are U[0, 5e5)


def register(K, torch, ctypes):
    def build(torch):
        # Model.__init__(num_classes=1000): 13 Conv2d(k=3, padding=1) in `features`, then three
        # Linear in `classifier`. ReLU, MaxPool2d and Dropout draw nothing, so building the
        # parameterised layers in the same order gives the same parameters.
        nn = torch.nn
        convs = []
        for layer in FEATURES:
            if layer[0] == "conv":
                convs.append(nn.Conv2d(layer[2], layer[3], kernel_size=3, padding=PAD))
        fc1 = nn.Linear(FC_SIZES[0], FC_SIZES[1])
        fc2 = nn.Linear(FC_SIZES[1], FC_SIZES[2])
        fc3 = nn.Linear(FC_SIZES[2], NUM_CLASSES)
        return {
            "conv_w": [c.weight for c in convs],
            "conv_b": [c.bias for c in convs],
            "fc1_w": fc1.weight, "fc1_b": fc1.bias,
            "fc2_w": fc2.weight, "fc2_b": fc2.bias,
            "fc3_w": fc3.weight, "fc3_b": fc3.bias,
        }

    W = K.weights(build)

    def conv_step(name, x, w, b, torch):
        N, C_in, H, W_in = x.shape
        C_out, _, KH, KW = w.shape
        OH = H + 2 * PAD - KH + 1
        OW = W_in + 2 * PAD - KW + 1
        out = torch.empty((N, C_out, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C_out, N),
            (BLOCK, 1, 1),
            [x, w, b, out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C_in),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, C_out),
                (ctypes.c_int, KH),
                (ctypes.c_int, KW),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
            ],
        )
        return step, out

    def pool_step(name, x, torch):
        N, C, H, W_in = x.shape
        OH = (H - POOL_K) // POOL_S + 1
        OW = (W_in - POOL_K) // POOL_S + 1
        out = torch.empty((N, C, OH, OW), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(OH * OW, BLOCK), C, N),
            (BLOCK, 1, 1),
            [x, out],
            [
                (ctypes.c_int, N),
                (ctypes.c_int, C),
                (ctypes.c_int, H),
                (ctypes.c_int, W_in),
                (ctypes.c_int, OH),
                (ctypes.c_int, OW),
            ],
        )
        return step, out

    def fc_step(name, x, w, b, torch):
        # x is [M, K] or the contiguous [M, 512, 7, 7] pool5 buffer, read as [M, 25088].
        M = x.shape[0]
        N_out, K_in = w.shape
        out = torch.empty((M, N_out), device=x.device, dtype=x.dtype)
        step = (
            name,
            (K.cdiv(N_out, TILE), K.cdiv(M, TILE), 1),
            (TILE, TILE, 1),
            [x, w, b, out],
            [(ctypes.c_int, M), (ctypes.c_int, N_out), (ctypes.c_int, K_in)],
        )
        return step, out

    def launch(inputs, torch):
        (x,) = inputs
        w = W(x)
        seq = []
        h = x
        i = 0
        for layer in FEATURES:
            if layer[0] == "conv":
                step, h = conv_step(layer[1], h, w["conv_w"][i], w["conv_b"][i], torch)
                i += 1
            else:
                step, h = pool_step(layer[1], h, torch)
            seq.append(step)
        # torch.flatten(x, 1): no kernel, fc1 reads the pool5 buffer as [N, 25088].
        step, h = fc_step("vgg_fc1_relu_kernel", h, w["fc1_w"], w["fc1_b"], torch)
        seq.append(step)
        step, h = fc_step("vgg_fc2_relu_kernel", h, w["fc2_w"], w["fc2_b"], torch)
        seq.append(step)
        step, out = fc_step("vgg_fc3_kernel", h, w["fc3_w"], w["fc3_b"], torch)
        seq.append(step)
        return {"seq": seq, "out": out}

    def ref(inputs, torch):
        (x,) = inputs
        w = W(x)
        F = torch.nn.functional
        i = 0
        for layer in FEATURES:
            if layer[0] == "conv":
                x = F.relu(F.conv2d(x, w["conv_w"][i], w["conv_b"][i], padding=PAD))
                i += 1
            else:
                x = F.max_pool2d(x, kernel_size=POOL_K, stride=POOL_S)
        x = torch.flatten(x, 1)
        x = F.relu(F.linear(x, w["fc1_w"], w["fc1_b"]))
        x = F.dropout(x, p=0.0, training=True)
        x = F.relu(F.linear(x, w["fc2_w"], w["fc2_b"]))
        x = F.dropout(x, p=0.0, training=True)
        return F.linear(x, w["fc3_w"], w["fc3_b"])

    def rand_inputs(torch, s):
        # get_inputs(): [torch.rand(batch_size, 3, 224, 224)]
        return [torch.rand(s["batch"], IN_CHANNELS, IMAGE, IMAGE)]

    def large_inputs(torch, s):
        # Same sign, U[0, 1e5): see T2_large_same_sign.
        return [torch.rand(s["batch"], IN_CHANNELS, IMAGE, IMAGE) * LARGE_SCALE]

    def spiky_inputs(torch, s):
        # Exact zeros with about 1% of the values set to U[0, 5e5).
        shape = (s["batch"], IN_CHANNELS, IMAGE, IMAGE)
        mask = torch.rand(shape) < SPIKE_FRACTION
        spikes = torch.rand(shape) * SPIKE_SCALE
        return [torch.where(mask, spikes, torch.zeros(shape))]

    return K.substrate(
        name="L3p11_vgg16",
        level=3,
        problem="11_VGG16",
        cuda=CUDA,
        kernel_name=list(KERNELS),
        launch=launch,
        ref=ref,
        dims={"batch": K.dim(10, max=MAX_GRID_YZ)},
        suites=[
            K.suite("T0_original", rand_inputs, purpose="the official get_inputs() under the v0.1 trial seeds"),
            K.suite(
                "T1_remainder",
                large_inputs,
                seeds=[1, 2],
                sizes={"batch": 1},
                small=True,
                purpose="batch 1, the smallest possible (the 224 x 224 image is fixed by fc1), so the CPU "
                "reference stays under a second if the 2 cores are idle (about 0.7 s; 1.2-2 s measured while "
                "other jobs ran): the classifier's row tile holds one "
                "live row and 15 dead ones, so the row guards on the GEMM loads and stores matter; the 56x56, "
                "28x28, 14x14 and 7x7 planes leave partial last blocks (3136 = 12 x 256 + 64, 784 = 3 x 256 + "
                "16, 196 and 49 < 256) in the conv and pool kernels; inputs are U[0,1e5) as in "
                "T2_large_same_sign (see there) so that this CPU suite also sees value faults in the "
                "feature layers, which the input-independent logits of U[0,1) inputs hide",
            ),
            K.suite(
                "T2_large_same_sign",
                large_inputs,
                seeds=[3, 4],
                sizes={"batch": 17},
                purpose="same-sign U[0,1e5) inputs. With the default init every conv/ReLU layer shrinks the "
                "input-dependent part of the activations (about 2.5e-7 end to end), so at the official U[0,1) "
                "scale the logits differ between images by less than 1e-6 and T0 mostly checks the "
                "classifier; x1e5 makes the logits vary across the batch by about 0.02 (|out| up to 0.3), so "
                "faults in the feature layers reach the output. A CPU emulation of the reference's TF32 "
                "convolutions (operands rounded to 10 mantissa bits at every conv, exact accumulation) gave "
                "allclose distances to the exact result of 3.4e-4 (round-to-nearest) and 2.1e-3 "
                "(truncation) at x1e5 (batch 17), against 6.7e-3 (truncation) at x1e6, so x1e5 keeps a correct fp32 "
                "pipeline, and the fp32 reference against fp64, about 5x inside 1e-2; batch 17 = 16 + 1 "
                "gives the classifier a second row tile with one live row",
            ),
            K.suite(
                "T3_sparse_spiky",
                spiky_inputs,
                seeds=[5, 6],
                sizes={"batch": 5},
                purpose="about 1% of the input values are U[0,5e5) spikes on exact zeros: conv1_1 outputs are "
                "relu(bias) wherever the 3x3x3 window holds no spike (about 76% of them), so max-pool windows "
                "hold exact ties, and each non-trivial conv1_1 output depends on one or two specific taps "
                "(kh/kw swaps, transposed weights, padding-offset faults show); the logits vary across the "
                "batch by about 0.04, twice as much as for the dense U[0,1e5) inputs at about the same TF32 "
                "error (emulated distance to the exact result 2.9e-4 round-to-nearest, 2.2e-3 truncation); "
                "batch 5",
            ),
        ],
        small_limit_s=3.0,
        notes="The small suite cannot be small: the classifier fixes the input at 3x224x224, so one image "
        "(batch 1) is the least a forward pass can do, about 15 G multiply-adds, 0.7-1.7 s on a 2-core CPU. "
        "Degenerate at the official inputs: with the default (kaiming-uniform, a=sqrt(5)) init the 13 "
        "conv layers attenuate the input-dependent signal by about 4e6, so the logits of different U[0,1) "
        "images differ by less than 1e-6 (|out| <= 0.024): T0_original is input-insensitive, a fault in the "
        "feature layers reaches its output only if it produces huge values or NaN, and only the large and "
        "spiky suites test the feature layers' values. Even there the network hides small faults: in a CPU "
        "emulation on T1_remainder a kh/kw swap in conv1_1 (3.0e-2), a dropped ReLU in conv5_3 (0.15) and a "
        "wrong pool3 column offset (2.4e-2) are killed, while conv2_2 ignoring its last input channel "
        "(8.6e-7) and fc1 without its bias (U(+-0.0063): 1.8e-3) pass T0 and T1 alike. The reference's convolutions run through "
        "cuDNN with TF32 (torch's default); the classifier is full fp32. Flatten is a view and Dropout(p=0.0) "
        "is the identity, so neither has a kernel. ReLU (v > 0 ? v : 0) and the max-pool comparison (v > m) "
        "drop NaN where torch propagates it; finite inputs are unaffected. Every feature size is fixed; the "
        "classifier's K (25088, 4096) is a multiple of the 16-wide tile, so its k < K guards never fire, "
        "while fc3's 1000 columns leave a partial column tile. 138.4M fp32 parameters (553 MB; 1.1 GB more "
        "for the fp64 reference copy).",
    )
