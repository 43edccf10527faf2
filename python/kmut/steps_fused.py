"""Every pipeline step's `[tau, rel_l2, frac_off]` in one kernel launch (kmut.steps' GPU path).

Measured with six to ten workers on one H200, the per-step capture cost a level-3 evaluation
1.76x its wall without it (issue 16's goal: 1.3x). The kernels of the comparison are cheap; the
cost was launching them: the torch expression of `kmut.steps._stats_fp64` is about fifteen small
kernels per differing step, and a fault in the first layer of a 250-step network differs at
every later step, so one evaluation queued thousands of launches from Python. Here one kernel
reads every float32 step of an evaluation (one block row per step, a grid-stride loop over its
elements), and each block writes its partial figures; torch then reduces the partials in a fixed
order (so the figures do not depend on which block finished first) and the caller reads every
row in one transfer.

The arithmetic is `_stats_fp64`'s, element by element in float64: a difference of equal values
is 0, a NaN difference is infinite, tau is the largest |orig - out| / (1 + |out|), the relative
L2 error's sums skip non-finite original values, and an element is off when its difference
exceeds atol + rtol * |out| or is infinite. `tests/python/test_steps_fused_gpu.py` checks the
figures against the torch expression on the device.

Steps this kernel does not take (another dtype, another shape, non-contiguous memory, the host)
are measured by `_stats_fp64` as before. `KMUT_STEP_STATS=torch` turns the kernel off; a kernel
that fails to compile is reported once on stderr and the torch path is used.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from . import own_kernels

SOURCE = r"""
#define THREADS 256
extern "C" __global__ void kmut_step_stats(const unsigned long long* origs, const unsigned long long* outs,
                                           const long long* counts, double atol, double rtol, double* partial) {
  const int s = blockIdx.y;
  const long long n = counts[s];
  const float* r = (const float*)origs[s];
  const float* o = (const float*)outs[s];
  const double inf = __longlong_as_double(0x7ff0000000000000LL);
  double tau = 0.0, d2 = 0.0, r2 = 0.0, off = 0.0;
  const long long stride = (long long)gridDim.x * THREADS;
  for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
    const double rv = (double)r[i], ov = (double)o[i];
    double d = (rv == ov) ? 0.0 : fabs(rv - ov);
    if (isnan(d)) d = inf;
    const double t = isinf(d) ? inf : d / (1.0 + fabs(ov));
    tau = fmax(tau, t);
    d2 += d * d;
    if (isfinite(rv)) r2 += rv * rv;
    if (d > atol + rtol * fabs(ov) || isinf(d)) off += 1.0;
  }
  for (int k = 16; k > 0; k >>= 1) {
    tau = fmax(tau, __shfl_down_sync(0xffffffffu, tau, k));
    d2 += __shfl_down_sync(0xffffffffu, d2, k);
    r2 += __shfl_down_sync(0xffffffffu, r2, k);
    off += __shfl_down_sync(0xffffffffu, off, k);
  }
  __shared__ double part[THREADS / 32][4];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { part[warp][0] = tau; part[warp][1] = d2; part[warp][2] = r2; part[warp][3] = off; }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int w = 1; w < THREADS / 32; ++w) {
      tau = fmax(tau, part[w][0]); d2 += part[w][1]; r2 += part[w][2]; off += part[w][3];
    }
    double* p = partial + ((long long)s * gridDim.x + blockIdx.x) * 4;
    p[0] = tau; p[1] = d2; p[2] = r2; p[3] = off;
  }
}
"""
KERNEL = "kmut_step_stats"
THREADS = 256
# Blocks per step: enough for the largest step to fill the device, few enough that a 6,000-step
# recurrent network's launch stays small (most of its steps are a few thousand elements).
ELEMENTS_PER_THREAD = 8
MAX_BLOCKS = 128


def enabled() -> bool:
    return own_kernels.switched_on("KMUT_STEP_STATS")


def takes(orig: Any, out: Any, torch: Any) -> bool:
    """Whether this kernel measures the pair: float32 on the same CUDA device, same shape, dense."""
    return own_kernels.dense_float32_pair(orig, out, torch)


def launcher(device_index: int, torch: Any) -> Any:
    """The kernel loaded on `device_index` (compiled once per process), or None when it cannot be."""
    return own_kernels.load(SOURCE, "kmut_step_stats.cu", KERNEL, device_index, torch)


# CUDA's limit on a grid's second dimension: more steps than this go in several launches.
MAX_STEPS_PER_LAUNCH = 65535


def stats(pairs: list[tuple[Any, Any]], atol: float, rtol: float, torch: Any) -> Any | None:
    """`[tau, rel_l2, frac_off]` of each (original, output) pair as one float64 tensor of shape
    (len(pairs), 3) on their device, without a synchronisation; None when the kernel is not
    available (the caller measures with torch). Every pair must satisfy `takes`."""
    parts = []
    for at in range(0, len(pairs), MAX_STEPS_PER_LAUNCH):
        part = _stats_launch(pairs[at : at + MAX_STEPS_PER_LAUNCH], atol, rtol, torch)
        if part is None:
            return None
        parts.append(part)
    return parts[0] if len(parts) == 1 else torch.cat(parts)


def _stats_launch(pairs: list[tuple[Any, Any]], atol: float, rtol: float, torch: Any) -> Any | None:
    device = pairs[0][0].device
    kernel = launcher(own_kernels.device_index(pairs[0][0], torch), torch)
    if kernel is None:
        return None
    counts_list = [o.numel() for o, _ in pairs]
    blocks = max(1, min(MAX_BLOCKS, math.ceil(max(counts_list) / (THREADS * ELEMENTS_PER_THREAD))))
    table = torch.tensor(
        [[o.data_ptr() for o, _ in pairs], [m.data_ptr() for _, m in pairs], counts_list], dtype=torch.int64
    ).to(device, non_blocking=False)
    partial = torch.empty((len(pairs), blocks, 4), dtype=torch.float64, device=device)
    args = [struct.pack("<Q", table[0].data_ptr()), struct.pack("<Q", table[1].data_ptr()),
            struct.pack("<Q", table[2].data_ptr()), struct.pack("<d", atol), struct.pack("<d", rtol),
            struct.pack("<Q", partial.data_ptr())]
    own_kernels.launch(kernel, KERNEL, (blocks, len(pairs), 1), THREADS, args, device, torch)
    tau = partial[:, :, 0].amax(dim=1)
    d2, r2, off = (partial[:, :, k].sum(dim=1) for k in (1, 2, 3))
    rel = torch.where(d2 == 0, torch.zeros_like(d2), torch.sqrt(d2) / torch.sqrt(r2))
    n = table[2].to(torch.float64).clamp(min=1)
    return torch.stack([tau, rel, off / n], dim=1)
