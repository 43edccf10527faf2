"""Where a worker's time goes: a column's preparation phase by phase, and an evaluation's parts
(the engine reads both: `crates/kmut-exec/src/phases.rs`).

Each prepared column is one line of the workers log (`prepared_line`), and `read_prepared` is
the one Python reader of it (`scripts/footprints.py`, the device scripts' `prep_phases`); the
engine's Rust reader (`PrepPhases::read`) is tested against a line written here
(`tests/python/test_phases.py`). `python -m kmut.phases LOG [--after N]` sums a log's phases.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
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


def prepared_line(substrate: str, suite: str, seed: int, phases: Phases, peak: int | None, held: int | None,
                  ready_at: float | None = None) -> str:
    """`prepared SUBSTRATE SUITE seed N: draw 12 ms ...; held H MiB of a P MiB peak; ready at T`: one
    column's preparation (the memory figures only on a GPU; T the Unix time it was ready)."""
    memory = "" if peak is None or held is None else f"; held {held / 2**20:.1f} MiB of a {peak / 2**20:.1f} MiB peak"
    return f"prepared {substrate} {suite} seed {seed}: {phases}{memory}; ready at {time.time() if ready_at is None else ready_at:.3f}"


@dataclass(frozen=True)
class Prepared:
    """One `prepared` line read back."""

    substrate: str
    suite: str
    seed: int
    ms: dict[str, float]
    held_mib: float | None
    peak_mib: float | None
    ready_at: float | None


_PREPARED = re.compile(r"prepared (\S+) (\S+) seed (-?\d+): ([^;]*)(.*)$")
_MEMORY = re.compile(r"; held ([\d.]+) MiB of a ([\d.]+) MiB peak")
_READY = re.compile(r"; ready at ([\d.]+)")


def read_prepared(line: str) -> Prepared | None:
    """The column a workers-log line says was prepared, or None for any other line."""
    m = _PREPARED.search(line.rstrip("\n"))
    if m is None:
        return None
    ms: dict[str, float] = {}
    for phase, value in re.findall(r"(\w+) (\d+(?:\.\d+)?) ms", m[4]):
        ms[phase] = ms.get(phase, 0.0) + float(value)
    memory, ready = _MEMORY.search(m[5]), _READY.search(m[5])
    return Prepared(m[1], m[2], int(m[3]), ms, float(memory[1]) if memory else None, float(memory[2]) if memory else None,
                    float(ready[1]) if ready else None)


def summary(lines: Any, after: int = 0) -> str:
    """`N columns prepared; seconds by phase: {...}` over the prepared lines after the first `after`
    of them (a warm machine's calls share one log), and on how many the original was not run
    (its `original_stored` phase: the engine's stored figures stood in; `original_deferred`: its
    run waited for the column's first failing evaluation)."""
    columns = [c for c in map(read_prepared, lines) if c is not None][after:]
    total: dict[str, float] = {}
    for c in columns:
        for phase, ms in c.ms.items():
            total[phase] = total.get(phase, 0.0) + ms
    ranked = {k: round(v / 1e3, 1) for k, v in sorted(total.items(), key=lambda kv: -kv[1])}
    stored = sum("original_stored" in c.ms for c in columns)
    deferred = sum("original_deferred" in c.ms for c in columns)
    note = f"; the original's figures taken from the store on {stored}" if stored else ""
    note += f"; the original's run deferred on {deferred}" if deferred else ""
    return f"{len(columns)} columns prepared; seconds by phase: {ranked}{note}"


def main(argv: list[str] | None = None) -> int:
    import argparse
    import sys

    ap = argparse.ArgumentParser(prog="python -m kmut.phases", description="Sum the column preparations of a workers log by phase.")
    ap.add_argument("log")
    ap.add_argument("--after", type=int, default=0, help="skip the first N prepared lines (an earlier call's, in a shared log)")
    ap.add_argument("--count", action="store_true", help="print only how many columns the log says were prepared")
    args = ap.parse_args(argv)
    try:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            lines = f.readlines()
    except OSError as e:
        print(f"python -m kmut.phases: cannot read {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    if args.count:
        print(sum(read_prepared(line) is not None for line in lines))
    else:
        print(summary(lines, args.after))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
