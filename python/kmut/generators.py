"""Input families derived from a substrate's own `T0_original` generator: the witness search's
inputs.

A *spec* names one input column: a generator, a scale, the sizes, and (with the column's seed)
everything needed to draw it again. It travels as a suite name, so every stage (the engine, the
store, the scorer) handles witness columns as it handles a substrate's own suites:

    W:<generator>:<scale>:<sizes>          e.g.  W:scaled:100:small   W:boundary:1:batch=257

`<sizes>` is `small` (the substrate's small suite), `official` (its declared official sizes) or
`dim=value,...` over the small suite's sizes. Drawing a spec: the runner seeds torch as for any
suite, draws `T0_original`'s generator at those sizes, then transforms every floating-point input
(integer and boolean inputs, indices and masks, are never touched):

| generator | value of each element (u: the official draw, typically U[0, 1)) |
| --- | --- |
| dense | u (the official distribution; scale 1) |
| scaled | c u (same sign, large: the preferred way past the tolerance's blind band) |
| shifted | c + u (a large mean over a small spread: cancellation in variances, softmax shifts) |
| signed | c (2u - 1) (sign-mixed; cancels in sums, so its ceiling is low) |
| negative | -c u (every value negative: ReLU, max and clamp branches) |
| sparse | 0, except about 1% of elements at c (1 + u) (isolated large values among exact zeros) |
| spiky | c at one element of each last-dimension row, u / 1000 elsewhere (one-hot rows) |
| constant | c everywhere (no spread: variances, normalisations, ties) |
| ramp | c i / n along the flattened input (monotone, no ties) |
| ties | c round(4u) / 4 (few distinct levels: ties for max, argmax, sort) |
| boundary | u at a size just off a block size (`dim=value`), where tail guards matter |

Checking protocols (`protocols/*.json`) add generators the witness search does not try (they
are not in `GENERATORS`, so they never change its columns), for inputs the ones above cannot
express:

| generator | value of each element |
| --- | --- |
| uniform | U[-c, c), drawn afresh (the Correctness Illusion's U[-10, 10]) |
| normal | N(0, c^2), drawn afresh (robust-kbench's torch.randn) |
| logscale | u s, one s per column, log-uniform over the six decades [c 1e-6, c] (KernelBench-M's fuzz) |
| fresh<k> | c u', u' the k-th draw of `T0_original`'s generator after the seeded one, with no reseed in between (KernelBench-Verified's hidden inputs: the RNG continues after the last trial); c may be negative |

Whether a drawn spec may witness anything is decided on the device (`_run_worker`): the original
kernel and the fp32 reference must both stay within a margin of the fp64 reference (half the
tolerance by default), with nothing NaN or infinite where fp64 is finite.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

PREFIX = "W:"

# Generators and whether they take a scale other than 1.
GENERATORS: dict[str, bool] = {
    "dense": False,
    "scaled": True,
    "shifted": True,
    "signed": True,
    "negative": True,
    "sparse": True,
    "spiky": True,
    "constant": True,
    "ramp": True,
    "ties": True,
    "boundary": False,
}

# Generators of checking protocols' inputs (see above), never tried by the witness search.
PROTOCOL_GENERATORS: tuple[str, ...] = ("uniform", "normal", "logscale")
FRESH = "fresh"

# The scales a generator may take (`kmut ceiling` bisects between them; protocols name others).
SCALES: tuple[float, ...] = (3.0, 10.0, 100.0, 1000.0)

# The witness search's ladder: which generators at which scales, per size tier, in the order
# tried. Every generator appears at small sizes, the same-sign and sign-mixed ones at a moderate
# and a large scale; at the official sizes the dense draw and the generators whose faults need
# size (reductions long enough to lose precision, grids large enough to race). It is kept short
# on purpose: each column costs a preparation on the device (inputs, fp32 and fp64 references,
# the original's run), and a search of every generator at every scale and two seeds took 170
# columns per substrate (24,278 for the corpus), more than an H200 session prepares. Scales past
# a substrate's ceiling are refused by the validity gate, not removed here.
LADDER: dict[str, tuple[tuple[str, tuple[float, ...]], ...]] = {
    "small": (
        ("scaled", (10.0, 1000.0)),
        ("shifted", (100.0,)),
        ("signed", (3.0, 100.0)),
        ("negative", (10.0,)),
        ("sparse", (1000.0,)),
        ("spiky", (1000.0,)),
        ("constant", (10.0,)),
        ("ramp", (10.0,)),
        ("ties", (10.0,)),
    ),
    "official": (
        ("dense", (1.0,)),
        ("scaled", (1000.0,)),
        ("shifted", (100.0,)),
        ("signed", (10.0,)),
        ("sparse", (1000.0,)),
    ),
}


@dataclass(frozen=True)
class Spec:
    generator: str
    scale: float
    sizes: str  # "small", "official" or "dim=value,..."

    def name(self) -> str:
        return f"{PREFIX}{self.generator}:{_number(self.scale)}:{self.sizes}"


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def is_spec(suite_name: str) -> bool:
    return suite_name.startswith(PREFIX)


def parse(suite_name: str) -> Spec:
    """The spec a `W:` suite name stands for; ValueError naming what is wrong."""
    if not is_spec(suite_name):
        raise ValueError(f"{suite_name!r} is not a generated input (they start with {PREFIX!r})")
    parts = suite_name[len(PREFIX):].split(":")
    if len(parts) != 3:
        raise ValueError(f"{suite_name!r}: expected W:<generator>:<scale>:<sizes>")
    generator, scale, sizes = parts
    fresh = fresh_draw(generator)
    if generator not in GENERATORS and generator not in PROTOCOL_GENERATORS and fresh is None:
        known = ", ".join([*GENERATORS, *PROTOCOL_GENERATORS, FRESH + "<k>"])
        raise ValueError(f"{suite_name!r}: unknown generator {generator!r}; known: {known}")
    try:
        value = float(scale)
    except ValueError:
        raise ValueError(f"{suite_name!r}: the scale {scale!r} is not a number") from None
    if not math.isfinite(value) or value == 0 or value < 0 and fresh is None:
        raise ValueError(f"{suite_name!r}: the scale must be a positive number (negative only for {FRESH}<k>)")
    if sizes not in ("small", "official"):
        for item in sizes.split(","):
            dim, _, v = item.partition("=")
            if not dim or not v.isdigit():
                raise ValueError(f"{suite_name!r}: sizes {sizes!r} must be small, official or dim=value,...")
    return Spec(generator, value, sizes)


def fresh_draw(generator: str) -> int | None:
    """`k` of a `fresh<k>` generator (k >= 1), else None."""
    k = generator[len(FRESH):] if generator.startswith(FRESH) else ""
    return int(k) if k.isdigit() and int(k) >= 1 and generator == f"{FRESH}{int(k)}" else None


def sizes_of(spec: Spec, fields: Mapping[str, Any], K: Any) -> dict[str, int]:
    """The concrete sizes of a spec for a substrate (its small suite's, its official ones, or the
    small suite's with some dims changed), checked against the declared dims."""
    dims = fields["dims"]
    official = {k: d.official for k, d in dims.items()}
    if spec.sizes == "official":
        return official
    small = next(s for s in fields["suites"] if s.small)
    sizes = K.sizes_for(dims, small)
    if spec.sizes == "small":
        return sizes
    for item in spec.sizes.split(","):
        dim, _, v = item.partition("=")
        if dim not in dims:
            raise ValueError(f"{spec.name()}: {dim!r} is not a declared dimension of {fields['name']}")
        problem = dims[dim].check(int(v))
        if problem:
            raise ValueError(f"{spec.name()}: {dim}={v}: {problem}")
        sizes[dim] = int(v)
    return sizes


# The scratch name of the draw that generated columns share (`shares_draw`): T0_original's, under
# the column's seed and at its sizes, before any transform.
RAW = "W:raw"


def draw(spec: Spec, fields: Mapping[str, Any], K: Any, seed: int, torch: Any, on: Any = None) -> list[Any]:
    """The inputs of `spec` under `seed`: T0_original's generator at the spec's sizes (seeded as
    for any suite), then the spec's transform of every floating-point input."""
    sizes = sizes_of(spec, fields, K)
    k = fresh_draw(spec.generator)
    if k is not None:
        # KernelBench-Verified's hidden draws: get_inputs() again, the RNG continuing from the
        # seeded draw (the last trial's), the k-th draw after it kept.
        t0 = next(s for s in fields["suites"] if s.name == "T0_original")
        raw = raw_draw(fields, seed, sizes, torch, on)
        for _ in range(k):
            raw = _draw_unseeded(t0, sizes, torch, on)
        return [t * spec.scale if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in raw]
    return finish(spec, raw_draw(fields, seed, sizes, torch, on), seed, torch)


# Generators a worker may transform in place on the device, on its own copy of the draw: one
# product or sum per operation, each correctly rounded on a CPU and a GPU alike, and no memory
# beyond the copy (an out-of-place transform of an official input would hold two to four times
# it on the GPU while the column is prepared, and that peak is the column's memory footprint).
IN_PLACE = frozenset({"dense", "boundary", "scaled", "shifted", "signed", "negative"})


def shares_draw(spec: Spec) -> bool:
    """Whether `spec`'s inputs are `finish(spec, raw_draw(...))`: every generator but fresh<k>,
    which draws on past the seeded draw. All such columns of a substrate at one seed and size
    transform the same draw (the official-size ones: up to 2^31 elements of torch.rand on the
    CPU), so a worker may draw it once and share it."""
    return fresh_draw(spec.generator) is None


def raw_draw(fields: Mapping[str, Any], seed: int, sizes: Mapping[str, int], torch: Any, on: Any = None) -> list[Any]:
    """T0_original's inputs at `sizes` under `seed`, before any transform."""
    from .contract import draw_inputs

    t0 = next(s for s in fields["suites"] if s.name == "T0_original")
    return draw_inputs(t0, seed, sizes, torch, on=on)


def planned_bytes(fields: Mapping[str, Any], sizes: Mapping[str, int], torch: Any) -> int | None:
    """The bytes T0_original's inputs at `sizes` would hold, from their shapes alone: the
    generator runs on torch's meta device, where nothing is allocated. None when it cannot run
    there (a generator that builds its tensors another way)."""
    t0 = next(s for s in fields["suites"] if s.name == "T0_original")
    try:
        with torch.device("meta"):
            inputs = list(t0.gen(torch, sizes))
    except Exception:  # noqa: BLE001 - any generator the meta device cannot run: no estimate, no refusal
        return None
    return sum(t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor))


def finish(spec: Spec, raw: list[Any], seed: int, torch: Any) -> list[Any]:
    """`spec`'s transform of a raw draw (`raw_draw` under the same seed)."""
    # The transform's own randomness (sparse masks, spike positions) follows the same seed.
    g = torch.Generator(device="cpu").manual_seed(seed ^ 0x5EED)
    if spec.generator == "logscale":
        # One scale for the whole column, log-uniform over six decades below c.
        s = spec.scale * 10.0 ** (-6.0 * torch.rand((), generator=g, dtype=torch.float64).item())
        return [t * s if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in raw]
    return [transform(spec, t, torch, g) if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in raw]


def finish_placed(spec: Spec, raw: list[Any], torch: Any, place: Any) -> list[Any]:
    """What `finish` gives, with every tensor first copied by `place` (to the device) and an
    `IN_PLACE` generator's transform applied to that copy in place: the same operations in the
    same order, so the same values, and no device memory beyond the copies."""
    if spec.generator not in IN_PLACE:
        raise ValueError(f"{spec.name()}: {spec.generator} is not transformed in place")
    out = []
    for t in raw:
        if not isinstance(t, torch.Tensor):
            out.append(t)
            continue
        u = place(t)
        if u.is_floating_point():
            c, kind = spec.scale, spec.generator
            if kind == "scaled":
                u.mul_(c)
            elif kind == "shifted":
                u.add_(c)
            elif kind == "signed":
                u.mul_(2.0).sub_(1.0).mul_(c)
            elif kind == "negative":
                u.neg_().mul_(c)
        out.append(u)
    return out


def _draw_unseeded(suite: Any, sizes: Mapping[str, int], torch: Any, on: Any) -> list[Any]:
    """`suite`'s generator once more, continuing the RNG (where `draw_inputs` would draw)."""
    if suite.on_device and on is not None and torch.device(on).type != "cpu":
        with torch.device(on):
            return list(suite.gen(torch, sizes))
    return list(suite.gen(torch, sizes))


def transform(spec: Spec, u: Any, torch: Any, g: Any) -> Any:
    """One floating-point input after the spec's generator (same shape, dtype and device)."""
    c = spec.scale
    kind = spec.generator
    if kind in ("dense", "boundary"):
        return u
    if kind == "scaled":
        return u * c
    if kind == "shifted":
        return u + c
    if kind == "signed":
        return (u * 2.0 - 1.0) * c
    if kind == "negative":
        return -u * c
    if kind == "constant":
        return torch.full_like(u, c)
    if kind == "ties":
        return torch.round(u * 4.0) / 4.0 * c
    if kind == "ramp":
        n = max(u.numel(), 1)
        return (torch.arange(u.numel(), dtype=torch.float64) / n * c).to(u.dtype).to(u.device).reshape(u.shape)
    if kind == "uniform":
        return ((torch.rand(u.shape, generator=g, dtype=u.dtype) * 2.0 - 1.0) * c).to(u.device)
    if kind == "normal":
        return (torch.randn(u.shape, generator=g, dtype=u.dtype) * c).to(u.device)
    if kind == "sparse":
        mask = (torch.rand(u.shape, generator=g) < 0.01).to(u.device)
        return torch.where(mask, (1.0 + u) * c, torch.zeros_like(u))
    if kind == "spiky":
        out = u / 1000.0
        if u.dim() == 0 or u.shape[-1] == 0:
            return out
        rows = out.reshape(-1, u.shape[-1])
        hot = torch.randint(0, u.shape[-1], (rows.shape[0],), generator=g).to(u.device)
        rows[torch.arange(rows.shape[0], device=u.device), hot] = c
        return rows.reshape(u.shape)
    raise ValueError(f"unknown generator {kind!r}")


def boundary_sizes(fields: Mapping[str, Any], K: Any, blocks: list[int]) -> list[str]:
    """`dim=value` size changes around the block sizes `launch` uses (each declared dim at a
    multiple of a block size plus and minus one, and its minimum), starting from the small
    suite's sizes; only legal values, each once."""
    dims = fields["dims"]
    small = K.sizes_for(dims, next(s for s in fields["suites"] if s.small))
    out: list[str] = []
    for name, d in dims.items():
        candidates = {d.min}
        for b in sorted(set(blocks)):
            if b > 1:
                candidates.update({b - 1, b + 1, 2 * b + 1})
        for v in sorted(candidates):
            if v == small[name] or d.check(v) is not None:
                continue
            item = f"{name}={v}"
            if item not in out:
                out.append(item)
    return out


def witness_specs(fields: Mapping[str, Any], K: Any, blocks: list[int]) -> list[str]:
    """The witness search's generated columns in the order tried: cheap small sizes first
    (boundary sizes, then the value generators of `LADDER`), then the official sizes."""
    names: list[str] = [Spec("boundary", 1.0, s).name() for s in boundary_sizes(fields, K, blocks)]
    for tier in ("small", "official"):
        for gen, scales in LADDER[tier]:
            for c in scales:
                names.append(Spec(gen, c, tier).name())
    return names
