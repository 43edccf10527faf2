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
    assert len(generated) > 20 and all(o == "completed" and t <= 1e-2 for _, _, o, t in generated), "every valid input tried, none kills"
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
