"""The run worker's tensor logic on CPU tensors: canaries, launch
transforms, checksums, the CPU backend's guard pages. (Its CUDA paths run in test_run_gpu.py;
its CPU backend end to end in test_cpu_pipeline.py.)"""

from __future__ import annotations

import math
import os
import signal
import subprocess
import sys
import textwrap

import pytest
import torch
from kmut import replay
from kmut._run_worker import Worker, fails_comparison, worst_first
from kmut.guards import CANARY_BYTE, CANARY_ELEMENTS, CPU_CANARY_BYTE, Guarded, GuardedTorch, around, canaries_intact, checksum, guard_buffers, guarded_copy
from kmut.replay import Tail, launch_key
from kmut.scratch import Scratch
from kmut.transforms import FlooringCdiv, apply_transform
from kmut.validate import Step


# The continuous verdict itself (kmut.compare) is tested in test_compare.py.


def test_guarded_buffers_keep_views_and_catch_a_write_past_the_end():
    x = torch.arange(10, dtype=torch.float32)
    out = torch.empty(10)
    scratch = torch.empty(3, dtype=torch.int64)
    steps = [Step("k", (1, 1, 1), (1, 1, 1), [x, scratch, out[2:]], [])]
    owned = {x.untyped_storage().data_ptr()}
    new_steps, new_out, guards = guard_buffers(steps, out, owned, torch)
    assert new_steps[0].tensors[0] is x, "inputs are not moved"
    assert len(guards) == 2 and all(g.intact(torch) for g in guards)
    view = new_steps[0].tensors[2]
    assert view.shape == (8,) and view.data_ptr() == new_out.data_ptr() + 2 * 4, "the view keeps its offset into the output"
    new_out.copy_(x)
    assert all(g.intact(torch) for g in guards), "writing the buffer itself touches no canary"
    whole = torch.empty(0).set_(new_out.untyped_storage(), 0, (10 + 2 * CANARY_ELEMENTS,))
    whole[CANARY_ELEMENTS + 10] = 0.0  # one past the end
    assert not guards[[g.body_bytes for g in guards].index(40)].intact(torch)
    # All the guards at once, as the worker checks them: one hit among intact ones counts.
    assert not canaries_intact(guards, torch)
    fresh = guard_buffers(steps, out, owned, torch)[2]
    assert canaries_intact(fresh, torch) and canaries_intact([], torch)
    fresh[0].whole[0] = 0  # the first canary byte before a buffer
    assert not canaries_intact(fresh, torch)


def test_guarded_buffers_keep_what_launch_put_in_them():
    table = torch.arange(6.0)  # e.g. a constant launch prepared for the kernel
    new_steps, _, _ = guard_buffers([Step("k", (1, 1, 1), (1, 1, 1), [table, torch.empty(2)], [])], torch.empty(2), set(), torch)
    assert torch.equal(new_steps[0].tensors[0], torch.arange(6.0))


def test_zero_buffers_stay_zero_when_guarded():
    acc = torch.zeros(5)
    _, new_out, guards = guard_buffers([Step("k", (1, 1, 1), (1, 1, 1), [acc], [])], acc, set(), torch)
    assert torch.equal(new_out, torch.zeros(5)) and guards[0].intact(torch)


def test_an_allocation_without_guard_pages_writes_only_its_canaries():
    """`around` as a GPU run uses it (no guard pages): the canaries hold the byte, the body is
    left for the caller's copy, and a guard over it sees a write into either canary."""
    whole = around(10, 4, torch.device("cpu"), CANARY_BYTE, torch, pages=False)
    whole[4:14] = 7  # the caller's copy
    assert whole.numel() == 18 and whole[:4].tolist() == whole[14:].tolist() == [CANARY_BYTE] * 4
    g = Guarded(0, whole, 10, 4, CANARY_BYTE)
    assert g.intact(torch)
    whole[14] = 0
    assert not g.intact(torch)


def every_device(_device):
    # GuardedTorch guards GPU allocations only; the tests below run its logic on CPU tensors.
    return True


def test_buffers_allocated_between_canaries_stay_where_launch_put_them():
    """`GuardedTorch` hands `launch` its buffers already between canaries: `guard_buffers`
    guards them in place (no copy), the shapes, dtypes and strides are torch's own (empty_like
    keeps a channels-last layout), a zeros body is zero, and a write one past the end is seen."""
    alloc = GuardedTorch(torch, CANARY_BYTE, every_device)
    x = torch.rand(2, 3, 4, 5).to(memory_format=torch.channels_last)

    def launch(inputs, torch):  # a substrate's launch, with `torch` as the worker passes it
        (x,) = inputs
        out = torch.empty_like(x)
        acc = torch.zeros(7, dtype=torch.float64, device=x.device)
        half = torch.empty((3, 5), dtype=torch.float16, device="cpu")
        return [x, out, acc, half[1:]], out

    tensors, out = launch([x], alloc)
    assert out.shape == x.shape and out.stride() == x.stride() and out.dtype == x.dtype
    assert tensors[2].dtype == torch.float64 and torch.equal(tensors[2], torch.zeros(7, dtype=torch.float64))
    assert tensors[3].shape == (2, 5) and tensors[3].dtype == torch.float16
    # An `empty` body holds the canary byte, the same on every run (not the block the last run's
    # kernels wrote, which would hand a mutant that skips elements the correct output).
    assert bool((out.contiguous().view(torch.uint8) == CANARY_BYTE).all())
    assert len(alloc.made) == 3 and all(g.intact(torch) for g in alloc.made.values())
    before = [t.data_ptr() for t in tensors]
    steps = [Step("k", (1, 1, 1), (1, 1, 1), tensors, [])]
    new_steps, new_out, guards = guard_buffers(steps, out, {x.untyped_storage().data_ptr()}, torch, CANARY_BYTE, alloc.made)
    assert [t.data_ptr() for t in new_steps[0].tensors] == before and new_out is out, "nothing is moved"
    assert sorted(g.body_bytes for g in guards) == sorted([x.numel() * 4, 7 * 8, 15 * 2])
    new_out.copy_(x)
    assert canaries_intact(guards, torch), "writing the buffers themselves touches no canary"
    g = alloc.made[out.untyped_storage().data_ptr()]
    g.whole[g.pad_bytes + g.body_bytes] = 0  # the first byte past the output
    assert not canaries_intact(guards, torch)


def test_allocations_guarded_torch_does_not_make_are_still_moved():
    """A buffer `launch` makes another way (a copy, a concatenation, a CPU tensor where only
    GPU ones are guarded) is moved between canaries by `guard_buffers`, as without the allocator;
    everything but the four allocating calls is torch's own."""
    alloc = GuardedTorch(torch, CANARY_BYTE)  # the default: GPU allocations only
    assert alloc.float32 is torch.float32 and alloc.cat is torch.cat
    a = alloc.empty(4)
    b = torch.arange(3.0).clone()
    assert not alloc.made, "a CPU allocation is torch's own under the default"
    new_steps, _, guards = guard_buffers([Step("k", (1, 1, 1), (1, 1, 1), [a, b], [])], a, set(), torch, CANARY_BYTE, alloc.made)
    assert len(guards) == 2 and new_steps[0].tensors[1].data_ptr() != b.data_ptr()
    assert torch.equal(new_steps[0].tensors[1], torch.arange(3.0)), "a moved buffer keeps what launch put in it"


def test_the_worker_flags_choose_how_buffers_are_guarded(monkeypatch):
    """Buffers are moved unless asked (`KMUT_BUFFERS=allocate` or `--allocate-buffers`), and the
    bench's `--relocate-buffers` baseline overrides an inherited `allocate`."""
    import argparse

    from kmut._run_worker import add_throughput_options, apply_throughput_options

    parser = argparse.ArgumentParser()
    add_throughput_options(parser)
    monkeypatch.setenv("KMUT_BUFFERS", "")  # recorded, so the test's own settings are undone after it
    monkeypatch.delenv("KMUT_BUFFERS")
    apply_throughput_options(parser.parse_args([]))
    assert "KMUT_BUFFERS" not in os.environ
    apply_throughput_options(parser.parse_args(["--allocate-buffers"]))
    assert os.environ["KMUT_BUFFERS"] == "allocate"
    apply_throughput_options(parser.parse_args(["--relocate-buffers"]))
    assert os.environ["KMUT_BUFFERS"] == "relocate"
    with pytest.raises(SystemExit):
        parser.parse_args(["--allocate-buffers", "--relocate-buffers"])


def test_launch_transforms():
    s = Step("k", (10, 2, 1), (256, 1, 1), [], [])
    assert apply_transform([s], {"transform": "swap_grid_block", "step": 0})[0].grid == (256, 1, 1)
    assert apply_transform([s], {"transform": "grid_x", "step": 0, "delta": -1})[0].grid == (9, 2, 1)
    assert apply_transform([s], {"transform": "block_x", "step": 0, "delta": 1})[0].block == (257, 1, 1)
    assert apply_transform([s], None) == [s]
    floor = FlooringCdiv(1)
    assert [floor(10, 4), floor(10, 4), floor(10, 4)] == [3, 2, 3]


def test_checksum_sees_a_swap_and_a_change():
    a = torch.arange(7, dtype=torch.float32)
    b = a.clone()
    b[[1, 2]] = b[[2, 1]]
    assert checksum([a], torch) == checksum([a.clone()], torch)
    assert checksum([a], torch) != checksum([b], torch)
    c = a.clone()
    c[-1] += 1
    assert checksum([a], torch) != checksum([c], torch)


def test_protocol_lines_carry_non_finite_numbers_as_strings(capsys):
    import json

    from kmut import jsonlines
    from kmut._gate_worker import Reporter

    assert json.loads(jsonlines.line({"tau": math.inf, "x": [-math.inf, math.nan, 1.5]})) == {"tau": "inf", "x": ["-inf", "nan", 1.5]}
    # The gate's worker used to print Infinity (not JSON) for a NaN-producing candidate, and the
    # orchestrator then lost the check instead of failing it.
    Reporter().emit("suites", "fail", "NaN in the output", suites=[{"max_tau": math.inf}])
    assert json.loads(capsys.readouterr().out)["data"]["suites"][0]["max_tau"] == "inf"


def test_cpu_guarded_bytes_sit_between_inaccessible_pages():
    # In a child process: touching the page above the buffer must kill it with SIGSEGV, which
    # the orchestrator records as a memory fault; touching the buffer itself must not.
    code = textwrap.dedent("""
        import ctypes, sys, torch
        from kmut.guards import guarded_cpu_bytes
        b = guarded_cpu_bytes(1000, 0xFF, torch)
        assert b.numel() == 1000 and b.data_ptr() % 64 == 0 and bool((b == 0xFF).all())
        b[-1] = 7
        print("inside ok", flush=True)
        ctypes.memset(b.data_ptr() + 1000 + 64, 0, 1)   # past the <64-byte slack: the guard page
        print("outside ok", flush=True)
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "inside ok" in r.stdout, r.stderr
    assert "outside ok" not in r.stdout
    assert r.returncode == -signal.SIGSEGV, (r.returncode, r.stderr)


def test_cpu_inputs_are_copied_between_nan_canaries():
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    g = guarded_copy(x, torch)
    assert torch.equal(g, x) and g.data_ptr() != x.data_ptr()
    g[0, 0] = 99.0
    assert x[0, 0] == 0.0, "the master copy stays clean"
    # The elements just past either end read as NaN: an out-of-bounds read poisons the output.
    flat = torch.empty(0, dtype=torch.float32).set_(g.untyped_storage(), g.storage_offset() - 2, (16,))
    assert torch.isnan(flat[:2]).all() and torch.isnan(flat[14:]).all()
    assert torch.equal(flat[2:14], g.reshape(-1))


def test_cpu_canaries_are_nan_and_catch_a_write_past_the_end():
    out = torch.empty(10)
    step = Step("k", (1, 1, 1), (32, 1, 1), [out], [])
    steps, new_out, guards = guard_buffers([step], out, set(), torch, CPU_CANARY_BYTE)
    whole = guards[0].whole
    assert torch.isnan(whole[: 4 * CANARY_ELEMENTS].view(torch.float32)).all()
    assert guards[0].intact(torch)
    past = torch.empty(0, dtype=torch.float32).set_(new_out.untyped_storage(), new_out.storage_offset(), (11,))
    past[10] = 1.0
    assert not guards[0].intact(torch)


def test_a_validity_verdict_is_computed_once_per_column_and_original(tmp_path):
    """Workers share the validity gate's verdict through the scratch folder: the second worker to
    prepare a column reads it instead of computing the fp64 reference again; another seed, margin
    or original computes its own, and an unreadable file is computed again, not trusted."""
    computed: list[float] = []

    def worker() -> Worker:
        w = Worker.__new__(Worker)
        w.scratch, w.cpu = Scratch(tmp_path, 1 << 30, torch, print), False

        def validity(margin: float) -> dict:
            computed.append(margin)
            return {"valid": margin > 0.1, "tau64_ref": 0.01, "tau64_orig": 0.02}

        w.validity = validity  # type: ignore[method-assign]
        return w

    sub = {"path": "L1p1_x.py", "original_image": "/cache/ab12.cubin"}
    sizes = {"N": 64}
    first = worker().known_validity(sub, "W:scaled:10:small", 1, sizes, 0.5)
    assert first == {"valid": True, "tau64_ref": 0.01, "tau64_orig": 0.02} and computed == [0.5]
    # Another worker, the same column: read, not computed.
    assert worker().known_validity(sub, "W:scaled:10:small", 1, sizes, 0.5) == first and computed == [0.5]
    # A different seed, margin or original image is a different verdict.
    worker().known_validity(sub, "W:scaled:10:small", 2, sizes, 0.5)
    worker().known_validity(sub, "W:scaled:10:small", 1, sizes, 0.05)
    worker().known_validity({**sub, "original_image": "/cache/cd34.cubin"}, "W:scaled:10:small", 1, sizes, 0.5)
    assert computed == [0.5, 0.5, 0.05, 0.5]
    # A damaged file is not a verdict.
    for f in tmp_path.glob("validity-*.json"):
        f.write_text("{not json")
    worker().known_validity(sub, "W:scaled:10:small", 1, sizes, 0.5)
    assert len(computed) == 5
    # Without a scratch folder nothing is shared.
    w = worker()
    w.scratch = None
    w.known_validity(sub, "W:scaled:10:small", 1, sizes, 0.5)
    assert len(computed) == 6


@pytest.mark.filterwarnings("error::pytest.PytestUnhandledThreadExceptionWarning")
def test_a_drawn_column_is_written_to_the_scratch_folder_in_the_background_and_read_back(tmp_path):
    """The first worker to draw a column writes it for the others on a thread (it does not
    wait); the file appears whole under its name, a second worker loads it instead of drawing,
    and a folder that cannot be written loses nothing but the cache."""
    drawn: list[int] = []

    def worker(scratch) -> Worker:
        w = Worker.__new__(Worker)
        w.torch, w.scratch = torch, Scratch(scratch, 1 << 30, torch, print)
        return w

    def make() -> list:
        drawn.append(1)
        return [torch.arange(1000, dtype=torch.float32), 7]

    sub = {"fields": {"name": "L1p1_x"}, "path": "L1p1_x.py"}
    first = worker(tmp_path)
    inputs = first.draw(sub, "W:scaled:10:official", 3, {"N": 1000}, make)
    assert drawn == [1] and torch.equal(inputs[0], torch.arange(1000, dtype=torch.float32))
    first.scratch.finish()
    assert first.scratch.writer is None
    files = list(tmp_path.glob("*.pt"))
    assert len(files) == 1 and not list(tmp_path.glob("*.tmp*")), "one complete file, no partial one left"
    again = worker(tmp_path).draw(sub, "W:scaled:10:official", 3, {"N": 1000}, make)
    assert drawn == [1], "the second worker read the file"
    assert torch.equal(again[0], inputs[0]) and again[1] == 7
    # Another seed is another file; a full folder (by the byte limit) writes nothing.
    small = worker(tmp_path)
    small.scratch.limit_bytes = 10
    small.draw(sub, "W:scaled:10:official", 4, {"N": 1000}, make)
    small.scratch.finish()
    assert drawn == [1, 1] and len(list(tmp_path.glob("*.pt"))) == 1
    # A folder that is not one: the inputs are still returned, the write fails quietly.
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    w = worker(blocked)
    assert torch.equal(w.draw(sub, "W:scaled:10:official", 5, {"N": 1000}, make)[0], inputs[0])
    w.scratch.finish()
    assert drawn == [1, 1, 1]


class _DyingPreparation:
    """A worker whose column preparation raises, its context then alive or not."""

    cpu = False
    torch = torch

    def __init__(self, alive: bool, error: BaseException):
        self.alive, self.error, self.released = alive, error, 0

    def prepare(self, req):
        raise self.error

    def context_alive(self):
        return self.alive

    def release(self):
        self.released += 1


def _served(worker, capsys):
    import io
    import json

    from kmut._run_worker import serve

    code = serve(worker, io.StringIO('{"op": "column"}\n{"op": "quit"}\n'))
    [line] = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
    return code, line



def test_weights_are_built_once_per_scratch_folder_and_load_bit_for_bit(tmp_path):
    """A substrate's weights built by one worker are read by the next (a switch back to the
    substrate, a replacement, another worker) from the shared folder: the same bits as a build,
    the caller's RNG untouched, a write into the loaded master kept out of the file, and a
    changed source, a damaged file or a full folder costing a build, never other weights."""
    from kmut.contract import Weights

    builds: list[int] = []

    def builder(t):
        builds.append(1)
        lin = t.nn.Linear(64, 32)
        return {"w": lin.weight, "b": lin.bias, "sizes": [64, 32]}

    def loaded(source: str = "digest-v1", limit: int = 1 << 30) -> Weights:
        w = Weights(builder)
        Scratch(tmp_path, limit, torch, print).share_weights("L3p1_mlp", source, [w])
        return w

    like = torch.zeros(1)
    plain = Weights(builder)(like)  # no cache: today's build
    assert builds == [1]
    torch.manual_seed(5)
    state = torch.random.get_rng_state()
    first = loaded()(like)
    assert builds == [1, 1] and len(list(tmp_path.glob("weights-L3p1_mlp-0-*.pt"))) == 1
    second = loaded()(like)
    assert builds == [1, 1], "the second worker read the file"
    assert torch.equal(torch.random.get_rng_state(), state), "neither the build nor the load moves the caller's RNG"
    for got in (first, second):
        assert got["sizes"] == [64, 32]
        for k in ("w", "b"):
            assert got[k].dtype == plain[k].dtype and torch.equal(got[k].view(torch.int32), plain[k].view(torch.int32))
    # A write into a loaded master (the CPU backend hands launch the master itself) stays there.
    second["w"].fill_(7.0)
    assert torch.equal(loaded()(like)["w"], plain["w"]) and builds == [1, 1]
    # Another source is another file, built again.
    loaded("digest-v2")(like)
    assert builds == [1, 1, 1] and len(list(tmp_path.glob("weights-*.pt"))) == 2
    # A damaged file is built again (and replaced), not trusted.
    for f in tmp_path.glob("weights-*.pt"):
        f.write_bytes(b"not a tensor file")
    assert torch.equal(loaded()(like)["b"], plain["b"]) and builds == [1, 1, 1, 1]
    assert torch.equal(loaded()(like)["b"], plain["b"]) and builds == [1, 1, 1, 1], "the rebuilt file was written again"
    # A folder over its byte limit writes nothing: each worker builds, as before.
    full = tmp_path / "full"
    full.mkdir()
    for _ in range(2):
        w = Weights(builder)
        Scratch(full, 10, torch, print).share_weights("L3p1_mlp", "digest-v1", [w])
        assert torch.equal(w(like)["w"], plain["w"])
    assert builds == [1] * 6 and not list(full.iterdir())

def test_a_loaded_module_carries_the_digest_of_the_text_it_ran(tmp_path):
    """The shared weights' key is the digest `load_module` takes of the text it executes, not of
    a second read of the file, so one version's weights never take another version's key."""
    import hashlib

    from kmut import loader

    path = tmp_path / "L1p1_x.py"
    for version in ("1", "2"):
        text = f"VERSION = {version}\n"
        path.write_text(text)
        module = loader.load_module(path, torch)
        assert module.VERSION == int(version)
        assert module.__kmut_source_sha256__ == hashlib.sha256(text.encode()).hexdigest()


def test_a_preparation_that_loses_the_context_is_retried_not_blamed_on_the_substrate(capsys):
    # A fault of an earlier evaluation can surface at the next column's launches: the engine
    # must prepare the column again in a fresh worker (environment), not fail the substrate.
    code, line = _served(_DyingPreparation(False, RuntimeError("CUDA error: unspecified launch failure")), capsys)
    assert code == 3, "a worker with a dead context exits"
    assert line["event"] == "error" and line["fatal"] is True and line["environment"] is True
    assert "context was lost while preparing" in line["detail"] and "unspecified launch failure" in line["detail"]


def test_a_preparation_error_with_a_live_context_is_the_substrates(capsys):
    worker = _DyingPreparation(True, ValueError("launch returned 3 tensors"))
    code, line = _served(worker, capsys)
    assert code == 0 and line["fatal"] is False and line["environment"] is False
    assert line["detail"] == "ValueError: launch returned 3 tensors" and worker.released == 0


def test_out_of_memory_in_a_preparation_releases_the_column_and_is_the_machines(capsys):
    worker = _DyingPreparation(True, torch.cuda.OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"))
    code, line = _served(worker, capsys)
    assert code == 0 and line["environment"] is True and worker.released == 1
    assert line["detail"].startswith("out of GPU memory")
    assert line["retry_alone"] is True, "the device to itself may cure an out-of-memory error"


def test_a_column_too_large_for_the_machine_is_reported_as_not_worth_a_retry_alone(capsys):
    from kmut.machine import TooLarge

    code, line = _served(_DyingPreparation(True, TooLarge("out of memory before drawing: 32 GiB")), capsys)
    assert code == 0 and line["environment"] is True and line["fatal"] is False
    assert line["retry_alone"] is False and line["detail"] == "out of memory before drawing: 32 GiB"


def test_generated_columns_of_one_size_and_seed_share_one_draw_and_keep_their_values(tmp_path, monkeypatch):
    """The witness search's columns transform T0_original's draw: a worker draws it once per
    (substrate, seed, sizes) into the scratch folder and every column (whichever worker prepares
    it) transforms that copy, to the bit what kmut.generators.draw gives; fresh<k> columns, which
    draw past the seeded draw, are drawn whole."""
    from kmut import fastrand, generators, loader

    from .conftest import ROOT

    # The worker draws through kmut.fastrand: take its native path even for these small inputs,
    # so the values below are also checked against torch's own draw (generators.draw).
    monkeypatch.setattr(fastrand, "MIN_ELEMENTS", 1)

    demo = ROOT / "tests" / "fixtures" / "L1p19_witness_demo.py"
    fields, K, _ = loader.load(demo, torch)
    sub = {"fields": fields, "K": K, "path": str(demo)}
    calls: list[int] = []
    real = generators.raw_draw

    def counting(*a, **k):
        calls.append(1)
        return real(*a, **k)

    def worker(cpu_backend: bool = True) -> Worker:
        # cpu_backend False: the GPU worker's recipe (transform after placing), on CPU tensors.
        w = Worker.__new__(Worker)
        w.torch, w.scratch, w.device = torch, Scratch(tmp_path, 1 << 30, torch, print), torch.device("cpu")
        w.cpu = cpu_backend
        return w

    # The first three on one CPU-backend worker; the rest on GPU-recipe workers, where signed,
    # dense and negative transform their copy in place; scaled again last: the draw is intact.
    names = ["W:scaled:1000:small", "W:sparse:1000:small", "W:spiky:1000:small", "W:signed:100:small", "W:dense:1:small",
             "W:negative:10:small", "W:ramp:10:small"]
    generators.raw_draw = counting
    try:
        first = worker()
        got = {}
        for i, name in enumerate(names):
            spec = generators.parse(name)
            w = first if i < 3 else worker(cpu_backend=False)  # later columns on other workers, reading the scratch copy
            got[name] = w.generated(sub, spec, 1, generators.sizes_of(spec, fields, K))()
            w.scratch.finish()
        spec = generators.parse("W:scaled:1000:small")
        again = worker().generated(sub, spec, 1, generators.sizes_of(spec, fields, K))()
        assert torch.equal(again[0], got["W:scaled:1000:small"][0]), "no in-place transform wrote into the shared draw"
        # A recipe called again (a restore after a mutant damaged the inputs) gives the same inputs.
        spec = generators.parse("W:signed:100:small")
        recipe = worker(cpu_backend=False).generated(sub, spec, 1, generators.sizes_of(spec, fields, K))
        first_call = recipe()[0].clone()
        assert torch.equal(first_call, recipe()[0]), "the in-place transform works on a copy of the draw"
        assert calls == [1], "one draw for every column at these sizes and seed"
        spec = generators.parse("W:scaled:1000:small")
        seeded = worker()
        seeded.generated(sub, spec, 2, generators.sizes_of(spec, fields, K))()
        seeded.scratch.finish()  # the write runs on a background thread: wait for it before counting files
        assert len(calls) == 2, "another seed is another draw"
        fresh = generators.parse("W:fresh2:3:small")
        assert generators.shares_draw(spec) and not generators.shares_draw(fresh)
        last = worker()
        whole = last.generated(sub, fresh, 1, generators.sizes_of(fresh, fields, K))()
        last.scratch.finish()
    finally:
        generators.raw_draw = real
    for name, inputs in got.items():
        spec = generators.parse(name)
        want = generators.draw(spec, fields, K, 1, torch)
        assert len(inputs) == len(want)
        for a, b in zip(inputs, want):
            assert torch.equal(a, b) if isinstance(a, torch.Tensor) else a == b, name
    assert torch.equal(whole[0], generators.draw(fresh, fields, K, 1, torch)[0])
    assert len(list(tmp_path.glob("*W_raw*.pt"))) == 2 and len(list(tmp_path.glob("*.pt"))) == 3, "the draws and the fresh column"


def prefix_worker(kept, launches, names, keep="device", on=True) -> Worker:
    """A CPU worker whose column kept the original's step outputs (as `record_steps` leaves it)."""
    w = Worker.__new__(Worker)
    w.cpu, w.torch, w.skip_prefix = True, torch, on
    w.column = {"steps_original": kept, "steps_keep": keep, "steps_launches": launches, "sub": {"names": names}}
    return w


def prefix(w: Worker, req, steps) -> int:
    """`replay.prefix_steps` on the worker's column, as `Worker.run_once` calls it."""
    return replay.prefix_steps(w.column, req, steps, w.skip_prefix)


def tail_from(w: Worker, req, steps):
    """`replay.tail_from` on the worker's column, as `Worker.run_once` calls it."""
    return replay.tail_from(w.column, req, steps, w.skip_tail)


def test_a_mutant_replays_the_steps_before_its_first_changed_one():
    """`prefix_steps`: the leading steps that are the original's own launches (same kernel from
    the original image, grid, block, scalars, argument shapes) and no more; never on the
    original's run, without kept outputs on the device, or when turned off."""
    x = torch.rand(8)
    a, b, c = torch.empty(8), torch.empty(8), torch.empty(4)
    seq = [Step("ka", (1, 1, 1), (8, 1, 1), [x, a], []), Step("kb", (1, 1, 1), (8, 1, 1), [a, b], []),
           Step("kc", (1, 1, 1), (4, 1, 1), [b, c], [])]
    launches = [launch_key(s) for s in seq]
    kept = [torch.rand(8), torch.rand(8), torch.rand(4)]
    w = prefix_worker(kept, launches, ["ka", "kb", "kc"])
    mutant = {"eval": 3, "image": "m.cubin", "scope": ["kb"]}
    assert prefix(w, mutant, seq) == 1, "kb runs the mutant's image: only ka is replayed"
    assert prefix(w, {**mutant, "scope": ["kc"]}, seq) == 2
    assert prefix(w, {**mutant, "scope": []}, seq) == 0, "no scope: every kernel is the mutant's"
    assert prefix(w, {"eval": -1, "image": None, "scope": []}, seq) == 0, "the original's own run launches every step"
    # A host-side change (a launch mutant: no image) starts at the step whose launch it altered.
    widen = {"transform": "grid_x", "step": 2, "delta": 1}
    assert prefix(w, {"eval": 3, "image": None, "transform": widen}, apply_transform(seq, widen)) == 2
    assert prefix(w, {"eval": 3, "image": None}, seq) == 3, "nothing changed: the whole run is the original's"
    # A rounded-down cdiv acts inside `launch`: every launch is compared with the original's.
    floor = {"eval": 3, "image": None, "transform": {"transform": "cdiv_floor", "call": 0}}
    assert prefix(w, floor, seq) == 3, "a floor that changed no launch replays them all"
    smaller_grid = [seq[0], seq[1], Step("kc", (0, 1, 1), (4, 1, 1), [b, c], [])]
    assert prefix(w, floor, smaller_grid) == 2
    bigger = [seq[0], Step("kb", (1, 1, 1), (8, 1, 1), [a, torch.empty(9)], []), seq[2]]
    assert prefix(w, floor, bigger) == 1, "an argument of another shape is another launch"
    assert prefix(prefix_worker(kept, launches, ["ka", "kb", "kc"], keep="host"), mutant, seq) == 0
    assert prefix(prefix_worker(kept, launches, ["ka", "kb", "kc"], on=False), mutant, seq) == 0
    assert prefix(prefix_worker(kept[:2], launches[:2], ["ka", "kb", "kc"]), mutant, seq) == 0


def test_replayed_steps_are_copied_in_order_and_never_launched():
    """`execute` with a prefix copies each kept output into its step's buffer, in step order (a
    later step writing the same memory wins, as it would have run), and launches only the rest."""
    ran: list[str] = []

    class Counting:
        def run(self, steps, torch_, order):
            ran.append(steps[0].kernel)
            steps[0].output.copy_(steps[0].tensors[0] + 1)

    x, h, y = torch.zeros(4), torch.zeros(4), torch.zeros(4)
    seq = [Step("a", (1, 1, 1), (4, 1, 1), [x, h], []), Step("b", (1, 1, 1), (4, 1, 1), [h, h], []), Step("c", (1, 1, 1), (4, 1, 1), [h, y], [])]
    w = prefix_worker([], [], [])
    kernels = {"a": Counting(), "b": Counting(), "c": Counting()}
    w.execute(seq, kernels, 0, None, [torch.full((4,), 5.0), torch.full((4,), 7.0)])
    assert ran == ["c"], "the two replayed steps are not launched"
    assert h.tolist() == [7.0] * 4, "step 1 rewrote step 0's buffer after it: its value is the one left"
    assert y.tolist() == [8.0] * 4, "the first launched step reads the replayed state"


def test_a_mutant_may_replay_the_steps_after_its_last_changed_one():
    """`tail_from`: the last step that runs a kernel of the mutant's image or whose launch its
    host-side change altered, when steps follow it; never on the original's run, for a
    `cdiv_floor`, without kept outputs on the device, when off, or when a later step's output
    is not shaped as the kept one."""
    x = torch.rand(8)
    a, b, c, d = torch.empty(8), torch.empty(8), torch.empty(4), torch.empty(4)
    seq = [Step("ka", (1, 1, 1), (8, 1, 1), [x, a], []), Step("kb", (1, 1, 1), (8, 1, 1), [a, b], []),
           Step("kc", (1, 1, 1), (4, 1, 1), [b, c], []), Step("kb", (1, 1, 1), (4, 1, 1), [c, d], [])]
    kept = [torch.rand(8), torch.rand(8), torch.rand(4), torch.rand(4)]
    w = prefix_worker(kept, [launch_key(s) for s in seq], ["ka", "kb", "kc"])
    w.skip_tail = True
    mutant = {"eval": 3, "image": "m.cubin", "scope": ["ka"]}
    assert tail_from(w, mutant, seq) == 0
    assert tail_from(w, {**mutant, "scope": ["kc"]}, seq) == 2
    assert tail_from(w, {**mutant, "scope": ["kb"]}, seq) is None, "kb runs the last step too: nothing after it"
    assert tail_from(w, {**mutant, "scope": ["ka", "kc"]}, seq) == 2, "the last of the changed steps"
    assert tail_from(w, {"eval": 3, "image": None}, seq) is None, "nothing changed: the prefix replays it all"
    assert tail_from(w, {"eval": -1, "image": None}, seq) is None, "the original's own run launches every step"
    widen = {"transform": "grid_x", "step": 1, "delta": 1}
    assert tail_from(w, {"eval": 3, "image": None, "transform": widen}, apply_transform(seq, widen)) == 1
    floor = {"eval": 3, "image": None, "transform": {"transform": "cdiv_floor", "call": 0}}
    assert tail_from(w, floor, seq) is None, "a rounded-down cdiv may change any launch"
    reshaped = [*seq[:3], Step("kb", (1, 1, 1), (4, 1, 1), [c, torch.empty(5)], [])]
    assert tail_from(w, mutant, reshaped) is None
    w.skip_tail = False
    assert tail_from(w, mutant, seq) is None
    host = prefix_worker(kept, [], ["ka", "kb", "kc"], keep="host")
    host.skip_tail = True
    assert tail_from(host, mutant, seq) is None


class Adds:
    """A step kernel writing its first input plus its other inputs plus `delta` into its output;
    `stray` (a tensor) also gets a write no output holds; `negate_zero` writes -0.0 for 0.0."""

    def __init__(self, delta, stray=None, negate_zero=False):
        self.delta, self.stray, self.negate_zero, self.launched = delta, stray, negate_zero, 0

    def run(self, steps, torch_, order):
        self.launched += 1
        s = steps[0]
        s.output.copy_(sum(s.tensors[1:-1], s.tensors[0]) + self.delta)
        if self.negate_zero:
            s.output.copy_(torch.where(s.output == 0, torch.tensor(-0.0), s.output))
        if self.stray is not None:
            self.stray.add_(1.0)


def tail_case(mutant_b, zeros_dirty=False):
    """A CPU worker on a 3-step column (a: x -> h, b: h -> g, c: g + z -> y, z a `K.zeros`
    buffer), the original's outputs kept; runs the mutant whose step b is `mutant_b` (a
    function of the column's input x) and returns (the output, the launches of c, the steps
    replayed after b)."""

    class NoWeights:
        weight_sets: list = []

    x = torch.arange(4.0) - 2.0
    w = Worker.__new__(Worker)
    w.cpu, w.torch, w.device, w.skip_prefix, w.skip_tail = True, torch, torch.device("cpu"), True, True
    w.column = {"inputs": [x], "ref": x + 3, "sub": {"K": NoWeights(), "names": ["ka", "kb", "kc"]}}

    def pipeline():
        h, g, z, y = torch.empty(4), torch.empty(4), torch.zeros(4), torch.empty(4)
        seq = [Step("ka", (1, 1, 1), (4, 1, 1), [x, h], []), Step("kb", (1, 1, 1), (4, 1, 1), [h, g], []),
               Step("kc", (1, 1, 1), (4, 1, 1), [g, z, y], [])]
        return (*guard_buffers(seq, y, {x.untyped_storage().data_ptr()}, torch), z.untyped_storage().data_ptr())

    seq, _, _, _ = pipeline()
    kept = []
    original = {"ka": Adds(1.0), "kb": Adds(1.0), "kc": Adds(1.0)}
    for s in seq:
        original[s.kernel].run([s], torch, 0)
        kept.append(s.output.clone())
    w.column.update(steps_flat=None, steps_original=kept, steps_keep="device")
    w.column["sum"] = w.column_sum()
    seq, out, guards, zero_ptr = pipeline()
    if zeros_dirty:
        [z] = [g for g in guards if g.old_ptr == zero_ptr]
        z.whole[z.pad_bytes : z.pad_bytes + z.body_bytes].view(torch.float32).fill_(1.0)
    req = {"eval": 1, "image": "m.so", "scope": ["kb"]}
    last = tail_from(w, req, seq)
    tail = Tail(last, kept, lambda: replay.converged(w.column, seq, last, guards, {zero_ptr}, w.column_sum, torch))
    kc = Adds(1.0)
    w.execute(seq, {"ka": Adds(1.0), "kb": mutant_b(x), "kc": kc}, 0, None, None, tail)
    return [float(v) for v in out], kc.launched, tail.replayed


def test_the_tail_is_replayed_only_where_the_changed_steps_left_the_original_s_state():
    """`converged` right after the last changed step: the output written there equal to the
    original's bit for bit, the column's checksum unchanged, and every zero buffer not yet
    written still zero. Then the later steps' kept outputs stand in for their launches; in any
    other case they are launched, and the run is what it was without the tail."""
    want = [1.0, 2.0, 3.0, 4.0]  # y = (x + 2) + 0 + 1
    assert tail_case(lambda x: Adds(1.0)) == (want, 0, 1), "b computed what the original's b did: c is replayed"
    assert tail_case(lambda x: Adds(2.0)) == ([2.0, 3.0, 4.0, 5.0], 1, 0), "b's output differs: c runs on it"
    assert tail_case(lambda x: Adds(1.0), zeros_dirty=True) == ([2.0, 3.0, 4.0, 5.0], 1, 0), "c's zero buffer was written into"


def test_a_tail_is_not_replayed_over_a_sign_of_zero_or_a_damaged_column():
    """Bits, not values: -0.0 equals 0.0 as a float, but a later step can tell them apart
    (1/x); and a stray write into an input is seen by the column's checksum even where every
    output written so far is the original's."""
    out, launched, replayed = tail_case(lambda x: Adds(1.0, negate_zero=True))
    assert (launched, replayed) == (1, 0), "g[0] is -0.0 where the original's is +0.0"
    assert out == [1.0, 2.0, 3.0, 4.0]
    assert tail_case(lambda x: Adds(1.0, stray=x))[1:] == (1, 0), "the column's input was written into"


def test_a_stray_write_into_the_kept_step_outputs_is_caught_and_the_original_run_again():
    """The original's kept step outputs decide verdicts now (the replayed prefix): the column's
    checksum covers their packed buffer, and damage there runs the original again instead of
    letting later mutants start from a corrupted state; the inputs are not rebuilt for it."""
    from kmut import steps as depth

    class NoWeights:
        weight_sets: list = []

    rebuilt: list[str] = []
    w = Worker.__new__(Worker)
    w.cpu, w.torch, w.device = True, torch, torch.device("cpu")
    good = [torch.arange(4.0), torch.arange(4.0) * 2]

    def build():
        rebuilt.append("inputs")
        return [torch.ones(4)]

    w.column = {"inputs": [torch.ones(4)], "ref": torch.ones(4), "build": build, "sub": {"K": NoWeights(), "fields": {"ref": lambda x, t: x[0].clone()}}}
    w.column["sum"] = w.column["base_sum"] = w.column_sum()

    def original_run(req, announce=True):
        assert req["eval"] == -1
        rebuilt.append("original")
        w.column["steps_flat"], w.column["steps_original"] = depth.pack(good, torch)
        w.column["sum"] = w.column_sum()
        return {"eval": -1, "tau": 0.0}

    w.evaluate = original_run  # type: ignore[method-assign]
    original_run({"eval": -1})
    rebuilt.clear()
    assert w.restore_if_damaged() is False
    w.column["steps_original"][1][2] = 99.0  # a mutant's stray write into step 1's kept output
    assert w.restore_if_damaged() is True
    assert rebuilt == ["original"], "only the kept outputs are rebuilt"
    assert w.column["steps_original"][1].tolist() == [0.0, 2.0, 4.0, 6.0]
    w.column["inputs"][0][0] = 5.0  # damage to an input rebuilds the inputs, not the original's run
    rebuilt.clear()
    assert w.restore_if_damaged() is True and rebuilt == ["inputs"]
    assert w.restore_if_damaged() is False


def test_a_generated_column_too_large_for_the_machine_is_refused_before_anything_is_drawn(monkeypatch):
    """Its inputs' bytes come from shapes on the meta device (nothing allocated, even for
    2^40 elements); over the limit the column is the machine's failure, never drawn."""
    from kmut import generators, loader
    from kmut.machine import MachineFailure, TooLarge, environment_failure

    from .conftest import ROOT

    demo = ROOT / "tests" / "fixtures" / "L1p19_witness_demo.py"
    fields, K, _ = loader.load(demo, torch)
    drawn = generators.raw_draw(fields, 1, {"n": 512}, torch)
    assert generators.planned_bytes(fields, {"n": 512}, torch) == sum(t.numel() * t.element_size() for t in drawn) == 2048
    assert generators.planned_bytes(fields, {"n": 1 << 40}, torch) == 4 << 40, "shapes only: 4 TiB is never allocated"
    w = Worker.__new__(Worker)
    w.torch, w.cpu, w.device, w.planned = torch, True, torch.device("cpu"), {}
    w.refuse_oversized(fields, "W:boundary:1:n=513", {"n": 513})  # 2 KiB: under any machine's limit
    # Worked out once per substrate and sizes: another column at the same sizes reads it back.
    calls = []
    real = generators.planned_bytes
    monkeypatch.setattr(generators, "planned_bytes", lambda *a: calls.append(a) or real(*a))
    w.refuse_oversized(fields, "W:signed:10:n=513", {"n": 513})
    assert calls == [], "the same sizes again: no second run of the generator"
    with pytest.raises(MachineFailure) as refused:
        w.refuse_oversized(fields, "W:boundary:1:n=1099511627776", {"n": 1 << 40})
    assert isinstance(refused.value, TooLarge), "the engine skips it at once instead of retrying it alone"
    why = environment_failure(refused.value, torch)
    assert why.startswith("out of memory before drawing: W:boundary:1:n=1099511627776's inputs alone would take 4096.0 GiB"), why
    monkeypatch.setenv("KMUT_MAX_INPUT_BYTES", "1000")
    with pytest.raises(MachineFailure):
        w.refuse_oversized(fields, "W:boundary:1:n=513", {"n": 513})


def test_a_step_s_launch_arguments_are_its_tensors_addresses_then_its_scalars():
    """What every launch bridge (the GPU's, the CPU backend's, `kmut bench streams`) passes."""
    import ctypes
    import struct

    x, y = torch.zeros(4), torch.zeros(2, dtype=torch.float64)
    s = Step("k", (1, 1, 1), (4, 1, 1), [x, y], [(ctypes.c_int, -3), (ctypes.c_longlong, 1 << 40), (ctypes.c_float, 0.5)])
    args = s.launch_args()
    assert args[:2] == [struct.pack("<Q", x.data_ptr()), struct.pack("<Q", y.data_ptr())]
    assert args[2:] == [struct.pack("<i", -3), struct.pack("<q", 1 << 40), struct.pack("<f", 0.5)]


def test_a_deferred_original_waits_for_a_result_that_fails_the_comparison_and_never_for_a_crash():
    ok = {"tau": 1e-3, "shape_ok": True}
    assert not fails_comparison(ok, 1e-2) and fails_comparison(ok, 1e-4)
    assert fails_comparison({"tau": math.nan, "shape_ok": True}, 1e-2), "NaN fails as the engine's kills_at says"
    assert fails_comparison({"tau": 0.0, "shape_ok": False}, 1e-2), "a wrong shape fails"
    assert not fails_comparison({"tau": None, "crash": "CUDA_ERROR_ILLEGAL_ADDRESS"}, 1e-2), "a crash is a kill whatever the original does"
    assert not fails_comparison({"environment": "out of memory"}, 1e-2)
    assert not fails_comparison({"tau": 0.5, "shape_ok": True}, None), "the original has run: nothing waits"
    # The worst of several runs (thread orders): a wrong shape, then the larger tau*, NaN above all;
    # a deferred original's placeholder (no tau) is never the worst.
    runs = [{"tau": None, "shape_ok": True}, {"tau": 1e-3, "shape_ok": True}, {"tau": math.nan, "shape_ok": True}]
    assert math.isnan(max(runs, key=worst_first)["tau"])
    assert max([*runs, {"tau": 0.0, "shape_ok": False}], key=worst_first)["shape_ok"] is False
    assert max(runs[:2], key=worst_first)["tau"] == 1e-3
