"""kmut.steps_fused: the one-launch step statistics give the float64 figures of the torch
expression (`kmut.steps._stats_fp64`) for every step of an evaluation. The kernel's source is compiled by the real NVRTC in CI
(`test_own_kernels.py`); its figures are checked on a GPU (`-m gpu`, on the device)."""

from __future__ import annotations

import math

import pytest
import torch

from kmut import steps, steps_fused

from .test_steps_fast import ADVERSARIAL, same_figures

ATOL = RTOL = 1e-2


def test_host_tensors_and_the_switch_keep_the_torch_path(monkeypatch):
    x = torch.randn(10)
    assert not steps_fused.takes(x, x + 1, torch), "host tensors are measured by torch"
    monkeypatch.setenv("KMUT_STEP_STATS", "torch")
    assert not steps_fused.enabled()
    monkeypatch.delenv("KMUT_STEP_STATS")
    assert steps_fused.enabled()


def torch_rows(pairs, atol=ATOL, rtol=RTOL):
    rows = torch.stack([steps._stats(o, m, atol, rtol, torch) for o, m in pairs]).cpu().tolist()
    return [[t, math.inf if math.isnan(r) else r, f] for t, r, f in rows]


def same(fused, slow):
    assert len(fused) == len(slow)
    for a, b in zip(fused, slow):
        same_figures(a, b, rel=1e-12)


@pytest.mark.gpu
def test_every_step_of_a_pipeline_matches_the_torch_figures():
    g = torch.Generator().manual_seed(7)
    pairs = []
    for k, n in enumerate([1, 31, 256, 2049, 70_001, 1 << 21, 5, 333]):
        orig = torch.randn(n, generator=g) * 10.0 ** (k - 3)
        if k % 3 == 0:
            out = orig.clone()  # a step the fault has not reached
        elif k % 3 == 1:
            out = orig * (1 + 1e-2 * torch.randn(n, generator=g))  # near the tolerance
        else:
            out = orig.clone()
            out[torch.randint(0, n, (max(1, n // 50),), generator=g)] = float("nan")
        pairs.append((orig.cuda(), out.cuda()))
    for orig, out in ADVERSARIAL:
        pairs.append((torch.tensor(orig).cuda(), torch.tensor(out).cuda()))
    same(steps.step_errors([o for o, _ in pairs], [m for _, m in pairs], ATOL, RTOL, torch), torch_rows(pairs))
    assert steps_fused.launcher(0, torch) is not None, "the kernel measured them, not the fallback"


@pytest.mark.gpu
def test_steps_the_kernel_does_not_take_are_measured_beside_it():
    x = torch.randn(4, 6, device="cuda")
    pairs = [
        (x, x * 1.01),
        (x.half(), (x * 1.5).half()),  # another dtype
        (x, x.reshape(6, 4)),  # another shape: infinite
        (x.t(), (x * 2).t()),  # not contiguous
        (x, x.clone()),
    ]
    rows = steps.step_errors([o for o, _ in pairs], [m for _, m in pairs], ATOL, RTOL, torch)
    assert rows[2] == [math.inf, math.inf, 1.0]
    assert rows[4] == [0.0, 0.0, 0.0]
    same(rows[:2] + rows[3:4], torch_rows([pairs[0], pairs[1], pairs[3]]))


@pytest.mark.gpu
def test_more_steps_than_one_launch_takes(monkeypatch):
    monkeypatch.setattr(steps_fused, "MAX_STEPS_PER_LAUNCH", 3)
    pairs = [(torch.full((100,), float(i), device="cuda"), torch.full((100,), float(i) + 0.5 * (i % 2), device="cuda")) for i in range(8)]
    same(steps.step_errors([o for o, _ in pairs], [m for _, m in pairs], ATOL, RTOL, torch), torch_rows(pairs))


@pytest.mark.gpu
def test_originals_kept_on_the_host_are_measured_on_the_device_in_groups(monkeypatch):
    """A column whose original step outputs did not fit the device's share keeps them on the
    host; each evaluation brings them to the device a group at a time: the same rows as with
    everything on the device, whatever the group size."""
    g = torch.Generator().manual_seed(11)
    origs = [torch.randn(n, generator=g) for n in (17, 4096, 100_000, 3, 65_536)]
    outs = [(o * (1 + 1e-2 * torch.randn(o.numel(), generator=g))).cuda() if i % 2 else o.clone().cuda() for i, o in enumerate(origs)]
    on_device = steps.step_errors([o.cuda() for o in origs], outs, ATOL, RTOL, torch)
    for limit in (1, 20_000, 1 << 30):
        monkeypatch.setattr(steps, "HOST_GROUP_BYTES", limit)
        same(steps.step_errors(origs, outs, ATOL, RTOL, torch), on_device)
