"""`kmut witness` end to end on the CPU backend: the real worker, generators and validity gate
(tests/fixtures/L1p19_witness_demo.py, whose own suites all hold multiples of the block size)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest
import torch

from kmut import generators, loader

from .conftest import ROOT

DEMO = ROOT / "tests" / "fixtures" / "L1p19_witness_demo.py"
RULES = ["--rules", "semantic-float-gt-to-ge", "--rules", "launch-cdiv-floor"]


def witness(kmut_cmd, tmp_path, *extra):
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    cmd = [*kmut_cmd, "witness", str(DEMO), "--backend", "cpu", "--store", str(tmp_path / "s.sqlite"), "--cache", str(tmp_path / "cache"),
           "--cpu-workers", "2", *RULES, *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return out


def score(kmut_cmd, tmp_path, *extra):
    out = subprocess.run([*kmut_cmd, "score", "--store", str(tmp_path / "s.sqlite"), "--json", *extra], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def searched(tmp_path_factory, kmut_cmd_module):
    tmp = tmp_path_factory.mktemp("witness")
    out = witness(kmut_cmd_module, tmp)
    return tmp, out


@pytest.fixture(scope="module")
def kmut_cmd_module():
    from .conftest import kmut_command

    return kmut_command()


def cells(tmp, rule):
    with sqlite3.connect(tmp / "s.sqlite") as db:
        return db.execute("SELECT e.suite, e.seed, e.outcome, e.tau FROM evaluations e JOIN mutants m ON m.id = e.mutant WHERE m.rule = ? "
                          "ORDER BY e.rowid", (rule,)).fetchall()


def test_a_tail_only_a_boundary_size_exposes_gets_a_boundary_witness(searched, kmut_cmd_module):
    tmp, _ = searched
    floor = cells(tmp, "launch-cdiv-floor")
    # Its own suites are multiples of the block: the tail is never lost there.
    assert all(o == "completed" and t == 0.0 for s, _, o, t in floor if not s.startswith("W:")), floor
    killing = [(s, o, t) for s, _, o, t in floor if s.startswith("W:") and (o != "completed" or t is None or t > 1e-2)]
    assert killing and killing[0][0].startswith("W:boundary:1:n="), floor
    s = score(kmut_cmd_module, tmp, "--backend", "cpu", "--denominator", "witnessed")
    assert s["denominator"] == "witnessed"
    assert s["overall"]["survived"] == 1, "witnessed, and missed by the protocol's inputs"


def test_an_equivalent_mutant_ends_possibly_equivalent_never_a_miss(searched, kmut_cmd_module):
    tmp, _ = searched
    ge = cells(tmp, "semantic-float-gt-to-ge")
    generated = [c for c in ge if c[0].startswith("W:")]
    with sqlite3.connect(tmp / "s.sqlite") as db:
        valid = {(s, seed) for s, seed in db.execute("SELECT suite, seed FROM baselines WHERE suite LIKE 'W:%' AND valid = 1")}
    assert len(valid) >= 10, valid
    assert {(s, seed) for s, seed, _, _ in generated} == valid, "every valid generated input tried"
    assert all(o == "completed" and t <= 1e-2 for _, _, o, t in generated), "none kills"
    witnessed = score(kmut_cmd_module, tmp, "--backend", "cpu", "--denominator", "witnessed")["overall"]
    assert (witnessed["possibly_equivalent"], witnessed["survived"], witnessed["undecided"]) == (1, 1, 0)
    # Over live mutants, the same equivalent mutant counts as a miss.
    live = score(kmut_cmd_module, tmp, "--backend", "cpu", "--denominator", "live")["overall"]
    assert (live["survived"], live["possibly_equivalent"]) == (2, 0)
    # `auto` is witnessed once a search has run.
    assert score(kmut_cmd_module, tmp, "--backend", "cpu")["denominator"] == "witnessed"


def test_every_generated_input_was_checked_against_fp64_first(searched):
    tmp, _ = searched
    with sqlite3.connect(tmp / "s.sqlite") as db:
        rows = db.execute("SELECT suite, valid, tau64_ref, tau64_orig FROM baselines WHERE suite LIKE 'W:%'").fetchall()
    assert rows and all(v is not None and r is not None and o is not None for _, v, r, o in rows)
    assert not any(s.endswith(":official") for s, *_ in rows), "the CPU backend runs only the small sizes"


def test_a_second_search_resumes_without_repeating_an_evaluation(searched, kmut_cmd_module):
    tmp, _ = searched
    again = witness(kmut_cmd_module, tmp)
    assert "run: 0 evaluations now" in again.stderr, again.stderr[-2000:]


def test_generated_specs_round_trip_and_leave_integer_inputs_alone():
    fields, K, _ = loader.load(DEMO, torch)
    for name in generators.witness_specs(fields, K, [256]):
        spec = generators.parse(name)
        assert spec.name() == name
        a = generators.draw(spec, fields, K, 7, torch)
        b = generators.draw(spec, fields, K, 7, torch)
        assert all(torch.equal(x, y) for x, y in zip(a, b)), f"{name} is not reproducible"
    sizes = generators.sizes_of(generators.parse("W:boundary:1:n=257"), fields, K)
    assert sizes == {"n": 257}
    with pytest.raises(ValueError, match="unknown generator"):
        generators.parse("W:wobbly:1:small")


def test_integer_and_boolean_inputs_are_never_transformed():
    from kmut.contract import Contract

    K = Contract()

    def gen(torch, s):
        return [torch.rand(s["n"]), torch.randint(0, 7, (s["n"],)), torch.rand(s["n"]) > 0.5]

    fields = {"name": "L1p95_x", "dims": {"n": K.dim(64)},
              "suites": [K.suite("T0_original", gen, purpose="p"), K.suite("T1", gen, purpose="p", sizes={"n": 8}, small=True)]}
    plain = generators.draw(generators.parse("W:dense:1:small"), fields, K, 3, torch)
    for name in ("W:scaled:1000:small", "W:negative:3:small", "W:constant:10:small", "W:sparse:100:small"):
        drawn = generators.draw(generators.parse(name), fields, K, 3, torch)
        assert torch.equal(drawn[1], plain[1]) and torch.equal(drawn[2], plain[2]), name
        assert not torch.equal(drawn[0], plain[0]), name
    assert generators.draw(generators.parse("W:constant:10:small"), fields, K, 3, torch)[0].eq(10).all()


EXP = ROOT / "tests" / "fixtures" / "L1p900_exp_ceiling.py"


def ceiling(kmut_cmd, tmp, *extra):
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    cmd = [*kmut_cmd, "ceiling", str(EXP), "--backend", "cpu", "--sizes", "small", "--store", str(tmp / "c.sqlite"), "--cache", str(tmp / "cache"),
           "--workers", "1", "--generator", "scaled", "--generator", "negative", "--steps", "6", "--highest", "10000", "--json", *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    return {r["generator"]: r for r in json.loads(out.stdout)}, out.stderr


def test_the_ceiling_brackets_the_scale_where_a_correct_kernel_starts_failing(tmp_path, kmut_cmd_module):
    found, _ = ceiling(kmut_cmd_module, tmp_path)
    # expf overflows past 88.72 over the largest of 1000 U[0,1) draws (about 0.999): the bracket
    # must hold that scale, narrowed by six bisections of four decades.
    scaled = found["scaled"]
    assert scaled["ceiling"] < 88.73 / 0.9 and scaled["first_invalid"] > 88.72, scaled
    assert scaled["first_invalid"] / scaled["ceiling"] < 1.4, scaled
    at = {(p["scale"], p["seed"]): p for p in scaled["points"]}
    assert all(at[(scaled["ceiling"], s)]["valid"] for s in (1, 2)), "every seed is valid at the ceiling"
    assert any(not p["valid"] for (c, _), p in at.items() if c == scaled["first_invalid"])
    # exp of negative values only shrinks: valid over the whole range, said as such.
    negative = found["negative"]
    assert negative["ceiling"] == 10000 and negative["first_invalid"] is None, negative


def test_a_second_ceiling_search_reuses_every_stored_probe(tmp_path, kmut_cmd_module):
    first, _ = ceiling(kmut_cmd_module, tmp_path)
    again, err = ceiling(kmut_cmd_module, tmp_path)
    assert "ceiling: 0 new probes stored" in err, err[-2000:]
    assert again["scaled"]["ceiling"] == first["scaled"]["ceiling"]
    assert again["scaled"]["points"] == first["scaled"]["points"]
    # --no-run prints what is stored without compiling or probing (no run is recorded).
    store = tmp_path / "c.sqlite"
    with sqlite3.connect(store) as db:
        runs = db.execute("SELECT count(*) FROM runs").fetchone()[0]
    shown = subprocess.run([*kmut_cmd_module, "ceiling", "--no-run", "--store", str(store), "--json"], capture_output=True, text=True, timeout=120, check=False)
    assert shown.returncode == 0, shown.stderr
    stored = {r["generator"]: r for r in json.loads(shown.stdout)}
    assert stored["scaled"]["ceiling"] == first["scaled"]["ceiling"] and stored["scaled"]["first_invalid"] == first["scaled"]["first_invalid"]
    assert sorted(map(str, stored["scaled"]["points"])) == sorted(map(str, first["scaled"]["points"]))
    table = subprocess.run([*kmut_cmd_module, "ceiling", "--no-run", "--store", str(store), str(EXP), "--generator", "negative"],
                           capture_output=True, text=True, timeout=120, check=False)
    assert table.returncode == 0 and "L1p900_exp_ceiling" in table.stdout and ">= 10000" in table.stdout and "scaled" not in table.stdout, table.stdout
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM runs").fetchone()[0] == runs
    missing = subprocess.run([*kmut_cmd_module, "ceiling", "--no-run", "--store", str(store), "substrates/accepted/L1p19_relu.py"],
                             capture_output=True, text=True, timeout=120, check=False)
    assert missing.returncode != 0 and "no ceiling stored for L1p19_relu" in missing.stderr, missing.stderr


def test_a_replayed_witness_kills_and_the_original_passes_it(searched, kmut_cmd_module):
    tmp, _ = searched
    with sqlite3.connect(tmp / "s.sqlite") as db:
        (mutant,) = db.execute("SELECT id FROM mutants WHERE rule = 'launch-cdiv-floor'").fetchone()
        before = db.execute("SELECT count(*) FROM evaluations").fetchone()[0]
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    out = subprocess.run([*kmut_cmd_module, "witness", "--replay", mutant, "--backend", "cpu", "--store", str(tmp / "s.sqlite"),
                          "--cache", str(tmp / "cache"), "--cpu-workers", "1"], capture_output=True, text=True, timeout=600, env=env, check=False)
    assert out.returncode == 0, out.stdout + out.stderr[-3000:]
    assert "W:boundary:1:n=" in out.stdout and "the witness holds" in out.stdout, out.stdout
    assert "bit for bit" in out.stdout, "the CPU backend replays the stored tau* exactly"
    with sqlite3.connect(tmp / "s.sqlite") as db:
        assert db.execute("SELECT count(*) FROM evaluations").fetchone()[0] == before, "a replay does not change the store"


def test_a_mutant_without_a_witness_is_refused_with_the_reason(searched, kmut_cmd_module):
    tmp, _ = searched
    with sqlite3.connect(tmp / "s.sqlite") as db:
        (mutant,) = db.execute("SELECT id FROM mutants WHERE rule = 'semantic-float-gt-to-ge'").fetchone()
    out = subprocess.run([*kmut_cmd_module, "witness", "--replay", mutant, "--backend", "cpu", "--store", str(tmp / "s.sqlite")],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode != 0 and "has no witness" in out.stderr and "possibly equivalent" in out.stderr, out.stderr


def test_the_rust_side_knows_every_scaled_generator():
    text = (ROOT / "crates" / "kmut-witness" / "src" / "ceiling.rs").read_text()
    line = next(l for l in text.splitlines() if l.startswith("pub const SCALED_GENERATORS"))
    rust = [g.strip(' "') for g in line.split("= &[", 1)[1].split("]", 1)[0].split(",")]
    assert rust == [g for g, scaled in generators.GENERATORS.items() if scaled]


def test_the_fill_list_run_decides_every_cell_that_could_still_add_a_kill(searched, kmut_cmd_module, tmp_path):
    # issue 15's matrix fill end to end: kmut synth names the mutants whose missing cells could
    # change a choice, kmut run --full-matrix --mutants-from runs exactly those, and afterwards
    # synth has nothing left to fill.
    import shutil

    tmp, _ = searched
    store = tmp_path / "s.sqlite"
    shutil.copy(tmp / "s.sqlite", store)
    fill = tmp_path / "fill.txt"

    def synth():
        # With the protocol's inputs first, the boundary-only mutant is what they miss (greedy's own
        # first input would be its witness, which leaves nothing to fill on this one-mutant demo).
        out = subprocess.run([*kmut_cmd_module, "synth", "--store", str(store), "--backend", "cpu", "--with-official", "--fill-list", str(fill),
                              "--json"],
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout)

    before = synth()
    listed = [line for line in fill.read_text().splitlines() if line and not line.startswith("#")]
    assert listed and before["fill"]["cells"] > 0 and before["fill"]["mutants"] == listed
    with sqlite3.connect(store) as db:
        others_before = db.execute(f"SELECT count(*) FROM evaluations WHERE mutant NOT IN ({','.join('?' * len(listed))})", listed).fetchone()[0]
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    run = subprocess.run([*kmut_cmd_module, "run", str(DEMO), "--backend", "cpu", "--suites", "witness", "--full-matrix", "--mutants-from", str(fill),
                          "--store", str(store), "--cache", str(tmp / "cache"), "--cpu-workers", "2", *RULES],
                         capture_output=True, text=True, timeout=900, env=env, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    after = synth()
    assert after["fill"] == {"mutants": [], "cells": 0}, after["fill"]
    with sqlite3.connect(store) as db:
        others_after = db.execute(f"SELECT count(*) FROM evaluations WHERE mutant NOT IN ({','.join('?' * len(listed))})", listed).fetchone()[0]
    assert others_after == others_before, "only the listed mutants ran"
