"""Failures of the machine, not of the code under test.

A mutant changes kernels and their launch configuration, never how much memory a substrate's
`launch` allocates or how full a disk is; a candidate substrate that runs out of memory beside
other gate jobs is not wrong either. Such failures are never verdicts: the orchestrators retry
them with the device to themselves and report what fails again as an error of the run.
"""

from __future__ import annotations

import errno
import os
from typing import Any


def first_line(e: BaseException, limit: int = 300) -> str:
    """The first line of an exception's message (its type's name when it has none)."""
    text = str(e).strip()
    return text.splitlines()[0][:limit] if text else type(e).__name__


class MachineFailure(Exception):
    """A failure already classified as the machine's (its message is `environment_failure`'s
    reason), raised again where it surfaces: it keeps that reason, never wrapped a second time."""


class TooLarge(MachineFailure):
    """A column this machine cannot hold, known before anything is allocated: the machine's
    failure, and one that having the device to itself would not cure (the engine then skips
    the column at once instead of retrying it alone)."""


def environment_failure(e: BaseException, torch: Any) -> str | None:
    """Why `e` is the machine's failure and not the mutant's (out of device or host memory, a
    full disk or quota), or None. A mutant changes kernels and their launch configuration,
    never how much memory `launch` allocates, so running out of memory is never its verdict."""
    first = first_line(e)
    if isinstance(e, MachineFailure):
        return first
    oom = getattr(getattr(torch, "cuda", None), "OutOfMemoryError", None)
    if oom is not None and isinstance(e, oom):
        return f"out of GPU memory: {first}"
    if isinstance(e, MemoryError):
        return f"out of host memory: {first}"
    if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.ENOMEM, errno.EDQUOT):
        return f"{os.strerror(e.errno)}: {first}"
    name = getattr(e, "name", None)
    if name in ("CUDA_ERROR_OUT_OF_MEMORY", "cudaErrorMemoryAllocation"):
        return f"out of GPU memory: {first}"
    if isinstance(e, RuntimeError) and "out of memory" in first.lower():
        return f"out of memory: {first}"
    if isinstance(e, RuntimeError) and any(status in first for status in LIBRARY_ALLOC_FAILED):
        return f"out of GPU memory (a CUDA library's workspace): {first}"
    return None


# The statuses CUDA's libraries return when the device cannot hold their handle or workspace.
# torch creates a cuBLAS or cuDNN handle lazily, at a column's first matrix product or
# convolution, so under memory pressure from other workers the original's run fails this way
# (2026-12-06, H100: `CUBLAS_STATUS_ALLOC_FAILED when calling cublasCreate(handle)` on
# L3p29_swin_mlp's official column, then skipped as a plain error instead of retried alone).
LIBRARY_ALLOC_FAILED = ("CUBLAS_STATUS_ALLOC_FAILED", "CUDNN_STATUS_ALLOC_FAILED", "CUSOLVER_STATUS_ALLOC_FAILED", "CUFFT_ALLOC_FAILED", "CUSPARSE_STATUS_ALLOC_FAILED")
