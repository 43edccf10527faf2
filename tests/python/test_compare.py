"""The one tau* (kmut.compare): allclose's semantics, edge cases, and every user of it."""

from __future__ import annotations

import math

import pytest
import torch

from kmut import _run_worker, compare, contract
from kmut.compare import tau_star

INF, NAN = float("inf"), float("nan")


@pytest.mark.parametrize(
    ("ref", "out", "expected"),
    [
        ([1.0, 2.0], [1.0, 2.0], 0.0),
        ([INF, -INF, 1.0], [INF, -INF, 1.0], 0.0),  # equal infinities are close, as in allclose
        ([0.0, -0.0], [-0.0, 0.0], 0.0),  # signed zeros are equal
        ([INF], [-INF], INF),
        ([INF], [1e30], INF),
        ([1.0], [INF], INF),
        ([NAN], [NAN], INF),  # equal_nan=False: NaN is never close
        ([1.0], [NAN], INF),
        ([NAN], [1.0], INF),
        ([3.0], [1.0], 1.0),  # |3 - 1| / (1 + |1|): rtol scales with the candidate's output
        ([1.0], [3.0], 0.5),
    ],
)
def test_tau_star_edge_cases(ref, out, expected):
    assert tau_star(torch.tensor(ref), torch.tensor(out)) == expected


def test_an_empty_output_passes_and_a_shape_mismatch_fails():
    assert tau_star(torch.empty(0), torch.empty(0)) == 0.0
    v = compare.compare(torch.zeros(2, 3), torch.zeros(3, 2), torch)
    assert not v["shape_ok"] and v["tau"] == math.inf and "(3, 2) vs ref (2, 3)" in v["shape"]


def test_integer_and_boolean_outputs_compare_exactly_in_float64():
    big = 2**40
    ref = torch.tensor([big, 5, 7], dtype=torch.int64)
    assert tau_star(ref, ref.clone()) == 0.0
    assert tau_star(ref, torch.tensor([big + 1, 5, 7])) == pytest.approx(1.0 / (1 + big + 1))
    assert tau_star(torch.tensor([True, False]), torch.tensor([True, True])) == pytest.approx(0.5)


@pytest.mark.parametrize("seed", range(5))
def test_allclose_passes_exactly_when_the_tolerance_reaches_tau_star(seed):
    g = torch.Generator().manual_seed(seed)
    ref = torch.randn(4000, generator=g, dtype=torch.float64)
    out = ref + torch.randn(4000, generator=g, dtype=torch.float64) * 1e-3
    out[::97] = ref[::97]
    t = tau_star(ref, out)
    assert torch.allclose(ref, out, atol=t * (1 + 1e-9), rtol=t * (1 + 1e-9))
    assert not torch.allclose(ref, out, atol=t * (1 - 1e-6), rtol=t * (1 - 1e-6))


def test_chunking_gives_the_same_verdict():
    g = torch.Generator().manual_seed(3)
    ref = torch.rand(10_001, generator=g)
    out = ref * (1 + 1e-4 * torch.rand(10_001, generator=g))
    out[5000] = INF
    ref[7000] = out[7000] = -INF
    whole = compare.compare(ref, out, torch)
    assert compare.compare(ref, out, torch, chunk=333) == whole
    out[5000] = ref[5000]
    assert compare.compare(ref, out, torch, chunk=333) == compare.compare(ref, out, torch)
    assert compare.compare(ref, out, torch)["tau"] < 1e-3


def test_every_user_calls_the_one_implementation():
    # No module of kmut defines its own comparison; contract.tau_star only delegates.
    import ast
    from pathlib import Path

    defined: dict[str, set[str]] = {}
    for path in Path(compare.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef) and node.name in ("compare", "tau_star"):
                defined.setdefault(node.name, set()).add(path.name)
    assert defined == {"compare": {"compare.py"}, "tau_star": {"compare.py", "contract.py"}}
    assert _run_worker.compare is compare.compare
    both_inf = torch.tensor([INF, 1.0])
    assert contract.tau_star(both_inf, both_inf.clone()) == 0.0
    assert contract.tau_star(torch.tensor([NAN]), torch.tensor([NAN])) == math.inf
