"""A column's checksum sums (`kmut.guards.checksum`) for every tensor on one GPU in one launch.

The run worker takes the column's checksum after every evaluation (its inputs, reference,
weights and the original's kept step outputs). The torch expression costs each tensor about six
small kernels (its 32-bit words summed into int64, which torch does by first copying the words
to an int64 tensor twice their size; the first 1,021 words weighted by position) and the
results one transfer: a level-3 network's hundreds of weights queue over a thousand launches per
evaluation, and a level-1 input of 6 GiB a 12 GiB temporary. Here one kernel reads each tensor's
words once (one block row per tensor, a grid-stride loop over its words) and writes each block's
two partial sums; torch adds the partials in int64 (exact, so the order does not matter) and
the caller reads every sum in one transfer. The sums are the torch expression's, so the digest
is the same string either way (`tests/python/test_checksum_fused_gpu.py`).

Words are signed 32-bit integers when a tensor's byte count is a multiple of four, else its
unsigned bytes, as in `guards.checksum`. Tensors on the host are summed by torch. `KMUT_CHECKSUM=torch` turns the kernel off.
"""

from __future__ import annotations

import math
import struct
from typing import Any

from . import own_kernels

# Words weighted by position in the second sum (guards.checksum's `head`).
HEAD = 1021

SOURCE = r"""
#define THREADS 256
#define HEAD 1021
extern "C" __global__ void kmut_checksum(const unsigned long long* ptrs, const long long* counts, const long long* widths,
                                         long long* partial) {
  const int t = blockIdx.y;
  const long long n = counts[t];
  long long total = 0, weighted = 0;
  const long long stride = (long long)gridDim.x * THREADS;
  if (widths[t] == 4) {
    const int* w = (const int*)ptrs[t];
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
      const long long v = (long long)w[i];
      total += v;
      if (i < HEAD) weighted += v * (i + 1);
    }
  } else {
    const unsigned char* b = (const unsigned char*)ptrs[t];
    for (long long i = (long long)blockIdx.x * THREADS + threadIdx.x; i < n; i += stride) {
      const long long v = (long long)b[i];
      total += v;
      if (i < HEAD) weighted += v * (i + 1);
    }
  }
  for (int k = 16; k > 0; k >>= 1) {
    total += __shfl_down_sync(0xffffffffu, total, k);
    weighted += __shfl_down_sync(0xffffffffu, weighted, k);
  }
  __shared__ long long part[THREADS / 32][2];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) { part[warp][0] = total; part[warp][1] = weighted; }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int k = 1; k < THREADS / 32; ++k) { total += part[k][0]; weighted += part[k][1]; }
    long long* p = partial + ((long long)t * gridDim.x + blockIdx.x) * 2;
    p[0] = total; p[1] = weighted;
  }
}
"""
KERNEL = "kmut_checksum"
THREADS = 256
ELEMENTS_PER_THREAD = 8
# Blocks per tensor: enough for a large input to keep the memory busy; blocks past a small
# tensor's end write zeros and leave.
MAX_BLOCKS = 1024
# CUDA's limit on a grid's second dimension: more tensors than this go in several launches.
MAX_TENSORS_PER_LAUNCH = 65535


def enabled() -> bool:
    return own_kernels.switched_on("KMUT_CHECKSUM")


def words(t: Any, torch: Any) -> Any:
    """The tensor's contents as guards.checksum reads them: signed 32-bit words when its byte
    count is a multiple of four, else unsigned bytes (a view, or a contiguous copy)."""
    raw = t.detach().contiguous().view(-1).view(torch.uint8)
    return raw.view(torch.int32) if raw.numel() % 4 == 0 else raw


def takes(w: Any) -> bool:
    """Whether the kernel sums these words (`words`' view as int32 already required them
    aligned to four bytes): on a GPU."""
    return bool(w.is_cuda)


def sums(ws: list[Any], torch: Any) -> Any | None:
    """Each word tensor's (sum, position-weighted sum of its first 1,021 words) as an int64 tensor
    of shape (len(ws), 2) on their device, queued without a synchronisation; None when the kernel
    is not available (the caller sums with torch). Every tensor must be on one device and pass `takes`."""
    parts = []
    for at in range(0, len(ws), MAX_TENSORS_PER_LAUNCH):
        part = _launch(ws[at : at + MAX_TENSORS_PER_LAUNCH], torch)
        if part is None:
            return None
        parts.append(part)
    return parts[0] if len(parts) == 1 else torch.cat(parts)


def _launch(ws: list[Any], torch: Any) -> Any | None:
    device = ws[0].device
    image = own_kernels.load(SOURCE, "kmut_checksum.cu", KERNEL, own_kernels.device_index(ws[0], torch), torch)
    if image is None:
        return None
    counts = [w.numel() for w in ws]
    blocks = max(1, min(MAX_BLOCKS, math.ceil(max(counts) / (THREADS * ELEMENTS_PER_THREAD))))
    # Pinned, and copied without waiting: a synchronisation here would wait for every kernel queued
    # before it (and, with ten workers taking turns on the GPU, for their turns too).
    rows = [[w.data_ptr() for w in ws], counts, [w.element_size() for w in ws]]
    table = torch.tensor(rows, dtype=torch.int64, pin_memory=True).to(device, non_blocking=True)
    partial = torch.empty((len(ws), blocks, 2), dtype=torch.int64, device=device)
    args = [struct.pack("<Q", table[0].data_ptr()), struct.pack("<Q", table[1].data_ptr()),
            struct.pack("<Q", table[2].data_ptr()), struct.pack("<Q", partial.data_ptr())]
    own_kernels.launch(image, KERNEL, (blocks, len(ws), 1), THREADS, args, device, torch)
    # `table` and `ws` must outlive the kernel: torch's caching allocator hands freed memory
    # only to work queued later on the same stream, which runs after this kernel.
    return partial.sum(dim=1)
