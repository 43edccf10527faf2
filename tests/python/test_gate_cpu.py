"""`kmut gate --backend cpu` end to end: the real CLI, the real worker, NVRTC, g++ and torch.

The CPU backend runs each candidate's small suites as an author's pre-check: accepted substrates
come out PRECHECK OK (never PASS), a wrong kernel fails `suites` naming the file, the suite, the
seed and tau*, a missing barrier fails `determinism` across thread orders, and `--accept` is
refused. The fixtures under tests/fixtures/gate_cpu/ are small candidates with one fault each.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, SUBSTRATES

FIXTURES = ROOT / "tests" / "fixtures" / "gate_cpu"
WRONG_THRESHOLD = FIXTURES / "candidate_L1p19_relu_wrong_threshold.py"
RACY = FIXTURES / "candidate_L1p23_softmax_racy.py"
CPU_CHECKS = ("suites", "nan_fill", "determinism")

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="the CPU backend needs g++")


@pytest.fixture(scope="module")
def cache_dir(tmp_path_factory) -> Path:
    # One CPU library cache for the module: the same original is built once, not per test.
    return tmp_path_factory.mktemp("kmut-cache")


def gate(kmut_cmd, cache_dir, tmp_path, *args, env_extra=None, path=None):
    """Run `kmut gate ARGS --json`; return (exit code, report by candidate path, stdout, stderr)."""
    report = tmp_path / "gate.json"
    env = dict(os.environ, KMUT_CACHE_DIR=str(cache_dir), **(env_extra or {}))
    if path is not None:
        env["PATH"] = path
    out = subprocess.run([*kmut_cmd, "gate", *map(str, args), "--json", str(report)], capture_output=True, text=True,
                         timeout=600, env=env, check=False)
    items = json.loads(report.read_text()) if report.exists() else []
    return out.returncode, {Path(i["path"]).name: i for i in items}, out.stdout, out.stderr


def checks(item) -> dict[str, dict]:
    return {c["check"]: c for c in item["checks"]}


def test_accepted_substrates_are_a_precheck_pass_on_the_cpu(kmut_cmd, cache_dir, tmp_path):
    names = ["L1p19_relu.py", "L1p23_softmax.py", "L2p1_conv2d_relu_biasadd.py"]
    rc, report, stdout, stderr = gate(kmut_cmd, cache_dir, tmp_path, "--backend", "cpu", "-j", "2",
                                      *[SUBSTRATES / "accepted" / n for n in names])
    assert rc == 0, stdout + stderr
    assert sorted(report) == sorted(names)
    for name, item in report.items():
        assert item["verdict"] == "PRECHECK OK", (name, stdout)
        assert item["backend"] == "cpu"
        c = checks(item)
        for check in CPU_CHECKS:
            assert c[check]["status"] == "pass", (name, check, c[check]["detail"])
            assert c[check]["data"]["backend"] == "cpu"
            assert c[check]["detail"].startswith("CPU backend: ")
        assert c["fp64"]["status"] == "no_gpu"
        assert "CPU backend: g++ built" in c["compile"]["detail"]
        # Every seed of the small suite ran.
        (row,) = c["suites"]["data"]["suites"]
        assert row["inputs"] == row["passed"] == len(row["seeds"]) >= 2
    assert "PASS " not in stdout and "cpu ok" in stdout
    assert "ran on the CPU backend (small suites, a pre-check)" in stdout


def test_a_wrong_kernel_fails_naming_the_file_suite_seed_and_tau(kmut_cmd, cache_dir, tmp_path):
    rc, report, stdout, stderr = gate(kmut_cmd, cache_dir, tmp_path, "--backend", "cpu", WRONG_THRESHOLD)
    assert rc == 1, stdout + stderr
    item = report[WRONG_THRESHOLD.name]
    assert item["verdict"] == "FAIL"
    suites = checks(item)["suites"]
    assert suites["status"] == "fail"
    # Values in (0, 0.5] come out 0: |ref - out| reaches 0.5 on every seed.
    for seed in (1, 2):
        assert f"{WRONG_THRESHOLD}: suite T1_remainder_signed seed {seed}: allclose fails at atol=0.01 rtol=0.01, tau* 0.5" in suites["detail"]
    assert suites["data"]["suites"][0]["passed"] == 0
    assert "cpu FAIL" in stdout


def test_a_missing_barrier_fails_determinism_across_thread_orders(kmut_cmd, cache_dir, tmp_path):
    rc, report, stdout, stderr = gate(kmut_cmd, cache_dir, tmp_path, "--backend", "cpu", RACY)
    assert rc == 1, stdout + stderr
    det = checks(report[RACY.name])["determinism"]
    assert det["status"] == "fail", det
    assert det["data"]["backend"] == "cpu"
    assert "T1_remainder seed 1: kernel softmax_kernel (step 0) differs between thread orders 0 (forward) and" in det["detail"]
    assert det["detail"].endswith("a race")


def test_the_same_softmax_with_its_barrier_is_deterministic(kmut_cmd, cache_dir, tmp_path):
    # The racy fixture minus its fault: the determinism check fails for the barrier, nothing else.
    fixed = RACY.read_text(encoding="utf-8").replace("// the fault: no __syncthreads() here", "__syncthreads();")
    assert fixed != RACY.read_text(encoding="utf-8")
    path = tmp_path / "candidate_L1p23_softmax.py"
    path.write_text(fixed, encoding="utf-8")
    rc, report, stdout, stderr = gate(kmut_cmd, cache_dir, tmp_path, "--backend", "cpu", path)
    assert rc == 0, stdout + stderr
    assert {c: r["status"] for c, r in checks(report[path.name]).items() if c in CPU_CHECKS} == dict.fromkeys(CPU_CHECKS, "pass")


def test_accept_with_the_cpu_backend_is_refused_and_moves_nothing(kmut_cmd, cache_dir, tmp_path):
    path = tmp_path / "candidate_L1p19_relu.py"
    shutil.copy(SUBSTRATES / "accepted" / "L1p19_relu.py", path)
    rc, report, _stdout, stderr = gate(kmut_cmd, cache_dir, tmp_path, "--backend", "cpu", "--accept", path)
    assert rc == 2
    assert "acceptance needs the GPU checks; run `kmut gate --accept` (without --backend cpu) on a GPU" in stderr
    assert path.exists() and not (tmp_path / "accepted").exists()
    assert report == {}  # refused before any candidate ran


def test_a_kernel_g_plus_plus_cannot_build_fails_compile_with_the_log_head(kmut_cmd, cache_dir, tmp_path):
    # NVRTC knows __byte_perm; the CPU backend's prelude does not emulate it.
    src = (SUBSTRATES / "accepted" / "L1p19_relu.py").read_text(encoding="utf-8")
    old = "    out[i] = v > 0.0f ? v : 0.0f;"
    assert old in src
    src = src.replace(old, "    out[i] = __uint_as_float(__byte_perm(__float_as_uint(v > 0.0f ? v : 0.0f), 0, 0x3210));")
    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(src, encoding="utf-8")
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "__byte_perm" in text)
    rc, report, stdout, stderr = gate(kmut_cmd, cache_dir, tmp_path, "--backend", "cpu", path)
    assert rc == 1, stdout + stderr
    c = checks(report[path.name])
    assert c["compile"]["status"] == "fail"
    detail = c["compile"]["detail"]
    assert detail.startswith(f"{path}: NVRTC compiled it")
    assert "the CPU backend's g++ rejected its C++ translation" in detail
    assert f"{path}:{line}:" in detail and "__byte_perm" in detail
    assert all(c[k]["status"] == "skip" for k in ("descriptor", *CPU_CHECKS))


def test_no_compiler_is_a_clear_error_naming_what_was_looked_for(kmut_cmd, cache_dir, tmp_path):
    rel = SUBSTRATES / "accepted" / "L1p19_relu.py"
    rc, _, _, stderr = gate(kmut_cmd, cache_dir, tmp_path, "--backend", "cpu", rel, env_extra={"KMUT_CXX": "/nonexistent/g++-12"})
    assert rc == 2
    assert "found none: cannot run the C++ compiler /nonexistent/g++-12" in stderr
    # No $KMUT_CXX and no g++ on PATH: the message names g++ and where to get one.
    env_path = str(Path(sys.executable).parent)
    assert shutil.which("g++", path=env_path) is None
    env = {k: v for k, v in os.environ.items() if k != "KMUT_CXX"}
    out = subprocess.run([*kmut_cmd, "gate", "--backend", "cpu", str(rel)], capture_output=True, text=True, timeout=120,
                         env=dict(env, PATH=env_path, KMUT_CACHE_DIR=str(cache_dir)), check=False)
    assert out.returncode == 2, out.stderr
    assert "cannot run the C++ compiler g++" in out.stderr and "install g++" in out.stderr


def test_the_default_backend_is_still_the_gpu(kmut_cmd, cache_dir, tmp_path):
    import torch

    # Shrunk official sizes, as in test_gate_gpu: on a GPU machine this runs every suite for real.
    src = (SUBSTRATES / "accepted" / "L1p19_relu.py").read_text(encoding="utf-8")
    small = src.replace("K.dim(4096)", "K.dim(64)").replace("K.dim(393216)", "K.dim(5000)")
    assert small != src
    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(small, encoding="utf-8")
    rc, report, stdout, stderr = gate(kmut_cmd, cache_dir, tmp_path, path)
    assert rc == 0, stdout + stderr
    item = report[path.name]
    assert item["backend"] == "gpu"
    assert not any(c["data"].get("backend") == "cpu" for c in item["checks"] if isinstance(c["data"], dict))
    expected = "pass" if torch.cuda.is_available() else "no_gpu"
    assert all(checks(item)[k]["status"] == expected for k in (*CPU_CHECKS, "fp64"))
    assert item["verdict"] == ("PASS" if torch.cuda.is_available() else "PRECHECK OK")


def test_running_out_of_memory_is_an_error_retried_alone_never_a_fail(kmut_cmd, cache_dir, tmp_path):
    # The accepted ReLU, whose reference runs out of GPU memory in the suites (as beside other
    # jobs on a full GPU): no verdict on the candidate, gated again with more of the GPU, reported as ERROR.
    # (Its first call, the CPU descriptor check on the same small input, is let through.)
    src = (SUBSTRATES / "accepted" / "L1p19_relu.py").read_text(encoding="utf-8")
    oom = src.replace("        (x,) = inputs\n        return torch.relu(x)",
                      "        (x,) = inputs\n        _calls.append(1)\n        if len(_calls) > 1:\n"
                      "            raise torch.cuda.OutOfMemoryError('CUDA out of memory. Tried to allocate 6.00 GiB')\n"
                      "        return torch.relu(x)")
    oom = oom.replace('CUDA = r"""', '_calls = []\n\nCUDA = r"""', 1)
    assert "OutOfMemoryError" in oom and "_calls = []" in oom
    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(oom, encoding="utf-8")
    rc, report, stdout, stderr = gate(kmut_cmd, cache_dir, tmp_path, "--backend", "cpu", "-j", "2", path)
    item = report[path.name]
    assert item["verdict"] == "ERROR", (stdout, stderr)
    suites = checks(item)["suites"]
    assert suites["status"] == "environment"
    assert "out of GPU memory: CUDA out of memory" in suites["detail"] and "no verdict" in suites["detail"]
    # -j 2: first with half of the 90% share, then again with all of it, then ERROR.
    assert "it runs again with more of the GPU" in stderr and "again with 90% of the GPU" in stderr, stderr
    assert rc == 1, "an error of the run is not a success"
    assert "FAIL" not in stdout, stdout
