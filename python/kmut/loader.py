"""Loading a substrate module by path, with the work it may not do at import trapped.

A substrate must be free to import anywhere (a CPU-only CI machine, the orchestrator, a worker
that has not chosen its GPU yet). So while its module body and its `register` run, CUDA
initialisation, tensor factories and torch's extension builder raise `ImportTimeWork`.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import inspect
import sys
import traceback
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from .contract import Contract
from .exceptions import SubstrateImportError

# Tensor factories trapped during import and register; nn layers allocate through torch.empty.
_FACTORIES = (
    "empty", "zeros", "ones", "full", "rand", "randn", "randint", "randperm", "normal", "tensor",
    "as_tensor", "from_numpy", "arange", "linspace", "logspace", "eye", "empty_like", "zeros_like",
    "ones_like", "full_like", "rand_like", "randn_like", "randint_like", "empty_strided",
)


class ImportTimeWork(RuntimeError):
    """Raised inside a guarded import when the module does work it must defer."""


@contextmanager
def import_guard(torch: Any, phase: str) -> Iterator[None]:
    """Trap GPU initialisation, tensor allocation and compilation while `phase` runs."""
    saved: list[tuple[Any, str, Any]] = []

    def trap(owner: Any, attr: str, what: str) -> None:
        if not hasattr(owner, attr):
            return
        original = getattr(owner, attr)

        def refuse(*_args: Any, **_kwargs: Any) -> Any:
            raise ImportTimeWork(f"{what} ({attr}) during {phase}")

        saved.append((owner, attr, original))
        setattr(owner, attr, refuse)

    trap(torch.cuda, "_lazy_init", "GPU work: CUDA initialisation")
    for name in _FACTORIES:
        trap(torch, name, "tensor allocation")
    try:
        import torch.utils.cpp_extension as cpp_extension

        for name in ("load", "load_inline"):
            trap(cpp_extension, name, "compilation")
    except ImportError:  # pragma: no cover - torch always ships it
        pass
    try:
        yield
    finally:
        for owner, attr, original in reversed(saved):
            setattr(owner, attr, original)


def _where(exc: BaseException, path: Path) -> str:
    """`file:line` of the deepest traceback frame inside the substrate file, if any."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if Path(f.filename) == path]
    if frames:
        return f"{path}:{frames[-1].lineno}"
    return str(path)


def load_module(path: Path, torch: Any) -> Any:
    """Import the file at `path` as a fresh module. Errors name the file and line."""
    path = path.resolve()
    if not path.is_file():
        raise SubstrateImportError(str(path), "import", "the file does not exist")
    if path.suffix != ".py":
        # A bare kernel (.cu, .cuh) is not a substrate: kmut needs its reference, launch and
        # inputs too. Say so instead of a Python syntax error about hexadecimal literals.
        raise SubstrateImportError(
            str(path), "import",
            f"kmut reads substrates, Python modules (`.py`) that wrap a kernel with its reference, launch and inputs; "
            f"`{path.name}` is not one. Write a substrate around the CUDA source as substrates/SPEC.md describes "
            f"(substrates/accepted/L1p19_relu.py is a short example)",
        )
    try:
        source = path.read_text(encoding="utf-8")
        code = compile(source, str(path), "exec")
    except SyntaxError as e:
        raise SubstrateImportError(f"{path}:{e.lineno}", "import", f"syntax error: {e.msg} (column {e.offset})") from None
    except UnicodeDecodeError as e:
        raise SubstrateImportError(str(path), "import", f"the file is not UTF-8: {e}") from None
    name = "kmut_substrate_" + "".join(c if c.isalnum() else "_" for c in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise SubstrateImportError(str(path), "import", "Python cannot load this file as a module")
    module = importlib.util.module_from_spec(spec)
    # The digest of the very text the module runs: what a run's shared weights are keyed by
    # (`kmut.scratch.Scratch.share_weights`), so a file edited during a run cannot pair one
    # version's weights with another's key.
    module.__kmut_source_sha256__ = hashlib.sha256(source.encode("utf-8")).hexdigest()
    try:
        with import_guard(torch, "import"):
            exec(code, module.__dict__)  # noqa: S102 - the substrate's own code, as an import would run it
    except ImportTimeWork as e:
        raise SubstrateImportError(_where(e, path), "import", f"the module does {e}; defer it to launch/ref or K.weights") from None
    except Exception as e:  # noqa: BLE001 - any failure of foreign code is reported, not raised
        raise SubstrateImportError(_where(e, path), "import", f"importing raised {type(e).__name__}: {e}") from None
    return module


def register(module: Any, path: Path, torch: Any) -> tuple[dict[str, Any], Contract]:
    """Call the module's `register(K, torch, ctypes)` under the import guard."""
    path = path.resolve()
    fn = getattr(module, "register", None)
    if fn is None:
        raise SubstrateImportError(str(path), "register", "the module defines no `register(K, torch, ctypes)` function")
    if not callable(fn):
        raise SubstrateImportError(str(path), "register", f"`register` is a {type(fn).__name__}, not a function")
    try:
        inspect.signature(fn).bind(None, None, None)
    except TypeError:
        raise SubstrateImportError(
            str(path), "register", f"`register{inspect.signature(fn)}` must take exactly (K, torch, ctypes)"
        ) from None
    K = Contract()
    try:
        with import_guard(torch, "register"):
            fields = fn(K, torch, ctypes)
    except ImportTimeWork as e:
        raise SubstrateImportError(_where(e, path), "register", f"`register` does {e}; build weights lazily with K.weights") from None
    except Exception as e:  # noqa: BLE001
        raise SubstrateImportError(_where(e, path), "register", f"`register` raised {type(e).__name__}: {e}") from None
    if not isinstance(fields, dict):
        raise SubstrateImportError(
            str(path), "register", f"`register` returned {type(fields).__name__}; expected the dict of fields (K.substrate(...))"
        )
    return fields, K


def load(path: Path, torch: Any) -> tuple[dict[str, Any], Contract, Any]:
    """Import and register a substrate: (fields, K, module)."""
    module = load_module(path, torch)
    fields, K = register(module, path, torch)
    sys.modules.pop(module.__name__, None)
    return fields, K, module
