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

Cheaper, and exact where it matters: most steps of an evaluation lie before the mutated layer
and are bit-identical to the original's, so a step whose outputs are equal costs one comparison.
For the others, float32/float16/bfloat16 outputs (nearly every step) are measured in float32
first, as `kmut.compare` does: tau* is the float64 computation's to the bit (float64 on the few
elements that can hold the maximum), the fraction off is exact (float64 on the elements within
the first pass's error bound of the tolerance), and the relative L2 error is summed in float32
over values scaled by their maximum (relative error below 1e-5; it is a description, never a
verdict). `kmut.compare.set_mode("fp64")` measures every element in float64 (the baseline of
`kmut bench compare`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from . import compare

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
    right after the step must be copied before that later step runs)."""
    extents = [_extent(s.output) for s in steps]
    out = []
    for i, (a0, a1) in enumerate(extents):
        out.append(any(b0 < a1 and a0 < b1 for b0, b1 in extents[i + 1 :]))
    return out


def producers(steps: list[Any]) -> list[list[int]]:
    """For each step, the earlier steps whose outputs it reads: for each of its tensor arguments
    but the last, the latest earlier writers of each part of it (a concat buffer's halves come
    from two steps). Inputs and weights have no producer; the depth analysis takes their error
    as zero."""
    extents = [_extent(s.output) for s in steps]
    reads: list[list[int]] = []
    for j, s in enumerate(steps):
        found: set[int] = set()
        for t in s.tensors[:-1]:
            a0, a1 = _extent(t)
            covered: list[tuple[int, int]] = []  # parts of the argument a later writer already owns
            for i in range(j - 1, -1, -1):
                b0, b1 = max(extents[i][0], a0), min(extents[i][1], a1)
                if b0 >= b1:
                    continue
                if not _inside(b0, b1, covered):
                    found.add(i)
                covered.append((b0, b1))
                if _inside(a0, a1, covered):
                    break
        reads.append(sorted(found))
    return reads


def _inside(lo: int, hi: int, parts: list[tuple[int, int]]) -> bool:
    """Whether [lo, hi) lies within the union of `parts`."""
    at = lo
    for p0, p1 in sorted(parts):
        if p0 > at:
            break
        at = max(at, p1)
        if at >= hi:
            return True
    return at >= hi


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


def _stats(orig: Any, out: Any, atol: float, rtol: float, torch: Any) -> Any:
    """[tau, rel_l2, frac_off] of one step as a float64 tensor on the tensors' device."""
    if out.device != orig.device:
        out = out.to(orig.device)
    if tuple(out.shape) != tuple(orig.shape):
        return torch.tensor([math.inf, math.inf, 1.0], dtype=torch.float64, device=orig.device)
    if compare.first_pass_applies(orig, out, torch):
        return _stats_fast(orig.reshape(-1), out.reshape(-1), atol, rtol, torch)
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


def _stats_fast(r_all: Any, o_all: Any, atol: float, rtol: float, torch: Any) -> Any:
    """`_stats_fp64`'s figures from a float32 first pass: tau* and the fraction off to the bit,
    the relative L2 error to float32 precision. For float32/float16/bfloat16 tensors, which
    float32 holds exactly (so equality and finiteness are decided exactly)."""
    dev, n = r_all.device, r_all.numel()
    if torch.equal(r_all, o_all):
        # Every figure is 0 (equal infinities too; a NaN is never equal, so it takes the long way).
        return torch.zeros(3, dtype=torch.float64, device=dev)
    tau = num = den = 0.0
    off = 0
    broken = False
    for at in range(0, n, CHUNK):
        t, d2, r2, o, br = _chunk_fast(r_all[at : at + CHUNK], o_all[at : at + CHUNK], atol, rtol, torch)
        tau, num, den, off, broken = max(tau, t), num + d2, den + r2, off + o, broken or br
    if broken:
        tau, rel = math.inf, math.inf
    else:
        rel = 0.0 if num == 0 else (math.inf if den == 0 else math.sqrt(num) / math.sqrt(den))
    return torch.tensor([tau, rel, off / max(n, 1)], dtype=torch.float64, device=dev)


def _chunk_fast(r: Any, o: Any, atol: float, rtol: float, torch: Any) -> tuple[float, float, float, int, bool]:
    """One chunk's (tau*, sum of squared differences, sum of squared finite reference values,
    elements off, broken)."""
    r32, o32 = r.float(), o.float()
    fin_r, fin_o = torch.isfinite(r32), torch.isfinite(o32)
    same = r32 == o32
    bad = ~same & ~(fin_r & fin_o)  # the float64 difference is NaN or infinite: off, tau* = inf
    live = ~same & fin_r & fin_o
    d32 = torch.where(live, (r32 - o32).abs(), torch.zeros_like(r32))  # may overflow to inf
    ref2 = _sum_squares(torch.where(fin_r, r32, torch.zeros_like(r32)), torch)
    n_bad = int(bad.sum())
    if not bool(live.any()):
        return (math.inf if n_bad else 0.0), 0.0, ref2, n_bad, n_bad > 0
    q_tau = torch.where(live, d32 / (1.0 + o32.abs()), torch.zeros_like(d32))
    pick = compare.near_max(q_tau, live, torch)
    r64, o64 = r[pick].double(), o[pick].double()
    tau = ((r64 - o64).abs() / (1.0 + o64.abs())).max().item()
    # Off by more than the tolerance: decided in float32 unless within the first pass's error
    # bound of it (or overflowed), and those few in float64.
    thr = atol + rtol * o32.abs()
    hi, lo = thr * (1.0 + compare.SLACK) + compare.TINY, thr * (1.0 - compare.SLACK) - compare.TINY
    surely = live & (d32 > hi) & torch.isfinite(d32)
    unsure = live & ~surely & ((d32 >= lo) | torch.isinf(d32))
    r64, o64 = r[unsure].double(), o[unsure].double()
    unsure_off = int(((r64 - o64).abs() > atol + rtol * o64.abs()).sum())
    if bool(torch.isinf(d32).any()):  # a float32 overflow of a finite float64 difference
        d64 = torch.where(live, (r.double() - o.double()).abs(), torch.zeros_like(r32, dtype=torch.float64))
        diff2 = _sum_squares(d64, torch)
    else:
        diff2 = _sum_squares(d32, torch)
    return tau, diff2, ref2, n_bad + int(surely.sum()) + unsure_off, n_bad > 0


def _sum_squares(x: Any, torch: Any) -> float:
    """sum(x^2) as a float64 number, summed in float32 over x/m for the largest |x| = m: no
    overflow (m^2 * n stays far inside float64's range for float32 values) and no loss to
    underflow that matters (an x/m below 2^-75 adds less than 2^-150 * n to a sum of at least 1)."""
    m = x.abs().max().item() if x.numel() else 0.0
    if m == 0 or not math.isfinite(m):
        return 0.0
    return m * m * float((x / m).pow(2).sum().item())


def step_errors(original: list[Any], mutant: list[Any], atol: float, rtol: float, torch: Any) -> list[list[float]]:
    """`[tau, rel_l2, frac_off]` of every step, the original's outputs against the mutant's."""
    if not original:
        return []
    rows = torch.stack([_stats(o, m, atol, rtol, torch) for o, m in zip(original, mutant)]).cpu().tolist()
    # rel_l2 is NaN only where the original's norm is 0 and the difference is not: infinite.
    return [[t, math.inf if math.isnan(r) else r, f] for t, r, f in rows]
