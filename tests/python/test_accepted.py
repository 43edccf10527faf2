"""Every accepted substrate, checked without a GPU: contract, official input shapes, NVRTC."""

from __future__ import annotations

import re

import pytest
import torch

from kmut import loader
from kmut.contract import OFFICIAL_SEEDS
from kmut.nvrtc import compile_cuda
from kmut.validate import kernel_names, validate_fields

from .conftest import ACCEPTED, FIRST_SIX
from .facts import expected_inputs

ids = [p.stem for p in ACCEPTED]


def test_the_six_first_substrates_are_accepted():
    names = {p.stem for p in ACCEPTED}
    assert FIRST_SIX <= names
    assert {1, 2, 3} <= {int(n[1]) for n in names}


@pytest.mark.parametrize("path", ACCEPTED, ids=ids)
def test_accepted_substrate_meets_the_contract_and_is_named_after_its_file(path):
    fields, _K, _ = loader.load(path, torch)
    assert validate_fields(fields, str(path)) == []
    assert fields["name"] == path.stem


@pytest.mark.parametrize("path", ACCEPTED, ids=ids)
def test_t0_original_yields_the_shapes_and_dtypes_of_get_inputs(path):
    fields, K, _ = loader.load(path, torch)
    m = re.match(r"L(\d)p(\d+)_", fields["name"])
    expected = expected_inputs(int(m[1]), int(m[2]))
    t0 = next(s for s in fields["suites"] if s.name == "T0_original")
    assert t0.seeds == OFFICIAL_SEEDS
    # The meta device gives shapes and dtypes without allocating gigabytes.
    with torch.device("meta"):
        inputs = t0.gen(torch, K.sizes_for(fields["dims"], t0))
    assert_matches_get_inputs(inputs, t0, expected)


def assert_matches_get_inputs(inputs, t0, expected):
    """T0_original's inputs against v0.1's get_inputs(): shape, dtype, and where it draws them
    (an input v0.1 draws on the GPU must come from an `on_device` suite)."""
    got = [tuple(t.shape) if isinstance(t, torch.Tensor) else None for t in inputs]
    assert got == [tuple(e["shape"]) if e else None for e in expected]
    for i, (t, e) in enumerate(zip(inputs, expected)):
        if e is None:
            continue
        assert str(t.dtype) == f"torch.{e['dtype']}", f"input {i}: {t.dtype}, but v0.1's get_inputs() draws {e['dtype']}"
    on_gpu = any(e and e["device"] == "cuda" for e in expected)
    assert t0.on_device == on_gpu, "v0.1 draws these inputs on the GPU (its generator)" if on_gpu else "v0.1 draws these inputs on the CPU"


def test_the_dtype_check_catches_a_substrate_drawing_fp32_where_v01_draws_fp16():
    # L1/97 under v0.1: fp16 on the GPU. An fp32 CPU draw (what the substrate did before) fails.
    expected = expected_inputs(1, 97)
    fake = type("Suite", (), {"on_device": False})()
    with torch.device("meta"):
        inputs = [torch.rand(32, 32, 512, 1024) for _ in range(3)]
    with pytest.raises(AssertionError, match="draws float16"):
        assert_matches_get_inputs(inputs, fake, expected)
    with torch.device("meta"):
        inputs = [torch.rand(32, 32, 512, 1024, dtype=torch.float16) for _ in range(3)]
    with pytest.raises(AssertionError, match="on the GPU"):
        assert_matches_get_inputs(inputs, fake, expected)


@pytest.mark.parametrize("path", ACCEPTED, ids=ids)
def test_nvrtc_compiles_every_accepted_substrate_on_the_cpu(path):
    fields, _K, _ = loader.load(path, torch)
    result = compile_cuda(fields["cuda"], f"{fields['name']}.cu", "sm_90", kernels=kernel_names(fields))
    assert result["image"] is not None, result["rendered"]
    for name in kernel_names(fields):
        assert result["symbols"][name] in result["kernels"]
    assert result["nvrtc_version"][0] == 13
