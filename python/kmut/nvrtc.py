"""NVRTC from Python: a thin wrapper over the native compiler that tells it where this
interpreter's `nvidia` wheels live."""

from __future__ import annotations

import sys
from typing import Any


def site_dirs() -> list[str]:
    return [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]


def compile_cuda(
    source: str,
    name: str,
    arch: str = "sm_90",
    display: str | None = None,
    line_offset: int = 0,
    kernels: list[str] | None = None,
) -> dict[str, Any]:
    """Compile `source` to CUBIN.

    Returns a dict: `image` (bytes, or None when NVRTC rejects the source), `log`, `rendered` (the
    log as `display:LINE: error: ...` with source lines, shifted by `line_offset`), `kernels`
    (image symbol -> parameter byte sizes), `symbols` (each name of `kernels` -> its image symbol:
    itself for `extern "C"` kernels, the mangled name otherwise), `nvrtc_version` and `options`.
    Each name in `kernels` must be a `__global__` function of `source`.
    """
    from . import _native

    return _native.compile_cuda(source, name, arch, display or name, line_offset, site_dirs(), list(kernels or []))
