"""kmut.compare's float32 first pass gives the float64 computation's figures bit for bit: over
random and adversarial tensors (ties, values near the tolerance, overflow, subnormals,
non-finite values, half-precision dtypes, chunk boundaries)."""

from __future__ import annotations

import math

import pytest
import torch

from kmut import compare

FIELDS = ("tau", "max_abs", "max_rel", "nonfinite", "shape_ok")


def both(ref, out, chunk=compare.CHUNK):
    compare.set_mode("fp64")
    try:
        slow = compare.compare(ref, out, torch, chunk)
    finally:
        compare.set_mode("fast")
    fast = compare.compare(ref, out, torch, chunk)
    return fast, slow


def same_figures(fast, slow):
    for k in FIELDS:
        a, b = fast[k], slow[k]
        if isinstance(a, float) and math.isnan(a):
            assert isinstance(b, float) and math.isnan(b), (k, fast, slow)
        else:
            assert a == b, (k, fast, slow)
            if isinstance(a, float):
                assert a.hex() == b.hex(), (k, fast, slow)


def test_the_first_pass_is_taken_for_float32_and_never_for_float64(monkeypatch):
    calls = []
    monkeypatch.setattr(compare, "_chunk_fp64", lambda *a: calls.append(1) or (0.0, 0.0, 0.0, False, False))
    compare.compare(torch.ones(10), torch.ones(10) * 2, torch)
    assert calls == [], "float32 inputs take the first pass"
    compare.compare(torch.ones(10, dtype=torch.float64), torch.ones(10, dtype=torch.float64), torch)
    assert calls == [1], "float64 inputs are measured in float64"
    compare.compare(torch.ones(10, dtype=torch.int64), torch.ones(10, dtype=torch.int64), torch)
    assert calls == [1, 1], "integers beyond 2^24 are not exact in float32"


@pytest.mark.parametrize("seed", range(60))
def test_random_tensors_give_the_float64_figures(seed):
    g = torch.Generator().manual_seed(seed)
    n = int(torch.randint(1, 5000, (1,), generator=g))
    scale = 10.0 ** float(torch.randint(-30, 30, (1,), generator=g))
    ref = torch.randn(n, generator=g) * scale
    kind = seed % 6
    if kind == 0:  # small relative noise, as a surviving mutant
        out = ref * (1 + 1e-6 * torch.randn(n, generator=g))
    elif kind == 1:  # a constant offset: every element ties for the maximum
        out = ref + scale * 1e-3
    elif kind == 2:  # unrelated values
        out = torch.randn(n, generator=g) * scale
    elif kind == 3:  # a few elements wrong
        out = ref.clone()
        idx = torch.randint(0, n, (max(1, n // 100),), generator=g)
        out[idx] += torch.randn(idx.numel(), generator=g) * scale
    elif kind == 4:  # zeros in the reference (relative error infinite there)
        ref[torch.rand(n, generator=g) < 0.3] = 0.0
        out = ref + torch.randn(n, generator=g) * scale * 1e-4
    else:  # half-precision output against a float32 reference
        out = (ref * (1 + 1e-3 * torch.randn(n, generator=g))).to(torch.float16 if seed % 2 else torch.bfloat16)
    chunk = int(torch.randint(1, 700, (1,), generator=g))
    same_figures(*both(ref, out, chunk))
    same_figures(*both(ref, out))


def near_tolerance(t, steps):
    """Outputs whose tau* against ref = 1 lies a few float64 ulps around t."""
    ref = torch.ones(len(steps))
    outs = []
    for k in steps:
        # out = 1 - e gives tau* = e / (2 - e); step e by float32 ulps around the solution.
        e = 2 * t / (1 + t)
        outs.append(float(torch.tensor(1 - e, dtype=torch.float32)) + k * 2.0**-24)
    return ref, torch.tensor(outs)


@pytest.mark.parametrize("t", [1e-2, 1e-4, 5e-2])
def test_near_the_tolerance_tau_and_the_verdict_are_the_float64_ones(t):
    ref, out = near_tolerance(t, range(-8, 9))
    for i in range(out.numel()):
        fast, slow = both(ref[i : i + 1], out[i : i + 1])
        same_figures(fast, slow)
        assert (fast["tau"] <= t) == (slow["tau"] <= t)
    same_figures(*both(ref, out))


ADVERSARIAL = [
    # overflow of the float32 difference, where float64 is finite
    ([3e38, -3e38, 1.0], [-3e38, 3e38, 1.5]),
    ([3.4e38, 1.0], [-3.4e38, 1e30]),
    # subnormals and signed zeros
    ([1e-45, 0.0, -0.0, 1e-40], [0.0, 1e-45, 1e-45, -1e-40]),
    ([1e-45] * 7, [2e-45] * 7),
    # relative error past float32's range
    ([1e-45, 1.0], [1.0, 1.0]),
    # non-finite values in every place
    ([float("inf"), 1.0, 2.0], [float("inf"), 1.0, 2.5]),
    ([float("inf"), 1.0], [float("-inf"), 1.0]),
    ([float("nan"), 1.0, 3.0], [float("nan"), 1.0, 1.0]),
    ([1.0, 2.0], [float("inf"), 2.0]),
    ([1.0, 2.0], [1.0, float("nan")]),
    # near-ties within float32's error of each other
    ([1.0, 1.0, 1.0], [1.0 + 2**-20, 1.0 + 2**-20 + 2**-23, 1.0 + 2**-20 - 2**-23]),
    # all equal
    ([5.0, -1.0], [5.0, -1.0]),
    # largest values
    ([3.4e38, -3.4e38], [3.3e38, -3.3e38]),
]


@pytest.mark.parametrize(("ref", "out"), ADVERSARIAL)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_adversarial_tensors_give_the_float64_figures(ref, out, dtype):
    r, o = torch.tensor(ref, dtype=torch.float32), torch.tensor(out, dtype=torch.float32)
    same_figures(*both(r, o))
    same_figures(*both(r.to(dtype), o.to(dtype)))
    same_figures(*both(r, o, chunk=1))


def test_an_unknown_mode_is_refused():
    with pytest.raises(ValueError, match="compare mode 'fp16'"):
        compare.set_mode("fp16")


def dense_near_ties(base):
    """(ref, out): outputs a few float32 ulps apart around `base`, so (1 + |out|) rounds in
    float32 and the float32 ranking of their tau* is not the float64 one."""
    ulp = base * 2.0**-23
    k = torch.arange(1, 4097, dtype=torch.float64)
    out = (base + k * ulp).float()
    return (out.double() + (4097 - k) * ulp * 0.5).float(), out


@pytest.mark.parametrize("base", [1.0, 3.0, 1e-3, 1e20])
def test_dense_near_ties_whose_float32_order_differs_from_float64s(base):
    # The float64 maximum must still be found.
    ref, out = dense_near_ties(base)
    same_figures(*both(ref, out))
    same_figures(*both(ref.flip(0), out.flip(0)))
