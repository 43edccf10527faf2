"""kmut.compare_fused: one launch gives kmut.compare's float64 figures bit for bit (the torch
expression in the `fp64` mode), on random and adversarial outputs. The kernel's source is compiled by the real NVRTC in CI
(`test_own_kernels.py`); its figures are checked on a GPU (`-m gpu`, on the device)."""

from __future__ import annotations

import math

import pytest
import torch

from kmut import compare, compare_fused

from .test_compare_fast import FIELDS, same_figures
from .test_steps_fast import ADVERSARIAL


def test_host_tensors_other_dtypes_and_the_switch_keep_the_torch_path(monkeypatch):
    x = torch.randn(10)
    assert not compare_fused.takes(x, x + 1, torch), "host tensors are measured by torch"
    monkeypatch.setenv("KMUT_COMPARE", "torch")
    assert not compare_fused.enabled()
    monkeypatch.delenv("KMUT_COMPARE")
    assert compare_fused.enabled()
    # On the host the comparison is the torch expression's whatever the switch says.
    calls = []
    monkeypatch.setattr(compare_fused, "figures", lambda *a: calls.append(1))
    compare.compare(x, x + 1, torch)
    assert calls == [], "the kernel is never asked for host tensors"


def fused_and_fp64(ref, out):
    """The kernel's figures and the torch float64 expression's, on the same device tensors."""
    assert compare_fused.takes(ref, out, torch)
    fused = compare_fused.figures(ref, out, torch)
    assert fused is not None, "the kernel loads on a GPU"
    assert compare.compare(ref, out, torch) == fused, "compare() takes the kernel on a GPU"
    compare.set_mode("fp64")
    try:
        slow = compare.compare(ref, out, torch)
    finally:
        compare.set_mode("fast")
    return fused, slow


@pytest.mark.gpu
@pytest.mark.parametrize(("ref", "out"), ADVERSARIAL)
def test_adversarial_outputs_give_the_float64_figures(ref, out):
    r = torch.tensor(ref, dtype=torch.float32, device="cuda")
    o = torch.tensor(out, dtype=torch.float32, device="cuda")
    same_figures(*fused_and_fp64(r, o))
    same_figures(*fused_and_fp64(o, r))


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(24))
def test_random_outputs_of_every_size_give_the_float64_figures(seed):
    g = torch.Generator().manual_seed(seed)
    # Sizes from one element to past MAX_BLOCKS full blocks (the grid-stride loop's second lap).
    n = [1, 7, 255, 2049, 70_001, 5_000_011][seed % 6]
    scale = 10.0 ** float(torch.randint(-30, 30, (1,), generator=g))
    ref = torch.randn(n, generator=g) * scale
    kind = seed % 4
    if kind == 0:
        out = ref * (1 + 1e-6 * torch.randn(n, generator=g))  # a survivor's noise
    elif kind == 1:
        out = ref + scale * 1e-3  # every element ties
    elif kind == 2:
        out = ref.clone()
        out[torch.randint(0, n, (max(1, n // 97),), generator=g)] = float("nan")
    else:
        out = ref.clone()  # bit-identical
    fused, slow = fused_and_fp64(ref.cuda(), out.cuda())
    same_figures(fused, slow)
    assert set(FIELDS) <= set(fused)


@pytest.mark.gpu
def test_an_empty_output_and_a_shape_mismatch():
    e = torch.empty(0, device="cuda")
    assert compare.compare(e, e, torch)["tau"] == 0.0
    bad = compare.compare(torch.ones(3, device="cuda"), torch.ones(4, device="cuda"), torch)
    assert not bad["shape_ok"] and math.isinf(bad["tau"])
