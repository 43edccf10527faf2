"""The launch bridge on a real GPU: results, argument checking, and CUDA errors by name."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.gpu

SAXPY = r"""
extern "C" __global__ void saxpy(const float* x, float* y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void wild_write(float* y) {
    y[(long long)1 << 40] = 1.0f;
}
"""


def launcher():
    import torch

    from kmut.bridge import Launcher
    from kmut.nvrtc import compile_cuda

    major, minor = torch.cuda.get_device_capability(0)
    result = compile_cuda(SAXPY, "saxpy.cu", f"sm_{major}{minor}")
    assert result["image"] is not None, result["rendered"]
    return Launcher(result["image"], 0)


def test_launch_computes_on_torch_tensors_on_torchs_stream():
    import ctypes

    import torch

    from kmut.validate import Step

    n = 1000
    x = torch.arange(n, dtype=torch.float32, device="cuda")
    y = torch.ones(n, device="cuda")
    step = Step("saxpy", ((n + 255) // 256, 1, 1), (256, 1, 1), [x, y], [(ctypes.c_float, 2.0), (ctypes.c_int, n)])
    launcher().run([step], torch)
    assert torch.equal(y, 2.0 * x + 1.0)


def test_driver_reports_the_kernels_parameter_sizes():
    assert launcher().param_sizes("saxpy") == [8, 8, 4, 4]


def test_wrong_argument_sizes_are_refused_before_launch():
    import torch

    from kmut.exceptions import LaunchArgumentError

    lz = launcher()
    y = torch.ones(4, device="cuda")
    with pytest.raises(LaunchArgumentError, match="takes 4 parameter"):
        lz.module.launch("saxpy", (1, 1, 1), (4, 1, 1), [y.data_ptr().to_bytes(8, "little")], torch.cuda.current_stream().cuda_stream)


def test_an_illegal_address_surfaces_as_cuda_error_with_its_name():
    # In a subprocess: the fault poisons the CUDA context for the rest of the process.
    code = textwrap.dedent(
        """
        import torch, ctypes
        from kmut.exceptions import CudaError
        from kmut.validate import Step
        import tests.python.test_bridge_gpu as t
        y = torch.ones(4, device="cuda")
        try:
            t.launcher().run([Step("wild_write", (1, 1, 1), (1, 1, 1), [y], [])], torch)
        except CudaError as e:
            print("NAME", e.name)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "NAME CUDA_ERROR_ILLEGAL_ADDRESS" in out.stdout, out.stdout + out.stderr
