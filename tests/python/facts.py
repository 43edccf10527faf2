"""Expected `get_inputs()` shapes, read from the KernelBench facts file in `../shared/reference`.

The appendices of `kernelbench-facts.md` give every problem's input shapes as `[4096×393216]` or
`[256×16384, 256×16384]`; non-tensor inputs (scalars) appear as plain numbers.
"""

from __future__ import annotations

import re
from pathlib import Path

APPENDIX = {1: "## Appendix A", 2: "## Appendix B", 3: "## Appendix C"}


def expected_input_shapes(facts: Path, level: int, problem: int) -> list[tuple[int, ...] | None]:
    """Shapes of the problem's get_inputs(), in order; None for a non-tensor input."""
    text = facts.read_text(encoding="utf-8")
    start = text.index(APPENDIX[level])
    section = text[start:].split("\n## ", 2)[0] if level == 3 else text[start:text.index("\n## ", start + 3)]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == str(problem):
            inputs = next(c for c in cells[1:] if c.startswith("["))
            return [_shape(item) for item in re.split(r",\s*", inputs.strip("[]"))]
    raise KeyError(f"level {level} problem {problem} is not in {facts}")


def _shape(item: str) -> tuple[int, ...] | None:
    if re.fullmatch(r"\d+(×\d+)*", item):
        return tuple(int(d) for d in item.split("×"))
    return None
