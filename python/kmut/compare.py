"""The continuous verdict: how far an output is from the reference, as KernelBench judges it.

One implementation for the gate, both backends and the run worker, so a tolerance means the same
everywhere. KernelBench passes when `torch.allclose(ref, out, atol=t, rtol=t)` holds (after a shape
check), the reference first, so rtol scales with the candidate's own output:

    |ref - out| <= t + t * |out|   for every element   <=>   t >= tau* = max |ref - out| / (1 + |out|)

As in allclose with `equal_nan=False`: equal values are close whatever they are (equal infinities,
0.0 and -0.0); a NaN on either side, or an infinity against anything but the same infinity, fails
at every tolerance (tau* = inf). An empty output passes at every tolerance (tau* = 0). Integer and
boolean outputs are compared as float64 (exact for integers up to 2^53, as argmax indices are).
The work is chunked, on the tensors' own device: a 1.6 G-element output never needs a whole
float64 copy.

Exact, with a cheaper first pass: when both tensors are float32, float16 or bfloat16 (the
outputs of nearly every substrate), each chunk is first measured in float32, whose error on
every element is bounded (a few units in the last place, plus an absolute 2^-149 near zero;
overflow gives inf). Only the elements whose float32 measure comes within that bound of the
chunk's largest (or overflowed) are measured again in float64, so every figure, tau* above all,
is the float64 computation's to the bit, wherever it lies; the float64 work shrinks from every
element to the few that can be the maximum. `set_mode("fp64")` measures every element in
float64 (the previous behaviour; `kmut bench run` uses it as its baseline).

On a GPU, a float32 pair is measured by one kernel instead (`kmut.compare_fused`: every element in
float64 in a single pass, the same figures to the bit), unless `KMUT_COMPARE=torch`.
"""

from __future__ import annotations

import math
from typing import Any

from . import compare_fused

# Elements compared per chunk (float64 temporaries of this many elements, a few of them).
CHUNK = 1 << 26

# "fast": the float32 first pass where the dtypes allow it; "fp64": every element in float64.
_MODE = "fast"
# float32 unit roundoff, and the bound on the first pass's relative error used to pick the
# candidates: each measure is at most three rounded float32 operations (3u), taken with room.
_U32 = 2.0**-24
_SLACK = 16 * _U32
# The first pass's absolute error near zero (subnormal results), with room.
_TINY = 2.0**-140


def set_mode(mode: str) -> None:
    """`fast` (the default) or `fp64`; both give the same figures."""
    global _MODE
    if mode not in ("fast", "fp64"):
        raise ValueError(f"compare mode {mode!r}: expected 'fast' or 'fp64'")
    _MODE = mode


def mode() -> str:
    """The comparison mode in force: `fast` or `fp64` (kmut.steps follows it too)."""
    return _MODE


def _first_pass_applies(a: Any, b: Any, torch: Any) -> bool:
    """Whether the float32 first pass measures `a` against `b`: the fast mode, and dtypes that
    float32 holds exactly (float32, float16, bfloat16; never integers past 2^24 or float64)."""
    narrow = (torch.float32, torch.float16, torch.bfloat16)
    return _MODE == "fast" and a.dtype in narrow and b.dtype in narrow


def compare(ref: Any, out: Any, torch: Any, chunk: int = CHUNK) -> dict[str, Any]:
    """tau*, the largest absolute and relative errors, whether `out` has a non-finite value where
    `ref` is finite, and the shape check: everything a later tolerance needs."""
    if tuple(out.shape) != tuple(ref.shape):
        return {"shape_ok": False, "tau": math.inf, "max_abs": math.inf, "max_rel": math.inf, "nonfinite": False,
                "shape": f"{tuple(out.shape)} vs ref {tuple(ref.shape)}"}
    if _MODE == "fast" and compare_fused.enabled() and compare_fused.takes(ref, out, torch):
        measured = compare_fused.figures(ref, out, torch)
        if measured is not None:
            return measured
    r_all, o_all = ref.reshape(-1), out.reshape(-1)
    fast = _first_pass_applies(ref, out, torch)
    tau = max_abs = max_rel = 0.0
    nonfinite = broken = False
    for at in range(0, r_all.numel(), chunk):
        part = _chunk_fast if fast else _chunk_fp64
        t, a, m, nf, br = part(r_all[at : at + chunk], o_all[at : at + chunk], torch)
        tau, max_abs, max_rel = max(tau, t), max(max_abs, a), max(max_rel, m)
        nonfinite |= nf
        broken |= br
    if broken:
        tau = max_abs = math.inf
    return {"shape_ok": True, "tau": tau, "max_abs": max_abs, "max_rel": max_rel, "nonfinite": nonfinite}


def _chunk_fp64(r: Any, o: Any, torch: Any) -> tuple[float, float, float, bool, bool]:
    """One chunk's (tau*, max abs, max rel, non-finite, broken), every element in float64."""
    r, o = r.double(), o.double()
    same = r == o  # False wherever either is NaN
    diff = torch.where(same, torch.zeros_like(r), (r - o).abs())
    nonfinite = bool((~torch.isfinite(o) & torch.isfinite(r)).any())
    # inf - inf is NaN and inf - finite is inf: either way not finite, and no tolerance
    # covers it; a NaN anywhere never compares equal.
    finite = torch.isfinite(diff)
    broken = not bool(finite.all())
    tau = max_abs = max_rel = 0.0
    if bool(finite.any()):
        d = diff[finite]
        tau = (d / (1.0 + o[finite].abs())).max().item()
        max_abs = d.max().item()
        rel = d / r[finite].abs()
        rel = rel[torch.isfinite(rel)]
        if rel.numel():
            max_rel = rel.max().item()
    return tau, max_abs, max_rel, nonfinite, broken


def _chunk_fast(r: Any, o: Any, torch: Any) -> tuple[float, float, float, bool, bool]:
    """`_chunk_fp64`'s figures, bit for bit, from a float32 pass and float64 on the few
    elements that can hold a maximum. Only for float32/float16/bfloat16 inputs, which float32
    holds exactly (so equality and finiteness are decided exactly in float32).

    Three transfers from the device whatever the chunk holds: the flags with each measure's
    largest finite value, the indices of the candidates, and the three figures. Ten workers
    share a GPU by turns, so each synchronisation waits for the others' turns too."""
    r32, o32 = r.float(), o.float()
    fin_r, fin_o = torch.isfinite(r32), torch.isfinite(o32)
    same = r32 == o32
    # Elements whose float64 difference is finite and non-zero: the only ones that can raise a
    # maximum above 0 (equal elements contribute 0 to every figure).
    live = ~same & fin_r & fin_o
    d32 = (r32 - o32).abs()  # may overflow to inf where float64 does not
    zero = torch.zeros_like(d32)
    q_abs = torch.where(live, d32, zero)
    q_tau = torch.where(live, d32 / (1.0 + o32.abs()), zero)
    # Relative error is finite in float64 exactly where the reference is non-zero.
    rel_live = live & (r32 != 0)
    q_rel = torch.where(rel_live, d32 / r32.abs(), zero)
    # Each measure is >= 0, 0 off its mask and never NaN on it, so its largest finite value is
    # the largest after setting its infinities to 0: no boolean indexing (a scan of every
    # element on a GPU, and a synchronisation).
    tops = [torch.where(torch.isinf(q), zero, q).max() for q in (q_abs, q_tau, q_rel)]
    flags = [(~fin_o & fin_r).any(), (~same & ~(fin_r & fin_o)).any(), live.any()]
    nonfinite, broken, any_live, top_abs, top_tau, top_rel = torch.stack([t.double() for t in flags + tops]).tolist()
    # The float64 difference is non-finite exactly where the values differ and one is not finite.
    nonfinite, broken = bool(nonfinite), bool(broken)
    if not any_live:
        return 0.0, 0.0, 0.0, nonfinite, broken
    pick = _near_max(q_abs, live, top_abs, torch) | _near_max(q_tau, live, top_tau, torch) | _near_max(q_rel, rel_live, top_rel, torch)
    at = pick.nonzero().squeeze(1)
    r64, o64 = r[at].double(), o[at].double()
    d = (r64 - o64).abs()
    rel = d / r64.abs()
    # d > 0 on every pick (live elements differ, and a float32 difference is exact in float64),
    # so rel is finite or +inf: its largest finite value, or 0.0 when there is none.
    tau, max_abs, max_rel = torch.stack([(d / (1.0 + o64.abs())).max(), d.max(), torch.where(torch.isfinite(rel), rel, torch.zeros_like(rel)).max()]).tolist()
    return tau, max_abs, max_rel, nonfinite, broken


def _near_max(q: Any, live: Any, top: float, torch: Any) -> Any:
    """The elements of `live` whose float32 measure `q` may be the float64 maximum: those that
    overflowed, and those within the first pass's error bound of `top`, the largest finite one."""
    inf = torch.isinf(q) & live
    finite = live & ~inf
    return inf | (finite & (q >= top * (1.0 - _SLACK) - _TINY))


def tau_star(ref: Any, out: Any, torch: Any = None) -> float:
    """The smallest t with allclose(ref, out, atol=t, rtol=t): inf for a shape mismatch."""
    if torch is None:
        import torch  # noqa: PLC0415 - the contract module stays import-light
    return compare(ref, out, torch)["tau"]
