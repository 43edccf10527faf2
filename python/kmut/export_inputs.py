"""`kmut synth --module`: the chosen inputs as a small self-contained Python module.

    python -m kmut.export_inputs PROTOCOL.json --out synth_inputs.py

reads the protocol file `kmut synth --out` writes (each problem's chosen suite and seed), loads
each problem's substrate to resolve the sizes every input is drawn at, and writes a module that
needs only torch: a KernelBench user imports it and draws the same tensors kmut ran, seeded,
`get_inputs()`-style. What it reproduces (tested bit for bit in tests/python/test_export_inputs.py):

* `T0_original` under a seed: the problem's own `get_inputs()` after `torch.manual_seed(seed)`.
* a generated `W:` input (`kmut.generators`): `T0_original`'s draw at the spec's sizes, then the
  spec's transform of every floating-point tensor, its own randomness from a CPU generator seeded
  with `seed ^ 0x5EED`.
* a substrate's other targeted suites: their generators live in the substrate file, so the caller
  passes them (`generators={"T1_remainder": gen}`); without one the module says so.
"""

from __future__ import annotations

import argparse
import json
import pprint
import sys
from pathlib import Path
from typing import Any

from . import generators

# The rendered module's code. It must draw exactly as kmut.generators.draw and
# kmut.contract.draw_inputs do; the test compares their tensors bit for bit.
_BODY = r'''
SEED_XOR = 0x5EED  # the transform's generator: the column's seed ^ 0x5EED (kmut.generators.draw)


def _set_seed(torch, seed):
    # KernelBench's set_seed, as kmut's runner calls it before drawing.
    torch.manual_seed(seed)
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.manual_seed(seed)


def transform(generator, scale, u, torch, g):
    """One floating-point tensor after a generated input's generator (same shape and dtype)."""
    c = scale
    if generator in ("dense", "boundary"):
        return u
    if generator == "scaled":
        return u * c
    if generator == "shifted":
        return u + c
    if generator == "signed":
        return (u * 2.0 - 1.0) * c
    if generator == "negative":
        return -u * c
    if generator == "constant":
        return torch.full_like(u, c)
    if generator == "ties":
        return torch.round(u * 4.0) / 4.0 * c
    if generator == "ramp":
        n = max(u.numel(), 1)
        return (torch.arange(u.numel(), dtype=torch.float64) / n * c).to(u.dtype).to(u.device).reshape(u.shape)
    if generator == "sparse":
        mask = (torch.rand(u.shape, generator=g) < 0.01).to(u.device)
        return torch.where(mask, (1.0 + u) * c, torch.zeros_like(u))
    if generator == "spiky":
        out = u / 1000.0
        if u.dim() == 0 or u.shape[-1] == 0:
            return out
        rows = out.reshape(-1, u.shape[-1])
        hot = torch.randint(0, u.shape[-1], (rows.shape[0],), generator=g).to(u.device)
        rows[torch.arange(rows.shape[0], device=u.device), hot] = c
        return rows.reshape(u.shape)
    raise ValueError("unknown generator %r" % (generator,))


def inputs_of(problem):
    """The chosen inputs of `problem` (a substrate name, e.g. 'L1p23_softmax'), in order."""
    if problem not in PROBLEMS:
        raise KeyError("%r is not in this module; it has: %s" % (problem, ", ".join(sorted(PROBLEMS))))
    return PROBLEMS[problem]["inputs"]


def get_inputs(problem, index, t0, torch=None, generators=None):
    """The tensors of input `index` of `problem`.

    `t0(torch, sizes)` draws the problem's official inputs (`get_inputs()`) at `sizes`, a dict
    of the problem's dimensions (`from_get_inputs` makes one from a KernelBench module).
    Inputs of a substrate's own targeted suite need that suite's generator in `generators`.
    """
    if torch is None:
        import torch
    entry = inputs_of(problem)[index]
    seed, sizes = entry["seed"], dict(entry["sizes"])
    suite = entry["suite"]
    if suite == "T0_original" or entry.get("generator"):
        gen = t0
    elif generators and suite in generators:
        gen = generators[suite]
    else:
        raise LookupError("%s input %d is the substrate's own suite %s: pass its generator (generators={%r: gen}); it is in %s"
                          % (problem, index, suite, suite, PROBLEMS[problem]["path"]))
    _set_seed(torch, seed)
    raw = list(gen(torch, sizes))
    if not entry.get("generator"):
        return raw
    g = torch.Generator(device="cpu").manual_seed(seed ^ SEED_XOR)
    return [transform(entry["generator"], entry["scale"], t, torch, g)
            if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in raw]


def from_get_inputs(module, names=None):
    """A `t0` for `get_inputs` from a KernelBench problem module: its size globals are set from
    `sizes` for the call (`names` maps kmut's dimension names to the module's globals, when they
    differ, e.g. {"batch": "batch_size"}), then restored."""
    names = names or {}

    def t0(torch, sizes):
        saved = {}
        try:
            for dim, value in sizes.items():
                name = names.get(dim, dim)
                if not hasattr(module, name):
                    raise AttributeError("%s has no global %r for the dimension %r; pass names={%r: ...}"
                                         % (getattr(module, "__name__", module), name, dim, dim))
                saved[name] = getattr(module, name)
                setattr(module, name, value)
            return module.get_inputs()
        finally:
            for name, value in saved.items():
                setattr(module, name, value)

    return t0
'''


def _entry(problem: dict[str, Any], item: dict[str, Any], fields: dict[str, Any], K: Any) -> dict[str, Any]:
    """One input with the sizes it is drawn at (and, for a generated one, its generator)."""
    suite = item["suite"]
    out: dict[str, Any] = {"suite": suite, "seed": int(item["seed"]), "source": item.get("source", "")}
    if generators.is_spec(suite):
        spec = generators.parse(suite)
        out["sizes"] = generators.sizes_of(spec, fields, K)
        out["generator"], out["scale"] = spec.generator, float(spec.scale)
    else:
        s = next((s for s in fields["suites"] if s.name == suite), None)
        if s is None:
            raise LookupError(f"{problem['path']}: no suite named {suite!r}")
        out["sizes"] = K.sizes_for(fields["dims"], s)
    return out


def render(protocol: dict[str, Any], root: Path) -> str:
    """The module's text for a protocol file; substrate paths are relative to `root`."""
    import torch

    from .loader import load

    problems: dict[str, Any] = {}
    for name, problem in sorted(protocol.get("problems", {}).items()):
        path = Path(problem["path"])
        fields, K, _ = load(path if path.is_absolute() else root / path, torch)
        problems[name] = {
            "path": problem["path"],
            "problem": fields.get("problem", ""),
            "inputs": [_entry(problem, item, fields, K) for item in problem["inputs"]],
        }
    sel = protocol.get("selection", {})
    head = (
        f'"""Inputs chosen by kmut synth (from {sel.get("from", "?")} at {sel.get("tolerance", "?")}, budget {sel.get("budget", "?")},'
        f' split {sel.get("split", "?")}): {len(problems)} problems. Needs only torch.\n\n'
        "    import torch, synth_inputs\n"
        "    import level1_23_Softmax as problem          # a KernelBench problem module\n"
        '    t0 = synth_inputs.from_get_inputs(problem, {"batch": "batch_size"})\n'
        '    x = synth_inputs.get_inputs("L1p23_softmax", 0, t0)\n\n'
        "Each input: the problem's get_inputs() at `sizes` after torch.manual_seed(seed), then, for a\n"
        "generated one, its transform of every floating-point tensor (kmut docs/synth.md).\n"
        '"""\n'
    )
    return head + _BODY + "\n\nPROBLEMS = " + pprint.pformat(problems, width=110, sort_dicts=True) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m kmut.export_inputs", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("protocol", type=Path, help="the protocol file `kmut synth --out` wrote")
    ap.add_argument("--out", type=Path, required=True, help="the module to write")
    ap.add_argument("--root", type=Path, default=Path.cwd(), help="where relative substrate paths start (default: here)")
    args = ap.parse_args(argv)
    try:
        protocol = json.loads(args.protocol.read_text())
    except (OSError, ValueError) as e:
        print(f"error: {args.protocol}: {e}", file=sys.stderr)
        return 2
    if not isinstance(protocol, dict) or not isinstance(protocol.get("problems"), dict):
        print(f"error: {args.protocol}: not a kmut synth protocol file (no `problems` object)", file=sys.stderr)
        return 2
    try:
        text = render(protocol, args.root)
    except (OSError, LookupError, ValueError) as e:
        print(f"error: {args.protocol}: {e}", file=sys.stderr)
        return 2
    args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
