"""Contract validation: every field of a registered substrate, and its launch descriptors.

Each problem becomes one `ContractError` naming the file, the field and what was expected, and
validation reports all of them at once rather than stopping at the first.
"""

from __future__ import annotations

import ctypes
import inspect
import re
import struct
from dataclasses import dataclass
from typing import Any, Sequence

from .contract import OFFICIAL_SEEDS, OPTIONAL_FIELDS, REQUIRED_FIELDS, Dim, Suite
from .exceptions import ContractError

NAME_RE = re.compile(r"^L(?P<level>[1-3])p(?P<problem>[1-9][0-9]*)_(?P<short>[a-z0-9_]+)$")
PROBLEM_RE = re.compile(r"^(?P<number>[1-9][0-9]*)_[A-Za-z0-9_]+$")
# `__global__ void name(` with optional extern "C", __launch_bounds__(...) and qualifiers between.
GLOBAL_RE = re.compile(r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?void\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(")

MAX_THREADS_PER_BLOCK = 1024
# The most a substrate may raise the small-suite CPU time limit to (`small_limit_s`).
MAX_SMALL_LIMIT_S = 30.0
MAX_BLOCK = (1024, 1024, 64)
MAX_GRID = (2**31 - 1, 65535, 65535)


def cuda_globals(source: str) -> list[str]:
    """Names of the `__global__` functions in a CUDA source, in order of appearance."""
    return GLOBAL_RE.findall(source)


def kernel_names(fields: dict[str, Any]) -> list[str]:
    k = fields.get("kernel_name")
    return [k] if isinstance(k, str) else list(k or [])


def validate_fields(fields: dict[str, Any], where: str) -> list[ContractError]:
    """Every contract violation of a `register` result."""
    errors: list[ContractError] = []

    def err(field: str, message: str) -> None:
        errors.append(ContractError(where, field, message))

    for f in REQUIRED_FIELDS:
        if f not in fields:
            err(f, "missing; the contract requires " + ", ".join(REQUIRED_FIELDS))
    for f in sorted(set(fields) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS)):
        err(f, "unknown field; known fields are " + ", ".join(REQUIRED_FIELDS + OPTIONAL_FIELDS))

    level = fields.get("level")
    if "level" in fields and (isinstance(level, bool) or level not in (1, 2, 3)):
        err("level", f"expected 1, 2 or 3, got {level!r}")
        level = None
    _check_name(fields, level, err)
    _check_cuda_and_kernels(fields, level, err)
    for f in ("launch", "ref"):
        if f in fields:
            _check_callable(fields[f], f, 2, f"{f}(inputs, torch)", err)
    dims = _check_dims(fields, err)
    _check_suites(fields, dims, err)
    _check_optional(fields, err)
    _check_layer_kinds(fields, err)
    return errors


def _check_layer_kinds(fields: dict[str, Any], err: Any) -> None:
    """Every kernel of a pipeline has a layer kind (`kmut.layers`): from `layer_kinds` where the
    substrate gives them, else from its name by the naming rule."""
    from .layers import check_label, kind_from_name

    names = fields.get("kernel_name")
    given = fields.get("layer_kinds")
    if given is not None:
        if not isinstance(names, list):
            err("layer_kinds", "only a pipeline (kernel_name a list) has layer kinds")
            return
        if not isinstance(given, (list, tuple)) or len(given) != len(names):
            err("layer_kinds", f"expected one kind per kernel of kernel_name ({len(names)}), got {given!r}")
            return
        for name, label in zip(names, given):
            why = check_label(label)
            if why:
                err("layer_kinds", f"{name}: {why}")
        return
    if isinstance(names, list):
        unknown = [n for n in names if isinstance(n, str) and kind_from_name(n) is None]
        if unknown:
            err("layer_kinds", f"no layer kind for {', '.join(unknown)}: no part of the name is a layer the naming rule "
                "knows (substrates/SPEC.md section 5); name the layer (conv, fc, bn, relu, pool, ...) or give `layer_kinds`")


def _check_name(fields: dict[str, Any], level: Any, err: Any) -> None:
    name, problem = fields.get("name"), fields.get("problem")
    m = None
    if "name" in fields:
        m = NAME_RE.match(name) if isinstance(name, str) else None
        if m is None:
            err("name", f"expected L{{level}}p{{problem}}_{{short}} with a lowercase short name, e.g. L1p19_relu; got {name!r}")
        elif level is not None and int(m["level"]) != level:
            err("name", f"{name!r} says level {m['level']} but `level` is {level}")
    if "problem" in fields:
        pm = PROBLEM_RE.match(problem) if isinstance(problem, str) else None
        if pm is None:
            err("problem", f"expected the KernelBench file stem such as '19_ReLU', got {problem!r}")
        elif m is not None and pm["number"] != m["problem"]:
            err("problem", f"{problem!r} is problem {pm['number']} but the name {name!r} says p{m['problem']}")


def _check_cuda_and_kernels(fields: dict[str, Any], level: Any, err: Any) -> None:
    cuda = fields.get("cuda")
    if "cuda" in fields and (not isinstance(cuda, str) or not cuda.strip()):
        err("cuda", f"expected the CUDA source as a non-empty str, got {type(cuda).__name__}")
        cuda = None
    if "kernel_name" not in fields:
        return
    k = fields["kernel_name"]
    if level == 3 and not isinstance(k, list):
        err("kernel_name", f"a level-3 substrate is a pipeline: expected a list of kernel names in order, got {type(k).__name__} {k!r}")
        return
    if not isinstance(k, (str, list)) or isinstance(k, list) and not all(isinstance(x, str) for x in k):
        err("kernel_name", f"expected one kernel name (a str) or a pipeline's kernel names in order (a list of str), got {type(k).__name__} {k!r}")
        return
    if isinstance(k, list):
        # A pipeline: every level-3 network, and a level-1/2 chain whose statistics need a
        # pass of their own (BatchNorm over a batch needs every element before any is normalised).
        if len(k) < 2:
            err("kernel_name", f"a pipeline has one kernel per layer or pass, at least two; got {len(k)} (give one kernel as a str)")
        dupes = sorted({x for x in k if k.count(x) > 1})
        if dupes:
            err("kernel_name", f"names listed twice: {', '.join(dupes)} (list each layer's kernel once)")
    if not isinstance(cuda, str):
        return
    found = cuda_globals(cuda)
    for name in kernel_names(fields):
        if name not in found:
            err("kernel_name", f"{name!r} is not a __global__ function in `cuda` (found: {', '.join(found) or 'none'})")
    unlisted = [g for g in found if g not in kernel_names(fields)]
    if unlisted:
        err("kernel_name", f"__global__ function(s) {', '.join(unlisted)} in `cuda` are not listed; list every kernel")


def _check_callable(fn: Any, field: str, arity: int, shape: str, err: Any) -> None:
    if not callable(fn):
        err(field, f"expected a function {shape}, got {type(fn).__name__}")
        return
    try:
        inspect.signature(fn).bind(*([None] * arity))
    except TypeError:
        err(field, f"expected {shape}; its signature is {fn.__name__}{inspect.signature(fn)}")
    except ValueError:  # builtins without a signature: accept
        pass


def _check_dims(fields: dict[str, Any], err: Any) -> dict[str, Dim]:
    dims = fields.get("dims")
    if "dims" not in fields:
        return {}
    if not isinstance(dims, dict):
        err("dims", f"expected a dict of name -> K.dim(official, ...), got {type(dims).__name__}")
        return {}
    good: dict[str, Dim] = {}
    for key, d in dims.items():
        if not isinstance(key, str) or not key.isidentifier():
            err("dims", f"dimension names are identifiers; got {key!r}")
        elif not isinstance(d, Dim):
            err("dims", f"dims[{key!r}] must be K.dim(official, ...), got {type(d).__name__} {d!r}")
        elif (why := d.check(d.official)) is not None:
            err("dims", f"dims[{key!r}]: the official size is illegal under its own constraints: {why}")
        else:
            good[key] = d
    return good


def _check_suites(fields: dict[str, Any], dims: dict[str, Dim], err: Any) -> None:
    if "suites" not in fields:
        return
    suites = fields["suites"]
    if not isinstance(suites, (list, tuple)) or not suites:
        err("suites", f"expected a non-empty list of K.suite(...), got {type(suites).__name__}")
        return
    seen: set[str] = set()
    for i, s in enumerate(suites):
        if not isinstance(s, Suite):
            err("suites", f"suites[{i}] must be K.suite(name, gen, ...), got {type(s).__name__}")
            continue
        label = f"suite {s.name!r}"
        if not isinstance(s.name, str) or not re.match(r"^[A-Za-z][A-Za-z0-9_]*$", s.name):
            err("suites", f"suites[{i}] has name {s.name!r}; expected an identifier such as T1_remainder")
        if s.name in seen:
            err("suites", f"{label} is defined twice")
        seen.add(s.name)
        _check_callable(s.gen, "suites", 2, f"{label}: gen(torch, sizes)", err)
        if not isinstance(s.purpose, str) or len(s.purpose.strip()) < 10:
            err("suites", f"{label}: state its purpose in a sentence (purpose={s.purpose!r})")
        if not s.seeds or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in s.seeds):
            err("suites", f"{label}: seeds must be a non-empty list of non-negative ints, got {list(s.seeds)!r}")
        for key, value in s.sizes.items():
            if key not in dims:
                declared = ", ".join(dims) or "none"
                err("suites", f"{label}: size {key!r} is not a declared dimension (declared: {declared})")
            elif (why := dims[key].check(value)) is not None:
                err("suites", f"{label}: size {key}={value!r} is illegal: {why}")
    by_name = {s.name: s for s in suites if isinstance(s, Suite)}
    t0 = by_name.get("T0_original")
    if t0 is None:
        err("suites", "no T0_original suite; it must reproduce the problem's get_inputs() under K.OFFICIAL_SEEDS")
    else:
        if tuple(t0.seeds) != OFFICIAL_SEEDS:
            err("suites", f"T0_original must use the official v0.1 trial seeds {list(OFFICIAL_SEEDS)}, got {list(t0.seeds)}")
        if t0.sizes:
            err("suites", f"T0_original runs at the official sizes; it overrides {sorted(t0.sizes)}")
    targeted = [s for s in by_name.values() if s.name != "T0_original"]
    if len(targeted) < 2:
        err("suites", f"expected 2-3 targeted suites besides T0_original, got {len(targeted)}")
    if by_name and not any(s.small for s in by_name.values()):
        err("suites", "no suite is marked small=True; one must run in well under a second on a CPU")


def _check_optional(fields: dict[str, Any], err: Any) -> None:
    tol = fields.get("tolerance")
    if tol is not None:
        if not isinstance(tol, dict) or set(tol) != {"atol", "rtol"}:
            err("tolerance", f"expected {{'atol': a, 'rtol': r}}, got {tol!r}")
        elif not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in tol.values()):
            err("tolerance", f"atol and rtol must be positive numbers, got {tol!r}")
        elif not fields.get("notes"):
            err("tolerance", "a tolerance override needs its reason in `notes`")
    notes = fields.get("notes")
    if notes is not None and not isinstance(notes, str):
        err("notes", f"expected a str, got {type(notes).__name__}")
    limit = fields.get("small_limit_s")
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, (int, float)) or not 1.0 < limit <= MAX_SMALL_LIMIT_S:
            err("small_limit_s", f"expected seconds above 1 and at most {MAX_SMALL_LIMIT_S:g}, got {limit!r}")
        elif not fields.get("notes") or "small" not in fields["notes"]:
            err("small_limit_s", "raising the small-suite limit needs its reason in `notes` (say why the smallest suite cannot be small)")


# --- launch descriptors ---------------------------------------------------------------------


@dataclass
class Step:
    """One kernel launch of a descriptor, normalised."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    tensors: list[Any]
    scalars: list[tuple[Any, Any]]

    @property
    def output(self) -> Any:
        return self.tensors[-1]

    def scalar_bytes(self) -> list[bytes]:
        return [bytes(ctype(value)) for ctype, value in self.scalars]

    def launch_args(self) -> list[bytes]:
        """The kernel's arguments as the launch bridges pass them: each tensor's address (8
        bytes, little-endian), then each scalar's bytes, in the kernel's parameter order."""
        return [struct.pack("<Q", t.data_ptr()) for t in self.tensors] + self.scalar_bytes()


def _is_ctype(t: Any) -> bool:
    return isinstance(t, type) and issubclass(t, ctypes._SimpleCData)  # noqa: SLF001


def _dims3(value: Any, what: str, limits: Sequence[int], where: str) -> tuple[int, int, int]:
    if not isinstance(value, (tuple, list)) or len(value) != 3 or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise ContractError(where, "launch", f"{what} must be three ints (x, y, z), got {value!r}")
    if any(v < 1 for v in value):
        raise ContractError(where, "launch", f"{what} {tuple(value)} has a dimension below 1")
    for axis, v, lim in zip("xyz", value, limits):
        if v > lim:
            raise ContractError(where, "launch", f"{what}.{axis} = {v} exceeds the CUDA limit {lim}")
    return (value[0], value[1], value[2])


def parse_step(raw: Any, index: int, where: str, torch: Any) -> Step:
    label = f"step {index}"
    if not isinstance(raw, tuple) or len(raw) != 5:
        n = len(raw) if isinstance(raw, (tuple, list)) else "not a tuple"
        raise ContractError(
            where, "launch", f"{label}: expected a 5-tuple (kernel_name, grid3, block3, [tensors], [(ctype, value), ...]), got {type(raw).__name__} of {n}"
        )
    kernel, grid, block, tensors, scalars = raw
    if not isinstance(kernel, str):
        raise ContractError(where, "launch", f"{label}: the kernel name must be a str, got {kernel!r}")
    grid3 = _dims3(grid, f"{label} ({kernel}): grid", MAX_GRID, where)
    block3 = _dims3(block, f"{label} ({kernel}): block", MAX_BLOCK, where)
    if block3[0] * block3[1] * block3[2] > MAX_THREADS_PER_BLOCK:
        raise ContractError(where, "launch", f"{label} ({kernel}): block {block3} has more than {MAX_THREADS_PER_BLOCK} threads")
    if not isinstance(tensors, list) or not tensors or not all(isinstance(t, torch.Tensor) for t in tensors):
        raise ContractError(where, "launch", f"{label} ({kernel}): tensor arguments must be a non-empty list of tensors (the output last)")
    for j, t in enumerate(tensors):
        if not t.is_contiguous():
            raise ContractError(where, "launch", f"{label} ({kernel}): tensor argument {j} is not contiguous; kernels index flat memory")
    if not isinstance(scalars, list):
        raise ContractError(where, "launch", f"{label} ({kernel}): scalars must be a list of (ctype, value) pairs")
    for j, pair in enumerate(scalars):
        if not (isinstance(pair, tuple) and len(pair) == 2 and _is_ctype(pair[0])):
            raise ContractError(where, "launch", f"{label} ({kernel}): scalar {j} must be (ctypes.c_int, value) or similar, got {pair!r}")
        try:
            pair[0](pair[1])
        except TypeError as e:
            raise ContractError(where, "launch", f"{label} ({kernel}): scalar {j} {pair[1]!r} does not fit {pair[0].__name__}: {e}") from None
    return Step(kernel, grid3, block3, list(tensors), list(scalars))


def is_pipeline(fields: dict[str, Any]) -> bool:
    """A substrate whose `kernel_name` is a list launches a pipeline ({"seq": [...], "out": ...})."""
    return isinstance(fields.get("kernel_name"), list)


def parse_descriptor(desc: Any, pipeline: bool, names: list[str], where: str, torch: Any) -> tuple[list[Step], Any]:
    """Normalise `launch`'s return value into (steps, out): a pipeline dict when `kernel_name` is a
    list (`is_pipeline`), one step tuple when it is a str."""
    if pipeline:
        if not isinstance(desc, dict) or set(desc) != {"seq", "out"}:
            got = sorted(desc) if isinstance(desc, dict) else type(desc).__name__
            raise ContractError(where, "launch", f'a pipeline (kernel_name is a list) returns {{"seq": [steps], "out": out}}, got {got}')
        seq, out = desc["seq"], desc["out"]
        if not isinstance(seq, list) or not seq:
            raise ContractError(where, "launch", '"seq" must be a non-empty list of steps')
        steps = [parse_step(s, i, where, torch) for i, s in enumerate(seq)]
        if not isinstance(out, torch.Tensor):
            raise ContractError(where, "launch", f'"out" must be a tensor, got {type(out).__name__}')
        last = steps[-1].output
        if out.untyped_storage().data_ptr() != last.untyped_storage().data_ptr():
            raise ContractError(where, "launch", '"out" must be the last step\'s output buffer (its last tensor argument) or a view of it')
    else:
        if isinstance(desc, dict):
            raise ContractError(where, "launch", "a substrate with one kernel (kernel_name is a str) returns one step tuple, not a pipeline dict")
        steps = [parse_step(desc, 0, where, torch)]
        out = steps[0].output
    for i, s in enumerate(steps):
        if s.kernel not in names:
            raise ContractError(where, "launch", f"step {i} launches {s.kernel!r}, which is not in kernel_name {names}")
    unlaunched = [n for n in names if n not in {s.kernel for s in steps}]
    if unlaunched:
        raise ContractError(where, "launch", f"kernel(s) {', '.join(unlaunched)} are listed in kernel_name but never launched")
    return steps, out


def check_step_outputs(steps: list[Step], owned: set[int], where: str) -> None:
    """Each step of a pipeline writes an output buffer of its own: its last tensor argument is
    something `launch` allocated, never an input or a weight (`owned`). The depth analysis reads
    every layer's activation there; a step whose last tensor is an input writes none."""
    if len(steps) < 2:
        return
    for i, s in enumerate(steps):
        if s.output.untyped_storage().data_ptr() in owned:
            raise ContractError(where, "launch", f"step {i} ({s.kernel}) writes no output buffer: its last tensor argument is an input "
                                "or a weight, not a buffer launch allocated (a step's output is its last tensor, section 5)")


def check_arguments(steps: list[Step], params: dict[str, list[int]], where: str) -> None:
    """Compare each step's argument byte sizes with the compiled kernel's parameter sizes."""
    for i, s in enumerate(steps):
        expected = params.get(s.kernel)
        if expected is None:
            raise ContractError(where, "launch", f"step {i}: kernel {s.kernel!r} is not in the compiled image")
        given = [8] * len(s.tensors) + [len(b) for b in s.scalar_bytes()]
        if given != expected:
            raise ContractError(
                where,
                "launch",
                f"step {i} ({s.kernel}): the kernel takes {len(expected)} parameter(s) of {expected} bytes, "
                f"but the step passes {len(s.tensors)} tensor(s) and {len(s.scalars)} scalar(s) = {given} bytes",
            )
