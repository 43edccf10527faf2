"""A launch mutant's host-side change: what the rules of the launch family do to a substrate's
launch descriptor (a step's grid or block, or a rounded-down `K.cdiv` inside `launch`), applied
by the run worker before the buffers are guarded."""

from __future__ import annotations

from dataclasses import replace
from typing import Any


def transformed_step(transform: dict[str, Any] | None) -> int | None:
    """The step a launch mutant's descriptor change applies to: every kind names one but
    `cdiv_floor`, which acts inside `launch` (None, as without a transform)."""
    if not transform or transform["transform"] == "cdiv_floor":
        return None
    return int(transform["step"])


def apply_transform(steps: list[Any], transform: dict[str, Any] | None) -> list[Any]:
    """Apply a launch mutant's descriptor change (all but `cdiv_floor`, which acts inside
    `launch`). Limits are not checked here: the driver refuses an illegal launch, as it would
    refuse the mutated host code."""
    i = transformed_step(transform)
    if transform is None or i is None:
        return steps
    kind = transform["transform"]
    if i >= len(steps):
        raise ValueError(f"launch transform {transform} names step {i} of {len(steps)}")
    s = steps[i]
    if kind == "swap_grid_block":
        s = replace(s, grid=s.block, block=s.grid)
    elif kind == "grid_x":
        s = replace(s, grid=(s.grid[0] + transform["delta"], s.grid[1], s.grid[2]))
    elif kind == "block_x":
        s = replace(s, block=(s.block[0] + transform["delta"], s.block[1], s.block[2]))
    else:
        raise ValueError(f"unknown launch transform {kind!r}")
    return [*steps[:i], s, *steps[i + 1 :]]


class FlooringCdiv:
    """K.cdiv that rounds the `call`-th call (0-based, per launch) down."""

    def __init__(self, call: int):
        self.call = call
        self.count = 0

    def __call__(self, a: int, b: int) -> int:
        n = self.count
        self.count += 1
        return a // b if n == self.call else (a + b - 1) // b
