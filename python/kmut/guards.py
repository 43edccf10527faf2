"""What catches a mutant's stray writes: every buffer `launch` allocates moved between canaries
(on the CPU backend also between inaccessible pages, so a write past the canaries faults), the
canaries checked after the run, and the checksum of what every evaluation on a column reads
(its inputs, reference, weights and the original's kept step outputs), taken after each one.
Pure tensor helpers, testable on the CPU; the run worker (`_run_worker.py`) uses them."""

from __future__ import annotations

import ctypes
import hashlib
import mmap
import os
from dataclasses import dataclass, replace
from typing import Any

from . import checksum_fused

# Elements of canary before and after every buffer `launch` allocates: an index one row off
# lands in them, not in a neighbouring allocation.
CANARY_ELEMENTS = 16384
# The byte written into canaries on a GPU: 0xA5A5A5A5 is a tiny negative float (-2.9e-16), close
# to the zeros an official run most often reads past a buffer, so an out-of-bounds read does not
# kill a mutant the official harness would pass; the canary check still sees the writes.
CANARY_BYTE = 0xA5
# On the CPU backend canaries are NaN (0xFF.. is a NaN in every float format, -1 in integers):
# an out-of-bounds read poisons the output, and past the canaries an inaccessible page turns
# the access into a memory fault.
CPU_CANARY_BYTE = 0xFF
PAGE = mmap.PAGESIZE


def checksum(tensors: list[Any], torch: Any) -> str:
    """A cheap content hash of tensors, computed where they live: the sum of their 32-bit words
    (bytes when the size is odd) and a position-weighted sum of the first words, so that a
    changed or swapped value changes it. The sums of every tensor on one device come back in
    one transfer: a level-3 network's hundreds of weights cost one synchronisation after every
    evaluation, not two each. On a GPU the sums come from one kernel for all of a device's
    tensors (`kmut.checksum_fused`: the same sums, so the same digest)."""
    described: list[Any] = []
    pending: dict[Any, list[tuple[int, Any]]] = {}
    fused: dict[Any, list[tuple[int, Any]]] = {}
    use_kernel = checksum_fused.enabled()
    for i, t in enumerate(tensors):
        if not isinstance(t, torch.Tensor):
            described.append(repr(t))
            continue
        words = checksum_fused.words(t, torch)
        described.append(f"{t.dtype}:{tuple(t.shape)}")
        if use_kernel and checksum_fused.takes(words):
            fused.setdefault(words.device, []).append((i, words))
        else:
            pending.setdefault(words.device, []).append((i, _torch_sums(words, torch)))
    # (tensor indices, their sums as one (n, 2) tensor): one transfer each.
    summed: list[tuple[list[int], Any]] = []
    for device, items in fused.items():
        sums = checksum_fused.sums([w for _, w in items], torch)
        if sums is None:  # the kernel is not available here: torch sums them
            pending.setdefault(device, []).extend((i, _torch_sums(w, torch)) for i, w in items)
        else:
            summed.append(([i for i, _ in items], sums))
    summed += [([i for i, _ in items], torch.stack([s for _, s in items])) for items in pending.values()]
    for indices, sums in summed:
        for i, (total, weighted) in zip(indices, sums.tolist()):
            described[i] = f"{described[i]}:{total}:{weighted}"
    return hashlib.sha256("|".join(described).encode()).hexdigest()


def _torch_sums(words: Any, torch: Any) -> Any:
    """A tensor's (sum of words, position-weighted sum of its first words) by torch, queued."""
    head = words[: checksum_fused.HEAD].to(torch.int64)
    weights = torch.arange(1, 1 + head.numel(), device=words.device, dtype=torch.int64)
    return torch.stack([words.sum(dtype=torch.int64), (head * weights).sum()])


def canary_pattern(n_bytes: int, device: Any, torch: Any, byte: int = CANARY_BYTE) -> Any:
    return torch.full((n_bytes,), byte, dtype=torch.uint8, device=device)


_PROT_NONE = 0
_LIBC: Any = None


def _mprotect(address: int, length: int) -> None:
    global _LIBC
    if _LIBC is None:
        _LIBC = ctypes.CDLL(None, use_errno=True)
        _LIBC.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    if _LIBC.mprotect(address, length, _PROT_NONE) != 0:
        raise OSError(ctypes.get_errno(), f"mprotect of a guard page failed: {os.strerror(ctypes.get_errno())}")


def guarded_cpu_bytes(n_bytes: int, fill: int, torch: Any) -> Any:
    """`n_bytes` of CPU memory (a uint8 tensor filled with `fill`) between two inaccessible
    pages: the tensor starts 64-byte aligned and ends at most 63 bytes below the upper page, so
    an access past either end faults (SIGSEGV) instead of reading or corrupting a neighbour.
    The mapping lives as long as the tensor (and its views)."""
    size = -(-max(n_bytes, 1) // 64) * 64
    span = -(-size // PAGE) * PAGE
    region = mmap.mmap(-1, span + 2 * PAGE)
    whole = torch.frombuffer(region, dtype=torch.uint8)
    base = whole.data_ptr()
    _mprotect(base, PAGE)
    _mprotect(base + PAGE + span, PAGE)
    usable = whole[PAGE : PAGE + span]
    usable.fill_(fill)
    start = span - size
    return usable[start : start + n_bytes]


def around(body: int, pad: int, device: Any, fill: int, torch: Any, pages: bool | None = None) -> Any:
    """A uint8 allocation of `pad` bytes of `fill`, `body` bytes for the caller to write, and
    `pad` bytes of `fill` again. With `pages` (the default on the CPU) it lies between
    inaccessible pages and is filled whole; otherwise only its canaries are written, since the
    body is overwritten at once (on a 6 GiB output a fill of the body was 6 GiB more traffic on
    every run than the copy needs)."""
    if device.type == "cpu" if pages is None else pages:
        return guarded_cpu_bytes(body + 2 * pad, fill, torch)
    whole = torch.empty(body + 2 * pad, dtype=torch.uint8, device=device)
    whole[:pad].fill_(fill)
    whole[pad + body :].fill_(fill)
    return whole


def guarded_copy(t: Any, torch: Any) -> Any:
    """A CPU input moved between NaN canaries and guard pages (a copy: the master stays clean)."""
    if not isinstance(t, torch.Tensor) or t.device.type != "cpu" or not t.is_contiguous():
        return t.clone() if isinstance(t, torch.Tensor) else t
    body = t.numel() * t.element_size()
    pad = CANARY_ELEMENTS * t.element_size()
    whole = guarded_cpu_bytes(body + 2 * pad, CPU_CANARY_BYTE, torch)
    whole[pad : pad + body].copy_(t.reshape(-1).view(torch.uint8))
    return whole[pad : pad + body].view(t.dtype).view(t.shape)


@dataclass
class Guarded:
    """A buffer `launch` allocated, moved into a larger allocation with canaries either side."""

    old_ptr: int
    whole: Any  # uint8 view of the whole allocation
    body_bytes: int
    pad_bytes: int
    byte: int = CANARY_BYTE

    def intact(self, torch: Any) -> bool:
        return canaries_intact([self], torch)

    def hit(self, pattern: Any) -> Any:
        """Whether a canary byte changed, as a device boolean (no synchronisation)."""
        head = self.whole[: self.pad_bytes]
        tail = self.whole[self.pad_bytes + self.body_bytes :]
        return (head != pattern).any() | (tail != pattern).any()


def bits(t: Any, torch: Any) -> Any:
    """A tensor's elements as integers of the same width, so that comparing two tensors
    compares their bits (a float comparison takes +0 for -0 and no NaN for itself)."""
    if not t.is_floating_point() and not t.is_complex():
        return t
    return t.view({1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}[t.element_size()])


def canaries_intact(guards: list[Guarded], torch: Any) -> bool:
    """Whether every guard's canaries are as written: one pattern per canary size and one
    transfer per device for all of them (a level-3 pipeline guards a hundred buffers; two
    synchronisations each cost more than its kernels)."""
    patterns: dict[tuple[int, Any, int], Any] = {}
    hits: dict[Any, list[Any]] = {}
    for g in guards:
        key = (g.pad_bytes, g.whole.device, g.byte)
        if key not in patterns:
            patterns[key] = canary_pattern(g.pad_bytes, g.whole.device, torch, g.byte)
        hits.setdefault(g.whole.device, []).append(g.hit(patterns[key]))
    return not any(bool(torch.stack(h).any().item()) for h in hits.values())


class GuardedTorch:
    """The `torch` a run may hand to `launch` on a GPU (`KMUT_BUFFERS=allocate`): `empty`,
    `empty_like`, `zeros` and `zeros_like` return their tensor inside a larger allocation with
    canaries before and after it, and everything else is torch's own. `guard_buffers` then
    guards those buffers where they are (`made`) instead of moving them.

    Moving a buffer holds it twice while it is copied, and costs a fill of the new allocation and
    a copy of the old one on every run: on an elementwise level-1 problem (a 6 GiB output) that is
    more memory traffic than the kernel's own, and a fourth 6 GiB tensor in the column's peak
    beside the input, the reference and the output (2026-12-07 workers log: 24,580 MiB, 4 x 6,144).

    What changes is what an element no kernel writes holds. A moved buffer keeps the bytes
    `launch`'s torch.empty returned, recycled memory that no kernel of the run wrote (kernels
    write the moved copy). An allocation made here would come back, the next run, as the very
    block the last run's kernels wrote: the column's correct output after the original's run,
    which a mutant that leaves part of its output unwritten would then read and pass with. So an
    `empty` body is filled with the canary byte (a tiny negative float, near the zeros fresh
    memory holds), the same for every run: such a mutant reads the same values on every run and
    column, where it read recycled bytes before. A `zeros` body is zero, and an allocation through
    any other call (`clone`, `cat`, `K.zeros`, a host buffer) is moved by `guard_buffers` as
    before. `guards(device)` says which devices get this (the GPU only: on the CPU backend a moved
    buffer also lies between inaccessible pages)."""

    _MADE_BY = {"empty": False, "empty_like": False, "zeros": True, "zeros_like": True}

    def __init__(self, torch: Any, byte: int = CANARY_BYTE, guards: Any = None) -> None:
        self._torch = torch
        self._byte = byte
        self._guards = guards or (lambda device: device.type == "cuda")
        # storage address -> its guard, for every buffer made here
        self.made: dict[int, Guarded] = {}

    def __getattr__(self, name: str) -> Any:
        if name in GuardedTorch._MADE_BY:
            real = getattr(self._torch, name)
            return lambda *args, **kwargs: self._make(real, GuardedTorch._MADE_BY[name], args, kwargs)
        return getattr(self._torch, name)

    def _make(self, real: Any, zero: bool, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        torch = self._torch
        like = args[0] if args and isinstance(args[0], torch.Tensor) else None
        device = kwargs.get("device", like.device if like is not None else None)
        device = torch.device(device) if device is not None else torch.get_default_device()
        if not self._guards(device) or kwargs.get("out") is not None or kwargs.get("requires_grad") or kwargs.get("pin_memory"):
            return real(*args, **kwargs)
        # The shape, dtype and strides `real` would give (empty_like keeps the input's layout),
        # with no memory behind them.
        meta = real(*args, **{**kwargs, "device": "meta"})
        body = meta.untyped_storage().nbytes()
        pad = CANARY_ELEMENTS * meta.element_size()
        whole = around(body, pad, device, self._byte, torch, pages=False)
        if zero:
            whole[pad : pad + body].zero_()
        else:
            whole[pad : pad + body].fill_(self._byte)
        typed = whole[pad : pad + body].view(meta.dtype)
        t = typed.as_strided(tuple(meta.shape), tuple(meta.stride()), typed.storage_offset() + meta.storage_offset())
        ptr = whole.untyped_storage().data_ptr()
        self.made[ptr] = Guarded(ptr, whole, body, pad, self._byte)
        return t


def guard_buffers(steps: list[Any], out: Any, owned: set[int], torch: Any,
                  byte: int = CANARY_BYTE, made: dict[int, Guarded] | None = None) -> tuple[list[Any], Any, list[Guarded]]:
    """Move every buffer the steps use that `launch` allocated (not an input, weight or other
    owned storage) into an allocation with canaries before and after it. Returns the rewritten
    steps and output, and the guards to check after the run. A buffer in `made` (allocated by
    `GuardedTorch`, its storage address the key) already has its canaries: it stays where it is.

    A buffer's bytes are copied over as `launch` left them: torch.empty's recycled memory as in
    the official harness, zeros for `K.zeros` buffers, and anything `launch` computed into them.
    """
    moved: dict[int, tuple[Any, Guarded]] = {}
    made = made or {}

    def relocate(t: Any) -> Any:
        storage = t.untyped_storage()
        ptr = storage.data_ptr()
        if ptr in owned:
            return t
        if ptr in made:
            moved[ptr] = (None, made[ptr])
            return t
        if ptr not in moved:
            body = storage.nbytes()
            pad = CANARY_ELEMENTS * t.element_size()
            whole = around(body, pad, t.device, byte, torch)
            old = torch.empty(0, dtype=torch.uint8, device=t.device).set_(storage, 0, (body,))
            whole[pad : pad + body].copy_(old)
            body_view = whole[pad : pad + body]
            moved[ptr] = (body_view, Guarded(ptr, whole, body, pad, byte))
        body_view, _ = moved[ptr]
        typed = body_view.view(t.dtype)
        # as_strided counts its offset from the start of the whole allocation, canary included.
        return typed.as_strided(tuple(t.shape), tuple(t.stride()), typed.storage_offset() + t.storage_offset())

    new_steps = [replace(s, tensors=[relocate(t) for t in s.tensors]) for s in steps]
    new_out = relocate(out)
    return new_steps, new_out, [g for _, g in moved.values()]
