"""The whole pipeline on the CPU backend, end to end through the real `kmut` command: the gate's
CPU pre-check, then mutate, compile (NVRTC), run (g++ variants, CPU workers) and score, on five
accepted substrates of all three levels, one of them a level-3 pipeline of several kernels.
Nothing is mocked: real g++, NVRTC, torch, SQLite. The totals asserted here follow from the
stratified sample and the full matrix, so a lost or repeated evaluation, a wrong column set or a
miscounted racy-on-CPU mutant fails the test.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess

import pytest

from .conftest import ROOT, kmut_command

ACCEPTED = ROOT / "substrates" / "accepted"
# Cheap on the CPU (each original's small suite runs in well under a second here), and together
# every level: level 1 elementwise, reduction with barriers (softmax) and pooling; a level-2
# chain; the level-3 SqueezeNet Fire module (squeeze, then two expand kernels into one output).
SUBSTRATES = ["L1p19_relu", "L1p23_softmax", "L1p42_maxpool2d", "L2p71_conv2d_div_leakyrelu", "L3p17_squeezenet_fire"]
SAMPLE = 120
SMALL_COLUMNS = 2  # every one of these has one small suite with seeds [1, 2]


def paths() -> list[str]:
    return [str(ACCEPTED / f"{n}.py") for n in SUBSTRATES]


def kmut(kmut_cmd, *args, timeout=1500):
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    return subprocess.run([*kmut_cmd, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False)


@pytest.fixture(scope="module")
def pipeline(tmp_path_factory):
    """One CPU run of the sample, full matrix, in a fresh store and caches."""
    kmut_cmd = kmut_command()
    base = tmp_path_factory.mktemp("cpu-pipeline")
    store = base / "kmut.sqlite"
    out = kmut(kmut_cmd, "run", *paths(), "--backend", "cpu", "--sample", str(SAMPLE), "--seed", "0", "--full-matrix",
               "--store", str(store), "--cache", str(base / "cache"), "--cpu-workers", "2")
    return store, base, out


def rows(store, sql, *args):
    with sqlite3.connect(store, timeout=5) as db:
        return db.execute(sql, args).fetchall()


def score_json(kmut_cmd, store, *extra):
    out = kmut(kmut_cmd, "score", "--store", str(store), "--json", *extra, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_the_gate_precheck_passes_every_substrate_on_the_cpu(kmut_cmd):
    out = kmut(kmut_cmd, "gate", "--backend", "cpu", "-j", "2", *paths())
    assert out.returncode == 0, out.stdout + out.stderr
    table = [line for line in out.stdout.splitlines() if line.split() and line.split()[0] in SUBSTRATES and "[" not in line]
    assert len(table) == len(SUBSTRATES), out.stdout
    assert all(line.rstrip().endswith("PRECHECK OK") for line in table), out.stdout


def test_the_run_evaluates_the_whole_sample_on_every_small_input(kmut_cmd, pipeline):
    store, _, out = pipeline
    assert out.returncode == 0, out.stderr[-4000:]
    assert "on the CPU backend" in out.stderr and "built" in out.stderr
    run_set = rows(store, "SELECT DISTINCT mutant FROM evaluations")
    # Equivalent-on-CPU (fast-math) mutants of the sample are not run; nothing else is left out.
    assert 0 < len(run_set) <= SAMPLE
    assert rows(store, "SELECT count(*) FROM evaluations")[0][0] == len(run_set) * SMALL_COLUMNS
    assert rows(store, "SELECT DISTINCT target FROM evaluations") == [("cpu",)]
    assert all(b.startswith("cpu:") for (b,) in rows(store, "SELECT DISTINCT backend FROM evaluations"))
    assert rows(store, "SELECT count(*) FROM baselines WHERE target = 'cpu'")[0][0] == len(SUBSTRATES) * SMALL_COLUMNS
    # Every original passes its own small suite on the CPU.
    assert rows(store, "SELECT count(*) FROM baselines WHERE tau > 1e-4")[0][0] == 0


def test_the_score_adds_up_and_sets_racy_mutants_apart(kmut_cmd, pipeline):
    store, _, _ = pipeline
    s = score_json(kmut_cmd, store)
    assert s["backend"] == "cpu" and s["inputs"] == "small"
    run_count = len(rows(store, "SELECT DISTINCT mutant FROM evaluations"))
    racy = s["racy_on_cpu"]
    # Every mutant run is settled or a timeout (timeouts are their own column, outside the rates).
    assert s["overall"]["evaluated"] + s["overall"]["timeouts"] + racy["evaluated"] + racy["timeouts"] == run_count
    for g in (s["overall"], racy):
        assert g["killed"] + g["survived"] == g["evaluated"]
        assert g["undecided"] == 0, "a full-matrix run leaves nothing undecided"
    assert sum(f["evaluated"] for f in s["by_family"]) == s["overall"]["evaluated"]
    assert sum(g["evaluated"] for g in s["by_substrate"]) == s["overall"]["evaluated"]
    assert not any(f["name"] == "synchronization" for f in s["by_family"]), "racy-on-CPU mutants stay out of the GPU-comparable tables"
    # Racy-on-CPU mutants ran in thread orders 0, 1 and 2, and only they did.
    with sqlite3.connect(store) as db:
        ordered = db.execute("SELECT e.orders, m.family, m.rule FROM evaluations e JOIN mutants m ON m.id = e.mutant WHERE e.outcome = 'completed'").fetchall()
    for orders, family, rule in ordered:
        racy_rule = family == "synchronization" or rule == "index-warpsize-16"
        assert (orders is not None) == racy_rule, (family, rule, orders)
        if orders:
            assert [o for o, _ in json.loads(orders)] == [0, 1, 2]
    assert racy["evaluated"] > 0, "the sample holds synchronisation mutants (softmax's barriers)"
    # Every kill of a racy-on-CPU mutant is a race witness; order-dependent ones are among them.
    assert s["race_witnesses"] == racy["killed"] and s["order_dependent"] <= s["race_witnesses"]
    assert s["overall"]["killed"] > 0 and s["overall"]["survived"] > 0
    # Stored verdicts agree with the score: a mutant is killed iff some small input kills it.
    with sqlite3.connect(store) as db:
        worst = dict(db.execute("SELECT mutant, max(CASE WHEN outcome != 'completed' OR shape_ok = 0 OR tau IS NULL OR tau > 1e-2 "
                                "THEN 1 ELSE 0 END) FROM evaluations GROUP BY mutant").fetchall())
    assert sum(worst.values()) == s["overall"]["killed"] + s["overall"]["timeouts"] + racy["killed"] + racy["timeouts"]


def test_a_second_run_reuses_every_evaluation(kmut_cmd, pipeline):
    store, base, _ = pipeline
    before = rows(store, "SELECT count(*) FROM evaluations")[0][0]
    out = kmut(kmut_cmd, "run", *paths(), "--backend", "cpu", "--sample", str(SAMPLE), "--seed", "0", "--full-matrix",
               "--store", str(store), "--cache", str(base / "cache"), "--cpu-workers", "2")
    assert out.returncode == 0, out.stderr[-4000:]
    assert "run: 0 evaluations now" in out.stderr and f"{before} reused from the store" in out.stderr, out.stderr[-2000:]
    assert "from the cache" in out.stderr
    assert rows(store, "SELECT count(*) FROM evaluations")[0][0] == before


def test_gpu_and_cpu_evaluations_share_a_store_without_clashing(kmut_cmd, pipeline):
    store, _, _ = pipeline
    # Scoring the GPU's evaluations of this store finds none: every mutant is undetermined.
    s = score_json(kmut_cmd, store, "--backend", "gpu")
    assert s["backend"] == "gpu" and s["overall"]["evaluated"] == 0 and s["racy_on_cpu"] is None


def test_a_larger_sample_takes_the_stored_figures_of_the_original_except_for_the_pipeline(kmut_cmd, pipeline, tmp_path):
    """Grown on a copy of the store, the sample's new mutants run on columns the first run
    measured: a single-kernel substrate's column is prepared without running the original (its
    figures come from the stored baseline), the level-3 pipeline's with it (its mutants replay
    and compare the original's kept step outputs)."""
    store, base, _ = pipeline
    grown = tmp_path / "grown.sqlite"
    grown.write_bytes(store.read_bytes())
    out = kmut(kmut_cmd, "run", *paths(), "--backend", "cpu", "--sample", str(SAMPLE + 40), "--seed", "0", "--full-matrix",
               "--store", str(grown), "--cache", str(base / "cache"), "--cpu-workers", "2")
    assert out.returncode == 0, out.stderr[-4000:]
    prepared = [line for line in (tmp_path / "grown.sqlite.workers.log").read_text().splitlines() if " prepared " in line]
    stored = {line.split(" prepared ")[1].split()[0] for line in prepared if "original_stored" in line}
    ran = {line.split(" prepared ")[1].split()[0] for line in prepared if "original_kernels" in line}
    assert "L3p17_squeezenet_fire" in ran and "L3p17_squeezenet_fire" not in stored, prepared
    assert stored and stored <= set(SUBSTRATES) - {"L3p17_squeezenet_fire"}, prepared
    # The run's own count: its column events (a worker replaced mid-preparation logs a line and
    # sends no event, so the log can hold more lines than the run counts).
    m = re.search(r"run: (\d+) of (\d+) column preparations took the original's figures", out.stderr)
    assert m and 0 < int(m[1]) <= sum("original_stored" in line for line in prepared) and int(m[2]) <= len(prepared), out.stderr[-2000:]
