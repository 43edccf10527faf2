"""A mutant's pipeline steps replayed from the original's run instead of launched.

A mutant changes one kernel (or one launch), so the steps before its first changed one are the
original's own launches on the same inputs (the prefix), and after its last changed one the
original's own kernels again (the tail). The gate proves the original deterministic to the bit,
so where those steps would compute exactly what the original's run computed on the column, the
run worker copies the original's kept outputs into their buffers instead of launching them
(`Worker.execute`). This module decides which steps those are, from the column the worker
prepared (`steps_original`: one kept output per step, on the device; `steps_launches`: each
step's launch key) and the mutant's request (its image's kernels, its launch transform).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .guards import Guarded, bits
from .transforms import transformed_step


@dataclass
class Tail:
    """The steps after a mutant's last changed one (`tail_from`): `check` says, right after step
    `last`, whether they may be replayed from `kept`; `replayed` counts those that were."""

    last: int
    kept: list[Any]
    check: Callable[[], bool]
    replayed: int = 0


def launch_key(s: Any) -> tuple[Any, ...]:
    """What makes two launches of a step the same launch: the kernel, grid, block, scalar
    arguments and each tensor argument's shape, strides and dtype (not its address: every run
    allocates its own buffers)."""
    return (s.kernel, tuple(s.grid), tuple(s.block), tuple(s.scalar_bytes()),
            tuple((tuple(t.shape), tuple(t.stride()), str(t.dtype)) for t in s.tensors))


def replay_basis(column: dict[str, Any] | None, req: dict[str, Any], steps: list[Any],
                 on: bool) -> tuple[list[Any], set[str], Any, int | None] | None:
    """What a mutant's run needs to replay any of its steps (`prefix_steps`, `tail_from`): the
    original's kept outputs, the kernels its image holds (its scope: none for a launch mutant,
    which has no image), its launch transform and the step that names. None for the original's
    own run, when the replay is off (`on`), or without one kept output per step on the device."""
    kept = column.get("steps_original") if column else None
    if req["eval"] < 0 or not on or kept is None or column.get("steps_keep") != "device" or len(kept) != len(steps):  # type: ignore[union-attr]
        return None
    transform = req.get("transform")
    scope = set(req.get("scope") or column["sub"]["names"]) if req.get("image") else set()  # type: ignore[index]
    return kept, scope, transform, transformed_step(transform)


def prefix_steps(column: dict[str, Any] | None, req: dict[str, Any], steps: list[Any], on: bool) -> int:
    """How many leading steps of a mutant's run are the original's own launches: the same
    kernel from the original image with the same descriptor, before the first step that runs a
    kernel of the mutant's image (its scope) or whose launch its host-side change altered. Those
    steps compute exactly what the original's run computed (the gate proves the original
    deterministic to the bit, and a step writes only its last tensor argument, SPEC section 5),
    so `execute` copies the original's kept outputs into their buffers instead of launching
    them, and the mutant's kernels start from the same state. 0 for the original's own run,
    without kept outputs on the device, or when off (`on`).

    Without a host-side change the descriptor is the original's by construction (the same
    `launch` on the same inputs); a launch transform names the step it changes; only
    `cdiv_floor`, which acts inside `launch`, is found by comparing every launch (for a
    6,157-step LSTM that comparison alone took 0.16 s of Python per evaluation)."""
    basis = replay_basis(column, req, steps, on)
    if basis is None:
        return 0
    kept, scope, transform, step = basis
    limit = len(steps) if step is None else step
    # Only `cdiv_floor` changes launches without naming its step: compare them all.
    launches = column["steps_launches"] if transform and step is None else None  # type: ignore[index]
    for i, (s, orig) in enumerate(zip(steps[:limit], kept)):
        if s.kernel in scope or orig.shape != s.output.shape or orig.dtype != s.output.dtype:
            return i
        if launches is not None and launch_key(s) != launches[i]:
            return i
    return limit


def tail_from(column: dict[str, Any] | None, req: dict[str, Any], steps: list[Any], on: bool) -> int | None:
    """The last step a mutant's run changes, when the steps after it could be replayed from the
    original's kept outputs (`execute` replays them only if `converged` holds there): the last
    step that runs a kernel of the mutant's image or whose launch its host-side change altered.
    None for the original's own run, without kept outputs on the device, when off (`on`), for a
    `cdiv_floor` (it may change any launch), when nothing or the last step changed, or when a
    later step's output is not the kept one's shape and dtype."""
    basis = replay_basis(column, req, steps, on)
    if basis is None:
        return None
    kept, scope, transform, step = basis
    if transform and step is None:
        return None
    changed = [i for i, s in enumerate(steps) if s.kernel in scope] + ([step] if step is not None else [])
    if not changed or max(changed) >= len(steps) - 1:
        return None
    last = max(changed)
    if any(o.shape != s.output.shape or o.dtype != s.output.dtype for s, o in zip(steps[last + 1 :], kept[last + 1 :])):
        return None
    return last


def converged(column: dict[str, Any], steps: list[Any], last: int, guards: list[Guarded], zeros: set[int],
              column_sum: Callable[[], str], torch: Any) -> bool:
    """Whether, right after step `last` (the mutant's last changed one), everything a later step
    can read is bit for bit what the original's run held at that point: then every later step,
    the original's own deterministic kernel (the gate proves it so), computes exactly what it
    computed there, and its kept output can stand in for the launch.

    Checked: each output written so far (the last writer of each view) against that writer's
    kept output, bit for bit (+0 and -0, or two NaNs, are not taken for each other); each
    zero-initialised buffer (`K.zeros`) that no step has written yet, still zero (all of these in
    one transfer); then, only if they all hold, the column (inputs, reference, weights, kept
    outputs: `column_sum` against the checksum taken when it was prepared). A `torch.empty`
    buffer no step has written yet needs no check: the gate's NaN fill proves no output depends
    on what it held. Anything else (a zero buffer no single written view covers) answers no,
    and the run launches every later step, as without this."""
    kept = column["steps_original"]
    writer: dict[tuple[Any, ...], int] = {}
    written: dict[int, int] = {}  # storage address -> the bytes of its largest view written so far
    for i in range(last + 1):
        out = steps[i].output
        if out.shape != kept[i].shape or out.dtype != kept[i].dtype:
            return False
        ptr = out.untyped_storage().data_ptr()
        writer[(ptr, out.storage_offset(), tuple(out.shape), tuple(out.stride()), out.dtype)] = i
        written[ptr] = max(written.get(ptr, 0), out.numel() * out.element_size())
    flags = [bits(steps[i].output, torch).ne(bits(kept[i], torch)).any() for i in writer.values()]
    for g in guards:
        if g.old_ptr not in zeros:
            continue
        ptr = g.whole.untyped_storage().data_ptr()
        if ptr not in written:
            flags.append(g.whole[g.pad_bytes : g.pad_bytes + g.body_bytes].ne(0).any())
        elif written[ptr] < g.body_bytes:
            return False
    if flags and bool(torch.stack(flags).any().item()):
        return False
    # Last, and only for a run whose outputs all agree (most that reach here do not): the
    # checksum reads every input, weight and kept output of the column.
    return column_sum() == column["sum"]
