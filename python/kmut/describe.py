"""What the mutation stage needs from a substrate, without running anything on a GPU.

`describe(path)` imports the substrate under guard, validates its contract, finds where its CUDA
starts in the file, and dry-runs `launch` on the small suite to record the launch steps and every
`K.cdiv` call (the host-side sites of launch mutants). The dry run uses torch's meta device when
it can (no weights are built, nothing is allocated) and the CPU otherwise.
"""

from __future__ import annotations

import inspect
import json
import sys
from pathlib import Path
from typing import Any

from . import loader
from .contract import Contract, cdiv, draw_inputs
from .exceptions import ContractError
from . import generators
from .validate import is_pipeline, kernel_names, parse_descriptor, validate_fields


def _record_cdiv(K: Contract, path: Path, calls: list[dict[str, int]]) -> None:
    target = str(path.resolve())

    def recording_cdiv(a: int, b: int) -> int:
        result = cdiv(a, b)
        frame = sys._getframe(1)  # noqa: SLF001 - the caller's line is the mutation site
        line = frame.f_lineno if frame.f_code.co_filename == target else 0
        calls.append({"a": int(a), "b": int(b), "result": int(result), "line": line})
        return result

    K.cdiv = recording_cdiv  # type: ignore[method-assign] - shadows the class's helper for this K


def _dry_run(fields: dict[str, Any], K: Contract, path: Path, torch: Any) -> tuple[list[Any], list[dict[str, int]]]:
    small = next(s for s in fields["suites"] if s.small)
    sizes = K.sizes_for(fields["dims"], small)
    names = kernel_names(fields)
    errors: list[str] = []
    for device in ("meta", "cpu"):
        calls: list[dict[str, int]] = []
        _record_cdiv(K, path, calls)
        try:
            with torch.device(device):
                inputs = draw_inputs(small, small.seeds[0], sizes, torch)
                steps, _ = parse_descriptor(fields["launch"](inputs, torch), is_pipeline(fields), names, str(path), torch)
            return steps, calls
        except ContractError:
            raise
        except Exception as e:  # noqa: BLE001 - meta tensors do not support every operation
            errors.append(f"{device}: {type(e).__name__}: {e}")
    raise ContractError(str(path), "launch", "the dry run of launch on the small suite failed: " + "; ".join(errors))


def describe(path: str | Path) -> dict[str, Any]:
    import torch

    path = Path(path)
    fields, K, _module = loader.load(path, torch)
    errors = validate_fields(fields, str(path))
    if errors:
        raise ContractError(str(path), errors[0].field, "\n".join(e.message for e in errors))
    text = path.read_text(encoding="utf-8")
    at = text.find(fields["cuda"])
    steps, calls = _dry_run(fields, K, path, torch)
    try:
        launch_line = inspect.getsourcelines(fields["launch"])[1]
    except (OSError, TypeError):
        launch_line = 0
    return {
        "name": fields["name"],
        "level": fields["level"],
        "path": str(path),
        "cuda": fields["cuda"],
        "cuda_line": text[:at].count("\n") + 1 if at >= 0 else 0,
        "kernels": kernel_names(fields),
        "steps": [{"kernel": s.kernel, "grid": list(s.grid), "block": list(s.block)} for s in steps],
        "cdiv_calls": calls,
        "launch_line": launch_line,
        "suites": [{"name": s.name, "seeds": [int(x) for x in s.seeds], "purpose": s.purpose, "small": bool(s.small)}
                   for s in fields["suites"]],
        # The witness search's generated columns (kmut.generators), around the block sizes the
        # launch uses: its K.cdiv divisors and each step's block extents.
        "generated": generators.witness_specs(fields, K, [int(c["b"]) for c in calls] + [int(b) for s in steps for b in s.block]),
    }


def describe_json(path: str) -> str:
    return json.dumps(describe(path))
