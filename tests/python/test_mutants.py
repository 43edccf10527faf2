"""Mutants of every accepted substrate: generated through the CLI's own path, compiled with the
real NVRTC on the CPU, stillborn counts reported per rule (printed in pytest's summary)."""

from __future__ import annotations

import json
import subprocess
from collections import Counter, defaultdict

import pytest

from kmut import _native
from kmut.describe import describe
from kmut.nvrtc import site_dirs

from .conftest import ACCEPTED, REPORTS


def apply(source: str, edits: list[dict]) -> str:
    out, at = [], 0
    for e in sorted(edits, key=lambda e: (e["start"], e["end"])):
        out.append(source[at : e["start"]])
        out.append(e["text"])
        at = e["end"]
    out.append(source[at:])
    return "".join(out)


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


def test_all_mutants_compile_with_nvrtc_and_stillborn_counts_are_reported_per_rule(generated):
    per_rule: dict[str, Counter] = defaultdict(Counter)
    example_log: dict[str, str] = {}
    total = dead = 0
    for desc, mutants in generated:
        source = [m for m in mutants if m["mutation"]["kind"] == "source"]
        results = _native.compile_many([apply(desc["cuda"], m["mutation"]["edits"]) for m in source], "sm_90", site_dirs())
        for m, (ok, log) in zip(source, results):
            per_rule[m["rule"]]["generated"] += 1
            total += 1
            if not ok:
                per_rule[m["rule"]]["stillborn"] += 1
                dead += 1
                example_log.setdefault(m["rule"], next((l for l in log.splitlines() if "error" in l), log[:200]))
    lines = [f"mutants of {len(generated)} accepted substrates compiled with NVRTC: {total}, stillborn {dead} ({100 * dead / max(total, 1):.1f}%)",
             f"{'rule':<40} {'generated':>9} {'stillborn':>9}"]
    for rule in sorted(per_rule):
        c = per_rule[rule]
        lines.append(f"{rule:<40} {c['generated']:>9} {c['stillborn']:>9}" + (f"   e.g. {example_log[rule]}" if rule in example_log else ""))
    REPORTS.append("\n".join(lines))
    broken = [r for r, c in per_rule.items() if c["generated"] >= 5 and c["stillborn"] == c["generated"]]
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
