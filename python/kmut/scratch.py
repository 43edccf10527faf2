"""The scratch folder a run's workers share (`--scratch`, in `/dev/shm` on the device): each
drawn column's CPU inputs, written by the first worker that draws it and read by the others (a
replaced worker, a second worker on the column, a later call on a warm machine), each
substrate's built weights (`share_weights`), and the validity gate's verdicts, which do not
depend on the worker that computes them.

Nothing here is a verdict: a file that is missing, half-written or unreadable costs a draw or a
computation again, never a result."""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any


def scratch_key(*parts: Any) -> str:
    """A scratch file's name for what `parts` (JSON values) describe: the same for every worker."""
    return hashlib.sha256(json.dumps(list(parts), sort_keys=True).encode()).hexdigest()[:24]


class Scratch:
    """One worker's side of the shared folder: at most `limit_bytes` of inputs in it, and at most
    one write of its own in flight (`writer`)."""

    def __init__(self, folder: Path, limit_bytes: int, torch: Any, log: Callable[[str], None]):
        self.folder, self.limit_bytes, self.torch, self.log = folder, limit_bytes, torch, log
        self.writer: threading.Thread | None = None  # the write in flight (`save`)

    def inputs(self, sub: dict[str, Any], name: str, seed: int, sizes: dict[str, int], make: Callable[[], list[Any]]) -> list[Any]:
        """The CPU inputs of one column, `make()` drawing them (the master copy; a generator that
        draws on the device, as v0.1's L1/97 does, is moved to the CPU): from the folder, or
        drawn and written there."""
        torch = self.torch
        safe = "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in name)
        cached = self.folder / f"{sub['fields']['name']}-{safe}-{seed}-{scratch_key(sub['path'], name, seed, sizes)}.pt"
        if cached.exists():
            try:
                return list(torch.load(cached, mmap=True, weights_only=True))
            except Exception as e:  # noqa: BLE001 - a half-written or foreign file: draw again
                self.log(f"scratch file {cached} unreadable ({e}); drawing again")
        inputs = on_cpu(make(), torch)
        self.save(cached, inputs)
        return inputs

    def save(self, path: Path, inputs: list[Any]) -> None:
        """Write a drawn column to the folder for the other workers, on a background thread: the
        file is for later preparations (a replaced worker's, another worker's), so this one goes
        on to its reference and original run instead of waiting for a write of up to gigabytes
        (official level-1 inputs). One write at a time; the file appears under its name only
        once complete."""
        if not self.fits(inputs):
            return
        self.finish()
        self.writer = threading.Thread(target=self._write, args=(path, inputs), name="kmut-scratch-writer")
        self.writer.start()

    def fits(self, structure: Any) -> bool:
        """Whether the tensors of `structure` (a list, dict or tuple of them) fit the folder's
        byte limit beside the files already there (a folder that cannot be read fits nothing)."""
        from .contract import map_tensors

        sizes: list[int] = []
        map_tensors(structure, lambda t: sizes.append(t.numel() * t.element_size()))
        try:
            used = sum(p.stat().st_size for p in self.folder.glob("*.pt"))
        except OSError as e:
            self.log(f"could not cache in {self.folder}: {e}")
            return False
        return used + sum(sizes) <= self.limit_bytes

    def _write(self, path: Path, inputs: Any) -> None:
        tmp = path.with_suffix(f".tmp{os.getpid()}")
        try:
            self.torch.save(inputs, tmp)
            tmp.rename(path)
        except Exception as e:  # noqa: BLE001 - torch.save raises RuntimeError for a missing folder; a cache miss is all it costs
            self.log(f"could not cache {path.name} in {path.parent}: {e}")
            try:
                tmp.unlink(missing_ok=True)
            except OSError:
                pass

    def finish(self) -> None:
        """Wait for the write in flight, if any (before the next, and at exit)."""
        if self.writer is not None:
            self.writer.join()
            self.writer = None

    def share_weights(self, name: str, source_sha256: str, weight_sets: list[Any]) -> None:
        """Have a loaded substrate's weight sets (`kmut.contract.Weights`, in `K.weight_sets`
        order) built once for every worker of the run: each worker releases a substrate when it
        moves to another, so without this each switch rebuilt them on the CPU (14 s for the
        2.15 G parameters of level 3's shallow wide MLP, on every worker and replacement that
        met it). The key is the digest of the substrate's source as loaded
        (`kmut.loader.load_module`), the set's position and torch's version: a changed file or
        another torch builds again."""
        import functools

        from .contract import WEIGHT_SEED

        for index, w in enumerate(weight_sets):
            key = scratch_key(source_sha256, index, WEIGHT_SEED, str(self.torch.__version__))
            w.cache = functools.partial(self.weights, self.folder / f"weights-{name}-{index}-{key}.pt")

    def weights(self, path: Path, build: Callable[[], Any]) -> Any:
        """One weight set's master structure: loaded from `path` (memory-mapped, so workers on
        one host share its pages; copy-on-write, so a write into it stays in the writer), or
        built and written there before any kernel can touch it. The write is not on the
        background thread `save` uses: on the CPU backend a float32 master is the very tensor
        `launch` receives, so a write after the first launch could capture a mutant's stores."""
        if path.exists():
            try:
                return self.torch.load(path, mmap=True, weights_only=True)
            except Exception as e:  # noqa: BLE001 - a half-written or foreign file: build again
                self.log(f"scratch file {path} unreadable ({e}); building the weights again")
        built = build()
        if self.fits(built):
            self._write(path, built)
        return built

    def verdict(self, key: list[Any], compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
        """The validity gate's verdict on the column `key` describes: read from the folder when
        another worker computed it (the fp64 reference is the costliest part of preparing a
        generated column), else `compute()`d and written there for the next."""
        path = self.folder / f"validity-{scratch_key(*key)}.json"
        try:
            known = json.loads(path.read_text())
            if set(known) == {"valid", "tau64_ref", "tau64_orig"}:
                return known
        except (OSError, ValueError):
            pass
        verdict = compute()
        try:
            tmp = path.with_suffix(f".tmp{os.getpid()}")
            tmp.write_text(json.dumps(verdict))
            tmp.rename(path)
        except OSError as e:
            self.log(f"could not cache a validity verdict in {path.parent}: {e}")
        return verdict


def on_cpu(inputs: list[Any], torch: Any) -> list[Any]:
    """A drawn column's master copy: every tensor on the CPU."""
    return [t.cpu() if isinstance(t, torch.Tensor) else t for t in inputs]
