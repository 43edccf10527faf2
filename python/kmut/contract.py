"""The substrate contract: the `K` object handed to every substrate's `register(K, torch, ctypes)`.

`substrates/SPEC.md` is the prose of this contract; this module is its code. Everything here is
cheap and import-safe: nothing touches a GPU until a substrate's `launch` or `ref` runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

# KernelBench v0.1 correctness-trial seeds: `torch.manual_seed(42)` followed by five draws of
# `torch.randint(0, 2**32 - 1, (1,))` (kernelbench-facts.md section 3). `T0_original` uses them.
OFFICIAL_SEEDS: tuple[int, ...] = (734796314, 576165995, 2197670066, 839703249, 2584932063)

# The harness calls set_seed(42) right before `Model(*init_inputs)`; weights are built under it.
WEIGHT_SEED = 42

# The official v0.1 check: torch.allclose(ref, out, atol=1e-2, rtol=1e-2).
DEFAULT_ATOL = 1e-2
DEFAULT_RTOL = 1e-2

# Every field a substrate may return from `register`, and whether it is required.
REQUIRED_FIELDS = ("name", "level", "problem", "cuda", "kernel_name", "launch", "ref", "dims", "suites")
OPTIONAL_FIELDS = ("tolerance", "notes", "small_limit_s", "layer_kinds")


@dataclass(frozen=True)
class Dim:
    """A problem dimension that suites may resize (batch, sequence, spatial sizes).

    Dimensions fixed by the weights are never declared; they stay constants inside the substrate.
    """

    official: int
    min: int = 1
    max: int | None = None
    multiple_of: int = 1

    def check(self, value: Any) -> str | None:
        """Return why `value` is not a legal size for this dimension, or None when it is."""
        if isinstance(value, bool) or not isinstance(value, int):
            return f"expected an int, got {type(value).__name__} {value!r}"
        if value < self.min:
            return f"{value} is below the declared minimum {self.min}"
        if self.max is not None and value > self.max:
            return f"{value} is above the declared maximum {self.max}"
        if value % self.multiple_of:
            return f"{value} is not a multiple of {self.multiple_of}"
        return None


@dataclass(frozen=True)
class Suite:
    """A seeded input generator. `gen(torch, sizes)` draws CPU tensors after the runner seeds torch."""

    name: str
    gen: Callable[[Any, Mapping[str, int]], Sequence[Any]]
    seeds: tuple[int, ...]
    purpose: str
    sizes: Mapping[str, int] = field(default_factory=dict)
    small: bool = False
    # Drawn on the run's device (its generator), as a problem's own get_inputs() does when it
    # passes device='cuda' (KernelBench v0.1's L1/97). On the CPU it draws from the CPU generator.
    on_device: bool = False


def cdiv(a: int, b: int) -> int:
    """Ceil-division for grid sizing. A named helper so host-side grid sizing is a mutation site."""
    return (a + b - 1) // b


def dim(official: int, *, min: int = 1, max: int | None = None, multiple_of: int = 1) -> Dim:  # noqa: A002
    return Dim(official=official, min=min, max=max, multiple_of=multiple_of)


def suite(
    name: str,
    gen: Callable[[Any, Mapping[str, int]], Sequence[Any]],
    *,
    purpose: str,
    seeds: Sequence[int] = OFFICIAL_SEEDS,
    sizes: Mapping[str, int] | None = None,
    small: bool = False,
    on_device: bool = False,
) -> Suite:
    return Suite(name=name, gen=gen, seeds=tuple(seeds), purpose=purpose, sizes=dict(sizes or {}), small=small, on_device=on_device)


def set_seed(torch: Any, seed: int) -> None:
    """KernelBench's set_seed: seed the CPU generator and, where CUDA is up, every CUDA generator."""
    torch.manual_seed(seed)
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.manual_seed(seed)


def draw_inputs(suite: Suite, seed: int, sizes: Mapping[str, int], torch: Any, device: Any = None, on: Any = None) -> list[Any]:
    """One input list of a suite, in KernelBench's order: set_seed(seed), then the generator on the
    CPU (an `on_device` suite under the run's device `on`, or `device`, as its default device),
    then every tensor moved to `device` if given."""
    set_seed(torch, seed)
    where = on if on is not None else device
    if suite.on_device and where is not None and torch.device(where).type != "cpu":
        with torch.device(where):
            inputs = list(suite.gen(torch, sizes))
    else:
        inputs = list(suite.gen(torch, sizes))
    if device is None:
        return inputs
    return [t.to(device) if isinstance(t, torch.Tensor) else t for t in inputs]


class Weights:
    """Parameters built once, lazily, exactly as KernelBench builds its `Model` under set_seed(42).

    `builder(torch)` constructs the same `nn` layers in the same order as the official `Model`
    and returns the tensors a substrate needs (a dict, list or tuple). Calling the object with a
    tensor `like` returns that structure on `like`'s device and floating dtype, cached per
    (device, dtype), so `launch` and `ref` share the very same tensors and an fp64 evaluation of
    `ref` sees the same values in double precision.
    """

    def __init__(self, builder: Callable[[Any], Any]):
        self._builder = builder
        self._master: Any = None
        self._copies: dict[tuple[str, str], Any] = {}
        # Where a run's workers share built weights (`kmut.scratch.Scratch.share_weights`): called
        # with the build and returning its structure, from the shared folder when another worker
        # built it. None: built here.
        self.cache: Callable[[Callable[[], Any]], Any] | None = None

    def build(self) -> Any:
        """The master structure, built under WEIGHT_SEED with the caller's RNG state kept."""
        import torch

        with torch.no_grad():
            state = torch.random.get_rng_state()
            torch.manual_seed(WEIGHT_SEED)
            try:
                built = self._builder(torch)
            finally:
                torch.random.set_rng_state(state)
        return map_tensors(built, lambda t: t.detach())

    def __call__(self, like: Any) -> Any:
        import torch  # deferred: the contract module stays import-light

        if self._master is None:
            self._master = self.cache(self.build) if self.cache is not None else self.build()
        dtype = like.dtype if like.is_floating_point() else torch.float32
        key = (str(like.device), str(dtype))
        if key not in self._copies:
            self._copies[key] = map_tensors(
                self._master, lambda t: t.to(device=like.device, dtype=dtype if t.is_floating_point() else t.dtype)
            )
        return self._copies[key]

    @property
    def built(self) -> bool:
        return self._master is not None

    def forget(self, device: Any) -> None:
        """Drop the copies on `device` (a mutant wrote into them): the next call copies the
        master again. On the CPU a float copy *is* the master, which this cannot restore."""
        for key in [k for k in self._copies if k[0] == str(device)]:
            del self._copies[key]

    def tensors(self) -> list[Any]:
        """Every cached tensor (master and device copies): the gate uses it to tell weights apart."""
        out: list[Any] = []
        for structure in [self._master, *self._copies.values()]:
            if structure is not None:
                map_tensors(structure, out.append)
        return out


def map_tensors(structure: Any, fn: Callable[[Any], Any]) -> Any:
    """`structure` (nested dicts, lists and tuples) with `fn` applied to every tensor in it;
    anything else is kept as it is."""
    if isinstance(structure, dict):
        return {k: map_tensors(v, fn) for k, v in structure.items()}
    if isinstance(structure, (list, tuple)):
        return type(structure)(map_tensors(v, fn) for v in structure)
    if hasattr(structure, "data_ptr"):
        return fn(structure)
    return structure


class Contract:
    """The `K` passed to `register`. One instance per loaded substrate, so registries never mix."""

    OFFICIAL_SEEDS = OFFICIAL_SEEDS
    WEIGHT_SEED = WEIGHT_SEED
    DEFAULT_ATOL = DEFAULT_ATOL
    DEFAULT_RTOL = DEFAULT_RTOL

    cdiv = staticmethod(cdiv)
    dim = staticmethod(dim)
    suite = staticmethod(suite)

    def __init__(self) -> None:
        self.weight_sets: list[Weights] = []
        # data_ptrs of buffers a `launch` asked to be zero-initialised (see `zeros`).
        self.zero_init: set[int] = set()

    def weights(self, builder: Callable[[Any], Any]) -> Weights:
        w = Weights(builder)
        self.weight_sets.append(w)
        return w

    def owned_storages(self, inputs: Sequence[Any], torch: Any) -> set[int]:
        """Storage addresses of the inputs and of every built weight: the buffers a `launch`
        did not allocate, which the gate's NaN fill and the run's canaries leave alone."""
        owned = {t.untyped_storage().data_ptr() for t in inputs if isinstance(t, torch.Tensor)}
        for w in self.weight_sets:
            owned.update(t.untyped_storage().data_ptr() for t in w.tensors())
        return owned

    def zeros(self, *size: Any, like: Any, dtype: Any = None) -> Any:
        """A buffer the kernel relies on being zero (an accumulation target).

        The gate's NaN-fill run poisons every buffer `launch` allocates except these.
        """
        import torch

        t = torch.zeros(*size, device=like.device, dtype=dtype or like.dtype)
        self.zero_init.add(t.data_ptr())
        return t

    def substrate(self, **fields: Any) -> dict[str, Any]:
        """Build the dict `register` returns, refusing unknown field names early."""
        unknown = sorted(set(fields) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS))
        if unknown:
            known = ", ".join(REQUIRED_FIELDS + OPTIONAL_FIELDS)
            raise TypeError(f"unknown substrate field(s) {', '.join(unknown)}; the contract knows {known}")
        return dict(fields)

    def sizes_for(self, dims: Mapping[str, Dim], s: Suite) -> dict[str, int]:
        """The concrete sizes of one suite: official values overridden by the suite's own."""
        sizes = {k: d.official for k, d in dims.items()}
        sizes.update(s.sizes)
        return sizes


def tau_star(ref: Any, out: Any) -> float:
    """Smallest t with allclose(ref, out, atol=t, rtol=t); see `kmut.compare`, its one implementation."""
    from .compare import tau_star as one

    return one(ref, out)
