"""`torch.rand` on the CPU, the same values from the same generator, on several cores.

KernelBench draws its official inputs with `torch.rand` on the CPU (`get_inputs()`, after
`set_seed`): one core, about 0.29 G elements per second on the H200 host, up to 2^31 elements per
input, the largest phase of a column's preparation on a fresh machine (`docs/performance.md`).
`rand` reads the default generator's state, fills the tensor natively (`kmut-rng`: a long draw
gives every thread its own run of the stream, started by jumping the generator ahead; a short one
twists on one thread and tempers and converts on several) and sets the state torch's own call would
leave, so every later draw (`randn`, `randint`, the next trial) is unchanged.
`tests/python/test_fastrand.py` checks values and states against torch itself.

Only the plain call takes the fast path: float32 (given or the default dtype), the default
generator, on the CPU, no `out`, `requires_grad`, `names`, `layout` or `pin_memory`; and at least
`MIN_ELEMENTS` elements. Anything else is torch's own call. `KMUT_DRAW=torch` turns it off;
`KMUT_DRAW=twist` keeps the twist on one thread (the path before the jump: `kmut bench run
--baseline twist` measures the jump alone).

`Drawing(torch)` is the `torch` a substrate's input generator receives in the run worker: every
attribute is torch's, but `rand`.
"""

from __future__ import annotations

import math
import os
from typing import Any

MIN_ELEMENTS = 1 << 20  # below a million elements torch's own loop takes milliseconds
TWIST_ONLY = 1 << 62  # a jump threshold no draw reaches: the twist stays on one thread


def threads() -> int:
    """The cores this process may use (the run worker's draws happen one at a time per worker)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _shape(size: tuple[Any, ...]) -> tuple[int, ...] | None:
    """torch.rand's size arguments as a shape: rand(2, 3), rand((2, 3)), rand([2, 3]), rand(torch.Size)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    if not all(isinstance(d, int) and not isinstance(d, bool) and d >= 0 for d in size):
        return None
    return tuple(int(d) for d in size)


def rand(torch: Any, *size: Any, **kwargs: Any) -> Any:
    """`torch.rand(*size, **kwargs)`, the same tensor, the generator left the same."""
    shape = _shape(size)
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    plain = (
        shape is not None
        and not kwargs
        and (dtype or torch.get_default_dtype()) == torch.float32
        and (device is None or torch.device(device).type == "cpu")
        and torch.get_default_device().type == "cpu"
        and os.environ.get("KMUT_DRAW") != "torch"
    )
    if not plain or math.prod(shape) < MIN_ELEMENTS:
        if dtype is not None:
            kwargs["dtype"] = dtype
        if device is not None:
            kwargs["device"] = device
        return torch.rand(*size, **kwargs)
    return fill(torch, shape, TWIST_ONLY if os.environ.get("KMUT_DRAW") == "twist" else None)


def fill(torch: Any, shape: tuple[int, ...], jump_min_blocks: int | None = None) -> Any:
    """A new float32 tensor of `torch.rand(shape)`'s values from the default generator, which is
    left as torch would leave it. `jump_min_blocks`: the native default unless given (a huge
    value keeps the twist on one thread, 1 jumps on every multi-threaded draw)."""
    from . import _native

    out = torch.empty(shape, dtype=torch.float32)
    gen = torch.default_generator
    state = bytes(gen.get_state().numpy())
    extra = () if jump_min_blocks is None else (jump_min_blocks,)
    after = _native.torch_uniform_f32(state, out.data_ptr(), out.numel(), threads(), *extra)
    gen.set_state(torch.frombuffer(bytearray(after), dtype=torch.uint8))
    return out


class Drawing:
    """The torch module as an input generator sees it, with `rand` drawn by `fastrand.rand`."""

    def __init__(self, torch: Any):
        self._torch = torch

    def __getattr__(self, name: str) -> Any:
        return getattr(self._torch, name)

    def rand(self, *size: Any, **kwargs: Any) -> Any:
        return rand(self._torch, *size, **kwargs)


def bench(torch: Any, elements: int, repeat: int) -> dict[str, Any]:
    """Median ms of `torch.rand(elements)`, of `rand` from the same seed (the threads jumped to
    their own runs where the draw is long enough), and of the same with the twist kept on one
    thread, after one untimed draw each, and whether every draw gave the same tensor."""
    import statistics
    import time

    def timed(draw: Any) -> tuple[float, Any]:
        torch.manual_seed(1234)
        start = time.perf_counter()
        out = draw()
        return (time.perf_counter() - start) * 1e3, out

    theirs, ours, twisted, same = [], [], [], True
    for i in range(repeat + 1):
        t_ms, a = timed(lambda: torch.rand(elements))
        k_ms, b = timed(lambda: rand(torch, elements))
        w_ms, c = timed(lambda: fill(torch, (elements,), TWIST_ONLY))
        same = same and torch.equal(a, b) and torch.equal(a, c)
        del a, b, c
        if i:
            theirs.append(t_ms)
            ours.append(k_ms)
            twisted.append(w_ms)
    t, k, w = statistics.median(theirs), statistics.median(ours), statistics.median(twisted)
    return {"elements": elements, "threads": threads(), "torch_ms": t, "kmut_ms": k, "speedup": t / k, "same_values": same,
            "torch_g_per_s": elements / t / 1e6, "kmut_g_per_s": elements / k / 1e6,
            "twist_one_thread_ms": w, "jump_speedup": w / k}


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    import torch

    parser = argparse.ArgumentParser(prog="kmut bench draw", description=bench.__doc__)
    parser.add_argument("--elements", type=int, default=1 << 28)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.elements < 1 or args.repeat < 1:
        parser.error("--elements and --repeat must be positive")
    r = bench(torch, args.elements, args.repeat)
    if args.json:
        print(json.dumps(r))
    else:
        print(f"kmut bench draw: {r['elements']:,} float32 elements, median of {args.repeat} draws; torch.rand {r['torch_ms']:.0f} ms "
              f"({r['torch_g_per_s']:.2f} G/s), kmut.fastrand on {r['threads']} threads {r['kmut_ms']:.0f} ms ({r['kmut_g_per_s']:.2f} G/s): "
              f"{r['speedup']:.2f}x (the twist on one thread: {r['twist_one_thread_ms']:.0f} ms, {r['jump_speedup']:.2f}x slower); "
              f"same values: {'yes' if r['same_values'] else 'NO'}")
    return 0 if r["same_values"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
