"""Per-step capture for the depth analysis: every layer's output of a mutant against the
original's output of the same step on the same input.

A pipeline's step writes only its last tensor argument (`substrates/SPEC.md` section 5), so a
step's output is final once the step ran, unless a later step writes the same memory (a buffer
reused across steps, a recurrent state written every time step). `StepCapture` therefore copies
only those outputs right after their step (on the same stream, before the next launch) and reads
every other output in place after the last kernel: the capture adds a device-to-device copy per
reused buffer to the kernels and nothing else to them. The comparisons run after the kernels
(outside the watchdog's clock), each step's three numbers staying on the device until one
transfer at the end.

The original's step outputs are computed once per column (its run when the column is prepared)
and kept: on the device when they fit in a quarter of the memory free then (`keep`), otherwise on
the host, where each mutant's step output is copied to be compared (`"host"`, slower, recorded
with the column). On the CPU backend everything is host memory (`"device"` then means: kept).

Per step the worker reports `[tau, rel_l2, frac_off]`: tau* of the mutant's step output against
the original's (the smallest t with allclose(orig, mutant, atol=t, rtol=t), infinite for NaN or
infinity), the relative L2 error ||mutant - orig|| / ||orig|| (0 when both are zero, infinite
when only the original is), and the fraction of elements off by more than the substrate's
tolerance (atol + rtol * |mutant|, or NaN on one side).

Cheaper, and exact everywhere: most steps of an evaluation lie before the mutated layer and are
bit-identical to the original's, so in the fast mode (`kmut.compare`'s default) every step's
equality is tested on the device and read back in one transfer, and an identical step reports
zeros without being measured. The others are measured element by element in float64, without a
synchronisation. (A float32 first pass, as `kmut.compare` has, was dropped here: it took a
dozen synchronisations per differing step, and with six workers on one H200 a level-3
evaluation with the capture took 3.2x its wall without, against the goal of 1.3x; this way an
evaluation's steps take two synchronisations in all. `docs/performance.md` has the figures.)
`kmut.compare.set_mode("fp64")` measures every step, identical or not (the baseline of
`kmut bench compare`).

On a GPU, the float32 steps (nearly all of them) are measured by one kernel for the whole
evaluation instead (`kmut.steps_fused`): the same float64 arithmetic, identical steps included,
in one launch instead of a dozen per step, which is what the capture's overhead was made of.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass, field
from typing import Any

from . import compare, steps_fused

# Elements compared per chunk (float64 temporaries of this many elements).
CHUNK = 1 << 25
# The original's step outputs stay on the device when they take at most this share of the
# device memory free after the column's preparation.
KEEP_SHARE = 0.25


def _extent(t: Any) -> tuple[int, int]:
    start = t.data_ptr()
    return start, start + t.numel() * t.element_size()


def rewritten_later(steps: list[Any]) -> list[bool]:
    """For each step, whether a later step's output overlaps its output's memory (so the value
    right after the step must be copied before that later step runs). One backward sweep over
    the union of the later outputs (`_Union`): a recurrent network has thousands of steps, and
    comparing every pair took 0.6 s of every evaluation's setup on L3p38's 6,157."""
    later = _Union()
    out = []
    for s in reversed(steps):
        a0, a1 = _extent(s.output)
        out.append(later.overlaps(a0, a1))
        later.add(a0, a1)
    return out[::-1]


def producers(steps: list[Any]) -> list[list[int]]:
    """For each step, the earlier steps whose outputs it reads: for each of its tensor arguments
    but the last, the latest earlier writers of each part of it (a concat buffer's halves come
    from two steps). Inputs and weights have no producer; the depth analysis takes their error
    as zero. One forward sweep over a map from memory to its latest writer (`_Writers`): scanning
    back through every earlier step for each argument took 7.9 s of each of L3p38's column
    preparations, its weights read at every one of 6,157 steps and written by none."""
    writers = _Writers()
    reads: list[list[int]] = []
    for j, s in enumerate(steps):
        found: set[int] = set()
        for t in s.tensors[:-1]:
            found.update(writers.of(*_extent(t)))
        reads.append(sorted(found))
        writers.write(*_extent(s.output), j)
    return reads


class _Union:
    """A union of byte ranges, kept as sorted [start, end) pairs with no interior point in common
    (ends ascend with the starts, so the last range starting before a point reaches furthest)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []

    def overlaps(self, a0: int, a1: int) -> bool:
        # The last range starting before a1 is the only one that can reach past a0.
        i = bisect.bisect_left(self.starts, a1) - 1
        return i >= 0 and self.ends[i] > a0

    def add(self, a0: int, a1: int) -> None:
        # An empty range is kept too: the pairwise test this replaced counted a point strictly
        # inside another step's output as overlapping it.
        # Ranges that share an interior point with [a0, a1) merge with it; ranges that only
        # touch it stay apart, so that a point where two outputs meet is inside neither.
        lo = bisect.bisect_right(self.ends, a0)
        hi = bisect.bisect_left(self.starts, a1)
        if lo < hi:
            a0, a1 = min(a0, self.starts[lo]), max(a1, self.ends[hi - 1])
        self.starts[lo:hi], self.ends[lo:hi] = [a0], [a1]


class _Writers:
    """Which step last wrote each byte: sorted disjoint [start, end) ranges, each with its step."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.steps: list[int] = []

    def of(self, a0: int, a1: int) -> set[int]:
        """The steps that last wrote some byte of [a0, a1)."""
        found: set[int] = set()
        if a0 >= a1:
            return found  # an empty argument reads nothing
        i = bisect.bisect_right(self.ends, a0)  # the first range ending after a0
        while i < len(self.starts) and self.starts[i] < a1:
            found.add(self.steps[i])
            i += 1
        return found

    def write(self, a0: int, a1: int, step: int) -> None:
        """[a0, a1) now holds `step`'s output: ranges it covers go, ranges it cuts are trimmed."""
        if a0 >= a1:
            return
        lo = bisect.bisect_right(self.ends, a0)
        hi = bisect.bisect_left(self.starts, a1)
        keep_s: list[int] = []
        keep_e: list[int] = []
        keep_w: list[int] = []
        if lo < hi and self.starts[lo] < a0:  # the left part of a range the write cuts
            keep_s.append(self.starts[lo])
            keep_e.append(a0)
            keep_w.append(self.steps[lo])
        keep_s.append(a0)
        keep_e.append(a1)
        keep_w.append(step)
        if lo < hi and self.ends[hi - 1] > a1:  # its right part
            keep_s.append(a1)
            keep_e.append(self.ends[hi - 1])
            keep_w.append(self.steps[hi - 1])
        self.starts[lo:hi], self.ends[lo:hi], self.steps[lo:hi] = keep_s, keep_e, keep_w


@dataclass
class StepCapture:
    """The outputs of one run's steps, as they were right after each step."""

    steps: list[Any]
    copy: list[bool]
    taken: dict[int, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, steps: list[Any]) -> StepCapture:
        return cls(steps, rewritten_later(steps))

    def after(self, i: int) -> None:
        """Called right after step `i` launched (on its stream, before the next launch)."""
        if self.copy[i]:
            self.taken[i] = self.steps[i].output.clone()

    def outputs(self) -> list[Any]:
        """Every step's output as it was right after the step (after the last kernel ran)."""
        return [self.taken.get(i, s.output) for i, s in enumerate(self.steps)]


def keep(outputs: list[Any], torch: Any, free_bytes: int | None) -> tuple[list[Any], str, int]:
    """The original's step outputs as a column keeps them: (tensors, where, device bytes kept).
    On the device when they fit in `KEEP_SHARE` of `free_bytes` (None: no limit, the CPU),
    else copied to the host."""
    seen: dict[tuple[int, int], int] = {}
    for t in outputs:
        seen[_extent(t)] = t.numel() * t.element_size()
    total = sum(seen.values())
    if free_bytes is None or total <= KEEP_SHARE * free_bytes:
        return list(outputs), "device", (0 if free_bytes is None else total)
    return [t.detach().to("cpu") for t in outputs], "host", 0


# Each kept output starts at a multiple of this many bytes in the packed buffer (any dtype's
# alignment, and the GPU's preferred one).
PACK_ALIGN = 256


def pack(outputs: list[Any], torch: Any) -> tuple[Any, list[Any]]:
    """Copies of `outputs` laid end to end in one byte buffer on their device, and a view of it
    for each, with its dtype and shape. The run worker keeps the original's step outputs this
    way: a mutant's run reads them (its replayed prefix, its per-step rows), so a stray write
    into them must be seen, and one buffer is one more tensor in the column's checksum where
    hundreds of step outputs would be hundreds."""
    sizes = [t.numel() * t.element_size() for t in outputs]
    offsets, at = [], 0
    for n in sizes:
        offsets.append(at)
        at += -(-n // PACK_ALIGN) * PACK_ALIGN
    # Zeroed: the padding between outputs is part of the checksum, the same in every packing.
    flat = torch.zeros(max(at, PACK_ALIGN), dtype=torch.uint8, device=outputs[0].device)
    views = []
    for t, off, n in zip(outputs, offsets, sizes):
        v = flat[off : off + n].view(t.dtype).view(tuple(t.shape))
        v.copy_(t)
        views.append(v)
    return flat, views


def _identical(pairs: list[tuple[Any, Any]], torch: Any) -> list[bool]:
    """Which (original, mutant) step outputs are bit for bit equal (same shape, every element
    ==; a NaN never is): one transfer per device for all the steps, not one sync per step."""
    flags: list[Any] = []
    for orig, out in pairs:
        if tuple(out.shape) != tuple(orig.shape) or out.dtype != orig.dtype:
            flags.append(None)
        else:
            flags.append((orig == out).all())
    result = [False] * len(pairs)
    by_device: dict[Any, list[int]] = {}
    for i, f in enumerate(flags):
        if f is not None:
            by_device.setdefault(f.device, []).append(i)
    for idx in by_device.values():
        for i, same in zip(idx, torch.stack([flags[i] for i in idx]).tolist()):
            result[i] = bool(same)
    return result


def _stats(orig: Any, out: Any, atol: float, rtol: float, torch: Any) -> Any:
    """[tau, rel_l2, frac_off] of one step as a float64 tensor on the original's device (no sync)."""
    if tuple(out.shape) != tuple(orig.shape):
        return torch.tensor([math.inf, math.inf, 1.0], dtype=torch.float64, device=orig.device)
    return _stats_fp64(orig, out, atol, rtol, torch)


def _stats_fp64(orig: Any, out: Any, atol: float, rtol: float, torch: Any) -> Any:
    """`_stats` with every element in float64 (no sync)."""
    r_all, o_all = orig.reshape(-1), out.reshape(-1)
    n = r_all.numel()
    dev = orig.device
    tau = torch.zeros((), dtype=torch.float64, device=dev)
    diff2 = torch.zeros((), dtype=torch.float64, device=dev)
    ref2 = torch.zeros((), dtype=torch.float64, device=dev)
    off = torch.zeros((), dtype=torch.float64, device=dev)
    for at in range(0, n, CHUNK):
        r = r_all[at : at + CHUNK].double()
        o = o_all[at : at + CHUNK].double()
        same = r == o  # False wherever either is NaN: as in kmut.compare, equal values are close
        d = torch.where(same, torch.zeros_like(r), (r - o).abs())
        # NaN differences (a NaN on either side, inf - inf) fail at every tolerance.
        bad = torch.isnan(d)
        d = torch.where(bad, torch.full_like(d, math.inf), d)
        t = torch.where(torch.isinf(d), torch.full_like(d, math.inf), d / (1.0 + o.abs()))
        tau = torch.maximum(tau, t.max())
        diff2 = diff2 + (d * d).sum()
        ref2 = ref2 + (torch.where(torch.isfinite(r), r, torch.zeros_like(r)) ** 2).sum()
        off = off + ((d > atol + rtol * o.abs()) | torch.isinf(d)).sum(dtype=torch.float64)
    rel = torch.where(diff2 == 0, torch.zeros_like(diff2), torch.sqrt(diff2) / torch.sqrt(ref2))
    frac = off / max(n, 1)
    return torch.stack([tau, rel, frac])


def _fused_rows(pairs: list[tuple[Any, Any]], atol: float, rtol: float, torch: Any) -> list[list[float]] | None:
    """Every step's figures with the float32 steps measured by one kernel launch
    (`kmut.steps_fused`) and the rest by `_stats`, read back in one transfer; None where the
    kernel does not apply (no CUDA step, `KMUT_STEP_STATS=torch`, a kernel that did not build)."""
    if not steps_fused.enabled():
        return None
    takes = [steps_fused.takes(o, m, torch) for o, m in pairs]
    if not any(takes):
        return None
    taken = [p for p, t in zip(pairs, takes) if t]
    measured = steps_fused.stats(taken, atol, rtol, torch)
    if measured is None:
        return None
    if all(takes):
        return measured.cpu().tolist()
    device = taken[0][0].device
    rows, k = [], 0
    for (o, m), t in zip(pairs, takes):
        if t:
            rows.append(measured[k])
            k += 1
        else:
            rows.append(_stats(o, m, atol, rtol, torch).to(device))
    return torch.stack(rows).cpu().tolist()


# Original step outputs kept on the host are brought to the mutant's device in groups of at most
# this many bytes (a step larger than it goes alone) and measured there.
HOST_GROUP_BYTES = 1 << 30


def step_errors(original: list[Any], mutant: list[Any], atol: float, rtol: float, torch: Any) -> list[list[float]]:
    """`[tau, rel_l2, frac_off]` of every step, the original's outputs against the mutant's."""
    if not original:
        return []
    if any(o.device != m.device for o, m in zip(original, mutant)):
        # Kept on the host (they did not fit the device's share): measuring there was float64
        # on the CPU over every element, 40 s and more per evaluation of a large network on the
        # H100 (2026-12-06); the mutant's device measures them a group at a time instead.
        rows = []
        for group in _groups([o.numel() * o.element_size() for o in original], HOST_GROUP_BYTES):
            rows += _rows([(original[i].to(mutant[i].device), mutant[i]) for i in group], atol, rtol, torch)
    else:
        rows = _rows(list(zip(original, mutant)), atol, rtol, torch)
    # rel_l2 is NaN only where the original's norm is 0 and the difference is not: infinite.
    return [[t, math.inf if math.isnan(r) else r, f] for t, r, f in rows]


def _groups(sizes: list[int], limit: int) -> list[list[int]]:
    """Consecutive indices of `sizes` in groups whose sizes add up to at most `limit` (a larger
    one alone)."""
    groups: list[list[int]] = []
    total = 0
    for i, n in enumerate(sizes):
        if not groups or total + n > limit:
            groups.append([])
            total = 0
        groups[-1].append(i)
        total += n
    return groups


def _rows(pairs: list[tuple[Any, Any]], atol: float, rtol: float, torch: Any) -> list[list[float]]:
    """The rows of (original, mutant) step outputs on one device."""
    # The fast mode skips the steps a fault has not reached (bit-identical: all zeros); the
    # others are measured in float64 without a synchronisation, all rows in one transfer.
    fused = _fused_rows(pairs, atol, rtol, torch)
    if fused is not None:
        return fused
    same = _identical(pairs, torch) if compare.mode() == "fast" else [False] * len(pairs)
    zero = torch.zeros(3, dtype=torch.float64, device=pairs[0][0].device)
    return torch.stack([zero if s else _stats(o, m, atol, rtol, torch).to(zero.device) for (o, m), s in zip(pairs, same)]).cpu().tolist()
