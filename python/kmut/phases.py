"""Where a worker's time goes: a column's preparation phase by phase, and an evaluation's parts
(the engine reads both: `crates/kmut-exec/src/phases.rs`)."""

from __future__ import annotations

import time
from typing import Any


class Phases:
    """Wall time of a column's preparation, phase by phase (the device synchronised at each
    mark, so a phase's kernels are counted in it and not in the next), or with no device of an
    evaluation's parts, each marked where the worker waits for the device anyway."""

    def __init__(self, torch: Any, device: Any):
        self.torch, self.device = torch, device
        self.last = time.perf_counter()
        self.spent: list[tuple[str, float]] = []

    def mark(self, name: str) -> None:
        if self.device is not None:
            self.torch.cuda.synchronize(self.device)
        now = time.perf_counter()
        self.spent.append((name, now - self.last))
        self.last = now

    def __str__(self) -> str:
        return " ".join(f"{name} {s * 1e3:.0f} ms" for name, s in self.spent)

    def totals_ms(self) -> dict[str, float]:
        """Milliseconds by phase, summed over repeated marks (an evaluation on the CPU runs once
        per thread order), the names without the original's run's `original_` prefix."""
        out: dict[str, float] = {}
        for name, s in self.spent:
            key = name[len("original_"):] if name.startswith("original_") else name
            out[key] = round(out.get(key, 0.0) + s * 1e3, 3)
        return out
