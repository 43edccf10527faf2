"""What counts as the machine's failure, and how it is named (python/kmut/machine.py)."""

import errno

import torch

from kmut.machine import MachineFailure, environment_failure


def test_a_device_out_of_memory_is_named_once_when_raised_again():
    # A column's original ran out of GPU memory; the worker raises that reason again where the
    # column fails, and the report must say GPU memory once (2026-12-06 read "out of host
    # memory: out of GPU memory: ..." when it went through MemoryError).
    first = environment_failure(torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 250.00 MiB"), torch)
    assert first == "out of GPU memory: CUDA out of memory. Tried to allocate 250.00 MiB"
    assert environment_failure(MachineFailure(first), torch) == first


def test_host_memory_disk_and_plain_errors_are_told_apart():
    assert environment_failure(MemoryError("cannot allocate"), torch) == "out of host memory: cannot allocate"
    assert environment_failure(OSError(errno.ENOSPC, "full"), torch).startswith("No space left on device")
    # A mutant's own failure is not the machine's.
    assert environment_failure(RuntimeError("CUDA error: an illegal memory access was encountered"), torch) is None
    assert environment_failure(ValueError("shape mismatch"), torch) is None
