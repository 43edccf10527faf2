"""The exported input module (`kmut synth --module`, kmut.export_inputs): it needs no kmut, and it
redraws the very tensors kmut's runner draws for each chosen input, bit for bit."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
import torch

from kmut import export_inputs, generators, loader
from kmut.contract import draw_inputs

from .conftest import ROOT

SOFTMAX = "substrates/accepted/L1p23_softmax.py"
HINGE = "substrates/accepted/L1p100_hingeloss.py"  # float predictions and +-1 targets


def module_from(text, tmp_path, name="synth_inputs"):
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


def protocol_for(problems):
    return {"selection": {"from": "official", "tolerance": 0.01, "budget": 2, "split": "none"},
            "problems": {name: {"path": path, "level": 1, "inputs": [{"suite": s, "seed": seed} for s, seed in inputs]}
                         for name, (path, inputs) in problems.items()}}


def every_generator(fields, K):
    """One spec of every generator at the small sizes, a boundary size and the official sizes."""
    names = [generators.Spec(g, 10.0 if scaled else 1.0, "small").name() for g, scaled in generators.GENERATORS.items() if g != "boundary"]
    names += [n for n in generators.witness_specs(fields, K, [256]) if n.startswith("W:boundary")][:1]
    return names


def same(a, b):
    assert len(a) == len(b)
    for x, y in zip(a, b):
        if isinstance(x, torch.Tensor):
            assert x.dtype == y.dtype and x.shape == y.shape and torch.equal(x, y), (x, y)
        else:
            assert x == y


@pytest.mark.parametrize("path", [SOFTMAX, HINGE])
def test_the_module_redraws_the_generators_and_suites_bit_for_bit(path, tmp_path):
    fields, K, _ = loader.load(ROOT / path, torch)
    specs = every_generator(fields, K)
    own = [s.name for s in fields["suites"] if s.small]
    chosen = [(n, seed) for n in specs for seed in (1, 2)] + [("T0_original", 734796314)] + [(n, 5) for n in own]
    name = fields["name"]
    mod, _ = module_from(export_inputs.render(protocol_for({name: (path, chosen)}), ROOT), tmp_path)
    t0 = next(s for s in fields["suites"] if s.name == "T0_original")
    suites = {s.name: s.gen for s in fields["suites"]}
    assert [i["suite"] for i in mod.inputs_of(name)] == [s for s, _ in chosen]
    for index, (suite, seed) in enumerate(chosen):
        entry = mod.inputs_of(name)[index]
        if suite == "T0_original":
            # The official sizes are big: compare the sizes, not the draw.
            assert entry["sizes"] == K.sizes_for(fields["dims"], t0)
            continue
        got = mod.get_inputs(name, index, t0.gen, torch, generators=suites)
        if generators.is_spec(suite):
            want = generators.draw(generators.parse(suite), fields, K, seed, torch)
        else:
            s = next(s for s in fields["suites"] if s.name == suite)
            want = draw_inputs(s, seed, K.sizes_for(fields["dims"], s), torch)
        same(got, want)


def test_the_module_needs_only_torch_and_says_what_it_cannot_draw(tmp_path):
    chosen = [("W:sparse:10:small", 1), ("T1_remainder", 5)]
    text = export_inputs.render(protocol_for({"L1p23_softmax": (SOFTMAX, chosen)}), ROOT)
    assert "kmut" not in "".join(line for line in text.splitlines() if line.startswith(("import", "from")))
    _, path = module_from(text, tmp_path)
    probe = (f"import importlib.util, sys; s = importlib.util.spec_from_file_location('m', {str(path)!r}); m = importlib.util.module_from_spec(s); "
             "s.loader.exec_module(m); import torch; m.get_inputs('L1p23_softmax', 0, lambda t, z: [t.rand(z['batch'], z['dim'])]); "
             "print(sorted(k for k in sys.modules if k.startswith('kmut')))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    mod, _ = module_from(text, tmp_path, "again")
    with pytest.raises(LookupError, match="T1_remainder"):
        mod.get_inputs("L1p23_softmax", 1, None, torch)
    with pytest.raises(KeyError, match="L1p23_softmax"):
        mod.inputs_of("L9p9_absent")


def test_from_get_inputs_draws_a_kernelbench_module_at_the_chosen_sizes(tmp_path):
    # A KernelBench-style problem: size globals read by get_inputs().
    problem = tmp_path / "kb_softmax.py"
    problem.write_text("import torch\nbatch_size = 4096\ndim = 393216\n\ndef get_inputs():\n    return [torch.rand(batch_size, dim)]\n")
    spec = importlib.util.spec_from_file_location("kb_softmax", problem)
    kb = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kb)
    fields, K, _ = loader.load(ROOT / SOFTMAX, torch)
    text = export_inputs.render(protocol_for({"L1p23_softmax": (SOFTMAX, [("W:spiky:100:small", 2)])}), ROOT)
    mod, _ = module_from(text, tmp_path)
    got = mod.get_inputs("L1p23_softmax", 0, mod.from_get_inputs(kb, {"batch": "batch_size"}), torch)
    same(got, generators.draw(generators.parse("W:spiky:100:small"), fields, K, 2, torch))
    assert (kb.batch_size, kb.dim) == (4096, 393216), "the module's globals are restored"
    with pytest.raises(AttributeError, match="batch"):
        mod.get_inputs("L1p23_softmax", 0, mod.from_get_inputs(kb), torch)


def test_a_file_that_is_not_a_synth_protocol_is_refused_naming_it(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"protocols": []}))
    out = subprocess.run([sys.executable, "-m", "kmut.export_inputs", str(bad), "--out", str(tmp_path / "m.py")], capture_output=True, text=True)
    assert out.returncode == 2 and "bad.json" in out.stderr and "problems" in out.stderr
    assert not (tmp_path / "m.py").exists()


def test_kmut_synth_on_a_witness_search_exports_stored_valid_specs_the_module_redraws(tmp_path):
    """End to end on the CPU backend: a witness search of the demo substrate, then `kmut synth`;
    every chosen input is a stored column that may witness, and the module redraws each
    generated one as kmut.generators does."""
    import os
    import sqlite3

    from .conftest import kmut_command
    from .test_witness import DEMO, witness

    kmut = kmut_command()
    witness(kmut, tmp_path)
    paths = {k: tmp_path / f"synth.{k}" for k in ("json", "svg", "py")}
    cmd = [*kmut, "synth", "--backend", "cpu", "--store", str(tmp_path / "s.sqlite"), "--budget", "1", "2", "--exact",
           "--out", str(paths["json"]), "--svg", str(paths["svg"]), "--module", str(paths["py"]), "--json"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=dict(os.environ, KMUT_NO_PROGRESS="1"), cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    s = json.loads(out.stdout)
    assert s["totals"]["witnessed"] >= 1 and s["totals"]["possibly_equivalent"] >= 1, s["totals"]
    assert [p["budget"] for p in s["curve"]] == [1, 2]
    assert paths["svg"].read_text().startswith("<svg")
    protocol = json.loads(paths["json"].read_text())
    (name, problem), = protocol["problems"].items()
    chosen = problem["inputs"]
    assert chosen and any(i["suite"].startswith("W:boundary") for i in chosen), chosen
    with sqlite3.connect(tmp_path / "s.sqlite") as db:
        for i in chosen:
            valid, = db.execute("SELECT valid FROM baselines WHERE substrate = ? AND suite = ? AND seed = ?", (name, i["suite"], i["seed"])).fetchone()
            assert valid in (1, None), i  # a generated column the gate admitted, or the substrate's own suite
    mod, _ = module_from(paths["py"].read_text(), tmp_path, "exported")
    fields, K, _ = loader.load(DEMO, torch)
    t0 = next(x for x in fields["suites"] if x.name == "T0_original")
    for index, i in enumerate(chosen):
        if generators.is_spec(i["suite"]):
            same(mod.get_inputs(name, index, t0.gen, torch), generators.draw(generators.parse(i["suite"]), fields, K, i["seed"], torch))
