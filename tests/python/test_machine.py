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


def test_a_cuda_library_that_cannot_allocate_its_handle_is_out_of_gpu_memory():
    # 2026-12-06 on an H100 with ten workers: torch's lazy cublasCreate failed for want of device
    # memory while preparing an original's column; read as a plain error, the column's mutants
    # were skipped instead of the column being retried with the device to itself.
    e = RuntimeError("CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`")
    assert environment_failure(e, torch).startswith("out of GPU memory")
    assert environment_failure(RuntimeError("cuDNN error: CUDNN_STATUS_ALLOC_FAILED"), torch).startswith("out of GPU memory")
    # A library's other statuses are not the machine's: an execution failure can be a mutant's.
    assert environment_failure(RuntimeError("CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm`"), torch) is None
