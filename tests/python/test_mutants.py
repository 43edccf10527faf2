"""Mutants of every accepted substrate: generated through the CLI's own path, compiled with the
real NVRTC on the CPU, stillborn counts reported per rule (printed in pytest's summary)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess

import pytest

from kmut import _native
from kmut.describe import describe

from .conftest import ACCEPTED, REPORTS, ROOT, SAMPLED


@pytest.fixture(scope="module")
def generated():
    """(description, mutants) of every accepted substrate."""
    result = []
    for path in ACCEPTED:
        desc = describe(path)
        mutants = json.loads(_native.mutate_json(json.dumps(desc)))["mutants"]
        result.append((desc, mutants))
    return result


def test_every_accepted_substrate_has_mutants_in_several_families(generated):
    for desc, mutants in generated:
        families = {m["family"] for m in mutants}
        assert len(mutants) >= 20, desc["name"]
        assert {"arithmetic", "indexing", "boundary"} <= families, (desc["name"], families)
        assert any(m["mutation"]["kind"] == "launch" for m in mutants), desc["name"]


def test_mutant_ids_are_unique_and_stable_across_generations(generated):
    for desc, mutants in generated:
        again = json.loads(_native.mutate_json(json.dumps(desc)))["mutants"]
        assert [m["id"] for m in mutants] == [m["id"] for m in again]
        assert len({m["id"] for m in mutants}) == len(mutants)


def test_pipeline_mutants_know_their_layer(generated):
    for desc, mutants in generated:
        kernels = desc["kernels"]
        for m in mutants:
            assert m["layer"] is not None, m
            assert kernels[m["layer"]] == m["kernel"] or m["kernel"] not in kernels
            assert 0.0 <= m["depth"] <= 1.0


# Mutants compiled per rule, over a sample of the corpus (`SAMPLED`): every rule those substrates
# have, with a cost that does not grow with the corpus (compiling every mutant took most of CI's
# time on two cores; one per rule and substrate took 9 minutes with 141 substrates, and the
# originals of all 147 with 6 per rule 7.5 minutes). Every sampled substrate's original too.
PER_RULE = 6


def test_every_rule_compiles_across_the_sampled_substrates_and_stillborn_counts_are_reported(kmut_cmd, tmp_path):
    """`kmut compile --sample-per-rule` over a stratified sample of the accepted substrates
    (`conftest.sampled_substrates`; the real stage, kernel-scoped, no cache): each substrate's
    original and, of each rule, a seeded choice spread over them. Every original is also compiled
    on its own by test_accepted.py."""
    store = tmp_path / "all.sqlite"
    out = subprocess.run([*kmut_cmd, "compile", *map(str, SAMPLED), "--store", str(store), "--no-cache", "--sample-per-rule", str(PER_RULE)],
                         capture_output=True, text=True, timeout=3600, env=dict(os.environ, KMUT_NO_PROGRESS="1"), cwd=ROOT)
    assert out.returncode == 0, out.stderr
    with sqlite3.connect(store) as db:
        rows = db.execute(
            """SELECT m.rule, count(*), sum(c.class = 'stillborn'),
                      min(CASE WHEN c.class = 'stillborn' THEN p.log END)
               FROM mutants m JOIN classes c ON c.mutant = m.id LEFT JOIN compilations p ON p.mutant = m.id
               WHERE m.kind = 'source' GROUP BY m.rule ORDER BY m.rule"""
        ).fetchall()
        substrates = db.execute("SELECT count(*) FROM substrates").fetchone()[0]
    total = sum(r[1] for r in rows)
    dead = sum(r[2] for r in rows)
    lines = [f"source mutants of {substrates} accepted substrates compiled with NVRTC (kernel-scoped, at most {PER_RULE} per rule over the sample): {total}, "
             f"stillborn {dead} ({100 * dead / max(total, 1):.1f}%)", f"{'rule':<40} {'generated':>9} {'stillborn':>9}"]
    for rule, n, d, log in rows:
        first = next((l for l in (log or "").splitlines() if "error" in l), "")
        lines.append(f"{rule:<40} {n:>9} {d:>9}" + (f"   e.g. {first}" if d else ""))
    REPORTS.append("\n".join(lines) + "\n\n" + out.stdout)
    assert substrates == len(SAMPLED)
    with sqlite3.connect(store) as db:
        # Every mutant is generated and stored; only the chosen ones are compiled.
        generated = db.execute("SELECT count(*) FROM mutants WHERE kind = 'source'").fetchone()[0]
        per_rule = dict(db.execute("SELECT rule, count(*) FROM mutants WHERE kind = 'source' GROUP BY rule").fetchall())
        originals = db.execute("SELECT count(DISTINCT substrate) FROM originals WHERE image_hash IS NOT NULL").fetchone()[0]
    # Every rule that has mutants anywhere is sampled, min(PER_RULE, its mutants) of them.
    assert {r: n for r, n, _, _ in rows} == {r: min(PER_RULE, n) for r, n in per_rule.items()}
    assert generated > total, "the sample is smaller than the corpus"
    assert originals == len(SAMPLED), "every substrate's original compiles"
    broken = [r[0] for r in rows if r[1] >= 5 and r[2] == r[1]]
    assert not broken, f"rules whose every mutant is stillborn: {broken}"
    assert dead <= 0.25 * total, "\n".join(lines)


def test_kmut_mutate_cli_lists_mutants_and_json_has_the_required_fields(kmut_cmd):
    path = str(next(p for p in ACCEPTED if p.stem == "L1p23_softmax"))
    out = subprocess.run([*kmut_cmd, "mutate", path, "--json", "--family", "synchronization"], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    mutants = json.loads(out.stdout)
    assert mutants and all(m["family"] == "synchronization" for m in mutants)
    for field in ("id", "substrate", "rule", "family", "kernel", "layer", "line", "original", "replacement", "diff"):
        assert field in mutants[0]
    assert "synchroni" in out.stderr  # the per-family summary
    text = subprocess.run([*kmut_cmd, "mutate", path, "--rules", "sync-barrier-*"], capture_output=True, text=True, timeout=300)
    assert text.returncode == 0 and all("[sync-barrier-" in l for l in text.stdout.splitlines()), text.stdout


def test_kmut_rules_lists_the_catalogue_with_family_counts(kmut_cmd):
    out = subprocess.run([*kmut_cmd, "rules", "--json"], capture_output=True, text=True, timeout=60)
    doc = json.loads(out.stdout)
    assert doc["version"] == 1 and len(doc["rules"]) >= 80
    text = subprocess.run([*kmut_cmd, "rules"], capture_output=True, text=True, timeout=60).stdout
    assert "rules (catalogue version 1): arithmetic" in text


def test_mutating_a_malformed_substrate_names_the_file(kmut_cmd, tmp_path):
    bad = tmp_path / "candidate_L1p19_relu.py"
    bad.write_text("def register(K, torch, ctypes):\n    return {}\n", encoding="utf-8")
    out = subprocess.run([*kmut_cmd, "mutate", str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2
    assert str(bad) in out.stderr and "missing" in out.stderr


def test_a_bare_kernel_file_is_refused_with_what_kmut_expects(kmut_cmd, tmp_path):
    cu = tmp_path / "kernel.cu"
    cu.write_text('extern "C" __global__ void k(float* x) { x[0] = 0x1fu; }\n', encoding="utf-8")
    out = subprocess.run([*kmut_cmd, "mutate", str(cu)], capture_output=True, text=True, timeout=120)
    assert out.returncode != 0
    assert "kernel.cu` is not one" in out.stderr and "substrates/SPEC.md" in out.stderr and "(`.py`)" in out.stderr, out.stderr
    assert "hexadecimal" not in out.stderr


def test_a_closed_pipe_ends_kmut_mutate_quietly_with_the_sigpipe_status(kmut_cmd):
    # More output than a pipe holds, read one line, then closed: the shell's `| head -1`.
    deep = [str(p) for p in ACCEPTED if p.stem.startswith("L3p")][:4]
    proc = subprocess.Popen([*kmut_cmd, "mutate", *deep], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err
    assert "panicked" not in err and "Traceback" not in err, err
