"""Running launch descriptors on the CPU: kmut's CPU backend (`crates/kmut-cpu`, docs/cpu-backend.md).

CUDA sources (an original and its mutants, "variants") are translated to C++ over kmut's prelude
and compiled with g++ into shared libraries, many variants per library. Each kernel of a variant
has an `extern "C"` launcher taking the grid, the block, a cuLaunchKernel-style argument array
and a thread order; `CpuLauncher.run` marshals descriptor steps exactly as `kmut.bridge` does for
the GPU (a tensor as its 8-byte pointer, a scalar as the bytes of its ctype), with CPU tensors.

Thread orders: 0 forward, 1 reverse, 2 and above shuffled with that seed. A kernel whose output
depends on the order has a race (a race witness); see the fidelity limits in the docs.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .exceptions import KmutError, LaunchArgumentError
from .validate import Step

FORWARD, REVERSE, RANDOM = 0, 1, 2

# Launcher statuses (crates/kmut-cpu/src/prelude.hpp, `kmut::rt::Status`).
STATUS = {
    1: "could not map the fiber stacks",
    2: "a kernel classified barrier-free reached a barrier or warp operation (translator bug)",
    3: "bad block or grid: a zero dimension or more than 1024 threads per block",
}

_LAUNCH_ARGS = [ctypes.c_uint] * 6 + [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]


class CpuBuildError(KmutError):
    """A variant did not translate or compile for the CPU. The message holds the compiler's log."""


class CpuLaunchError(KmutError):
    """A CPU launcher refused a launch (see STATUS)."""


@dataclass
class Build:
    """What `build` made: a library per variant that compiled, a log per variant that did not."""

    libraries: dict[str, str]
    failed: dict[str, str]
    units: list[dict[str, Any]]
    fibers: dict[str, list[str]] = field(default_factory=dict)

    def launcher(self, variant: str) -> CpuLauncher:
        if variant not in self.libraries:
            raise CpuBuildError(f"variant {variant} has no CPU library:\n{self.failed.get(variant, 'it was not built')}")
        return CpuLauncher(self.libraries[variant], variant)


def build(variants: Sequence[tuple[str, str, Sequence[str]]], jobs: int = 0, cache_dir: str | Path | None = None,
          max_per_unit: int = 64) -> Build:
    """Translate and compile `(name, cuda, kernels)` variants; names are C identifiers.

    `jobs` compilers run at once (0: one per core); at most `max_per_unit` variants share a
    translation unit. Libraries are cached by content under `cache_dir` (default: the `cpu`
    folder of kmut's cache, `$KMUT_CACHE_DIR` or `~/.cache/kmut`).
    """
    from . import _native

    raw = _native.cpu_build([(n, c, list(k)) for n, c, k in variants], jobs,
                            None if cache_dir is None else str(cache_dir), max_per_unit)
    return Build(dict(raw["libraries"]), dict(raw["failed"]), list(raw["units"]), dict(raw["fibers"]))


_LOADED: dict[str, ctypes.CDLL] = {}


def _load(path: str) -> ctypes.CDLL:
    # One handle per library: the dynamic loader would share it anyway.
    if path not in _LOADED:
        _LOADED[path] = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    return _LOADED[path]


class CpuLauncher:
    """One variant's kernels in a compiled library: the CPU counterpart of `kmut.bridge.Launcher`."""

    def __init__(self, library: str | Path, variant: str):
        self.library = str(library)
        self.variant = variant
        self.lib = _load(self.library)
        self._sizes: dict[str, list[int]] = {}

    def _symbol(self, prefix: str, kernel: str) -> Any:
        name = f"kmut_{prefix}_{self.variant}_{kernel}"
        try:
            return getattr(self.lib, name)
        except AttributeError:
            raise CpuLaunchError(f"{self.library} has no kernel {kernel!r} of variant {self.variant}") from None

    def param_sizes(self, kernel: str) -> list[int]:
        """The byte size of each of `kernel`'s parameters, from its C++ signature."""
        if kernel not in self._sizes:
            fn = self._symbol("params", kernel)
            fn.restype, fn.argtypes = ctypes.c_int, [ctypes.POINTER(ctypes.c_longlong), ctypes.c_int]
            buf = (ctypes.c_longlong * 64)()
            n = fn(buf, 64)
            self._sizes[kernel] = [int(buf[i]) for i in range(min(n, 64))]
        return self._sizes[kernel]

    def run(self, steps: list[Step], torch: Any = None, order: int = FORWARD) -> None:
        """Run every step in order on the calling thread (the GIL is released during each)."""
        for s in steps:
            for j, t in enumerate(s.tensors):
                if t.device.type != "cpu":
                    raise LaunchArgumentError(f"{s.kernel}: tensor argument {j} is on {t.device}; the CPU backend needs CPU tensors")
            args = s.launch_args()
            expected = self.param_sizes(s.kernel)
            given = [len(a) for a in args]
            if given != expected:
                raise LaunchArgumentError(f"{s.kernel}: the kernel takes {len(expected)} parameter(s) of {expected} bytes, "
                                          f"but the step passes {given} bytes")
            buffers = [ctypes.create_string_buffer(a, len(a)) for a in args]
            argv = (ctypes.c_void_p * max(len(buffers), 1))(*[ctypes.addressof(b) for b in buffers])
            fn = self._symbol("launch", s.kernel)
            fn.restype, fn.argtypes = ctypes.c_int, _LAUNCH_ARGS
            status = fn(*s.grid, *s.block, argv, order)
            if status != 0:
                raise CpuLaunchError(f"{s.kernel} (variant {self.variant}): {STATUS.get(status, f'status {status}')}")


def check_small_suite(path: str | Path, library: str | Path, order: int = FORWARD, seeds: int = 1,
                      threads: int | None = None) -> dict[str, Any]:
    """Run a substrate's small suite (its first `seeds` seeds) through the CPU backend and compare
    with `ref` as the gate does: `allclose(ref, out)` at the substrate's tolerance.

    `library` holds the substrate's original under the variant name `fields["name"]`; `threads`
    caps torch's own threads (for `ref`) where several of these run side by side. Returns
    `{"name", "suite", "sizes", "ok", "tau", "run_s", "detail"}`; `tau` is the worst tau*.
    """
    import time

    import torch

    from . import loader
    from .compare import tau_star
    from .contract import draw_inputs
    from .validate import is_pipeline, kernel_names, parse_descriptor

    if threads is not None:
        torch.set_num_threads(threads)
    fields, K, _ = loader.load(Path(path), torch)
    names = kernel_names(fields)
    small = next(s for s in fields["suites"] if s.small)
    sizes = K.sizes_for(fields["dims"], small)
    tol = fields.get("tolerance") or {"atol": K.DEFAULT_ATOL, "rtol": K.DEFAULT_RTOL}
    launcher = CpuLauncher(library, fields["name"])
    result: dict[str, Any] = {"name": fields["name"], "suite": small.name, "sizes": sizes, "ok": True, "tau": 0.0, "run_s": 0.0, "detail": ""}
    for seed in small.seeds[:seeds]:
        inputs = draw_inputs(small, seed, sizes, torch, "cpu")
        with torch.no_grad():
            r = fields["ref"](inputs, torch)
        K.zero_init.clear()
        steps, out = parse_descriptor(fields["launch"](inputs, torch), is_pipeline(fields), names, str(path), torch)
        start = time.perf_counter()
        launcher.run(steps, torch, order)
        result["run_s"] += time.perf_counter() - start
        if tuple(out.shape) != tuple(r.shape):
            result.update(ok=False, tau=float("inf"), detail=f"seed {seed}: output {tuple(out.shape)} vs ref {tuple(r.shape)}")
            break
        ok = bool(torch.allclose(r, out, atol=tol["atol"], rtol=tol["rtol"]))
        result["tau"] = max(result["tau"], tau_star(r, out))
        if not ok:
            result.update(ok=False, detail=f"seed {seed}: allclose fails at atol={tol['atol']:g} rtol={tol['rtol']:g} (tau* {result['tau']:.3g})")
            break
    return result
