"""`kmut run --backend cpu` with the real worker on the fault-demo fixture
(tests/fixtures/L1p19_fault_demo.py): the CPU counterpart of test_run_gpu.py. A hanging mutant is
killed by the watchdog, an out-of-bounds write hits a canary (and ends its worker), and every
live mutant gets a verdict. (Reads past a buffer are covered in test_run_worker.py: what such a
mutant outputs also depends on the recycled memory it leaves unwritten.)"""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import time

from .conftest import ROOT, assert_deferral_agrees, cells_and_baselines, workers_of

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
        # The live mutants of the selected rules (every mutant is stored; launch mutants are
        # classified live without compiling, selected or not).
        live = db.execute("SELECT count(*) FROM classes c JOIN mutants m ON m.id = c.mutant WHERE c.class = 'live' AND "
                          "(m.rule = 'arith-mul-to-div' OR m.rule LIKE 'boundary-%' OR m.rule LIKE 'index-%')").fetchone()[0]
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
    # Each replacement took a spare (one is kept however few the workers), ready or still starting.
    m = re.search(r"run: (\d+) of the (\d+) workers replaced took a spare \(ready, or still starting\); the spare pool held up to (\d+)", out.stderr)
    assert m and int(m[1]) <= int(m[2]) and int(m[3]) >= 1, out.stderr[-2000:]


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


def test_a_kill_9_mid_hang_leaves_no_worker_and_the_resume_ends_as_an_uninterrupted_run(kmut_cmd, tmp_path):
    # The real CPU workers; one of them inside a hung kernel (the stride-0 mutant, given a
    # minute before its watchdog) when the orchestrator is killed with SIGKILL.
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    cache = tmp_path / "cache"

    def cmd(store, *extra):
        return [*kmut_cmd, "run", DEMO, "--backend", "cpu", "--store", str(store), "--cache", str(cache), "--cpu-workers", "2",
                "--rules", "arith-*", *extra]

    def cells(store):
        with sqlite3.connect(store, timeout=5) as db:
            return {(m, s, seed): (run, outcome, tau) for m, s, seed, run, outcome, tau in
                    db.execute("SELECT mutant, suite, seed, run, outcome, tau FROM evaluations")}

    whole = tmp_path / "whole.sqlite"
    out = subprocess.run(cmd(whole), capture_output=True, text=True, timeout=600, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    total = len(cells(whole))

    store = tmp_path / "killed.sqlite"
    proc = subprocess.Popen(cmd(store, "--min-timeout", "90"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.3)
        try:
            done = len(cells(store)) if store.exists() else 0
        except sqlite3.OperationalError:
            continue
        if done >= total - 1:  # everything but the hang, which holds its worker for 90 s
            break
    time.sleep(1.0)
    assert proc.poll() is None, "the run ended before it could be killed"
    assert workers_of(proc.pid, "kmut._run_worker"), "the run has workers"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    gone = time.time() + 10
    while workers_of(proc.pid, "kmut._run_worker") and time.time() < gone:
        time.sleep(0.1)
    assert not workers_of(proc.pid, "kmut._run_worker"), "a worker (the one in the hung kernel) outlived the orchestrator"
    before = cells(store)
    assert total - 1 <= len(before) < total, (len(before), total)

    resumed = subprocess.run(cmd(store), capture_output=True, text=True, timeout=600, env=env, check=False)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    after = cells(store)
    assert set(after) == set(cells(whole))
    assert all(after[c][0] == before[c][0] for c in before), "a cell stored before the kill was evaluated again"
    # Every cell has the verdict of the uninterrupted run (a killed mutant's exact tau* may differ:
    # what it reads past its buffers is whatever memory holds).
    def verdicts(c):
        return {k: (v[1], v[2] is None or not v[2] <= 1e-2) for k, v in c.items()}

    assert verdicts(after) == verdicts(cells(whole))


def cpu_kmut(kmut_cmd, tmp_path, command, store, *rules, rerun=False):
    """`kmut COMMAND` on the fault demo on the CPU backend into `store`, with the selected rules
    (and `--rerun-original`); its stderr."""
    cmd = [*kmut_cmd, command, DEMO, "--backend", "cpu", "--store", str(store), "--cache", str(tmp_path / "cache"), "--cpu-workers", "2",
           *[a for r in rules for a in ("--rules", r)], *(["--rerun-original"] if rerun else [])]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=dict(os.environ, KMUT_NO_PROGRESS="1"), check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stderr


def grown_twice(kmut_cmd, tmp_path, command, first_rules, more_rules):
    """`command` with `first_rules` into a store, copied; then `more_rules` on the store (reusing
    the stored figures of the original) and on the copy (`--rerun-original`). The two stores and
    the reusing run's stderr."""
    first, again = tmp_path / "first.sqlite", tmp_path / "again.sqlite"
    cpu_kmut(kmut_cmd, tmp_path, command, first, *first_rules)
    again.write_bytes(first.read_bytes())
    reused = cpu_kmut(kmut_cmd, tmp_path, command, first, *more_rules)
    assert "stored baseline" not in cpu_kmut(kmut_cmd, tmp_path, command, again, *more_rules, rerun=True)
    return first, again, reused


def test_a_column_the_store_measured_is_prepared_without_the_original_and_decides_the_same(kmut_cmd, tmp_path):
    """A second run on a store whose baselines hold the original's figures for the same image on
    this backend takes them instead of running the original (the workers log's `original_stored`
    phase); its mutants' verdicts are those of a run that ran the original again."""
    first, again, reused = grown_twice(kmut_cmd, tmp_path, "run", ["arith-plus-to-minus"], ["arith-plus-to-minus", "precision-*", "semantic-*"])
    assert "took the original's figures from a stored baseline" in reused, reused[-2000:]

    def phases(log):
        return [line for line in log.read_text().splitlines() if " prepared " in line]

    taken = phases(tmp_path / "first.sqlite.workers.log")
    assert any("original_stored" in line and "original_kernels" not in line for line in taken), taken
    assert not any("original_stored" in line for line in phases(tmp_path / "again.sqlite.workers.log"))

    def cells(store):
        with sqlite3.connect(store) as db:
            return (db.execute("SELECT mutant, suite, seed, outcome, crash, tau, max_abs, nonfinite, shape_ok FROM evaluations ORDER BY 1, 2, 3").fetchall(),
                    db.execute("SELECT substrate, suite, seed, sizes, tau, max_abs, image FROM baselines ORDER BY 1, 2, 3").fetchall())

    evaluations, baselines = cells(first)
    assert len(evaluations) > 4
    assert (evaluations, baselines) == cells(again)


def test_a_witness_search_over_measured_columns_keeps_their_validity_verdicts(kmut_cmd, tmp_path):
    """The same on a witness search's generated columns, whose stored figures include the
    validity gate's: the second search takes them on every column it prepares, and its baselines
    (validity verdicts and distances to float64 included) and cells are a --rerun-original run's."""
    first, again, reused = grown_twice(kmut_cmd, tmp_path, "witness", ["precision-*"], ["precision-*", "semantic-*"])
    m = re.search(r"run: (\d+) of (\d+) column preparations took the original's figures", reused)
    assert m and int(m[1]) == int(m[2]) > 0, reused[-2000:]

    def cells(store):
        with sqlite3.connect(store) as db:
            return (db.execute("SELECT suite, seed, tau, max_abs, valid, tau64_ref, tau64_orig FROM baselines ORDER BY 1, 2").fetchall(),
                    db.execute("SELECT mutant, suite, seed, outcome, crash, tau FROM evaluations ORDER BY 1, 2, 3").fetchall())

    baselines, evaluations = cells(first)
    assert sum(b[4] is not None for b in baselines) > 10, "generated columns with the validity gate's verdict"
    assert (baselines, evaluations) == cells(again)


def test_a_sibling_seed_defers_the_original_to_a_failing_evaluation_and_decides_the_same(kmut_cmd, tmp_path):
    """The fault demo with three seeds on its small suite: the first seed's column runs the
    original; the others defer it (the workers log's `original_deferred` phase) to their first
    evaluation that fails the comparison, and hold no baseline where none failed. Every cell, and
    every baseline taken, is that of a `--rerun-original` run, which measures every column. Under
    first kill the mutants that fail do so on the first seed, so no deferred run is made; with
    the full matrix they fail the other seeds too, and the deferred runs complete every baseline."""
    demo = tmp_path / "L1p19_fault_demo.py"
    source = (ROOT / "tests" / "fixtures" / "L1p19_fault_demo.py").read_text()
    assert source.count("seeds=[1], small=True") == 1
    demo.write_text(source.replace("seeds=[1], small=True", "seeds=[1, 3, 4], small=True"))
    # Rules whose CPU verdicts do not depend on memory a mutant leaves unwritten.
    rules = ("arith-plus-to-minus", "precision-*", "semantic-*")

    def run(store, *extra):
        cmd = [*kmut_cmd, "run", str(demo), "--backend", "cpu", "--store", str(store), "--cache", str(tmp_path / "cache"), "--cpu-workers", "2",
               *[a for r in rules for a in ("--rules", r)], *extra]
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=dict(os.environ, KMUT_NO_PROGRESS="1"), check=False)
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stderr

    for mode in ([], ["--full-matrix"]):
        deferring, measuring = tmp_path / f"d{len(mode)}.sqlite", tmp_path / f"m{len(mode)}.sqlite"
        said = run(deferring, *mode)
        m = re.search(r"run: (\d+) of (\d+) column preparations deferred the original's run .*; it ran later on (\d+) of them", said)
        assert m and int(m[1]) >= 2, (mode, said[-2000:])  # repeated where a lost worker's column is prepared again
        assert "deferred" not in run(measuring, "--rerun-original", *mode)
        log = deferring.with_name(deferring.name + ".workers.log").read_text().splitlines()
        assert any(" prepared " in line and "original_deferred" in line and "original_kernels" not in line for line in log)
        cells, taken = assert_deferral_agrees(deferring, measuring, 3, mode)
        # First kill: nothing fails past the first seed, so no deferred run and one baseline;
        # the full matrix: a failing mutant on each deferred column runs its original there.
        assert (int(m[3]), len(taken)) == ((2, 3) if mode else (0, 1)), (mode, m[0], taken)
    # An audit reads every column's original at each protocol's tolerance. Take the first-kill
    # store's one baseline away (as if a run had deferred that column too and never run it): the
    # audit takes no cell from the column, evaluates its witnessed mutants there again, and
    # measures the original first, to the same figures.
    with sqlite3.connect(tmp_path / "d0.sqlite") as db:
        db.execute("DELETE FROM baselines")
    cmd = [*kmut_cmd, "audit", "official", "--substrate", str(demo), "--backend", "cpu", "--store", str(tmp_path / "d0.sqlite"),
           "--cache", str(tmp_path / "cache"), "--cpu-workers", "2", *[a for r in rules for a in ("--rules", r)]]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=dict(os.environ, KMUT_NO_PROGRESS="1"), check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    cells, taken = cells_and_baselines(tmp_path / "d0.sqlite")
    same_cells, every = cells_and_baselines(tmp_path / "m0.sqlite")
    first = [c for c in every if c[1] == 1]
    assert list(taken) == first and taken[first[0]] == every[first[0]], (taken, every)
    assert cells == same_cells
