"""An output's comparison (`kmut.compare`'s figures) in one kernel launch: the GPU path for float32.

The torch expression of `kmut.compare` is about fifty elementwise kernels per chunk, each reading
and writing whole float32 or boolean temporaries, and a few synchronisations: on the
4096 x 393,216 outputs of KernelBench's level-1 elementwise problems that is hundreds of bytes of
memory traffic per element and gigabytes of temporaries, against the eight bytes a single pass
reads. The temporaries count in each column's memory footprint too, which the run's memory budget
reserves for every worker evaluating on it. Here one kernel reads both tensors once and measures
every element in float64, as `compare._chunk_fp64` does (the same IEEE operations in the same
order, so every figure is that computation's to the bit, whatever the element), and each block
writes its partial maxima and flags; torch reduces the partials (a maximum and a logical or do
not depend on the order) and the caller reads the five figures in one transfer.

Per element, exactly as the torch expression: equal values (equal infinities, 0.0 and -0.0)
contribute nothing; a non-finite output where the reference is finite sets `nonfinite`; a
difference that is not finite (a NaN or an infinity on either side) sets `broken`; otherwise
d = |ref - out| in float64 raises max_abs, d / (1 + |out|) raises tau*, and d / |ref| raises
max_rel where the reference is not zero (elsewhere that quotient is infinite, which the torch
expression drops).

Pairs this kernel does not take (another dtype, non-contiguous memory, the host) are measured
by torch as before, and so is everything in the `fp64` mode (`kmut bench run`'s baselines).
`KMUT_COMPARE=torch` turns the kernel off.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from . import own_kernels

SOURCE = r"""
#define THREADS 256
extern "C" __global__ void kmut_compare(const float* r, const float* o, long long n, double* partial) {
  double tau = 0.0, mabs = 0.0, mrel = 0.0, nonfinite = 0.0, broken = 0.0;
  const long long stride = (long long)gridDim.x * THREADS;
  for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
    const float rf = r[i], of = o[i];
    if (rf == of) continue;  // equal values contribute 0 to every figure; NaN never compares equal
    const bool fin_r = isfinite(rf), fin_o = isfinite(of);
    if (fin_r && !fin_o) nonfinite = 1.0;
    if (!(fin_r && fin_o)) { broken = 1.0; continue; }
    const double rv = (double)rf, ov = (double)of;
    const double d = fabs(rv - ov);
    mabs = fmax(mabs, d);
    tau = fmax(tau, d / (1.0 + fabs(ov)));
    if (rv != 0.0) mrel = fmax(mrel, d / fabs(rv));
  }
  for (int k = 16; k > 0; k >>= 1) {
    tau = fmax(tau, __shfl_down_sync(0xffffffffu, tau, k));
    mabs = fmax(mabs, __shfl_down_sync(0xffffffffu, mabs, k));
    mrel = fmax(mrel, __shfl_down_sync(0xffffffffu, mrel, k));
    nonfinite = fmax(nonfinite, __shfl_down_sync(0xffffffffu, nonfinite, k));
    broken = fmax(broken, __shfl_down_sync(0xffffffffu, broken, k));
  }
  __shared__ double part[THREADS / 32][5];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { part[warp][0] = tau; part[warp][1] = mabs; part[warp][2] = mrel; part[warp][3] = nonfinite; part[warp][4] = broken; }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < THREADS / 32; ++w) {
      tau = fmax(tau, part[w][0]); mabs = fmax(mabs, part[w][1]); mrel = fmax(mrel, part[w][2]);
      nonfinite = fmax(nonfinite, part[w][3]); broken = fmax(broken, part[w][4]);
    }
    double* p = partial + (long long)blockIdx.x * 5;
    p[0] = tau; p[1] = mabs; p[2] = mrel; p[3] = nonfinite; p[4] = broken;
  }
}
"""
KERNEL = "kmut_compare"
THREADS = 256
# Blocks: enough to keep an H100's or H200's memory busy on a large output (132 SMs, several
# blocks each), about eight elements per thread on a small one.
ELEMENTS_PER_THREAD = 8
MAX_BLOCKS = 2048


def enabled() -> bool:
    return own_kernels.switched_on("KMUT_COMPARE")


def takes(ref: Any, out: Any, torch: Any) -> bool:
    """Whether this kernel measures the pair: float32 on the same CUDA device, same shape, dense."""
    return own_kernels.dense_float32_pair(ref, out, torch)


def figures(ref: Any, out: Any, torch: Any) -> dict[str, Any] | None:
    """`kmut.compare.compare`'s figures for a pair that `takes` accepts (one launch, one transfer),
    or None when the kernel is not available here (the caller measures with torch)."""
    n = ref.numel()
    if n == 0:
        return {"shape_ok": True, "tau": 0.0, "max_abs": 0.0, "max_rel": 0.0, "nonfinite": False}
    image = own_kernels.load(SOURCE, "kmut_compare.cu", KERNEL, own_kernels.device_index(ref, torch), torch)
    if image is None:
        return None
    blocks = max(1, min(MAX_BLOCKS, math.ceil(n / (THREADS * ELEMENTS_PER_THREAD))))
    partial = torch.empty((blocks, 5), dtype=torch.float64, device=ref.device)
    args = [struct.pack("<Q", ref.data_ptr()), struct.pack("<Q", out.data_ptr()), struct.pack("<q", n),
            struct.pack("<Q", partial.data_ptr())]
    own_kernels.launch(image, KERNEL, (blocks, 1, 1), THREADS, args, ref.device, torch)
    tau, max_abs, max_rel, nonfinite, broken = partial.amax(dim=0).tolist()
    if broken:
        tau = max_abs = math.inf
    return {"shape_ok": True, "tau": tau, "max_abs": max_abs, "max_rel": max_rel, "nonfinite": bool(nonfinite)}
