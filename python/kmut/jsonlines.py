"""The workers' line protocol: one JSON object per line on stdout.

JSON has no infinity or NaN, and a tau* is infinite whenever an output holds a NaN or has the
wrong shape, so non-finite floats travel as the strings "inf", "-inf" and "nan" (the Rust side
reads them back; see `number` in crates/kmut-exec/src/engine.rs).
"""

from __future__ import annotations

import json
import math
from typing import Any


def plain(value: Any) -> Any:
    """`value` with every non-finite float replaced by its string."""
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def line(obj: Any) -> str:
    """One protocol line (strict JSON, no newline)."""
    return json.dumps(plain(obj), allow_nan=False)
