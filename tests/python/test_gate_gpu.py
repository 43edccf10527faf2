"""The gate's GPU checks catch what they exist for (run on the device; skipped without CUDA)."""

from __future__ import annotations

import pytest

from .test_gate_rejects import BASE, run_worker

pytestmark = pytest.mark.gpu


# The official 4096 x 393216 inputs cost a minute per gate; these tests shrink the declared
# official sizes so each check runs in seconds. What they test does not depend on the size.
SMALL = BASE.replace("K.dim(4096)", "K.dim(64)").replace("K.dim(393216)", "K.dim(5000)")


def gate(tmp_path, src):
    assert src != BASE
    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(src, encoding="utf-8")
    return run_worker(path)


def test_the_accepted_relu_passes_every_check(tmp_path):
    results = gate(tmp_path, SMALL)
    assert {c: r["status"] for c, r in results.items()} == {c: "pass" for c in results}


def test_an_unwritten_last_element_fails_the_nan_fill_check(tmp_path):
    results = gate(tmp_path, SMALL.replace("if (i >= n) return;", "if (i >= n - 1) return;"))
    assert results["nan_fill"]["status"] == "fail"
    detail = results["nan_fill"]["detail"]
    # The unwritten element keeps the NaN fill: either the output differs from the normal run's
    # garbage there, or (when that garbage was itself an old NaN fill) the NaN is left in place.
    assert "T0_original: " in detail
    assert "differs from the normal run" in detail or "NaN left in the output of step(s) [0]" in detail


def test_an_out_of_bounds_write_is_reported_by_cuda_error_name_and_the_worker_survives(tmp_path):
    results = gate(tmp_path, SMALL.replace("out[i] = v > 0.0f ? v : 0.0f;", "out[i + ((long long)1 << 40)] = v;"))
    assert results["suites"]["status"] == "fail"
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in results["suites"]["detail"]
    assert results["fp64"]["status"] == "skip"


def test_a_wrong_value_fails_the_suites_with_its_tau_star(tmp_path):
    results = gate(tmp_path, SMALL.replace("out[i] = v > 0.0f ? v : 0.0f;", "out[i] = v > 0.0f ? v * 1.05f : 0.0f;"))
    assert results["suites"]["status"] == "fail"
    assert "worst tau*" in results["suites"]["detail"]


def test_a_kernel_with_cpp_linkage_launches_through_its_mangled_symbol(tmp_path):
    results = gate(tmp_path, SMALL.replace('extern "C" __global__', "__global__"))
    assert {c: r["status"] for c, r in results.items()} == {c: "pass" for c in results}
