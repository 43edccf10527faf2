"""The execution engine's worker: evaluations of mutants on one GPU, in their own process.

`kmut run` (Rust) starts several workers per GPU. Each owns one CUDA context and speaks JSON
lines: requests on stdin, events on stdout (progress and tracebacks go to stderr).

Requests:
  {"op": "column", "substrate": {...}, "suite": S, "seed": N}
      Make (suite, seed) of the substrate current: load the substrate (once), draw the inputs
      (from the scratch cache when another worker drew them already), compute the reference and
      run the original image. Answers {"event": "column", ...} with the original's tau*, its
      kernel time and the preparation time, or {"event": "error", "detail": ...}.
  {"op": "eval", "eval": N, "mutant": ID, "image": PATH|null, "scope": [...], "transform": {...}|null}
      Run one mutant on the current column. Answers {"event": "begin", "eval": N} just before
      the first launch (the orchestrator's watchdog starts there) and then
      {"event": "result", "eval": N, ...}: the continuous verdict (tau*, max abs and rel error,
      non-finite values, shape), the crash class if any, the canary and input checks, times.
  {"op": "quit"}

Faults never spread: a CUDA error the context survives is answered as a crash result; one it
does not survive (a sticky error such as an illegal address) is answered as a crash result with
"fatal": true, and the worker exits, so a fresh one takes over. After any fault the cached
inputs and reference are verified against their checksums and restored when damaged.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import struct
import sys
import time
import traceback
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import jsonlines

# Elements of canary before and after every buffer `launch` allocates: an index one row off
# lands in them, not in a neighbouring allocation.
CANARY_ELEMENTS = 16384
# Bit patterns written into canaries: a quiet NaN with a payload no kernel computes, and the
# same byte for integer buffers.
CANARY_BYTE = 0xA5


def emit(event: str, **data: Any) -> None:
    print(jsonlines.line({"event": event, **data}), flush=True)


def progress(msg: str) -> None:
    print(f"  [worker {os.getpid()}] {msg}", file=sys.stderr, flush=True)


# --- Pure tensor helpers (testable on the CPU) ---------------------------------------------------


# Elements compared per chunk: the comparison works in float64, and a whole 1.6 G-element output
# in float64 would need tens of GB beside the inputs.
COMPARE_CHUNK = 1 << 26


def compare(ref: Any, out: Any, torch: Any) -> dict[str, Any]:
    """The continuous verdict of `out` against `ref`: everything a later tolerance needs.

    tau* = max |ref - out| / (1 + |out|), the smallest t with allclose(ref, out, atol=t, rtol=t)
    (KernelBench passes the candidate second). Infinite when a NaN or an infinity meets a
    different value, as allclose(equal_nan=False) fails there at any tolerance.
    """
    if tuple(out.shape) != tuple(ref.shape):
        return {"shape_ok": False, "tau": math.inf, "max_abs": math.inf, "max_rel": math.inf, "nonfinite": False,
                "shape": f"{tuple(out.shape)} vs ref {tuple(ref.shape)}"}
    r_all, o_all = ref.reshape(-1), out.reshape(-1)
    tau = max_abs = max_rel = 0.0
    nonfinite = broken = False
    for at in range(0, r_all.numel(), COMPARE_CHUNK):
        r = r_all[at : at + COMPARE_CHUNK].double()
        o = o_all[at : at + COMPARE_CHUNK].double()
        # Equal values are close, equal infinities included (as in allclose).
        diff = torch.where(r == o, torch.zeros_like(r), (r - o).abs())
        nonfinite |= bool((~torch.isfinite(o) & torch.isfinite(r)).any())
        # NaN anywhere, or inf against anything but the same inf, fails at every tolerance.
        broken |= bool(torch.isnan(diff).any()) or bool(torch.isnan(r).any()) or bool(torch.isnan(o).any())
        finite = torch.isfinite(diff)
        if bool(finite.any()):
            d = diff[finite]
            tau = max(tau, (d / (1.0 + o[finite].abs())).max().item())
            max_abs = max(max_abs, d.max().item())
            rel = d / r[finite].abs()
            rel = rel[torch.isfinite(rel)]
            if rel.numel():
                max_rel = max(max_rel, rel.max().item())
        if not bool(finite.all()):
            broken = True
    if broken:
        tau = max_abs = math.inf
    return {"shape_ok": True, "tau": tau, "max_abs": max_abs, "max_rel": max_rel, "nonfinite": nonfinite}


def checksum(tensors: list[Any], torch: Any) -> str:
    """A cheap content hash of tensors, computed where they live: the sum of their 32-bit words
    (bytes when the size is odd) and a position-weighted sum of the first words, so that a
    changed or swapped value changes it."""
    parts = []
    for t in tensors:
        if not isinstance(t, torch.Tensor):
            parts.append(repr(t))
            continue
        raw = t.detach().contiguous().view(-1).view(torch.uint8)
        words = raw.view(torch.int32) if raw.numel() % 4 == 0 else raw
        head = words[:1021].to(torch.int64)
        weights = torch.arange(1, 1 + head.numel(), device=words.device, dtype=torch.int64)
        parts.append(f"{t.dtype}:{tuple(t.shape)}:{words.sum(dtype=torch.int64).item()}:{(head * weights).sum().item()}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()


def canary_pattern(n_bytes: int, device: Any, torch: Any) -> Any:
    return torch.full((n_bytes,), CANARY_BYTE, dtype=torch.uint8, device=device)


@dataclass
class Guarded:
    """A buffer `launch` allocated, moved into a larger allocation with canaries either side."""

    old_ptr: int
    whole: Any  # uint8 view of the whole allocation
    body_bytes: int
    pad_bytes: int

    def intact(self, torch: Any) -> bool:
        pattern = canary_pattern(self.pad_bytes, self.whole.device, torch)
        head = self.whole[: self.pad_bytes]
        tail = self.whole[self.pad_bytes + self.body_bytes :]
        return bool(torch.equal(head, pattern)) and bool(torch.equal(tail, pattern))


def guard_buffers(steps: list[Any], out: Any, owned: set[int], torch: Any) -> tuple[list[Any], Any, list[Guarded]]:
    """Move every buffer the steps use that `launch` allocated (not an input, weight or other
    owned storage) into an allocation with canaries before and after it. Returns the rewritten
    steps and output, and the guards to check after the run.

    A buffer's bytes are copied over as `launch` left them: torch.empty's recycled memory as in
    the official harness, zeros for `K.zeros` buffers, and anything `launch` computed into them.
    """
    moved: dict[int, tuple[Any, Guarded]] = {}

    def relocate(t: Any) -> Any:
        storage = t.untyped_storage()
        ptr = storage.data_ptr()
        if ptr in owned:
            return t
        if ptr not in moved:
            body = storage.nbytes()
            pad = CANARY_ELEMENTS * t.element_size()
            whole = torch.empty(body + 2 * pad, dtype=torch.uint8, device=t.device)
            whole[:pad] = CANARY_BYTE
            whole[pad + body :] = CANARY_BYTE
            old = torch.empty(0, dtype=torch.uint8, device=t.device).set_(storage, 0, (body,))
            whole[pad : pad + body].copy_(old)
            body_view = whole[pad : pad + body]
            moved[ptr] = (body_view, Guarded(ptr, whole, body, pad))
        body_view, _ = moved[ptr]
        typed = body_view.view(t.dtype)
        # as_strided counts its offset from the start of the whole allocation, canary included.
        return typed.as_strided(tuple(t.shape), tuple(t.stride()), typed.storage_offset() + t.storage_offset())

    new_steps = [replace(s, tensors=[relocate(t) for t in s.tensors]) for s in steps]
    new_out = relocate(out)
    return new_steps, new_out, [g for _, g in moved.values()]


def apply_transform(steps: list[Any], transform: dict[str, Any] | None) -> list[Any]:
    """Apply a launch mutant's descriptor change (all but `cdiv_floor`, which acts inside
    `launch`). Limits are not checked here: the driver refuses an illegal launch, as it would
    refuse the mutated host code."""
    if not transform:
        return steps
    kind = transform["transform"]
    if kind == "cdiv_floor":
        return steps
    i = transform["step"]
    if i >= len(steps):
        raise ValueError(f"launch transform {transform} names step {i} of {len(steps)}")
    s = steps[i]
    if kind == "swap_grid_block":
        s = replace(s, grid=s.block, block=s.grid)
    elif kind == "grid_x":
        s = replace(s, grid=(s.grid[0] + transform["delta"], s.grid[1], s.grid[2]))
    elif kind == "block_x":
        s = replace(s, block=(s.block[0] + transform["delta"], s.block[1], s.block[2]))
    else:
        raise ValueError(f"unknown launch transform {kind!r}")
    return [*steps[:i], s, *steps[i + 1 :]]


class FlooringCdiv:
    """K.cdiv that rounds the `call`-th call (0-based, per launch) down."""

    def __init__(self, call: int):
        self.call = call
        self.count = 0

    def __call__(self, a: int, b: int) -> int:
        n = self.count
        self.count += 1
        return a // b if n == self.call else (a + b - 1) // b


# --- The worker --------------------------------------------------------------------------------


class Sticky(Exception):
    """The context did not survive a fault."""


class Worker:
    def __init__(self, device_index: int, scratch: Path | None, scratch_bytes: int):
        import torch

        self.torch = torch
        self.device = torch.device("cuda", device_index) if device_index >= 0 else torch.device("cpu")
        if self.device.type == "cuda":
            torch.cuda.set_device(self.device)
            torch.cuda.init()
        self.scratch = scratch
        self.scratch_bytes = scratch_bytes
        self.substrates: dict[str, Any] = {}
        self.column: dict[str, Any] | None = None

    # Substrates and columns

    def substrate(self, spec: dict[str, Any]) -> dict[str, Any]:
        name = spec["name"]
        if name not in self.substrates:
            from . import loader
            from .bridge import Launcher
            from .validate import kernel_names

            fields, K, _ = loader.load(Path(spec["path"]), self.torch)
            image = Path(spec["original_image"]).read_bytes()
            self.substrates[name] = {
                "fields": fields, "K": K, "names": kernel_names(fields), "symbols": spec.get("symbols") or {},
                "original": Launcher(image, self.device.index, spec.get("symbols")), "path": spec["path"],
            }
        return self.substrates[name]

    def draw(self, sub: dict[str, Any], suite: Any, seed: int, sizes: dict[str, int]) -> list[Any]:
        """The CPU inputs of one column: from the scratch cache, or drawn and cached there."""
        from .contract import draw_inputs

        torch = self.torch
        cached = None
        if self.scratch is not None:
            key = hashlib.sha256(json.dumps([sub["path"], suite.name, seed, sizes], sort_keys=True).encode()).hexdigest()[:24]
            cached = self.scratch / f"{sub['fields']['name']}-{suite.name}-{seed}-{key}.pt"
            if cached.exists():
                try:
                    return list(torch.load(cached, mmap=True, weights_only=True))
                except Exception as e:  # noqa: BLE001 - a half-written or foreign file: draw again
                    progress(f"scratch file {cached} unreadable ({e}); drawing again")
        inputs = draw_inputs(suite, seed, sizes, torch)
        if cached is not None:
            self.save_scratch(cached, inputs)
        return inputs

    def save_scratch(self, path: Path, inputs: list[Any]) -> None:
        torch = self.torch
        size = sum(t.numel() * t.element_size() for t in inputs if isinstance(t, torch.Tensor))
        try:
            used = sum(p.stat().st_size for p in path.parent.glob("*.pt"))
            if used + size > self.scratch_bytes:
                return
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            torch.save(inputs, tmp)
            tmp.rename(path)
        except OSError as e:
            progress(f"could not cache inputs in {path.parent}: {e}")

    def prepare(self, req: dict[str, Any]) -> None:
        torch = self.torch
        start = time.perf_counter()
        sub = self.substrate(req["substrate"])
        fields, K = sub["fields"], sub["K"]
        suite = next((s for s in fields["suites"] if s.name == req["suite"]), None)
        if suite is None:
            raise LookupError(f"{sub['path']}: no suite named {req['suite']!r}")
        self.column = None
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
        sizes = K.sizes_for(fields["dims"], suite)
        cpu = self.draw(sub, suite, req["seed"], sizes)
        inputs = [t.to(self.device) if isinstance(t, torch.Tensor) else t for t in cpu]
        with torch.no_grad():
            ref = fields["ref"](inputs, torch)
        self.column = {"sub": sub, "suite": suite, "seed": req["seed"], "sizes": sizes, "cpu": cpu,
                       "inputs": inputs, "ref": ref, "sum": checksum([*inputs, ref], torch)}
        original = self.evaluate({"eval": -1, "mutant": None, "image": None, "scope": [], "transform": None}, announce=False)
        if original.get("crash"):
            raise RuntimeError(f"the original kernel fails on {suite.name} seed {req['seed']}: {original['crash']}: {original.get('detail', '')}")
        self.column["original_tau"] = original["tau"]
        emit("column", suite=suite.name, seed=req["seed"], sizes=sizes, tau=original["tau"], max_abs=original["max_abs"],
             kernel_ms=original["kernel_ms"], canary=original["canary"], prep_s=time.perf_counter() - start)

    def restore_if_damaged(self) -> bool:
        """After a fault: verify the inputs and reference; rebuild them from the CPU copy if a
        mutant wrote into them. Returns whether they had to be restored."""
        torch, col = self.torch, self.column
        assert col is not None
        if checksum([*col["inputs"], col["ref"]], torch) == col["sum"]:
            return False
        progress("inputs or reference damaged by a mutant; restoring them")
        col["inputs"] = [t.to(self.device) if isinstance(t, torch.Tensor) else t for t in col["cpu"]]
        with torch.no_grad():
            col["ref"] = col["sub"]["fields"]["ref"](col["inputs"], torch)
        if checksum([*col["inputs"], col["ref"]], torch) != col["sum"]:
            raise Sticky("the inputs could not be restored to their checksum")
        return True

    # One evaluation

    def launchers(self, req: dict[str, Any]) -> dict[str, Any]:
        """Kernel name -> launcher: the mutant's image for the kernels in its scope, the
        original image for the rest."""
        from .bridge import Launcher

        sub = self.column["sub"]
        chosen = {n: sub["original"] for n in sub["names"]}
        if req.get("image"):
            mutant = Launcher(Path(req["image"]).read_bytes(), self.device.index, sub["symbols"])
            for n in req.get("scope") or sub["names"]:
                chosen[n] = mutant
        return chosen

    def evaluate(self, req: dict[str, Any], announce: bool = True) -> dict[str, Any]:
        from .exceptions import CudaError
        from .validate import parse_descriptor

        torch, col = self.torch, self.column
        if col is None:
            raise RuntimeError("eval before a column was prepared")
        sub = col["sub"]
        fields, K = sub["fields"], sub["K"]
        transform = req.get("transform")
        wall = time.perf_counter()
        result: dict[str, Any] = {"eval": req["eval"], "mutant": req.get("mutant")}
        saved_cdiv = K.cdiv
        try:
            by_kernel = self.launchers(req)
            if transform and transform.get("transform") == "cdiv_floor":
                K.cdiv = FlooringCdiv(transform["call"])  # type: ignore[method-assign]
            K.zero_init.clear()
            try:
                steps, out = parse_descriptor(fields["launch"](col["inputs"], torch), fields["level"], sub["names"], sub["path"], torch)
            finally:
                K.cdiv = saved_cdiv  # type: ignore[method-assign]
            steps = apply_transform(steps, transform)
            steps, out, guards = guard_buffers(steps, out, K.owned_storages(col["inputs"], torch), torch)
            if announce:
                emit("begin", eval=req["eval"])
            stream = torch.cuda.current_stream()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for s in steps:
                launcher = by_kernel[s.kernel]
                args = [struct.pack("<Q", t.data_ptr()) for t in s.tensors] + s.scalar_bytes()
                launcher.module.launch(launcher.symbol(s.kernel), s.grid, s.block, args, stream.cuda_stream)
            end.record()
            sub["original"].module.synchronize(stream.cuda_stream)
            result["kernel_ms"] = start.elapsed_time(end)
            result.update(compare(col["ref"], out, torch))
            result["canary"] = not all(g.intact(torch) for g in guards)
            # Verify the inputs whenever the mutant behaved differently from the original: a
            # stray write into an input shows there first.
            differs = result["canary"] or not result["shape_ok"] or result["tau"] > col.get("original_tau", 0.0)
            del steps, out, guards, by_kernel
            result["inputs_restored"] = self.restore_if_damaged() if differs and req["eval"] >= 0 else False
        except CudaError as e:
            result.update(crash=e.name or "CUDA_ERROR", detail=str(e))
            result["fatal"] = not self.context_alive()
            if not result["fatal"]:
                result["inputs_restored"] = self.restore_if_damaged()
        except Sticky as e:
            result.update(crash="inputs_lost", detail=str(e), fatal=True)
        except Exception as e:  # noqa: BLE001 - the mutated host path (launch, cdiv) or the descriptor
            result.update(crash=f"launch:{type(e).__name__}", detail=str(e)[:500])
            result["fatal"] = not self.context_alive()
        finally:
            K.cdiv = saved_cdiv  # type: ignore[method-assign]
        result["wall_ms"] = (time.perf_counter() - wall) * 1e3
        return result

    def context_alive(self) -> bool:
        torch = self.torch
        try:
            torch.cuda.synchronize(self.device)
            probe = torch.ones(16, device=self.device).sum().item()
            return probe == 16.0
        except Exception:  # noqa: BLE001 - any failure means the context is gone
            return False


def serve(worker: Worker, stream: Any) -> int:
    for line in stream:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        op = req.get("op")
        if op == "quit":
            return 0
        if op == "column":
            try:
                worker.prepare(req)
            except Exception as e:  # noqa: BLE001 - a substrate or environment problem, reported whole
                progress(traceback.format_exc())
                emit("error", detail=f"{type(e).__name__}: {e}", fatal=not worker.context_alive())
                if not worker.context_alive():
                    return 3
        elif op == "eval":
            result = worker.evaluate(req)
            emit("result", **result)
            if result.get("fatal"):
                progress(f"context lost after {result.get('crash')}; exiting so a fresh worker takes over")
                return 3
        else:
            emit("error", detail=f"unknown request {op!r}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kmut._run_worker", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", type=int, default=0, help="CUDA device index")
    parser.add_argument("--scratch", type=Path, default=None, help="folder shared by workers for drawn inputs")
    parser.add_argument("--scratch-gb", type=float, default=32.0, help="most input bytes to keep in --scratch")
    args = parser.parse_args(argv)
    if args.scratch is not None:
        args.scratch.mkdir(parents=True, exist_ok=True)
    try:
        worker = Worker(args.device, args.scratch, int(args.scratch_gb * 2**30))
    except Exception as e:  # noqa: BLE001 - no GPU, no torch: say so on the protocol
        emit("error", detail=f"the worker could not start: {type(e).__name__}: {e}", fatal=True)
        return 2
    emit("ready", pid=os.getpid(), device=str(worker.device),
         name=worker.torch.cuda.get_device_name(worker.device) if worker.device.type == "cuda" else "cpu")
    return serve(worker, sys.stdin)


if __name__ == "__main__":
    sys.exit(main())
