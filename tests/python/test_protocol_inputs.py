"""The generated inputs of checking protocols (`protocols/*.json`, python/kmut/generators.py):
every column a protocol file names is one the worker can draw, and each protocol generator draws
what its protocol says."""

from __future__ import annotations

import json
import math

import pytest
import torch

from kmut import generators, loader
from kmut.contract import Contract, set_seed

from .conftest import ROOT

DEMO = ROOT / "tests" / "fixtures" / "L1p19_witness_demo.py"
PROTOCOLS = sorted((ROOT / "protocols").glob("*.json"))


def test_every_protocol_generator_is_a_spec_the_worker_draws_and_names_alike():
    fields, K, _ = loader.load(DEMO, torch)
    seen = 0
    for path in PROTOCOLS:
        for g in json.loads(path.read_text())["inputs"].get("generated", []):
            for sizes in g["sizes"]:
                sizes = "small" if sizes in ("official", "boundary") else sizes  # the demo's own sizes
                spec = generators.Spec(g["generator"], float(g["scale"]), sizes)
                assert generators.parse(spec.name()) == spec, f"{path.name}: {spec.name()}"
                drawn = generators.draw(spec, fields, K, 5, torch)
                assert drawn[0].shape == (512,) and torch.isfinite(drawn[0]).all(), f"{path.name}: {spec.name()}"
                seen += 1
    assert seen >= 7, "KBV's four draws, the fuzz, the Illusion and robust-kbench"


def test_the_witness_search_never_tries_a_protocol_generator():
    fields, K, _ = loader.load(DEMO, torch)
    tried = {generators.parse(n).generator for n in generators.witness_specs(fields, K, [256])}
    assert not tried & {*generators.PROTOCOL_GENERATORS, "fresh1", "fresh2", "fresh3", "fresh4"}


def test_fresh_draws_continue_the_rng_after_the_last_trial_and_scale_floats_only():
    K = Contract()

    def gen(torch, s):
        return [torch.rand(s["n"]), torch.randint(0, 7, (s["n"],))]

    fields = {"name": "L1p95_x", "dims": {"n": K.dim(64)},
              "suites": [K.suite("T0_original", gen, purpose="p"), K.suite("T1", gen, purpose="p", sizes={"n": 8}, small=True)]}
    seed = 1234
    set_seed(torch, seed)
    draws = [gen(torch, {"n": 64}) for _ in range(5)]  # the trial, then four hidden draws
    for k, c in ((1, 1.0), (2, 3.0), (3, 0.01), (4, -1.0)):
        name = generators.Spec(f"fresh{k}", c, "official").name()
        assert name == f"W:fresh{k}:{ {1.0: '1', 3.0: '3', 0.01: '0.01', -1.0: '-1'}[c] }:official", "as protocol.rs names it"
        got = generators.draw(generators.parse(name), fields, K, seed, torch)
        assert torch.equal(got[0], draws[k][0] * c), f"draw {k} is the {k}-th after the trial, times {c}"
        assert torch.equal(got[1], draws[k][1]), "integer inputs are never scaled"
    assert not torch.equal(draws[1][0], draws[0][0]), "a fresh draw is not the trial's tensor"
    with pytest.raises(ValueError, match="positive"):
        generators.parse("W:scaled:-1:small")
    with pytest.raises(ValueError, match="unknown generator"):
        generators.parse("W:fresh0:1:small")


def test_uniform_normal_and_logscale_draw_their_distributions():
    fields, K, _ = loader.load(DEMO, torch)
    uniform = generators.draw(generators.parse("W:uniform:10:small"), fields, K, 3, torch)[0]
    assert uniform.min() >= -10 and uniform.max() < 10 and uniform.min() < -5 and uniform.max() > 5
    assert abs(uniform.mean().item()) < 1.5, "centred on 0"
    normal = generators.draw(generators.parse("W:normal:1:small"), fields, K, 3, torch)[0]
    assert 0.8 < normal.std().item() < 1.2 and (normal < 0).any()
    dense = generators.draw(generators.parse("W:dense:1:small"), fields, K, 3, torch)[0]
    scales = set()
    for seed in range(1, 40):
        plain = generators.draw(generators.parse("W:dense:1:small"), fields, K, seed, torch)[0]
        fuzz = generators.draw(generators.parse("W:logscale:1000:small"), fields, K, seed, torch)[0]
        ratio = fuzz[plain > 0.1] / plain[plain > 0.1]
        s = ratio.mean().item()
        assert torch.allclose(ratio, torch.full_like(ratio, s), rtol=1e-5), "one scale per column"
        assert 1e-3 * (1 - 1e-5) <= s <= 1e3 * (1 + 1e-5)
        scales.add(round(math.log10(s)))
    assert len(scales) >= 4, f"spread over the six decades: {sorted(scales)}"
    again = generators.draw(generators.parse("W:logscale:1000:small"), fields, K, 3, torch)[0]
    assert torch.equal(again, generators.draw(generators.parse("W:logscale:1000:small"), fields, K, 3, torch)[0])
    assert not torch.equal(dense, again)
