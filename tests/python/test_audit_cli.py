"""`kmut audit` end to end on the CPU backend: the witness search, then the audit running each
protocol's own inputs through the real worker (tests/fixtures/L1p19_witness_demo.py, whose own
suites all hold multiples of the block size, so only a boundary size exposes a lost tail)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest

from .conftest import ROOT, SLEEPING_WORKER, interrupted_at

DEMO = ROOT / "tests" / "fixtures" / "L1p19_witness_demo.py"
RULES = ["--rules", "semantic-float-gt-to-ge", "--rules", "launch-cdiv-floor"]
PROTOCOLS = ["official", "kbv-full", "fuzz-kbm", "illusion"]


def kmut(kmut_cmd, tmp, *args, check=True):
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    common = ["--backend", "cpu", "--store", str(tmp / "s.sqlite"), "--cache", str(tmp / "cache"), "--cpu-workers", "2", *RULES]
    out = subprocess.run([*kmut_cmd, *args, *common], capture_output=True, text=True, timeout=900, env=env, check=False)
    if check:
        assert out.returncode == 0, out.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    from .conftest import kmut_command

    cmd = kmut_command()
    tmp = tmp_path_factory.mktemp("audit")
    kmut(cmd, tmp, "witness", str(DEMO))
    out = kmut(cmd, tmp, "audit", *PROTOCOLS, "--substrate", str(DEMO), "--json")
    return cmd, tmp, out


def test_each_protocol_is_judged_on_its_own_inputs_on_the_unified_denominator(audited):
    _, tmp, out = audited
    a = json.loads(out.stdout)
    # The floor mutant is witnessed (a boundary size); the >= mutant is possibly equivalent.
    assert (a["population"]["unified"], a["population"]["possibly_equivalent"]) == (1, 1), a["population"]
    detected = {r["protocol"]: (r["overall"]["detected"], r["overall"]["mutants"]) for r in a["rates"]}
    # Only the Illusion's boundary shapes lose the tail; the others run multiples of the block.
    assert detected == {"official": (0, 1), "kbv-full": (0, 1), "fuzz-kbm": (0, 1), "illusion": (1, 1)}, detected
    gain = next(d for d in a["decompositions"] if d["to"] == "illusion")
    assert (gain["total"], gain["inputs"], gain["tolerance"]) == (1, 1, 0), gain
    assert a["missed_by_all"] == 0
    with sqlite3.connect(tmp / "s.sqlite") as db:
        suites = {s for (s,) in db.execute("SELECT DISTINCT suite FROM baselines")}
    assert {"W:fresh1:1:small", "W:fresh2:3:small", "W:fresh3:0.01:small", "W:fresh4:-1:small", "W:logscale:1000:small", "W:uniform:10:small"} <= suites, sorted(suites)
    # The first boundary size already loses the tail: the mutant stops there (first kill).
    assert any(s.startswith("W:uniform:10:n=") for s in suites), sorted(suites)


def test_a_second_audit_resumes_without_running_anything(audited):
    cmd, tmp, _ = audited
    again = kmut(cmd, tmp, "audit", *PROTOCOLS, "--substrate", str(DEMO))
    assert "evaluations now" not in again.stderr, again.stderr[-2000:]
    assert "unified denominator 1 mutants" in again.stdout, again.stdout


def test_a_users_protocol_file_is_validated_naming_the_file_and_the_field(audited, tmp_path):
    cmd, tmp, _ = audited
    good = json.loads((ROOT / "protocols" / "official.json").read_text())
    good["name"] = "mine"
    good["tolerance"]["fp32"] = {"atol": 3e-3, "rtol": 3e-3}
    mine = tmp_path / "mine.json"
    mine.write_text(json.dumps(good))
    ok = kmut(cmd, tmp, "audit", "official", str(mine), "--no-run", "--json")
    assert [r["protocol"] for r in json.loads(ok.stdout)["rates"]] == ["official", "mine"]
    good["tolerance"]["fp32"]["atol"] = "tight"
    mine.write_text(json.dumps(good))
    bad = kmut(cmd, tmp, "audit", "official", str(mine), "--no-run", check=False)
    assert bad.returncode == 2, bad.stderr
    assert f"{mine}: tolerance.fp32.atol: invalid type: string" in bad.stderr, bad.stderr


@pytest.mark.gpu
def test_on_a_gpu_the_protocols_run_at_official_sizes_and_only_the_illusion_finds_the_lost_tail(kmut_cmd, tmp_path):
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    common = ["--store", str(tmp_path / "s.sqlite"), "--cache", str(tmp_path / "cache"), "--workers-per-gpu", "2", *RULES]
    for args in (["witness", str(DEMO)], ["audit", *PROTOCOLS, "--substrate", str(DEMO), "--json"]):
        out = subprocess.run([*kmut_cmd, *args, *common], capture_output=True, text=True, timeout=580, env=env, check=False)
        print(out.stderr[-3000:])
        assert out.returncode == 0, out.stderr[-3000:]
    a = json.loads(out.stdout)
    assert a["backend"] == "gpu" and a["population"]["unified"] == 1, a["population"]
    detected = {r["protocol"]: r["overall"]["detected"] for r in a["rates"]}
    assert detected == {"official": 0, "kbv-full": 0, "fuzz-kbm": 0, "illusion": 1}, detected
    assert all(r["false_kill_columns"] == 0 for r in a["rates"]), "ReLU is exact: no protocol rejects the original"
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        suites = {s for (s,) in db.execute("SELECT DISTINCT suite FROM baselines")}
    assert {"W:fresh1:1:official", "W:fresh4:-1:official", "W:logscale:1000:official"} <= suites, sorted(suites)


def test_the_audit_compiles_only_mutants_the_store_has_evaluated(audited, tmp_path):
    cmd, tmp, _ = audited
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    with sqlite3.connect(tmp / "s.sqlite") as db:
        before = db.execute("SELECT count(*) FROM classes").fetchone()[0]
        evaluated = db.execute("SELECT count(DISTINCT mutant) FROM evaluations").fetchone()[0]
        generated = db.execute("SELECT count(*) FROM mutants").fetchone()[0]
    assert 0 < evaluated <= before < generated, (evaluated, before, generated)
    # No --rules: every rule's mutants are generated, but only the evaluated ones are classified.
    out = subprocess.run([*cmd, "audit", "official", "--substrate", str(DEMO), "--backend", "cpu", "--store", str(tmp / "s.sqlite"),
                          "--cache", str(tmp / "cache"), "--cpu-workers", "2"], capture_output=True, text=True, timeout=900, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    with sqlite3.connect(tmp / "s.sqlite") as db:
        assert db.execute("SELECT count(*) FROM classes").fetchone()[0] == before
    # A store with no evaluations says what to run first.
    empty = subprocess.run([*cmd, "compile", str(DEMO), "--store", str(tmp_path / "e.sqlite"), "--cache", str(tmp / "cache"), *RULES],
                           capture_output=True, text=True, timeout=900, env=env, check=False)
    assert empty.returncode == 0, empty.stderr[-2000:]
    none = subprocess.run([*cmd, "audit", "official", "--substrate", str(DEMO), "--backend", "cpu", "--store", str(tmp_path / "e.sqlite")],
                          capture_output=True, text=True, timeout=900, env=env, check=False)
    assert none.returncode != 0 and "holds no evaluations: run `kmut witness` first" in none.stderr, none.stderr[-2000:]


def test_a_synthesized_protocol_loads_in_the_audit_and_runs_each_problems_chosen_inputs(audited, tmp_path):
    # kmut synth's export is a protocol file: the audit takes it by path, judges each problem on
    # the inputs chosen for it, and so detects the boundary-only mutant the official trials miss.
    cmd, tmp, _ = audited
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    out_file = tmp_path / "synth.json"
    synth = subprocess.run([*cmd, "synth", "--store", str(tmp / "s.sqlite"), "--backend", "cpu", "--budget", "1", "--split", "none", "--out", str(out_file)],
                           capture_output=True, text=True, timeout=300, env=env, check=False)
    assert synth.returncode == 0, synth.stderr[-3000:]
    exported = json.loads(out_file.read_text())
    chosen = exported["protocols"][0]["inputs"]["per_problem"]["L1p19_witness_demo"]
    assert len(chosen) == 1 and chosen[0]["suite"].startswith("W:"), chosen
    audit = kmut(cmd, tmp, "audit", "official", str(out_file), "--substrate", str(DEMO), "--json")
    a = json.loads(audit.stdout)
    detected = {r["protocol"]: (r["overall"]["detected"], r["overall"]["mutants"]) for r in a["rates"]}
    assert detected == {"official": (0, 1), "synth-official": (1, 1)}, detected
    assert "evaluations now" not in audit.stderr, "the chosen input's cells are the witness search's: nothing runs"


def test_an_interrupted_audit_still_reports_the_cells_stored_so_far(audited, tmp_path):
    # A device call stopped by its clock (SIGINT) must not lose its audit table: the workers
    # here never start (a sleeping stand-in), so the audit is interrupted while it waits.
    import shutil

    cmd, tmp, _ = audited
    store = tmp_path / "s.sqlite"
    shutil.copy(tmp / "s.sqlite", store)
    with sqlite3.connect(store) as db:
        db.execute("DELETE FROM evaluations WHERE run IN (SELECT id FROM runs WHERE command LIKE 'audit%')")
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    args = [*cmd, "audit", *PROTOCOLS, "--substrate", str(DEMO), "--backend", "cpu", "--store", str(store), "--cache", str(tmp / "cache"),
            "--cpu-workers", "1", *RULES, *SLEEPING_WORKER]
    code, out, err = interrupted_at(args, "deciding input columns", env)
    assert code == 130, (code, err[-2000:])
    assert "the audit below is of the cells stored so far" in err, err[-2000:]
    assert "audit of 4 protocols" in out and "official" in out, out[-2000:]
