"""`kmut run` on a GPU with the real worker: a hanging mutant, an out-of-bounds writer, and the
official protocol's verdicts, on the fault-demo fixture (tests/fixtures/L1p19_fault_demo.py)."""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess

import pytest

from .conftest import ROOT, assert_deferral_agrees, cells_and_baselines

DEMO = str(ROOT / "tests" / "fixtures" / "L1p19_fault_demo.py")


@pytest.mark.gpu
def test_hang_out_of_bounds_and_crash_are_recorded_and_the_run_goes_on(kmut_cmd, tmp_path):
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    cmd = [*kmut_cmd, "run", DEMO, "--store", str(store), "--cache", str(tmp_path / "cache"), "--workers-per-gpu", "2",
           "--rules", "arith-mul-to-div", "--rules", "boundary-*", "--rules", "index-*"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=580, env=env, check=False)
    print(out.stdout, out.stderr[-3000:])
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(store) as db:
        rows = db.execute(
            "SELECT m.rule, m.line, e.seed, e.outcome, e.crash, e.canary, e.tau FROM evaluations e JOIN mutants m ON m.id = e.mutant"
        ).fetchall()
        # The live mutants of the selected rules (launch mutants are classified live without
        # compiling, selected or not).
        live = db.execute("SELECT count(*) FROM classes c JOIN mutants m ON m.id = c.mutant WHERE c.class = 'live' AND "
                          "(m.rule = 'arith-mul-to-div' OR m.rule LIKE 'boundary-%' OR m.rule LIKE 'index-%')").fetchone()[0]
        evaluated = db.execute("SELECT count(DISTINCT mutant) FROM evaluations").fetchone()[0]
    by_rule = {}
    for rule, line, *rest in rows:
        by_rule.setdefault((rule, line), []).append(rest)
    # The stride `blockDim.x * gridDim.x` made a division: stride 0, an endless loop.
    stride = by_rule[("arith-mul-to-div", 18)]
    assert [r[1] for r in stride] == ["timeout"], stride
    # `i < n` made `i <= n` (or its duplicate `i < n + 1`): one element written past the output,
    # which stays correct.
    guard = [r for (rule, line), rs in by_rule.items() if rule.startswith("boundary-") and line == 19 for r in rs]
    assert any(r[3] for r in guard), f"no canary hit: {guard}"
    # Every live mutant got a verdict, and the worker replacements did not lose any.
    assert evaluated == live
    assert "workers replaced" in out.stderr


@pytest.mark.gpu
def test_the_input_limit_on_a_gpu_is_a_third_of_the_smaller_memory_and_refuses_l1p40_s_largest_boundary():
    """The guard against columns too large for the machine (`Worker.refuse_oversized`) on the
    device: the official inputs of L1p40 pass it, its `batch=2049` boundary size (32 GiB of input,
    killed on an H100 host on 2026-12-06) does not."""
    import torch
    from kmut import generators, loader
    from kmut._run_worker import Worker
    from kmut.machine import TooLarge

    w = Worker.__new__(Worker)
    # `planned`: the per-sizes cache `refuse_oversized` reads (2c826be); without it this test fails
    # with an AttributeError, and the campaign script then lifts the input limit for the whole call.
    w.torch, w.cpu, w.device, w.planned = torch, False, torch.device("cuda:0"), {}
    limit = w.input_limit()
    assert 0 < limit <= torch.cuda.get_device_properties(0).total_memory // 3
    fields, K, _ = loader.load(ROOT / "substrates" / "accepted" / "L1p40_layernorm.py", torch)
    official = K.sizes_for(fields["dims"], next(s for s in fields["suites"] if s.name == "T0_original"))
    w.refuse_oversized(fields, "W:dense:1:official", official)
    # A batch whose input is just over the limit (the host's share moves with what it holds).
    per_row = generators.planned_bytes(fields, {**official, "batch": 1}, torch)
    over = {**official, "batch": limit // per_row + 2}
    with pytest.raises(TooLarge):
        w.refuse_oversized(fields, f"W:boundary:1:batch={over['batch']}", over)


@pytest.mark.gpu
def test_each_prepared_column_says_what_it_holds_beside_its_preparation_s_peak(kmut_cmd, tmp_path):
    """The worker gives the preparation's transient memory back before the original's run and
    reports what an evaluation holds (`held_bytes`), never more than the preparation's peak; the
    workers log says both for each column."""

    store = tmp_path / "s.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    cmd = [*kmut_cmd, "run", DEMO, "--store", str(store), "--cache", str(tmp_path / "cache"), "--workers-per-gpu", "1",
           "--rules", "arith-mul-to-div"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    log = (tmp_path / "s.sqlite.workers.log").read_text()
    found = [(float(h), float(p)) for h, p in re.findall(r"prepared .*; held ([\d.]+) MiB of a ([\d.]+) MiB peak", log)]
    assert found, log[-3000:]
    assert all(0 < held <= peak for held, peak in found), found


@pytest.mark.gpu
def test_a_column_the_store_measured_is_prepared_without_the_original_on_a_gpu(kmut_cmd, tmp_path):
    """test_run_cpu_faults.py's test of the same name, on the GPU: a second run takes the stored
    figures of the same original image on this device instead of running the original, and its
    verdicts are those of a run that ran it again (`--rerun-original`)."""
    env = dict(os.environ, KMUT_NO_PROGRESS="1")

    def run(store, *rules, rerun=False):
        cmd = [*kmut_cmd, "run", DEMO, "--store", str(store), "--cache", str(tmp_path / "cache"), "--workers-per-gpu", "2",
               *[a for r in rules for a in ("--rules", r)], *(["--rerun-original"] if rerun else [])]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=280, env=env, check=False)
        print(out.stderr[-1500:])
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stderr

    first, again = tmp_path / "first.sqlite", tmp_path / "again.sqlite"
    # Every column this run prepares is measured (no deferred original); under first kill it may
    # leave a trial unprepared, which the second run then defers (2026-12-07, on an H100: four).
    run(first, "arith-plus-to-minus", rerun=True)
    measured = cells_and_baselines(first)[1]
    again.write_bytes(first.read_bytes())
    more = ("arith-plus-to-minus", "precision-*", "semantic-*")
    assert "took the original's figures from a stored baseline" in run(first, *more)
    assert "stored baseline" not in run(again, *more, rerun=True)
    lines = [line for line in (tmp_path / "first.sqlite.workers.log").read_text().splitlines() if " prepared " in line]
    assert any("original_stored" in line and "original_kernels" not in line for line in lines), lines

    # The same cells as the run that measured every column; a column the first store still has
    # no baseline for was deferred and saw no failing evaluation.
    _, taken = assert_deferral_agrees(first, again, 5, "stored, then deferred")
    assert measured and set(measured) <= set(taken), (measured, taken)


@pytest.mark.gpu
def test_a_sibling_seed_defers_the_original_on_a_gpu(kmut_cmd, tmp_path):
    """test_run_cpu_faults.py's deferral test on the GPU, on the official protocol's five trials
    of one suite: the first trial's column runs the original, the others wait for a failing
    evaluation. Under first kill and with the full matrix, every cell, and every baseline taken,
    is a `--rerun-original` run's; a column left without a baseline had no failing evaluation."""
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    rules = ("arith-plus-to-minus", "precision-*", "semantic-*")

    def run(store, *extra):
        cmd = [*kmut_cmd, "run", DEMO, "--store", str(store), "--cache", str(tmp_path / "cache"), "--workers-per-gpu", "2",
               *[a for r in rules for a in ("--rules", r)], *extra]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=280, env=env, check=False)
        print(out.stderr[-1500:])
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stderr

    for mode in ([], ["--full-matrix"]):
        deferring, measuring = tmp_path / f"d{len(mode)}.sqlite", tmp_path / f"m{len(mode)}.sqlite"
        said = run(deferring, *mode)
        assert re.search(r"run: [1-9]\d* of \d+ column preparations deferred the original's run", said), said[-2000:]
        run(measuring, "--rerun-original", *mode)
        assert_deferral_agrees(deferring, measuring, 5, mode)


@pytest.mark.gpu
def test_buffers_allocated_between_canaries_decide_as_moved_ones_on_a_gpu(kmut_cmd, tmp_path):
    """`kmut.guards.GuardedTorch` on a GPU (KMUT_BUFFERS=allocate): `launch` gets its buffers
    already between canaries. Its cells are those of a run that moves each buffer there after
    `launch` returns (KMUT_BUFFERS=relocate, the default): the value faults' cells to the bit, and
    the off-by-one bounds' outcomes, crashes and canary hits (a write one past the end lands in
    the canaries in both layouts; a bound that stops short leaves an element holding the canary
    byte in one and recycled bytes in the other, so its tau is not compared). A wild index may
    land in whatever memory lies near in either, so it is left out."""
    rules = ("arith-plus-to-minus", "precision-*", "boundary-*")

    def run(store, **extra):
        cmd = [*kmut_cmd, "run", DEMO, "--store", str(store), "--cache", str(tmp_path / "cache"), "--workers-per-gpu", "2",
               "--full-matrix", *[a for r in rules for a in ("--rules", r)]]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=280, env=dict(os.environ, KMUT_NO_PROGRESS="1", **extra), check=False)
        print(out.stderr[-1500:])
        assert out.returncode == 0, out.stderr[-3000:]
        with sqlite3.connect(store) as db:
            return db.execute("SELECT m.rule LIKE 'boundary-%', e.mutant, e.suite, e.seed, e.outcome, e.crash, e.canary, e.tau, e.max_abs, "
                              "e.nonfinite, e.shape_ok FROM evaluations e JOIN mutants m ON m.id = e.mutant ORDER BY 2, 3, 4").fetchall()

    allocated, moved = run(tmp_path / "allocated.sqlite", KMUT_BUFFERS="allocate"), run(tmp_path / "moved.sqlite", KMUT_BUFFERS="relocate")
    assert len(allocated) > 10 and [r[:7] for r in allocated] == [r[:7] for r in moved]
    assert [r for r in allocated if not r[0]] == [r for r in moved if not r[0]], "value faults: every figure the same"
    assert any(r[6] for r in allocated), "an off-by-one write reached a canary"
