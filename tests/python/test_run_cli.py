"""`kmut run` and `kmut score` end to end on the CPU: the real compile stage, store and
orchestrator, with the scripted worker standing in for the GPU (`crates/kmut-exec/tests/
scripted_worker.py`); a kill -9 of the orchestrator and a resume."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import ROOT, cuda_available, workers_of

DEMO = str(ROOT / "tests" / "fixtures" / "L1p19_fault_demo.py")
SCRIPTED = str(ROOT / "crates" / "kmut-exec" / "tests" / "scripted_worker.py")


def run_cmd(kmut_cmd, store, *extra, delay="0", linger="0"):
    return [*kmut_cmd, "run", DEMO, "--store", str(store), "--gpus", "0", "--suites", "all", "--full-matrix",
            *extra, "--worker", sys.executable, SCRIPTED, "--delay", delay, "--linger", linger]


def score(kmut_cmd, store, *extra):
    out = subprocess.run([*kmut_cmd, "score", "--store", str(store), "--json", *extra], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def count(store, sql="SELECT count(*) FROM evaluations"):
    with sqlite3.connect(store, timeout=5) as db:
        return db.execute(sql).fetchone()[0]


def test_run_fills_the_matrix_and_score_reads_it(kmut_cmd, tmp_path):
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    out = subprocess.run(run_cmd(kmut_cmd, store), capture_output=True, text=True, timeout=600, env=env, check=False)
    assert out.returncode == 0, out.stderr
    assert "protocol official (KernelBench v0.1)" in out.stdout
    s = score(kmut_cmd, store, "--suites", "all")
    live = s["classes"]["live"]
    columns = 5 + 1 + 1  # T0_original's five seeds, T1_small's one, T2_exact_pass's one
    assert live > 0 and count(store) == live * columns
    assert s["overall"]["evaluated"] == live and not s["sampled"]
    # The scripted worker lets every real mutant id survive.
    assert s["overall"]["survived"] == live and s["overall"]["miss"]["rate"] == 1.0
    head = score(kmut_cmd, store, "--protocol", "head")
    assert head["tolerance"] == 1e-4 and head["protocol"] == "head"


def test_a_sample_is_stratified_and_scored_with_intervals(kmut_cmd, tmp_path):
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    out = subprocess.run(run_cmd(kmut_cmd, store, "--sample", "10", "--seed", "3"), capture_output=True, text=True, timeout=600, env=env, check=False)
    assert out.returncode == 0, out.stderr
    s = score(kmut_cmd, store)
    assert s["sampled"] and s["overall"]["evaluated"] == 10
    miss = s["overall"]["miss"]
    assert not miss["exact"] and miss["low"] < 1.0 and miss["high"] == 1.0
    families = {g["name"] for g in s["by_family"] if g["evaluated"]}
    assert len(families) >= 3, f"a stratified sample spans families: {families}"
    # Beside the corpus estimate, the settled sample's own unweighted rate.
    o = s["overall"]
    assert o["sample"]["settled"] == o["evaluated"] and abs(o["sample"]["rate"] - o["survived"] / o["evaluated"]) < 1e-12, o["sample"]
    assert o["sample"]["low"] <= o["sample"]["rate"] <= o["sample"]["high"]


def cells(store):
    with sqlite3.connect(store, timeout=5) as db:
        return {(m, s, seed): run for m, s, seed, run in db.execute("SELECT mutant, suite, seed, run FROM evaluations")}


def test_a_kill_9_of_the_orchestrator_ends_its_workers_and_a_resume_runs_nothing_twice(kmut_cmd, tmp_path):
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    whole = tmp_path / "whole.sqlite"
    assert subprocess.run(run_cmd(kmut_cmd, whole), capture_output=True, text=True, timeout=600, env=env).returncode == 0
    total = count(whole)

    store = tmp_path / "killed.sqlite"
    # Workers that linger after their stdin closes, as one inside a hung kernel would.
    proc = subprocess.Popen(run_cmd(kmut_cmd, store, delay="0.05", linger="120"), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.time() + 300
    stored = 0
    while time.time() < deadline and proc.poll() is None and stored < 20:
        time.sleep(0.2)
        if store.exists():
            try:
                stored = count(store)
            except sqlite3.OperationalError:
                continue
    assert workers_of(proc.pid, SCRIPTED), "the run has workers while it runs"
    # kill -9 of the orchestrator alone: its workers are in process groups of their own, and
    # nothing of kmut runs after SIGKILL; the kernel must end them (PR_SET_PDEATHSIG).
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    gone = time.time() + 10
    while workers_of(proc.pid, SCRIPTED) and time.time() < gone:
        time.sleep(0.1)
    assert not workers_of(proc.pid, SCRIPTED), "a worker outlived the orchestrator"
    before = cells(store)
    assert 20 <= len(before) < total, f"the run was not caught midway ({len(before)} of {total})"
    assert Path(f"/dev/shm/kmut-run-{proc.pid}").exists() or not Path("/dev/shm").is_dir()

    resumed = subprocess.run(run_cmd(kmut_cmd, store), capture_output=True, text=True, timeout=600, env=env, check=False)
    assert resumed.returncode == 0, resumed.stderr
    assert "reused from the store" in resumed.stderr
    if Path("/dev/shm").is_dir():
        assert f"removed `/dev/shm/kmut-run-{proc.pid}`" in resumed.stderr and not Path(f"/dev/shm/kmut-run-{proc.pid}").exists()
    after = cells(store)
    assert len(after) == total
    # Nothing stored before the kill was evaluated again: every such cell keeps its first run.
    rerun = [c for c, run in before.items() if after[c] != run]
    assert not rerun, f"evaluated twice: {rerun[:5]}"
    a, b = score(kmut_cmd, whole, "--suites", "all"), score(kmut_cmd, store, "--suites", "all")
    for key in ("killed", "survived", "timeouts", "crashes", "undecided", "not_run"):
        assert a["overall"][key] == b["overall"][key], key


def test_run_without_a_gpu_says_so(kmut_cmd, tmp_path):
    if cuda_available():
        pytest.skip("needs a machine without a GPU")
    out = subprocess.run([*kmut_cmd, "run", DEMO, "--store", str(tmp_path / "s.sqlite")], capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 2, out.stderr
    assert "no GPU is visible" in out.stderr or "the CUDA driver shows no GPU" in out.stderr, out.stderr
    assert "--backend cpu" in out.stderr, "it says what to do instead"


def test_score_without_a_store_names_the_path(kmut_cmd, tmp_path):
    out = subprocess.run([*kmut_cmd, "score", "--store", str(tmp_path / "none.sqlite")], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode != 0 and "none.sqlite" in out.stderr


def test_a_store_compiled_elsewhere_runs_with_an_empty_cache(kmut_cmd, tmp_path):
    # As on a GPU host given a store compiled here: the run compiles, through the pool of NVRTC
    # workers, the images its sample needs and the cache lacks, then runs them.
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    compiled = subprocess.run([*kmut_cmd, "compile", DEMO, "--store", str(store), "--cache", str(tmp_path / "here"), "--threads", "2"],
                              capture_output=True, text=True, timeout=600, env=env)
    assert compiled.returncode == 0, compiled.stderr
    out = subprocess.run(run_cmd(kmut_cmd, store, "--cache", str(tmp_path / "there"), "--threads", "2", "--sample", "12"),
                         capture_output=True, text=True, timeout=600, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "images missing from the cache" in out.stderr, out.stderr[-3000:]
    assert count(store) > 0
