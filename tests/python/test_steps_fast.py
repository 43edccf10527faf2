"""kmut.steps' fast mode (identical steps skipped after one batched equality test) gives the
float64 computation's figures for every step: over random tensors, values near the tolerance,
overflow, subnormals, non-finite values, half precision and chunk boundaries."""

from __future__ import annotations

import math

import pytest
import torch

from kmut import compare, steps

from .test_compare_fast import dense_near_ties

ATOL = RTOL = 1e-2


def both(orig, out, atol=ATOL, rtol=RTOL):
    compare.set_mode("fp64")
    try:
        [slow] = steps.step_errors([orig], [out], atol, rtol, torch)
    finally:
        compare.set_mode("fast")
    [fast] = steps.step_errors([orig], [out], atol, rtol, torch)
    return fast, slow


def same_figures(fast, slow, rel=1e-5):
    (t1, r1, f1), (t2, r2, f2) = fast, slow
    assert t1.hex() == t2.hex(), ("tau", fast, slow)
    assert f1.hex() == f2.hex(), ("frac_off", fast, slow)
    if math.isinf(r2) or r2 == 0:
        assert r1 == r2, ("rel_l2", fast, slow)
    else:
        assert abs(r1 - r2) <= rel * r2, ("rel_l2", fast, slow)


def test_only_the_steps_that_differ_are_measured_and_fp64_mode_measures_all(monkeypatch):
    calls = []
    real = steps._stats_fp64
    monkeypatch.setattr(steps, "_stats_fp64", lambda *a: calls.append(1) or real(*a))
    x = torch.randn(10)
    rows = steps.step_errors([x, x, torch.ones(10)], [x.clone(), x + 1, torch.ones(10)], ATOL, RTOL, torch)
    assert calls == [1], "one step of three differs"
    assert rows[0] == [0.0, 0.0, 0.0] and rows[2] == [0.0, 0.0, 0.0] and rows[1][2] == 1.0
    compare.set_mode("fp64")
    try:
        assert steps.step_errors([x, torch.ones(10)], [x.clone(), torch.ones(10)], ATOL, RTOL, torch) == [[0.0] * 3] * 2
    finally:
        compare.set_mode("fast")
    assert len(calls) == 3


def test_identity_is_bit_for_bit():
    nan = float("nan")
    pairs = [
        (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0])),
        (torch.tensor([0.0]), torch.tensor([-0.0])),  # == as float comparison: equal
        (torch.tensor([nan]), torch.tensor([nan])),  # a NaN is never equal
        (torch.tensor([1.0, 2.0]), torch.tensor([[1.0, 2.0]])),  # another shape
        (torch.tensor([1.0]), torch.tensor([1.0], dtype=torch.float16)),  # another dtype: measured
        (torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.5])),
    ]
    assert steps._identical(pairs, torch) == [True, True, False, False, False, False]
    assert steps._identical([], torch) == []


@pytest.mark.parametrize("seed", range(48))
def test_random_tensors_give_the_float64_figures(seed, monkeypatch):
    g = torch.Generator().manual_seed(seed)
    n = int(torch.randint(1, 5000, (1,), generator=g))
    scale = 10.0 ** float(torch.randint(-30, 30, (1,), generator=g))
    orig = torch.randn(n, generator=g) * scale
    kind = seed % 6
    if kind == 0:  # small relative noise: near the tolerance for some elements
        out = orig * (1 + 1e-2 * torch.randn(n, generator=g))
    elif kind == 1:  # a constant offset
        out = orig + scale * 1e-3
    elif kind == 2:  # unrelated values
        out = torch.randn(n, generator=g) * scale
    elif kind == 3:  # a few elements wrong, the rest bit-identical
        out = orig.clone()
        idx = torch.randint(0, n, (max(1, n // 100),), generator=g)
        out[idx] += torch.randn(idx.numel(), generator=g) * scale
    elif kind == 4:  # zeros in the original
        orig[torch.rand(n, generator=g) < 0.3] = 0.0
        out = orig + torch.randn(n, generator=g) * scale * 1e-4
    else:  # half precision against float32
        out = (orig * (1 + 1e-3 * torch.randn(n, generator=g))).to(torch.float16 if seed % 2 else torch.bfloat16)
    same_figures(*both(orig, out))
    monkeypatch.setattr(steps, "CHUNK", int(torch.randint(1, 700, (1,), generator=g)))
    same_figures(*both(orig, out))


@pytest.mark.parametrize("tol", [1e-2, 1e-4, 5e-2])
def test_elements_a_few_ulps_around_the_tolerance_are_counted_as_float64_counts_them(tol):
    # |orig - out| stepped by float32 ulps around atol + rtol * |out|, for outputs of many sizes.
    outs = torch.tensor([1e-3, 0.5, 1.0, 7.0, 1e3], dtype=torch.float64)
    rows = []
    for o in outs.tolist():
        thr = tol + tol * abs(o)
        for k in range(-6, 7):
            rows.append((float(torch.tensor(o + thr, dtype=torch.float32)) + k * 2.0**-24 * (o + thr), o))
    orig = torch.tensor([r for r, _ in rows])
    out = torch.tensor([o for _, o in rows])
    fast, slow = both(orig, out, tol, tol)
    same_figures(fast, slow)
    assert 0 < slow[2] < 1, "the rows straddle the tolerance"


ADVERSARIAL = [
    ([3e38, -3e38, 1.0], [-3e38, 3e38, 1.5]),  # float32 overflow of a finite float64 difference
    ([3.4e38, 1.0], [-3.4e38, 1e30]),
    ([1e-45, 0.0, -0.0, 1e-40], [0.0, 1e-45, 1e-45, -1e-40]),  # subnormals and signed zeros
    ([float("inf"), 1.0, 2.0], [float("inf"), 1.0, 2.5]),  # equal infinities are close
    ([float("inf"), 1.0], [float("-inf"), 1.0]),
    ([float("nan"), 1.0, 3.0], [float("nan"), 1.0, 1.0]),  # a NaN is never equal
    ([float("nan"), 1.0], [float("nan"), 1.0]),
    ([1.0, 2.0], [float("inf"), 2.0]),
    ([0.0, 0.0], [1.0, 2.0]),  # the original's norm is 0: relative error infinite
    ([5.0, -1.0], [5.0, -1.0]),  # all equal
    ([float("inf"), -1.0], [float("inf"), -1.0]),  # all equal, an infinity among them
    ([3.4e38, -3.4e38], [3.3e38, -3.3e38]),
]


@pytest.mark.parametrize(("orig", "out"), ADVERSARIAL)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_adversarial_tensors_give_the_float64_figures(orig, out, dtype, monkeypatch):
    r, o = torch.tensor(orig, dtype=torch.float32), torch.tensor(out, dtype=torch.float32)
    same_figures(*both(r, o))
    same_figures(*both(r.to(dtype), o.to(dtype)))
    monkeypatch.setattr(steps, "CHUNK", 1)
    same_figures(*both(r, o))


def test_an_identical_step_costs_one_comparison_and_reports_zeros(monkeypatch):
    calls = []
    monkeypatch.setattr(steps, "_stats_fp64", lambda *a: calls.append(1))
    x = torch.randn(1000)
    assert steps.step_errors([x], [x.clone()], ATOL, RTOL, torch) == [[0.0, 0.0, 0.0]]
    assert calls == [], "a bit-identical step is not measured element by element"


@pytest.mark.parametrize("base", [1.0, 3.0, 1e-3, 1e20])
def test_dense_near_ties_whose_float32_order_differs_from_float64s(base):
    # The float64 maximum must still be found.
    orig, out = dense_near_ties(base)
    same_figures(*both(orig, out))
    same_figures(*both(orig.flip(0), out.flip(0)))


def test_a_maximum_that_float32_ranks_second_is_still_found():
    # Element 1's tau* is the larger in float64, element 0's in float32 (1 + |out| rounds):
    # the candidates must include everything within the first pass's error of its maximum.
    orig = torch.tensor([3.0, 3.000000238418579])
    out = torch.tensor([1.0000073909759521, 1.0000075101852417])
    q64 = (orig.double() - out.double()).abs() / (1 + out.double().abs())
    q32 = (orig - out).abs() / (1 + out.abs())
    assert q64[1] > q64[0] and q32[0] > q32[1], "the example inverts the float32 ranking"
    same_figures(*both(orig, out))
