"""Running launch descriptors on a GPU through the native launch bridge.

Tensor arguments become their device pointers, scalars the bytes of their C type, and every step
runs on torch's current stream in the device's primary context, the one torch itself uses.
"""

from __future__ import annotations

from typing import Any

from .validate import Step


class Launcher:
    """One compiled image loaded on one device."""

    def __init__(self, image: bytes, device_index: int, symbols: dict[str, str] | None = None):
        from . import _native

        self.module = _native.Module(device_index, image)
        # Kernel name -> symbol in the image (differs only for kernels without extern "C").
        self.symbols = dict(symbols or {})

    def symbol(self, kernel: str) -> str:
        return self.symbols.get(kernel, kernel)

    def param_sizes(self, kernel: str) -> list[int] | None:
        return self.module.param_sizes(self.symbol(kernel))

    def run(self, steps: list[Step], torch: Any, synchronize: bool = True) -> None:
        stream = torch.cuda.current_stream().cuda_stream
        for s in steps:
            self.module.launch(self.symbol(s.kernel), s.grid, s.block, s.launch_args(), stream)
        if synchronize:
            self.module.synchronize(stream)
