"""Every KernelBench problem's get_inputs() as the v0.1 harness draws it: shapes, dtypes, devices.

Read from `tests/data/kernelbench_inputs.json` (in the repository, generated once from the facts
file by `scripts/kernelbench-inputs.py`), so the tests pass in a clone placed anywhere.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data" / "kernelbench_inputs.json"


@lru_cache(maxsize=1)
def _problems() -> dict[str, list[dict | None]]:
    return json.loads(DATA.read_text(encoding="utf-8"))["problems"]


def expected_inputs(level: int, problem: int) -> list[dict | None]:
    """get_inputs() of the problem, in order: {"shape", "dtype", "device"} per tensor, None for a
    non-tensor input."""
    key = f"L{level}p{problem}"
    if key not in _problems():
        raise KeyError(f"level {level} problem {problem} is not in {DATA}")
    return _problems()[key]
