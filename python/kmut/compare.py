"""The continuous verdict: how far an output is from the reference, as KernelBench judges it.

One implementation for the gate, both backends and the run worker, so a tolerance means the same
everywhere. KernelBench passes when `torch.allclose(ref, out, atol=t, rtol=t)` holds (after a shape
check), the reference first, so rtol scales with the candidate's own output:

    |ref - out| <= t + t * |out|   for every element   <=>   t >= tau* = max |ref - out| / (1 + |out|)

As in allclose with `equal_nan=False`: equal values are close whatever they are (equal infinities,
0.0 and -0.0); a NaN on either side, or an infinity against anything but the same infinity, fails
at every tolerance (tau* = inf). An empty output passes at every tolerance (tau* = 0). Integer and
boolean outputs are compared as float64 (exact for integers up to 2^53, as argmax indices are).
The work is chunked, in float64, on the tensors' own device: a 1.6 G-element output never needs a
whole float64 copy.
"""

from __future__ import annotations

import math
from typing import Any

# Elements compared per chunk (float64 temporaries of this many elements, a few of them).
CHUNK = 1 << 26


def compare(ref: Any, out: Any, torch: Any, chunk: int = CHUNK) -> dict[str, Any]:
    """tau*, the largest absolute and relative errors, whether `out` has a non-finite value where
    `ref` is finite, and the shape check: everything a later tolerance needs."""
    if tuple(out.shape) != tuple(ref.shape):
        return {"shape_ok": False, "tau": math.inf, "max_abs": math.inf, "max_rel": math.inf, "nonfinite": False,
                "shape": f"{tuple(out.shape)} vs ref {tuple(ref.shape)}"}
    r_all, o_all = ref.reshape(-1), out.reshape(-1)
    tau = max_abs = max_rel = 0.0
    nonfinite = broken = False
    for at in range(0, r_all.numel(), chunk):
        r = r_all[at : at + chunk].double()
        o = o_all[at : at + chunk].double()
        same = r == o  # False wherever either is NaN
        diff = torch.where(same, torch.zeros_like(r), (r - o).abs())
        nonfinite |= bool((~torch.isfinite(o) & torch.isfinite(r)).any())
        # inf - inf is NaN and inf - finite is inf: either way not finite, and no tolerance
        # covers it; a NaN anywhere never compares equal.
        finite = torch.isfinite(diff)
        if not bool(finite.all()):
            broken = True
        if bool(finite.any()):
            d = diff[finite]
            tau = max(tau, (d / (1.0 + o[finite].abs())).max().item())
            max_abs = max(max_abs, d.max().item())
            rel = d / r[finite].abs()
            rel = rel[torch.isfinite(rel)]
            if rel.numel():
                max_rel = max(max_rel, rel.max().item())
    if broken:
        tau = max_abs = math.inf
    return {"shape_ok": True, "tau": tau, "max_abs": max_abs, "max_rel": max_rel, "nonfinite": nonfinite}


def tau_star(ref: Any, out: Any, torch: Any = None) -> float:
    """The smallest t with allclose(ref, out, atol=t, rtol=t): inf for a shape mismatch."""
    if torch is None:
        import torch  # noqa: PLC0415 - the contract module stays import-light
    return compare(ref, out, torch)["tau"]
