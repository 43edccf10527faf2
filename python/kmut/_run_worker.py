"""The execution engine's worker: evaluations of mutants on one GPU (or, with `--backend cpu`,
on kmut's CPU backend), in their own process.

`kmut run` (Rust) starts several workers per GPU, or one per core on the CPU backend. Each owns
one CUDA context (or a core) and speaks JSON lines: requests on stdin, events on stdout
(progress and tracebacks go to stderr).

Requests:
  {"op": "column", "substrate": {...}, "suite": S, "seed": N}
      Make (suite, seed) of the substrate current: load the substrate (the only one the worker
      holds), draw the inputs (from the scratch cache when another worker drew them already),
      compute the reference and run the original image. Answers {"event": "column", ...} with
      the original's tau*, its kernel time, the preparation time, the preparation's peak device
      memory (`peak_bytes`) and what the worker keeps while evaluating on the column
      (`held_bytes`), or {"event": "error", "detail": ..., "environment": bool}.
      With "known": {sizes, tau, max_abs, kernel_ms, valid, tau64_ref, tau64_orig} (a stored
      baseline of the same original image on this backend), the original is not launched where
      nothing on the column reads its outputs (a single kernel, or a pipeline without kept steps):
      the column event then carries those figures and "original_stored": true. (The engine
      decides whether to send it: `kmut run --rerun-original` never does.)
      With "defer": {sizes, kernel_ms, tolerance} (a sibling column of the same suite measured
      in this run), the original is not launched either, under the same condition and where the
      drawn sizes are the sibling's: the column event carries no tau, the sibling's kernel time
      and "original_deferred": true. The first evaluation on the column that fails the
      comparison at `tolerance` (not a crash: a crash is a kill whatever the original does)
      then runs the original, and its result carries "original": {tau, max_abs, kernel_ms} or
      {crash, detail}: the engine's baseline of the column, taken only where it decides.
  {"op": "eval", "eval": N, "mutant": ID, "image": PATH|null, "scope": [...], "transform": {...}|null,
   "variant": NAME|null, "orders": [...]}
      (`variant` and `orders` on the CPU backend only: the mutant's variant in the `image`
      library, and the thread orders to run it in; the result then has "orders": [[order, tau*]].)
      Run one mutant on the current column. Answers {"event": "begin", "eval": N} just before
      the first launch and {"event": "end", "eval": N} once the last kernel completed (once per
      thread order on the CPU): the orchestrator's watchdog times only what lies between. Then
      {"event": "result", "eval": N, ...}: the continuous verdict (tau*, max abs and rel error,
      non-finite values, shape), the crash class if any, the canary and input checks, times.
      A failure that is the machine's (out of memory, a full disk) is answered as a result with
      "environment": <why> and no verdict: the orchestrator retries it and never stores it.
  {"op": "release"}
      Drop the column and the substrate and give their device memory back ({"event": "released"}).
  {"op": "quit"}

Faults never spread: a CUDA error the context survives is answered as a crash result; one it
does not survive (a sticky error such as an illegal address) is answered as a crash result with
"fatal": true, and the worker exits, so a fresh one takes over. After every evaluation the
cached inputs, reference and weights are verified against their checksums and restored when
damaged (a stray write can land past the canaries); when they cannot be, the worker exits. On
the CPU backend an access past a buffer's canaries hits an inaccessible page and the process
dies of SIGSEGV, which the orchestrator records as a `memory_fault`.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from . import generators, jsonlines, replay
from .compare import compare
from .guards import CANARY_BYTE, CPU_CANARY_BYTE, GuardedTorch, canaries_intact, checksum, guard_buffers, guarded_copy
from .machine import MachineFailure, TooLarge, environment_failure, first_line
from .phases import Phases, prepared_line
from .replay import Tail, launch_key
from .scratch import Scratch, on_cpu
from .transforms import FlooringCdiv, apply_transform


def emit(event: str, **data: Any) -> None:
    print(jsonlines.line({"event": event, **data}), flush=True)


def progress(msg: str) -> None:
    print(f"  [worker {os.getpid()}] {msg}", file=sys.stderr, flush=True)


# --- The worker --------------------------------------------------------------------------------


class Sticky(Exception):
    """The column (inputs, reference, weights) could not be restored after a stray write."""


def cpu_model() -> str:
    """The processor's model name (Linux), for the backend label of CPU evaluations."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor() or platform.machine() or "unknown"


class Worker:
    """One worker's state: its device, the substrates it loaded and the current column.

    On the CPU backend (`device_index` < 0) kernels run through `kmut.cpu_backend` from the
    shared libraries `kmut run` built; inputs and launch-allocated buffers sit between NaN
    canaries and inaccessible pages, and a mutant may run in several thread orders.
    """

    def __init__(self, device_index: int, scratch: Path | None, scratch_bytes: int):
        import torch

        self.torch = torch
        self.device = torch.device("cuda", device_index) if device_index >= 0 else torch.device("cpu")
        self.cpu = self.device.type == "cpu"
        self.canary_byte = CPU_CANARY_BYTE if self.cpu else CANARY_BYTE
        if self.cpu:
            # Workers run side by side, one per core: torch's own threads would oversubscribe.
            torch.set_num_threads(1)
        else:
            torch.cuda.set_device(self.device)
            torch.cuda.init()
        self.memory_total = None if self.cpu else torch.cuda.mem_get_info(self.device)[1]
        # The folder the run's workers share for drawn inputs and validity verdicts, if any.
        self.scratch = Scratch(scratch, scratch_bytes, torch, progress) if scratch is not None else None
        self.substrates: dict[str, Any] = {}
        self.column: dict[str, Any] | None = None
        self.original_out: Any = None
        self.capture_steps = True  # per-step capture of pipelines (kmut.steps); --no-steps turns it off
        # A mutant's pipeline starts at its first changed step, the steps before it replayed from
        # the original's outputs (`prefix_steps`); --no-skip-prefix or KMUT_PREFIX=run turns it off.
        self.skip_prefix = os.environ.get("KMUT_PREFIX") != "run"
        # A mutant whose changed steps left every buffer as the original's run left it replays
        # the steps after its last changed one (`tail_from`, `converged`); --no-skip-tail or
        # KMUT_TAIL=run turns it off.
        self.skip_tail = os.environ.get("KMUT_TAIL") != "run"
        # `launch`'s buffers are moved between canaries after it returns; --allocate-buffers or
        # KMUT_BUFFERS=allocate has them allocated there on a GPU (`GuardedTorch`): less memory
        # and traffic, but an element no kernel writes then holds the canary byte, not recycled
        # bytes. Off until a GPU measures both (`kmut bench run --baseline relocate`).
        self.allocate_buffers = os.environ.get("KMUT_BUFFERS") == "allocate"
        # The column's phases while the original runs on it (`prepare`), split further there.
        self.phases: Phases | None = None
        # Input bytes by (substrate, sizes), from shapes on the meta device (`refuse_oversized`).
        self.planned: dict[tuple[str, tuple[tuple[str, int], ...]], int | None] = {}

    # Substrates and columns

    def substrate(self, spec: dict[str, Any]) -> dict[str, Any]:
        name = spec["name"]
        if name not in self.substrates:
            # One substrate at a time: CPU workers run one per core, and each keeping every
            # substrate's fixed weights (gigabytes for the large MLPs) ran a 16-core host out of
            # memory; on a GPU the orchestrator budgets memory per column held (`peak_bytes`).
            self.release()
            from . import loader
            from .bridge import Launcher
            from .validate import kernel_names

            fields, K, module = loader.load(Path(spec["path"]), self.torch)
            if self.scratch is not None and K.weight_sets:
                self.scratch.share_weights(name, module.__kmut_source_sha256__, K.weight_sets)
            if self.cpu:
                from .cpu_backend import CpuLauncher

                original: Any = CpuLauncher(spec["original_image"], spec["original_variant"])
            else:
                original = Launcher(Path(spec["original_image"]).read_bytes(), self.device.index, spec.get("symbols"))
            self.substrates[name] = {
                "fields": fields, "K": K, "names": kernel_names(fields), "symbols": spec.get("symbols") or {},
                "original": original, "path": spec["path"], "original_image": str(spec["original_image"]),
            }
        return self.substrates[name]

    def release(self) -> None:
        """Drop the column and every substrate, and give their device memory back."""
        self.column = None
        self.substrates.clear()
        gc.collect()
        if not self.cpu:
            self.torch.cuda.empty_cache()

    def draw(self, sub: dict[str, Any], name: str, seed: int, sizes: dict[str, int], make: Any) -> list[Any]:
        """The CPU inputs of one column, `make()` drawing them (the master copy): from the shared
        scratch folder when the run has one (`Scratch.inputs`), else drawn here."""
        if self.scratch is None:
            return on_cpu(make(), self.torch)
        return self.scratch.inputs(sub, name, seed, sizes, make)

    def generated(self, sub: dict[str, Any], spec: Any, seed: int, sizes: dict[str, int]) -> Any:
        """A generated column's recipe: a callable that returns its working inputs (at
        preparation, and again to restore inputs a mutant damaged). The witness search's
        columns of one substrate at one seed and size transform the same T0_original draw (at
        the official sizes five columns, each a torch.rand of up to 2^31 elements on the CPU:
        the largest phase of a search column's preparation on the H200), so that draw is what
        goes to the scratch folder, once, and each column applies its own transform to it. The
        arithmetic ones (`generators.IN_PLACE`) transform the device copy in place, where a pass
        over gigabytes costs milliseconds instead of the CPU's seconds (`KMUT_TRANSFORM=cpu`
        keeps them on the CPU: the campaign script sets it when the device check of
        test_generators_gpu.py fails); the others transform on the CPU. fresh<k> columns are
        drawn whole."""
        torch, fields = self.torch, sub["fields"]
        if not generators.shares_draw(spec):
            cpu = self.draw(sub, spec.name(), seed, sizes, lambda: generators.draw(spec, fields, sub["K"], seed, self.drawing(), on=self.device))
            return lambda: self.place(cpu)
        raw = self.draw(sub, generators.RAW, seed, sizes, lambda: generators.raw_draw(fields, seed, sizes, self.drawing(), on=self.device))
        if self.cpu or spec.generator not in generators.IN_PLACE or os.environ.get("KMUT_TRANSFORM") == "cpu":
            # The CPU backend's inputs sit between guard pages: transformed first, then copied there.
            cpu = [t.cpu() if isinstance(t, torch.Tensor) else t for t in generators.finish(spec, raw, seed, torch)]
            return lambda: self.place(cpu)
        # A copy always (`copy=True`): the transform writes into it, never into the shared draw.
        return lambda: generators.finish_placed(spec, raw, torch, lambda t: t.to(self.device, copy=True))

    def drawing(self) -> Any:
        """The `torch` a substrate's input generator is given here: torch itself, but for a
        `torch.rand` that fills large float32 draws on every core, the same values and the same
        generator state after (`kmut.fastrand`; `KMUT_DRAW=torch` turns it off)."""
        from .fastrand import Drawing

        return Drawing(self.torch)

    def prepare(self, req: dict[str, Any]) -> None:
        torch = self.torch
        start = time.perf_counter()
        sub = self.substrate(req["substrate"])
        fields, K = sub["fields"], sub["K"]
        name, seed = req["suite"], req["seed"]
        self.column = None
        phases = Phases(torch, None if self.cpu else self.device)
        if self.device.type == "cuda":
            torch.cuda.empty_cache()
            torch.cuda.reset_peak_memory_stats(self.device)
        if generators.is_spec(name):
            # A generated column of the witness search (kmut.generators).
            spec = generators.parse(name)
            sizes = generators.sizes_of(spec, fields, K)
            self.refuse_oversized(fields, name, sizes)
            build = self.generated(sub, spec, seed, sizes)
        else:
            from .contract import draw_inputs

            suite = next((s for s in fields["suites"] if s.name == name), None)
            if suite is None:
                raise LookupError(f"{sub['path']}: no suite named {name!r}")
            sizes = K.sizes_for(fields["dims"], suite)
            cpu = self.draw(sub, name, seed, sizes, lambda: draw_inputs(suite, seed, sizes, self.drawing(), on=self.device))
            build = lambda: self.place(cpu)  # noqa: E731 - the column's recipe, kept for restores
        phases.mark("draw")
        inputs = build()
        # Its own phase since 2026-12-04: the copy to the device (and a generated column's
        # transform there), which the "ref" phase held before.
        phases.mark("place")
        with torch.no_grad():
            ref = fields["ref"](inputs, torch)
        phases.mark("ref")
        # `steps`: whether this column captures each pipeline step (the engine asks it on the
        # protocol's own columns, not on a witness search's); absent means yes.
        self.column = {"name": name, "seed": seed, "sizes": sizes, "build": build, "inputs": inputs, "ref": ref, "sub": sub,
                       "steps_on": bool(req.get("steps", True))}
        # Without the kept step outputs (not yet kept): the base a restore rebuilds to.
        self.column["sum"] = self.column["base_sum"] = self.column_sum()
        phases.mark("checksum")
        # The original's run is split into its parts (`run_once`: original_setup, _kernels,
        # _compare, _steps; "original" keeps what is left): the 2026-12-06 whole-corpus bench
        # spent 634 of its 1,105 preparation seconds there, about five times the original's
        # kernel time, and the log could not say where the rest went.
        self.phases = phases
        before_run = self.memory_window()
        known = req.get("known")
        if known is not None and known.get("sizes") != sizes:
            known = None  # the substrate's sizes changed since it was measured
        defer = req.get("defer") if known is None else None
        if defer is not None and defer.get("sizes") != sizes:
            defer = None  # the sibling drew other sizes: its kernel time is not this column's
        if defer is not None:
            known = {"deferred": True, "kernel_ms": defer["kernel_ms"]}
        try:
            original = self.run_original(known)
            # The checksum every evaluation ends with, inside the window: its temporaries (with
            # the kernel off, torch's int64 copy of the largest tensor) are part of the hold.
            if not original.get("crash") and not original.get("environment"):
                self.column_sum()
        finally:
            self.phases = None
        held = self.memory_window_peak()
        phases.mark("original")
        if original.get("environment"):
            raise MachineFailure(original["environment"])
        if original.get("crash"):
            raise RuntimeError(f"the original kernel fails on {name} seed {seed}: {original['crash']}: {original.get('detail', '')}")
        self.column["original_tau"] = original["tau"]
        stored = bool(original.get("stored"))
        deferred = bool(original.get("deferred"))
        # The tolerance a failing evaluation is judged at, while the original's run waits.
        self.column["deferred_tolerance"] = defer["tolerance"] if deferred and defer is not None else None
        if req.get("margin") is None:
            validity = {}
        elif stored:
            # The stored verdict was taken at its run's margin: valid there (finite, the right
            # shape) and both distances within this run's margin is valid here.
            assert known is not None
            within = known["tau64_ref"] <= req["margin"] and known["tau64_orig"] <= req["margin"]
            validity = {"valid": bool(known["valid"] and within), "tau64_ref": known["tau64_ref"], "tau64_orig": known["tau64_orig"]}
        else:
            validity = self.known_validity(sub, name, seed, sizes, req["margin"])
        phases.mark("validity")
        self.original_out = None
        # The column's footprints, for the orchestrator's memory budget. `peak_bytes`: what
        # preparing it took at most (the draw, the reference's activations, the validity gate's
        # float64 copies), which the next preparation of the same sizes is budgeted at.
        # `held_bytes`: what this worker keeps while it evaluates on it (its weights, inputs,
        # reference, kept step outputs and one run's buffers: the original's run alone, measured
        # after the preparation's transient memory went back to the device), which the budget
        # counts for it until it drops the column. Step outputs kept on the device are packed
        # during the original's run, so both count them.
        peak = None if self.cpu else max(before_run or 0, torch.cuda.max_memory_reserved(self.device))
        if validity and not self.cpu:
            torch.cuda.empty_cache()  # the validity gate's float64 copies, given back
        # Where a column's preparation goes (issue 21's next lever is read from these lines in
        # the run's workers log), one line per prepared column.
        # It ends with when it was ready (Unix time): the workers' lines then say which columns a
        # run's tail held (2026-12-07: the log could not tell when the memory-bound columns ran).
        progress(prepared_line(sub["fields"]["name"], name, seed, phases, peak, held))
        emit("column", suite=name, seed=seed, sizes=sizes, tau=original["tau"], max_abs=original["max_abs"],
             kernel_ms=original["kernel_ms"], canary=original["canary"], prep_s=time.perf_counter() - start, peak_bytes=peak,
             held_bytes=held, original_stored=stored, original_deferred=deferred, **validity, **self.steps_layout())

    def memory_window(self) -> int | None:
        """Before the original's run: the preparation's reserved peak so far, and then the
        cached memory nothing holds any more (the reference's activations, the draw's copies)
        given back to the device and the peak counters reset, so that `memory_window_peak` sees
        the original's run alone over the column's live tensors. None on the CPU."""
        if self.cpu:
            return None
        torch = self.torch
        peak = torch.cuda.max_memory_reserved(self.device)
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats(self.device)
        return peak

    def memory_window_peak(self) -> int | None:
        """The device memory reserved at most since `memory_window`: what an evaluation on this
        column holds (a mutant's run allocates the original's buffers). None on the CPU."""
        return None if self.cpu else self.torch.cuda.max_memory_reserved(self.device)

    def refuse_oversized(self, fields: dict[str, Any], name: str, sizes: dict[str, int]) -> None:
        """A generated column whose inputs alone would take more than a third of the device's or
        the host's memory is the machine's failure before anything is drawn: drawing it would end
        in an out-of-memory error at best, and at worst in the kernel's OOM killer (2026-12-06,
        an H100 host at 118 of its 128 GiB: L1p40's `W:boundary:1:batch=2049`, 32 GiB of input,
        killed on the host and then out of GPU memory alone). Preparing a column holds the
        inputs two or three times over (the draw, the device copy, the fp64 copy of the validity
        gate), so a third is the most that can fit. The host's share is of its memory available
        now, so the same column may fit a later, emptier machine: a refusal is never a verdict.
        `KMUT_MAX_INPUT_BYTES` sets the limit. The bytes are worked out once per substrate and
        sizes: running the generator on the meta device costs about 10 ms, paid on every
        generated column's preparation before (a search prepares dozens per substrate at
        the same sizes)."""
        key = (fields["name"], tuple(sorted(sizes.items())))
        if key not in self.planned:
            self.planned[key] = generators.planned_bytes(fields, sizes, self.torch)
        need = self.planned[key]
        try:
            limit = int(os.environ.get("KMUT_MAX_INPUT_BYTES", "0")) or self.input_limit()
        except Exception as e:  # noqa: BLE001 - a guard, not a verdict: without a limit the column is drawn as before
            progress(f"no input limit for {name}: {type(e).__name__}: {e}")
            return
        if need is not None and need > limit:
            raise TooLarge(
                f"out of memory before drawing: {name}'s inputs alone would take {need / 2**30:.1f} GiB, over this machine's "
                f"{limit / 2**30:.1f} GiB for one column's inputs (a third of the device's memory or of the host's available now)"
            )

    def input_limit(self) -> int:
        """A third of the smaller of the host's available memory (`host_available`: the scratch
        folder in /dev/shm and the other workers take from it) and, on a GPU, the device's."""
        host = host_available()
        if self.cpu:
            return host // 3
        return min(host, self.torch.cuda.get_device_properties(self.device).total_memory) // 3

    def run_original(self, known: dict[str, Any] | None = None) -> dict[str, Any]:
        """The original's run on the current column (eval -1): its outputs, kept step outputs and
        the column's checksum over them (`record_steps`). With `known` (the engine's stored
        figures for this column, the same original image on the same backend), only where the
        column's mutants need the original's outputs (`run_once`)."""
        req = {"eval": -1, "mutant": None, "image": None, "scope": [], "transform": None}
        if known is not None:
            req["known"] = known
        return self.evaluate(req, announce=False)

    def known_validity(self, sub: dict[str, Any], name: str, seed: int, sizes: dict[str, int], margin: float) -> dict[str, Any]:
        """The validity gate's verdict on the current column: computed here, or read from the
        scratch folder when another worker computed it for the same column and original
        (`Scratch.verdict`; the verdict does not depend on which worker draws the column)."""
        if self.scratch is None:
            return self.validity(margin)
        # The original's image path names its content (the image cache is content-addressed).
        key = [sub["path"], name, seed, sizes, margin, sub["original_image"], self.cpu]
        return self.scratch.verdict(key, lambda: self.validity(margin))

    def validity(self, margin: float) -> dict[str, Any]:
        """Whether the current column may witness (the witness search's validity gate): the fp32
        reference and the original kernel both within `margin` of the fp64 reference, and
        nothing NaN or infinite where fp64 is finite."""
        torch, col = self.torch, self.column
        assert col is not None and self.original_out is not None
        inputs64 = [t.double() if isinstance(t, torch.Tensor) and t.is_floating_point() else t for t in col["inputs"]]
        with torch.no_grad():
            r64 = col["sub"]["fields"]["ref"](inputs64, torch)
        del inputs64
        ref = compare(r64, col["ref"], torch)
        orig = compare(r64, self.original_out, torch)
        del r64
        finite = not ref["nonfinite"] and not orig["nonfinite"] and ref["shape_ok"] and orig["shape_ok"]
        valid = finite and ref["tau"] <= margin and orig["tau"] <= margin
        return {"valid": bool(valid), "tau64_ref": ref["tau"], "tau64_orig": orig["tau"]}

    def weights_here(self) -> list[Any]:
        """The substrate's weight tensors on this worker's device (what launch and ref use)."""
        col = self.column
        assert col is not None
        return [t for w in col["sub"]["K"].weight_sets for t in w.tensors() if t.device == self.device]

    def column_sum(self, kept: bool = True) -> str:
        """The checksum of what every evaluation on the column reads: its inputs, reference and
        weights, and (`kept`) the original's packed step outputs once its run kept them."""
        col = self.column
        assert col is not None
        flat = col.get("steps_flat") if kept else None
        return checksum([*col["inputs"], col["ref"], *self.weights_here(), *([flat] if flat is not None else [])], self.torch)

    def place(self, cpu: list[Any]) -> list[Any]:
        """The working copy of a column's inputs: on the GPU, or on the CPU between guards (a
        copy either way, so a mutant that writes into its inputs leaves the master intact)."""
        torch = self.torch
        if self.cpu:
            return [guarded_copy(t, torch) for t in cpu]
        return [t.to(self.device) if isinstance(t, torch.Tensor) else t for t in cpu]

    def restore_if_damaged(self) -> bool:
        """After an evaluation: verify the inputs, reference, weights and the original's kept
        step outputs; rebuild them (inputs from the CPU copy, weights from their master, the
        reference from both, the step outputs by the original's run again) if a mutant wrote
        into them. Returns whether they had to be restored; raises Sticky when they cannot be."""
        torch, col = self.torch, self.column
        assert col is not None
        if self.column_sum() == col["sum"]:
            return False
        whole = col["sum"]
        if self.column_sum(kept=False) != col["base_sum"]:
            progress("inputs, reference or weights damaged by a mutant; restoring them")
            for w in col["sub"]["K"].weight_sets:
                w.forget(self.device)
            col["inputs"] = col["build"]()
            with torch.no_grad():
                col["ref"] = col["sub"]["fields"]["ref"](col["inputs"], torch)
            if self.column_sum(kept=False) != col["base_sum"]:
                raise Sticky("the inputs, reference and weights could not be restored to their checksum")
        if self.column_sum() != whole:
            progress("the original's kept step outputs damaged by a mutant; running the original again")
            col.pop("steps_original", None)
            col.pop("steps_flat", None)
            again = self.run_original()
            self.original_out = None
            if again.get("crash") or again.get("environment") or self.column_sum() != whole:
                raise Sticky("the original's step outputs could not be restored to their checksum")
        return True

    # One evaluation

    def launchers(self, req: dict[str, Any]) -> dict[str, Any]:
        """Kernel name -> launcher: the mutant's image for the kernels in its scope, the
        original image for the rest."""
        from .bridge import Launcher

        sub = self.column["sub"]
        chosen = {n: sub["original"] for n in sub["names"]}
        if req.get("image"):
            if self.cpu:
                from .cpu_backend import CpuLauncher

                mutant: Any = CpuLauncher(req["image"], req["variant"])
            else:
                mutant = Launcher(Path(req["image"]).read_bytes(), self.device.index, sub["symbols"])
            for n in req.get("scope") or sub["names"]:
                chosen[n] = mutant
        return chosen

    def evaluate(self, req: dict[str, Any], announce: bool = True) -> dict[str, Any]:
        """One mutant on the current column: once, or on the CPU once per requested thread
        order, the worst order deciding (a kill in any order is a kill)."""
        from .exceptions import CudaError

        col = self.column
        if col is None:
            raise RuntimeError("eval before a column was prepared")
        K = col["sub"]["K"]
        wall = time.perf_counter()
        result: dict[str, Any] = {"eval": req["eval"], "mutant": req.get("mutant")}
        saved_cdiv = K.cdiv
        orders = (req.get("orders") or [0]) if self.cpu else [0]
        torch = self.torch
        # A mutant's parts, marked where the worker waits for the device anyway (the launches end
        # synchronised; the comparison, canary check, step rows and checksum each read a result
        # back), so no mark adds a synchronisation; the guarded copies `setup` queues count in
        # `kernels`.
        clock = Phases(torch, None) if req["eval"] >= 0 else None
        try:
            by_kernel = self.launchers(req)
            if clock is not None:
                clock.mark("load")
            runs = [self.run_once(req, by_kernel, order, announce=announce, clock=clock) for order in orders]
            worst = max(runs, key=worst_first)
            result.update(worst)
            result["canary"] = any(r["canary"] for r in runs)
            result["kernel_ms"] = sum(r["kernel_ms"] for r in runs) / len(runs)
            if len(orders) > 1:
                result["orders"] = [[o, r["tau"] if r["shape_ok"] else math.inf] for o, r in zip(orders, runs)]
            del by_kernel, runs
            if self.cpu and result["canary"] and req["eval"] >= 0:
                # A write that reached a canary may have reached further, into memory nothing
                # guards (Python's heap): the next mutant gets a fresh process.
                result["fatal"] = True
        except CudaError as e:
            why = environment_failure(e, torch)
            if why:
                result["environment"] = why
            else:
                result.update(crash=e.name or "CUDA_ERROR", detail=str(e))
            result["fatal"] = not self.context_alive()
        except Exception as e:  # noqa: BLE001 - the mutated host path (launch, cdiv) or the descriptor
            why = environment_failure(e, torch)
            if why:
                result["environment"] = why
            else:
                result.update(crash=f"launch:{type(e).__name__}", detail=str(e)[:500])
            result["fatal"] = not self.context_alive()
        finally:
            K.cdiv = saved_cdiv  # type: ignore[method-assign]
        if result.get("environment") and not self.cpu:
            torch.cuda.empty_cache()
        if req["eval"] >= 0 and not result.get("fatal"):
            self.check_column(result)
        if req["eval"] >= 0 and not result.get("fatal") and fails_comparison(result, col.get("deferred_tolerance")):
            self.deferred_original(result)
        if clock is not None:
            clock.mark("check")
            result["phases_ms"] = clock.totals_ms()
        result["wall_ms"] = (time.perf_counter() - wall) * 1e3
        return result

    def deferred_original(self, result: dict[str, Any]) -> None:
        """The original's run the column's preparation deferred, made now that the evaluation
        `result` failed there: its figures, or its crash, go with the result ("original"). The
        column's inputs were checked (and restored) after that evaluation, so the original reads
        what it would have read at the preparation. A crash that poisons the context ends the
        worker after this result ("fatal"). A failure of the machine (out of memory) is no
        verdict on the original: the result goes without it, the column stays deferred here, and
        the engine measures the column at its next preparation."""
        col = self.column
        assert col is not None
        tolerance, col["deferred_tolerance"] = col["deferred_tolerance"], None
        run = self.run_original()
        self.original_out = None
        if run.get("environment"):
            col["deferred_tolerance"] = tolerance
            return
        if run.get("crash"):
            result["original"] = {"crash": run["crash"], "detail": run.get("detail")}
            result["fatal"] = bool(result.get("fatal") or run.get("fatal"))
            return
        col["original_tau"] = run["tau"]
        result["original"] = {"tau": run["tau"], "max_abs": run["max_abs"], "kernel_ms": run["kernel_ms"]}

    def check_column(self, result: dict[str, Any]) -> None:
        """After every evaluation, whatever it returned: a stray write can land past the
        canaries in an input, the reference or a weight and skew every later verdict. The
        evaluation's own verdict stands (its output was compared before); a column that cannot
        be restored ends the worker."""
        try:
            result["inputs_restored"] = self.restore_if_damaged()
        except Exception as e:  # noqa: BLE001 - Sticky, or the restore itself failing (out of memory)
            result["inputs_restored"] = False
            result["fatal"] = True
            result["detail"] = "; ".join(filter(None, [result.get("detail"), f"the column could not be restored: {e}"]))

    def run_once(self, req: dict[str, Any], by_kernel: dict[str, Any], order: int, announce: bool,
                 clock: Phases | None = None) -> dict[str, Any]:
        """Build the launch descriptor (with the mutant's host-side change), guard its buffers,
        launch every step and compare with the reference. Errors propagate to `evaluate`. The
        original's run on a column being prepared marks its parts in `self.phases`, a mutant's
        in `clock`."""
        from .validate import is_pipeline, parse_descriptor

        torch, col = self.torch, self.column
        sub = col["sub"]
        fields, K = sub["fields"], sub["K"]
        # The original's run on a column being prepared marks its parts with a synchronisation
        # each; a mutant's marks them on its clock, where the worker waits anyway.
        phases = self.phases if req["eval"] < 0 and self.phases is not None else None
        mark = phases.mark if phases is not None else (clock.mark if clock is not None else (lambda _name: None))
        transform = req.get("transform")
        saved_cdiv = K.cdiv
        if transform and transform.get("transform") == "cdiv_floor":
            K.cdiv = FlooringCdiv(transform["call"])  # type: ignore[method-assign]
        K.zero_init.clear()
        # With --allocate-buffers on a GPU `launch` allocates its buffers with their canaries
        # already around them (`GuardedTorch`); otherwise `guard_buffers` moves them there.
        alloc = GuardedTorch(torch, self.canary_byte) if self.allocate_buffers and not self.cpu else None
        try:
            steps, out = parse_descriptor(fields["launch"](col["inputs"], alloc or torch), is_pipeline(fields), sub["names"], sub["path"], torch)
        finally:
            K.cdiv = saved_cdiv  # type: ignore[method-assign]
        steps = apply_transform(steps, transform)
        owned = K.owned_storages(col["inputs"], torch)
        steps, out, guards = guard_buffers(steps, out, owned, torch, self.canary_byte, alloc.made if alloc is not None else None)
        capture = self.step_capture(steps, original=req["eval"] < 0)
        known = req.get("known") if req["eval"] < 0 else None
        if known is not None and capture is None:
            # Nothing on this column reads the original's outputs (no kept steps): its buffers are
            # allocated and guarded, so the column's held memory still counts one run's, and
            # nothing is launched. Either the store holds its figures here ("stored"), or a
            # sibling of the same sizes gave its kernel time and the run waits for the column's
            # first failing evaluation ("deferred", `evaluate`).
            how = "deferred" if known.get("deferred") else "stored"
            mark("original_setup")
            mark(f"original_{how}")
            return {"tau": known.get("tau"), "max_abs": known.get("max_abs"), "max_rel": math.nan, "nonfinite": False, "shape_ok": True,
                    "kernel_ms": known["kernel_ms"], "canary": False, "tail_steps": 0, "skipped_steps": 0,
                    "steps_total": len(steps) if len(steps) > 1 else 0, how: True}
        skip = replay.prefix_steps(col, req, steps, self.skip_prefix)
        last = replay.tail_from(col, req, steps, self.skip_tail)
        zeros = set(K.zero_init)
        tail = None if last is None else Tail(
            last, col["steps_original"], lambda: replay.converged(col, steps, last, guards, zeros, self.column_sum, torch))
        mark("original_setup")
        if announce:
            emit("begin", eval=req["eval"])
        kernel_ms = self.execute(steps, by_kernel, order, capture, col["steps_original"][:skip] if skip else None, tail)
        if announce:
            # The kernels are done (execute synchronised): the watchdog stops here, before the
            # comparison and the checks, which take the same time for every mutant.
            emit("end", eval=req["eval"])
        mark("original_kernels")
        run = compare(col["ref"], out, torch)
        if req["eval"] < 0:
            self.original_out = out  # the validity gate compares it with fp64
        run["kernel_ms"] = kernel_ms
        run["tail_steps"] = tail.replayed if tail is not None else 0
        run["skipped_steps"], run["steps_total"] = skip + run["tail_steps"], (len(steps) if len(steps) > 1 else 0)
        run["canary"] = not canaries_intact(guards, torch)
        mark("original_compare")
        self.record_steps(req, capture, run)
        mark("original_steps")
        return run

    # Per-step capture for the depth analysis (kmut.steps): pipelines only, --no-steps turns it off.

    def rows_wanted(self) -> bool:
        """Whether this column's evaluations report per-step rows (the depth analysis)."""
        return self.capture_steps and bool((self.column or {}).get("steps_on", True))

    def step_capture(self, steps: list[Any], original: bool = False) -> Any:
        """The capture of one run's step outputs: for the per-step rows, and on the original's
        run also for the prefix and the tail a mutant's run replays (`prefix_steps`, `tail_from`)."""
        from .steps import StepCapture

        if len(steps) < 2 or not (self.rows_wanted() or (original and (self.skip_prefix or self.skip_tail))):
            return None
        return StepCapture.of(steps)

    def record_steps(self, req: dict[str, Any], capture: Any, run: dict[str, Any]) -> None:
        """The original's run keeps its step outputs for the column; a mutant's run is compared
        with them, step by step (`run["steps"]`: one [tau, rel_l2, frac_off] per step)."""
        from . import steps as depth

        torch, col = self.torch, self.column
        if capture is None:
            return
        if req["eval"] < 0:
            free = None if self.cpu else torch.cuda.mem_get_info(self.device)[0]
            kept, where, _ = depth.keep(capture.outputs(), torch, free)
            flat = None
            if where == "device":
                # One checksummed buffer (the column's sum covers it): a mutant's verdict now
                # rests on these outputs, so a stray write into them must not go unseen.
                flat, kept = depth.pack(kept, torch)
            col.update(steps_original=kept, steps_flat=flat, steps_keep=where,
                       steps_launches=[launch_key(s) for s in capture.steps])
            col["sum"] = self.column_sum()
            if self.rows_wanted():
                col.update(steps_reads=depth.producers(capture.steps), steps_kernels=[s.kernel for s in capture.steps])
            return
        if "steps_original" not in col or len(col["steps_original"]) != len(capture.steps):
            return  # a column prepared without capture, or a mutant whose host side changed the steps
        tol = col["sub"]["fields"].get("tolerance") or {"atol": col["sub"]["K"].DEFAULT_ATOL, "rtol": col["sub"]["K"].DEFAULT_RTOL}
        run["steps"] = depth.step_errors(col["steps_original"], capture.outputs(), tol["atol"], tol["rtol"], torch)

    def steps_layout(self) -> dict[str, Any]:
        """What the column event says of its pipeline's steps: each step's kernel and layer kind,
        the earlier steps it reads, and where the original's step outputs are kept."""
        from .layers import layer_kinds

        col = self.column
        if col is None or "steps_kernels" not in col:
            return {}
        sub = col["sub"]
        kinds = dict(zip(sub["names"], layer_kinds(sub["fields"])))
        return {"steps": {"kernels": col["steps_kernels"], "kinds": [kinds.get(k) for k in col["steps_kernels"]],
                          "reads": col["steps_reads"], "keep": col["steps_keep"]}}

    def execute(self, steps: list[Any], by_kernel: dict[str, Any], order: int, capture: Any = None,
                prefix: list[Any] | None = None, tail: Tail | None = None) -> float:
        """Launch every step; the kernel time in ms (CUDA events on a GPU, the wall clock of
        the launches on the CPU, where they run on this thread). `capture` (kmut.steps) copies
        a step's output that a later step overwrites, right after its step. `prefix` holds the
        original's outputs of the first steps (`prefix_steps`): each is copied into its step's
        buffer, in step order, instead of launching the step. `tail`: right after its last
        changed step, if the run `converged` on the original's state, every later step's kept
        output is copied in the same way (`tail.replayed` counts them)."""
        torch = self.torch
        prefix = prefix or []
        replay = False

        def run_step(i: int, s: Any, launch: Any) -> None:
            nonlocal replay
            if i < len(prefix):
                s.output.copy_(prefix[i])  # on the current stream, ordered with the launches
            elif replay:
                s.output.copy_(tail.kept[i])  # type: ignore[union-attr]
                tail.replayed += 1  # type: ignore[union-attr]
            else:
                launch(i, s)
            if capture is not None:
                capture.after(i)
            if tail is not None and i == tail.last:
                replay = tail.check()

        if self.cpu:
            start = time.perf_counter()
            for i, s in enumerate(steps):
                run_step(i, s, lambda _, s: by_kernel[s.kernel].run([s], torch, order))
            return (time.perf_counter() - start) * 1e3
        stream = torch.cuda.current_stream()
        begin, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

        # Every launched step's arguments are packed before the first event, so the timed window
        # holds launches only: on a recurrent network's thousands of tiny steps the GPU otherwise
        # waits for Python's packing between kernels, and the kernel time counts that wait.
        # (A step the tail replays instead wastes its packing, a few microseconds.) Indexed by
        # position: the prefix's steps are copied, not launched, and pack nothing.
        packed = [None] * len(prefix) + [s.launch_args() for s in steps[len(prefix):]]

        def launch(i: int, s: Any) -> None:
            launcher = by_kernel[s.kernel]
            launcher.module.launch(launcher.symbol(s.kernel), s.grid, s.block, packed[i], stream.cuda_stream)

        begin.record()
        for i, s in enumerate(steps):
            run_step(i, s, launch)
        end.record()
        self.column["sub"]["original"].module.synchronize(stream.cuda_stream)
        return begin.elapsed_time(end)

    def context_alive(self) -> bool:
        torch = self.torch
        if self.cpu:
            return True  # no context to lose; a memory fault ends the process instead
        try:
            torch.cuda.synchronize(self.device)
            probe = torch.ones(16, device=self.device).sum().item()
            return probe == 16.0
        except Exception:  # noqa: BLE001 - any failure means the context is gone
            return False


def worst_first(run: dict[str, Any]) -> tuple[bool, float]:
    """The order in which runs of one evaluation are worse: a wrong shape, then the larger tau*
    (NaN as infinite). A deferred original's placeholder run has no tau."""
    tau = run["tau"]
    return (not run["shape_ok"], math.inf if tau is not None and math.isnan(tau) else (tau if tau is not None else -math.inf))


def fails_comparison(result: dict[str, Any], tolerance: float | None) -> bool:
    """Whether an evaluation's result fails the comparison at `tolerance` (the engine's
    `kills_at` without its crash case: a wrong shape, or tau* above the tolerance or NaN); never
    where no tolerance is waiting (the column's original has run)."""
    if tolerance is None or result.get("crash") or result.get("environment"):
        return False
    tau = result.get("tau")
    return not result.get("shape_ok", True) or tau is None or not tau <= tolerance


def host_available() -> int:
    """The host's available memory now (`MemAvailable` of /proc/meminfo), or its total where
    that cannot be read."""
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def preparation_failure(e: BaseException, torch: Any, alive: bool, cpu: bool) -> str | None:
    """Why a column's failed preparation is not (yet) the substrate's fault, or None. Beside the
    machine's failures (`environment_failure`), a GPU context found dead after the failure: a
    fault of an earlier evaluation in this worker can surface at the next launch, so the engine
    prepares the column again in a fresh worker, with the device to itself, before it blames
    the substrate (2026-12-04: one such failure skipped every remaining L3p33 mutant of an audit)."""
    why = environment_failure(e, torch)
    if why is None and not alive and not cpu:
        why = f"the CUDA context was lost while preparing the column ({type(e).__name__}: {first_line(e, 200)})"
    return why


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
                alive = worker.context_alive()
                why = preparation_failure(e, worker.torch, alive, worker.cpu)
                if why and alive:
                    worker.release()
                emit("error", detail=why or f"{type(e).__name__}: {e}", fatal=not alive, environment=why is not None,
                     retry_alone=not isinstance(e, TooLarge))
                if not alive:
                    return 3
        elif op == "release":
            worker.release()
            emit("released")
        elif op == "eval":
            result = worker.evaluate(req)
            emit("result", **result)
            if result.get("fatal"):
                progress(f"context lost after {result.get('crash')}; exiting so a fresh worker takes over")
                return 3
        else:
            emit("error", detail=f"unknown request {op!r}")
    return 0


# --- Throughput levers (kmut bench run compares them) ------------------------------------------


def add_throughput_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--compare", choices=("fast", "fp64"), default="fast",
                        help="fast: compare.py's float32 first pass (the same figures); fp64: every element in float64")
    parser.add_argument("--no-skip-prefix", action="store_true",
                        help="launch every step of a mutant's pipeline, also those before its first changed step")
    parser.add_argument("--no-skip-tail", action="store_true",
                        help="launch every step after a mutant's last changed one, also where its run left the original's state")
    parser.add_argument("--no-fused", action="store_true",
                        help="the output's comparison and the column checksum by torch's kernels, not kmut's one-launch ones "
                             "(kmut.compare_fused, kmut.checksum_fused; the same figures)")
    buffers = parser.add_mutually_exclusive_group()
    buffers.add_argument("--allocate-buffers", action="store_true",
                         help="on a GPU, allocate each buffer `launch` makes between its canaries (kmut.guards.GuardedTorch): "
                              "no copy, and the buffer held once; an element no kernel writes holds the canary byte")
    buffers.add_argument("--relocate-buffers", action="store_true",
                         help="move each buffer `launch` makes between canaries after it returns (the default; it overrides "
                              "KMUT_BUFFERS=allocate)")
    parser.add_argument("--draw-twist", action="store_true",
                        help="draw official inputs with the generator's twist on one thread, not every thread jumped to its "
                             "own blocks (kmut.fastrand; the same values)")


def apply_throughput_options(args: argparse.Namespace) -> None:
    from . import compare as compare_module  # noqa: PLC0415 - the module, for its mode switch

    compare_module.set_mode(args.compare)
    if args.no_fused:
        os.environ["KMUT_COMPARE"] = os.environ["KMUT_CHECKSUM"] = "torch"
    if args.draw_twist and os.environ.get("KMUT_DRAW") != "torch":
        os.environ["KMUT_DRAW"] = "twist"
    if args.allocate_buffers or args.relocate_buffers:
        os.environ["KMUT_BUFFERS"] = "allocate" if args.allocate_buffers else "relocate"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m kmut._run_worker", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--device", type=int, default=0, help="CUDA device index")
    parser.add_argument("--backend", choices=("cuda", "cpu"), default="cuda",
                        help="cpu: kmut's CPU backend (libraries built by `kmut run --backend cpu`)")
    parser.add_argument("--scratch", type=Path, default=None, help="folder shared by workers for drawn inputs")
    parser.add_argument("--no-steps", action="store_true",
                        help="do not compare each pipeline step's output with the original's (the depth analysis's capture)")
    parser.add_argument("--scratch-gb", type=float, default=32.0, help="most input bytes to keep in --scratch")
    add_throughput_options(parser)
    args = parser.parse_args(argv)
    apply_throughput_options(args)
    if args.scratch is not None:
        args.scratch.mkdir(parents=True, exist_ok=True)
    try:
        worker = Worker(-1 if args.backend == "cpu" else args.device, args.scratch, int(args.scratch_gb * 2**30))
    except Exception as e:  # noqa: BLE001 - no GPU, no torch: say so on the protocol
        emit("error", detail=f"the worker could not start: {type(e).__name__}: {e}", fatal=True)
        return 2
    worker.capture_steps = not args.no_steps
    worker.skip_prefix = worker.skip_prefix and not args.no_skip_prefix
    worker.skip_tail = worker.skip_tail and not args.no_skip_tail
    name = cpu_model() if worker.cpu else worker.torch.cuda.get_device_name(worker.device)
    emit("ready", pid=os.getpid(), device=str(worker.device), name=name, backend=f"{'cpu' if worker.cpu else 'cuda'}:{name}",
         memory_total=worker.memory_total)
    return serve(worker, sys.stdin)


if __name__ == "__main__":
    sys.exit(main())
