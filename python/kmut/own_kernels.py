"""kmut's own CUDA kernels (the run worker's measurements, not a substrate's code): each source is
compiled by NVRTC for the device's architecture once per process and loaded into torch's primary
context through the launch bridge, so launching one costs what a substrate's launch does.

A kernel that cannot be compiled or loaded is reported once on stderr, and its caller measures
with torch instead: these kernels make the run faster, never its verdicts different, and
`tests/python/test_*_fused_gpu.py` check on a GPU that each gives the torch expression's figures.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any

# (source file name, device index) -> the loaded image, or None once it failed there.
_loaded: dict[tuple[str, int], Any] = {}


def load(source: str, filename: str, kernel: str, device_index: int, torch: Any) -> Any:
    """The image holding `kernel` (compiled from `source`), loaded on `device_index`; None when it
    cannot be, said once per process and device."""
    key = (filename, device_index)
    if key not in _loaded:
        _loaded[key] = _build(source, filename, kernel, device_index, torch)
    return _loaded[key]


def _build(source: str, filename: str, kernel: str, device_index: int, torch: Any) -> Any:
    from .bridge import Launcher  # noqa: PLC0415 - needs the native module and a GPU
    from .nvrtc import compile_cuda  # noqa: PLC0415

    try:
        major, minor = torch.cuda.get_device_capability(device_index)
        arch = f"sm_{major}{minor}"
        cached = cache_path(source, arch)
        if cached.is_file():
            try:
                # extern "C" kernels: the symbol is the kernel's name.
                return Launcher(cached.read_bytes(), device_index)
            except Exception:  # noqa: BLE001 - a stale or damaged image: compiled again below
                pass
        built = compile_cuda(source, filename, arch=arch, kernels=[kernel])
        if built.get("image") is None:
            print(f"kmut: {filename} did not compile; measuring with torch\n{built.get('log', '')}", file=sys.stderr)
            return None
        image = Launcher(built["image"], device_index, built.get("symbols"))
        _store(cached, built["image"])
        return image
    except Exception as e:  # noqa: BLE001 - a faster path lost, never a verdict
        print(f"kmut: {filename} could not be loaded on device {device_index} ({type(e).__name__}: {e}); measuring with torch",
              file=sys.stderr)
        return None


def cache_path(source: str, arch: str) -> Path:
    """Where a compiled image of `source` for `arch` is kept between processes (a run replaces
    workers often, and each new one would pay NVRTC for every kernel here): the `own` folder of
    kmut's cache folder (the image cache's default, `ImageCache::default_dir`: `$KMUT_CACHE_DIR`,
    else `$XDG_CACHE_HOME/kmut`, else `~/.cache/kmut`), named by the source's and the
    architecture's hash."""
    from . import _native  # noqa: PLC0415 - the one resolution of the cache folder

    digest = hashlib.sha256(f"{arch}\n{source}".encode()).hexdigest()[:32]
    return Path(_native.cache_dir()) / "own" / f"{digest}.cubin"


def _store(path: Path, image: bytes) -> None:
    """Write the image whole or not at all (another worker may be reading or writing it)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(image)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache costs the next process a compile, nothing else


def switched_on(variable: str) -> bool:
    """Whether a kernel here is in use: unless its switch (`KMUT_COMPARE`, `KMUT_CHECKSUM`,
    `KMUT_STEP_STATS`) says `torch`."""
    return os.environ.get(variable, "fused") != "torch"


def dense_float32_pair(a: Any, b: Any, torch: Any) -> bool:
    """Whether two tensors are what the comparison kernels read: float32, of one shape, dense,
    on the same CUDA device."""
    return (
        a.is_cuda
        and b.device == a.device
        and a.dtype == torch.float32
        and b.dtype == torch.float32
        and tuple(a.shape) == tuple(b.shape)
        and a.is_contiguous()
        and b.is_contiguous()
    )


def device_index(t: Any, torch: Any) -> int:
    """The CUDA device index of tensor `t` (its device's, or the current one)."""
    return t.device.index if t.device.index is not None else torch.cuda.current_device()


def launch(image: Any, kernel: str, grid: tuple[int, int, int], threads: int, args: list[bytes], device: Any, torch: Any) -> None:
    """Queue `kernel` on torch's current stream of `device` (no synchronisation)."""
    stream = torch.cuda.current_stream(device).cuda_stream
    image.module.launch(image.symbol(kernel), grid, (threads, 1, 1), args, stream)
