"""kmut.fastrand: torch.rand's values and torch's generator state, to the bit, against torch
itself (the run worker draws official inputs through it)."""

from __future__ import annotations

import os

import pytest
import torch

from kmut import fastrand


def state() -> bytes:
    return bytes(torch.default_generator.get_state().numpy())


@pytest.mark.parametrize("seed", [42, 734796314, 2**32 + 5, 1])
@pytest.mark.parametrize("before", [0, 1, 623, 624, 1000])
def test_rand_gives_torchs_values_and_leaves_its_state(seed, before, monkeypatch):
    monkeypatch.setattr(fastrand, "MIN_ELEMENTS", 1)
    shapes = [(3, 1000), (624,), (2, 624 * 5 + 7), (1,), (0, 4)]
    torch.manual_seed(seed)
    torch.rand(before)
    want = [torch.rand(*s) for s in shapes]
    want_state = state()
    want_next = (torch.randn(17), torch.randint(0, 100, (9,)), torch.rand(5))
    torch.manual_seed(seed)
    torch.rand(before)
    got = [fastrand.rand(torch, *s) for s in shapes]
    assert state() == want_state, "the generator is left where torch leaves it"
    got_next = (torch.randn(17), torch.randint(0, 100, (9,)), torch.rand(5))
    for a, b in zip(want + list(want_next), got + list(got_next)):
        assert a.dtype == b.dtype and a.shape == b.shape and torch.equal(a, b)


def test_a_large_draw_on_several_threads_equals_torchs():
    n = (1 << 21) + 12345
    torch.manual_seed(9)
    want = torch.rand(n)
    torch.manual_seed(9)
    got = fastrand.rand(torch, n)
    assert torch.equal(want, got)


def test_a_draw_whose_threads_jump_to_their_own_blocks_equals_torchs_from_mid_stream():
    # Threshold 1: every thread starts at its own block, from a state 1,000 words into a block
    # (the head is drawn first, then the jumps count from there), and the state left is torch's.
    n = (1 << 21) + 12345
    torch.manual_seed(11)
    torch.rand(1000)
    want, want_next = torch.rand(n), torch.rand(7)
    torch.manual_seed(11)
    torch.rand(1000)
    got = fastrand.fill(torch, (n,), jump_min_blocks=1)
    assert torch.equal(want, got) and torch.equal(want_next, torch.rand(7))


def test_kmut_draw_twist_keeps_the_twist_on_one_thread_with_the_same_values(monkeypatch):
    # The run worker's --draw-twist (`kmut bench run --baseline twist`) sets KMUT_DRAW=twist.
    from kmut import _native

    seen = []
    native = _native.torch_uniform_f32
    monkeypatch.setattr(_native, "torch_uniform_f32", lambda *a: seen.append(a[4:]) or native(*a))
    n = (1 << 21) + 7
    for mode, threshold in (("twist", (fastrand.TWIST_ONLY,)), (None, ())):
        if mode:
            monkeypatch.setenv("KMUT_DRAW", mode)
        else:
            monkeypatch.delenv("KMUT_DRAW", raising=False)
        torch.manual_seed(3)
        want = torch.rand(n)
        torch.manual_seed(3)
        assert torch.equal(fastrand.rand(torch, n), want)
        assert seen.pop() == threshold


def test_every_other_call_is_torchs_own(monkeypatch):
    monkeypatch.setattr(fastrand, "MIN_ELEMENTS", 1)
    for make in (lambda: {"dtype": torch.float64}, lambda: {"requires_grad": True}, lambda: {"generator": torch.Generator().manual_seed(3)}):
        torch.manual_seed(5)
        want = torch.rand(4, 4, **make())
        torch.manual_seed(5)
        got = fastrand.rand(torch, 4, 4, **make())
        assert got.dtype == want.dtype and torch.equal(got.detach(), want.detach()), make()
        assert got.requires_grad == want.requires_grad
    monkeypatch.setenv("KMUT_DRAW", "torch")
    torch.manual_seed(5)
    assert torch.equal(fastrand.rand(torch, 8), (torch.manual_seed(5), torch.rand(8))[1])


def test_a_generator_sees_torch_but_for_rand():
    d = fastrand.Drawing(torch)
    assert d.float32 is torch.float32 and d.randn is torch.randn and d.Tensor is torch.Tensor
    torch.manual_seed(1)
    a = d.rand(2, 3)
    torch.manual_seed(1)
    assert torch.equal(a, torch.rand(2, 3))


def test_every_accepted_substrates_suites_draw_the_same_through_the_workers_torch(monkeypatch):
    """The run worker hands each input generator `fastrand.Drawing(torch)`: every suite of every
    accepted substrate (at its small sizes: its official ones hold up to 2^31 elements) draws
    the same tensors through it as through torch, and leaves the generator in the same state."""
    from kmut import loader
    from kmut.contract import draw_inputs

    from .conftest import ACCEPTED

    monkeypatch.setattr(fastrand, "MIN_ELEMENTS", 1)
    drawn = 0
    for path in ACCEPTED:
        fields, K, _ = loader.load(path, torch)
        small = next(s for s in fields["suites"] if s.small)
        sizes = K.sizes_for(fields["dims"], small)
        for suite in fields["suites"]:
            if suite.on_device:
                continue
            mine = {**sizes, **suite.sizes} if not suite.small else sizes
            want = draw_inputs(suite, 7, mine, torch)
            after = state()
            got = draw_inputs(suite, 7, mine, fastrand.Drawing(torch))
            assert state() == after, f"{path.stem} {suite.name}: the generator state"
            assert len(want) == len(got), f"{path.stem} {suite.name}"
            for a, b in zip(want, got):
                if isinstance(a, torch.Tensor):
                    assert a.dtype == b.dtype and torch.equal(a, b), f"{path.stem} {suite.name}"
                else:
                    assert a == b, f"{path.stem} {suite.name}"
            drawn += 1
    assert drawn >= len(ACCEPTED)


def test_kmut_bench_draw_reports_both_draws_and_that_they_agree():
    import json
    import subprocess

    from .conftest import kmut_command

    out = subprocess.run([*kmut_command(), "bench", "draw", "--elements", str(1 << 21), "--repeat", "1", "--json"],
                         capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stderr
    r = json.loads(out.stdout)
    assert r["same_values"] is True and r["elements"] == 1 << 21 and r["threads"] >= 1
    assert r["torch_ms"] > 0 and r["kmut_ms"] > 0 and r["speedup"] > 0
    assert r["twist_one_thread_ms"] > 0 and r["jump_speedup"] > 0


def test_the_run_worker_s_draw_twist_flag_sets_the_draw_mode_and_leaves_torch_s_alone(monkeypatch):
    import argparse

    from kmut._run_worker import add_throughput_options, apply_throughput_options

    parser = argparse.ArgumentParser()
    add_throughput_options(parser)
    monkeypatch.delenv("KMUT_DRAW", raising=False)
    apply_throughput_options(parser.parse_args(["--draw-twist"]))
    assert os.environ["KMUT_DRAW"] == "twist"
    monkeypatch.setenv("KMUT_DRAW", "torch")  # torch's own draw stays torch's own
    apply_throughput_options(parser.parse_args(["--draw-twist"]))
    assert os.environ["KMUT_DRAW"] == "torch"
    monkeypatch.delenv("KMUT_DRAW")
    apply_throughput_options(parser.parse_args([]))
    assert "KMUT_DRAW" not in os.environ
