"""The depth analysis end to end on the CPU backend: `kmut run` captures every pipeline step of
every evaluation into the store, `kmut depth` reads them (tests/fixtures/L3p1_depth_demo.py:
scale -> leaky ReLU -> ReLU -> bias). Real g++, NVRTC, torch and SQLite; nothing mocked."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import xml.etree.ElementTree as ET

import pytest

from .conftest import ROOT, kmut_command

DEMO = ROOT / "tests" / "fixtures" / "L3p1_depth_demo.py"
RULES = ["--rules", "semantic-constant-scale-10pct", "--rules", "arith-negate-store", "--rules", "launch-*"]
STEPS = 4
SMALL_COLUMNS = 2  # T1_small, seeds 1 and 2


def kmut(kmut_cmd, *args, timeout=900):
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    return subprocess.run([*kmut_cmd, *args], capture_output=True, text=True, timeout=timeout, env=env, check=False)


def run(kmut_cmd, base, *extra):
    store = base / "kmut.sqlite"
    out = kmut(kmut_cmd, "run", str(DEMO), "--backend", "cpu", "--full-matrix", *RULES, "--store", str(store),
               "--cache", str(base / "cache"), "--cpu-workers", "2", *extra)
    assert out.returncode == 0, out.stderr[-3000:]
    return store


@pytest.fixture(scope="module")
def cmd():
    return kmut_command()


@pytest.fixture(scope="module")
def store(tmp_path_factory, cmd):
    return run(cmd, tmp_path_factory.mktemp("depth"))


def rows(store, sql, *args):
    with sqlite3.connect(store, timeout=5) as db:
        return db.execute(sql, args).fetchall()


def mutant(store, rule, original):
    [(mid,)] = rows(store, "SELECT id FROM mutants WHERE rule = ? AND json_extract(body, '$.original') = ?", rule, original)
    return mid


def step_taus(store, mid):
    """Per column: the tau* of each step, in step order."""
    cols: dict = {}
    for suite, seed, step, tau in rows(store, "SELECT suite, seed, step, tau FROM step_errors WHERE mutant = ? ORDER BY suite, seed, step", mid):
        cols.setdefault((suite, seed), []).append((step, tau))
    return {k: [t for _, t in v] for k, v in cols.items()}


def depth_json(cmd, store, *extra):
    out = kmut(cmd, "depth", "--store", str(store), "--json", *extra, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_per_step_rows_add_up_to_one_per_step_per_evaluation(store):
    [(completed,)] = rows(store, "SELECT COUNT(*) FROM evaluations WHERE outcome = 'completed'")
    [(live,)] = rows(store, "SELECT COUNT(*) FROM classes WHERE class = 'live'")
    assert completed == live * SMALL_COLUMNS, "the full matrix on the small suite's two seeds"
    [(total,)] = rows(store, "SELECT COUNT(*) FROM step_errors")
    assert total == STEPS * completed
    per_cell = rows(store, "SELECT COUNT(*), MIN(step), MAX(step) FROM step_errors GROUP BY mutant, suite, seed")
    assert len(per_cell) == completed and set(per_cell) == {(STEPS, 0, STEPS - 1)}


def test_each_column_stores_its_step_layout_with_layer_kinds_and_reads(store):
    layouts = rows(store, "SELECT suite, seed, kernels, kinds, reads, keep FROM step_layouts")
    assert len(layouts) == SMALL_COLUMNS
    for _, _, kernels, kinds, reads, keep in layouts:
        assert json.loads(kernels) == ["demo_scale_kernel", "demo_leakyrelu_kernel", "demo_relu_kernel", "demo_bias_kernel"]
        assert json.loads(kinds) == ["elementwise", "activation", "activation", "elementwise"]
        assert json.loads(reads) == [[], [0], [1], [2]]
        assert keep == "device"


def test_a_fault_in_the_last_layer_has_error_only_at_the_last_step(store):
    cols = step_taus(store, mutant(store, "semantic-constant-scale-10pct", "0.75f"))
    assert len(cols) == SMALL_COLUMNS
    for taus in cols.values():
        assert taus[:-1] == [0.0] * (STEPS - 1) and taus[-1] > 1e-2


def test_a_fault_that_only_changes_negative_values_before_a_relu_is_masked_there(store, cmd):
    slope = mutant(store, "semantic-constant-scale-10pct", "0.25f")
    for taus in step_taus(store, slope).values():
        assert taus[0] == 0.0 and taus[1] > 1e-2, "the leaky slope changes the negative values of its own output"
        assert taus[2] == 0.0 and taus[3] == 0.0, "the ReLU maps them to zero either way"
    flipped = mutant(store, "arith-negate-store", "v > 0.0f ? v : 0.25f * v")
    for taus in step_taus(store, flipped).values():
        assert taus[2] > 1e-2, "flipping every sign sends the negative values through the ReLU"
    d = depth_json(cmd, store)
    [site] = [s for s in d["masking"]["sites"] if s["mutant"] == slope]
    assert (site["injected"], site["exceeded"], site["step"], site["kind"], site["distance"]) == (1, 1, 2, "activation", 1)
    assert flipped not in {s["mutant"] for s in d["masking"]["sites"]}
    assert d["masking"]["by_kind"].get("activation", 0) >= 1


def test_depth_reports_quartiles_propagation_and_the_every_layer_what_if(store, cmd):
    d = depth_json(cmd, store)
    assert d["denominator"] == "live" and d["backend"] == "cpu"
    [(live,)] = rows(store, "SELECT COUNT(*) FROM classes WHERE class = 'live'")
    assert sum(q["live"] for q in d["quartiles"]) == live
    # layer 0 of 4 is Q1, layer 1 (depth 1/3) Q2, layer 2 (2/3) Q3, layer 3 Q4
    by_layer = dict(rows(store, "SELECT layer, COUNT(*) FROM mutants m JOIN classes c ON c.mutant = m.id WHERE c.class = 'live' GROUP BY layer"))
    assert [q["live"] for q in d["quartiles"]] == [by_layer.get(i, 0) for i in range(4)]
    out_only, every = d["what_if"]["output_only"], d["what_if"]["every_layer"]
    assert every["survived"] == out_only["survived"] - d["masking"]["masked"] and d["masking"]["masked"] >= 1
    assert d["propagation"][0]["distance"] == 0 and d["propagation"][0]["n"] == d["curves_from"] > 0
    relu = [k for k in d["by_kind"] if k["kind"] == "activation"]
    assert relu and relu[0]["gain"]["n"] > 0


def test_svg_plots_are_written(store, cmd, tmp_path):
    out = kmut(cmd, "depth", "--store", str(store), "--svg", str(tmp_path / "plots"), timeout=120)
    assert out.returncode == 0, out.stderr
    assert "survival by the mutated layer's depth quartile" in out.stdout and "what-if" in out.stdout
    for name in ("quartiles.svg", "propagation.svg", "kinds.svg"):
        root = ET.parse(tmp_path / "plots" / name).getroot()
        assert root.tag.endswith("svg") and len(list(root.iter())) > 10


def test_no_steps_stores_no_rows_and_depth_says_so(tmp_path, cmd):
    store = run(cmd, tmp_path, "--no-steps")
    assert rows(store, "SELECT COUNT(*) FROM step_errors") == [(0,)]
    assert rows(store, "SELECT COUNT(*) FROM step_layouts") == [(0,)]
    out = kmut(cmd, "depth", "--store", str(store), "--json", timeout=120)
    assert out.returncode == 0 and "no per-step rows" in out.stderr


def test_a_witness_search_captures_steps_on_the_protocols_columns_only(tmp_path, cmd):
    store = tmp_path / "kmut.sqlite"
    out = kmut(cmd, "witness", str(DEMO), "--backend", "cpu", *RULES, "--store", str(store), "--cache", str(tmp_path / "cache"),
               "--cpu-workers", "2")
    assert out.returncode == 0, out.stderr[-3000:]
    searched = rows(store, "SELECT COUNT(*) FROM evaluations WHERE suite LIKE 'W:%'")[0][0]
    assert searched > 0, "the search ran generated columns"
    # The CPU backend's protocol columns are the small suites: rows there, none on the search's.
    suites = {s for (s,) in rows(store, "SELECT DISTINCT suite FROM step_errors")}
    assert suites == {"T1_small"}, suites
    assert rows(store, "SELECT COUNT(*) FROM step_layouts WHERE suite LIKE 'W:%'") == [(0,)]
    # Asked for, the search's columns are captured too: every generated evaluation has its rows.
    again = tmp_path / "search-steps.sqlite"
    out = kmut(cmd, "witness", str(DEMO), "--backend", "cpu", *RULES, "--store", str(again), "--cache", str(tmp_path / "cache"),
               "--cpu-workers", "2", "--search-steps")
    assert out.returncode == 0, out.stderr[-3000:]
    generated = rows(again, "SELECT COUNT(*) FROM evaluations WHERE suite LIKE 'W:%' AND outcome = 'completed'")[0][0]
    assert generated > 0
    captured = rows(again, "SELECT COUNT(DISTINCT mutant || suite || seed) FROM step_errors WHERE suite LIKE 'W:%'")[0][0]
    assert captured == generated, (captured, generated)
    assert rows(again, "SELECT COUNT(*) FROM step_layouts WHERE suite LIKE 'W:%'")[0][0] > 0


@pytest.mark.gpu
def test_on_a_gpu_every_evaluation_has_its_step_rows_and_the_masking_holds(cmd, tmp_path):
    """The CUDA path of the capture (original's step outputs kept on the device, compared after
    the kernels): the same fixture on every suite at its declared sizes."""
    store = tmp_path / "kmut.sqlite"
    out = kmut(cmd, "run", str(DEMO), "--suites", "all", "--full-matrix", *RULES, "--store", str(store), "--cache", str(tmp_path / "cache"))
    assert out.returncode == 0, out.stderr[-3000:]
    [(completed,)] = rows(store, "SELECT COUNT(*) FROM evaluations WHERE outcome = 'completed'")
    assert completed > 0 and rows(store, "SELECT COUNT(*) FROM step_errors") == [(STEPS * completed,)]
    assert {k for (k,) in rows(store, "SELECT keep FROM step_layouts")} == {"device"}
    slope = mutant(store, "semantic-constant-scale-10pct", "0.25f")
    for taus in step_taus(store, slope).values():
        assert taus[1] > 1e-2 and taus[2] == 0.0 and taus[3] == 0.0
    for taus in step_taus(store, mutant(store, "semantic-constant-scale-10pct", "0.75f")).values():
        assert taus[:-1] == [0.0] * (STEPS - 1) and taus[-1] > 1e-2
