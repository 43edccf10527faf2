"""`kmut run --backend cpu` with the real worker on the fault-demo fixture
(tests/fixtures/L1p19_fault_demo.py): the CPU counterpart of test_run_gpu.py. A hanging mutant is
killed by the watchdog, an out-of-bounds write hits a canary (and ends its worker), and every
live mutant gets a verdict. (Reads past a buffer are covered in test_run_worker.py: what such a
mutant outputs also depends on the recycled memory it leaves unwritten.)"""

from __future__ import annotations

import os
import sqlite3
import subprocess

from .conftest import ROOT

DEMO = str(ROOT / "tests" / "fixtures" / "L1p19_fault_demo.py")


def test_hang_out_of_bounds_read_and_write_on_the_cpu_backend(kmut_cmd, tmp_path):
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    cmd = [*kmut_cmd, "run", DEMO, "--backend", "cpu", "--store", str(store), "--cache", str(tmp_path / "cache"), "--cpu-workers", "2",
           "--rules", "arith-mul-to-div", "--rules", "boundary-*", "--rules", "index-*"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT m.rule, m.line, e.outcome, e.canary, e.tau, e.nonfinite, e.backend FROM evaluations e "
                          "JOIN mutants m ON m.id = e.mutant").fetchall()
        live = db.execute("SELECT count(*) FROM classes WHERE class = 'live'").fetchone()[0]
        evaluated = db.execute("SELECT count(DISTINCT mutant) FROM evaluations").fetchone()[0]
    by_rule: dict[tuple[str, int], list[tuple]] = {}
    for rule, line, *rest in rows:
        by_rule.setdefault((rule, line), []).append(tuple(rest))
    # The grid stride made a division: stride 0, an endless loop, killed by the watchdog.
    assert [r[0] for r in by_rule[("arith-mul-to-div", 18)]] == ["timeout"]
    # One more loop iteration writes one element past the output, which stays correct: a
    # survivor whose canary was hit.
    extra = by_rule[("boundary-loop-extra-iteration", 19)]
    assert all(r[0] == "completed" and r[1] and r[2] == 0.0 for r in extra), extra
    assert all(r[4].startswith("cpu:") for rs in by_rule.values() for r in rs)
    assert evaluated == live
    assert "workers replaced" in out.stderr


def test_a_substrate_too_slow_for_the_cpu_is_set_aside_then_remembered(kmut_cmd, tmp_path):
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    cmd = [*kmut_cmd, "run", DEMO, "--backend", "cpu", "--store", str(store), "--cache", str(tmp_path / "cache"), "--cpu-workers", "1",
           "--rules", "arith-*", "--heavy-limit", "0.000001"]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, check=False)
    # Set aside is not a failure: the run succeeds, says why, and evaluates nothing of it.
    assert first.returncode == 0, first.stderr[-3000:]
    assert "set aside: its original takes" in first.stderr and "run it on a GPU" in first.stderr
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM evaluations").fetchone()[0] == 0
        assert db.execute("SELECT count(*) FROM baselines WHERE target = 'cpu'").fetchone()[0] >= 1
    # The next run knows it from the stored baseline and prepares nothing.
    second = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, check=False)
    assert second.returncode == 0, second.stderr[-3000:]
    assert "an earlier CPU run measured its original" in second.stderr
    assert "run: 0 evaluations now" in second.stderr
