"""`kmut bench compare` times both comparisons in both modes on the same tensors and says so."""

from __future__ import annotations

import json
import subprocess

from .conftest import ROOT, kmut_command


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*kmut_command(), "bench", "compare", *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def test_every_case_is_timed_in_both_modes():
    p = run("--elements", "3000", "--steps", "3", "--repeat", "1", "--device", "cpu", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["device"].startswith("CPU") and out["elements"] == 3000 and out["steps"] == 3
    cases = [(r["what"], r["case"]) for r in out["rows"]]
    assert cases == [("output", "identical"), ("output", "survivor (1e-5 noise)"), ("output", "killed (1e-1 noise)"),
                     ("steps", "3 steps, identical"), ("steps", "3 steps, fault at step 1")]
    for r in out["rows"]:
        assert r["fp64_ms"] > 0 and r["fast_ms"] > 0
        assert abs(r["speedup"] - r["fp64_ms"] / r["fast_ms"]) < 1e-9
        assert (r.get("first_pass_ms", 0) > 0) == (r["what"] == "output"), "the torch first pass is timed for outputs"
    assert out["checksum"]["tensors"] == 66 and out["checksum"]["torch_ms"] > 0
    assert out["checksum"]["kernel_ms"] is None, "the checksum kernel runs only on a GPU"


def test_bad_options_are_refused_with_the_reason():
    p = run("--steps", "1")
    assert p.returncode != 0
    assert "--steps at least 2" in p.stderr
