"""kmut.own_kernels: kmut's own kernels are compiled once and kept between processes, and one
that cannot be loaded leaves its caller on the torch path, said once."""

from __future__ import annotations

import os

import pytest
import torch

from kmut import checksum_fused, compare_fused, own_kernels, steps_fused
from kmut.nvrtc import compile_cuda


@pytest.mark.parametrize(("module", "filename"), [(compare_fused, "kmut_compare.cu"), (checksum_fused, "kmut_checksum.cu"),
                                                 (steps_fused, "kmut_step_stats.cu")])
def test_every_own_kernel_compiles_with_nvrtc(module, filename):
    built = compile_cuda(module.SOURCE, filename, "sm_90", kernels=[module.KERNEL])
    assert built["image"], built["log"]
    assert module.KERNEL in built["symbols"]


def test_the_image_cache_is_named_by_source_and_architecture(tmp_path, monkeypatch):
    monkeypatch.setenv("KMUT_CACHE_DIR", str(tmp_path))
    a = own_kernels.cache_path("source A", "sm_90")
    assert a.parent == tmp_path / "own" and a.suffix == ".cubin"
    assert a == own_kernels.cache_path("source A", "sm_90")
    assert a != own_kernels.cache_path("source B", "sm_90")
    assert a != own_kernels.cache_path("source A", "sm_100")
    own_kernels._store(a, b"image bytes")
    assert a.read_bytes() == b"image bytes"
    assert [p.name for p in a.parent.iterdir()] == [a.name], "no temporary file is left behind"


def test_a_read_only_cache_is_no_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    own_kernels._store(blocker / "own" / "x.cubin", b"image")  # cannot be written: ignored


@pytest.mark.skipif(torch.cuda.is_available(), reason="on a GPU the kernel loads")
def test_without_a_gpu_the_kernel_is_unavailable_and_said_once(monkeypatch, capsys):
    monkeypatch.setattr(own_kernels, "_loaded", {})
    assert own_kernels.load(compare_fused.SOURCE, "kmut_compare.cu", compare_fused.KERNEL, 0, torch) is None
    first = capsys.readouterr().err
    assert "kmut_compare.cu could not be loaded on device 0" in first and "measuring with torch" in first
    assert own_kernels.load(compare_fused.SOURCE, "kmut_compare.cu", compare_fused.KERNEL, 0, torch) is None
    assert capsys.readouterr().err == "", "a failure is said once per process and device"


def test_the_workers_no_fused_switch_turns_both_kernels_off(monkeypatch):
    import argparse

    from kmut import _run_worker, checksum_fused, compare

    monkeypatch.delenv("KMUT_COMPARE", raising=False)
    monkeypatch.delenv("KMUT_CHECKSUM", raising=False)
    parser = argparse.ArgumentParser()
    _run_worker.add_throughput_options(parser)
    try:
        _run_worker.apply_throughput_options(parser.parse_args([]))
        assert compare_fused.enabled() and checksum_fused.enabled(), "the kernels are the default"
        _run_worker.apply_throughput_options(parser.parse_args(["--no-fused"]))
        assert not compare_fused.enabled() and not checksum_fused.enabled()
    finally:
        compare.set_mode("fast")
        for name in ("KMUT_COMPARE", "KMUT_CHECKSUM"):
            os.environ.pop(name, None)
