"""`kmut bench streams`: the sample, the pooled figures and the command's edges on the CPU; the
timing itself on a GPU (skipped without one)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from kmut import bench_streams
from kmut.bench_streams import level_of, pick, pooled

from .conftest import ROOT, cuda_available


def names(level: int, n: int) -> list[Path]:
    return [Path(f"L{level}p{i}_x.py") for i in range(1, n + 1)]


def test_the_sample_is_stratified_by_level_deterministic_and_evenly_spaced():
    paths = names(1, 20) + names(2, 20) + names(3, 10)
    chosen = pick(list(reversed(paths)), 10)
    assert chosen == pick(paths, 10), "the order given does not change the sample"
    by_level = [sum(level_of(p) == lv for p in chosen) for lv in (1, 2, 3)]
    assert by_level == [4, 4, 2], "each level in proportion to its count"
    assert len(set(chosen)) == 10
    # Evenly spaced through a level's sorted names, not its first few.
    level3 = sorted(p for p in paths if level_of(p) == 3)
    assert [p for p in chosen if level_of(p) == 3] == [level3[0], level3[5]]
    assert pick(paths, 0) == sorted(paths) and pick(paths, 999) == sorted(paths)


def test_a_small_level_keeps_one_substrate_and_the_total_is_what_was_asked():
    paths = names(1, 30) + names(2, 30) + names(3, 1)
    for n in (3, 5, 7, 12):
        chosen = pick(paths, n)
        assert len(chosen) == n
        assert any(level_of(p) == 3 for p in chosen), f"n={n}: the one level-3 substrate is in"


def row(name: str, level: int, **by_k: tuple[float, float, bool]) -> dict:
    return {"substrate": name, "level": level,
            "k": {k[1:]: {"serial_ms": s, "concurrent_ms": c, "outputs_agree": ok} for k, (s, c, ok) in by_k.items()}}


def test_pooled_is_a_ratio_of_totals_per_level_and_leaves_out_what_was_not_measured():
    rows = [row("a", 1, k2=(10.0, 5.0, True), k4=(20.0, 5.0, True)),
            row("b", 1, k2=(90.0, 90.0, True)),  # its 4 copies did not fit
            row("c", 3, k2=(30.0, 10.0, False))]
    got = pooled(rows, [2, 4])
    assert got["all"]["2"]["speedup"] == pytest.approx(130 / 105)
    assert got["all"]["2"]["substrates"] == 3
    assert (got["all"]["2"]["lowest"], got["all"]["2"]["highest"]) == (1.0, 3.0)
    assert got["all"]["4"] == {"substrates": 1, "speedup": 4.0, "lowest": 4.0, "highest": 4.0, "agree": True}
    assert got["L1"]["2"]["speedup"] == pytest.approx(100 / 95) and got["L1"]["2"]["agree"]
    assert not got["all"]["2"]["agree"] and not got["L3"]["2"]["agree"], "a differing output is never pooled away"
    assert "4" not in got["L3"]


def test_streams_must_be_counts_of_two_or_more():
    assert bench_streams.parse_ks("8,2,4,2") == [2, 4, 8]
    for bad in ("1,2", "two", ""):
        with pytest.raises(Exception, match="--streams"):
            bench_streams.parse_ks(bad)


def test_the_command_names_a_missing_file_and_needs_a_gpu(kmut_cmd, tmp_path):
    missing = subprocess.run([*kmut_cmd, "bench", "streams", str(tmp_path / "nope.py")], capture_output=True, text=True, cwd=ROOT)
    assert missing.returncode != 0 and "nope.py" in missing.stderr
    if cuda_available():
        return
    got = subprocess.run([*kmut_cmd, "bench", "streams", "substrates/accepted/L1p19_relu.py"], capture_output=True, text=True, cwd=ROOT)
    assert got.returncode != 0 and "needs a CUDA GPU" in got.stderr


@pytest.mark.gpu
def test_two_substrates_on_streams_give_their_serial_outputs_bit_for_bit():
    import torch

    device = torch.device("cuda", 0)
    for path in ("substrates/accepted/L2p76_gemm_add_relu.py", "substrates/accepted/L3p4_lenet5.py"):
        r = bench_streams.measure(ROOT / path, [2], 2, 0.5, torch, device)
        assert r["steps"] >= 1 and r["one_ms"] > 0 and r["copy_bytes"] > 0
        m = r["k"]["2"]
        assert m["outputs_agree"], f"{path}: a copy's output differs between one stream and two"
        assert m["serial_ms"] > 0 and m["concurrent_ms"] > 0


def test_passes_shrink_to_the_time_left_and_a_k_that_cannot_run_once_is_left_out():
    # One copy 100 ms: a pass at k=4 is at most 0.8 s (4 serially, then 4 at once).
    assert bench_streams.passes_for(4, 100.0, 3, 10.0) == 3
    assert bench_streams.passes_for(4, 100.0, 3, 1.7) == 2
    assert bench_streams.passes_for(4, 100.0, 3, 0.79) == 0
    assert bench_streams.passes_for(8, 2000.0, 3, 6.0) == 0, "a large network's copies at k=8 do not fit 6 s"
    assert bench_streams.passes_for(2, 0.0, 3, 0.0) == 3, "copies too quick to time still get every pass"


def test_the_floor_weighs_each_substrate_the_same_and_says_what_rate_it_allows():
    rows = [{"level": 1, "one_ms": 10.0}, {"level": 2, "one_ms": 390.0}, {"level": 2, "one_ms": 200.0}]
    f = bench_streams.floor(rows)
    assert f["substrates"] == 3 and f["mean_one_ms"] == pytest.approx(200.0)
    assert f["per_s"] == pytest.approx(5.0), "200 ms of kernels per evaluation allow 5 evaluations/s"
    assert f["levels"] == {"L1": 10.0, "L2": 295.0}
    assert bench_streams.floor([])["per_s"] is None, "nothing measured is no rate"


def test_the_table_prints_the_pooled_speedup_and_the_floor():
    rows = [{"substrate": "L1p1_x", "level": 1, "steps": 1, "one_ms": 4.0, "skipped": {"8": "memory"},
             "k": {"2": {"serial_ms": 8.0, "concurrent_ms": 4.0, "speedup": 2.0, "outputs_agree": True}}},
            {"substrate": "L3p1_y", "error": "RuntimeError: out of memory"}]
    ok = rows[:1]
    text = bench_streams.table({"device": "test", "streams": [2, 8], "repeat": 3, "rows": rows,
                                "pooled": pooled(ok, [2, 8]), "floor": bench_streams.floor(ok)})
    assert "2.00x" in text and "(no room)" in text and "failed: RuntimeError" in text
    assert "k=2: 2.00x over 1 (2.00-2.00)" in text
    assert "at most 250.0 evaluations/s" in text


class FakeCuda:
    """The few `torch.cuda` calls `measure` makes, on the CPU: one copy holds `copy_bytes`, the
    device has `free` bytes free."""

    def __init__(self, copy_bytes: int, free: int):
        self.copy_bytes, self.free, self.held = copy_bytes, free, 0

    def current_stream(self, device):
        return "main"

    def Stream(self, device):  # noqa: N802 - torch's name
        return object()

    def memory_allocated(self, device):
        return self.held

    def mem_get_info(self, device):
        return self.free, self.free

    def empty_cache(self):
        pass


class FakeTorch:
    """torch with `FakeCuda` as its `cuda`."""

    def __init__(self, cuda):
        self.cuda = cuda

    def __getattr__(self, name):
        import torch

        return getattr(torch, name)


def fake_substrate(cuda: FakeCuda, one_ms: float, differ: bool = False):
    """A stand-in for `bench_streams.Substrate`: each copy takes `one_ms` alone, and half that
    when the copies are on streams of their own; `differ` makes the concurrent pass's outputs
    differ from the serial pass's."""
    import torch

    class Fake:
        def __init__(self, path, torch_, device):
            self.fields = {"name": path.stem, "level": 2}

        def build(self):
            cuda.held += cuda.copy_bytes
            return [("k", (1, 1, 1), (1, 1, 1), [])] * 3, (torch.zeros(4), [])

        def run(self, copies, streams):
            concurrent = len(streams) > 1
            for _, (out, _steps) in copies:  # what the kernels write
                out.fill_(2.0 if differ and concurrent else 1.0)
            return len(copies) * one_ms / (2 if concurrent else 1)

    return Fake


def test_measure_times_each_k_both_ways_and_leaves_out_what_does_not_fit(monkeypatch):
    cuda = FakeCuda(copy_bytes=10 << 30, free=70 << 30)  # 0.5 x 70 GiB holds three 10 GiB copies
    monkeypatch.setattr(bench_streams, "Substrate", fake_substrate(cuda, one_ms=4.0))
    r = bench_streams.measure(Path("L2p1_fake.py"), [2, 4, 8], 3, 0.5, FakeTorch(cuda), "cuda:0", seconds=60)
    assert r["steps"] == 3 and r["one_ms"] == 4.0 and r["copy_bytes"] == 10 << 30
    assert r["k"]["2"]["serial_ms"] == 8.0 and r["k"]["2"]["concurrent_ms"] == 4.0 and r["k"]["2"]["speedup"] == 2.0
    assert r["k"]["2"]["outputs_agree"] and r["k"]["2"]["passes"] == 3
    assert r["skipped"] == {"4": "memory", "8": "memory"}


def test_measure_leaves_out_a_k_with_no_time_and_reports_differing_outputs(monkeypatch):
    cuda = FakeCuda(copy_bytes=1, free=1 << 40)
    # One copy 2 s: a pass at k=2 is up to 8 s, at k=8 up to 32 s; 10 s leave room for one pass at k=2 only.
    monkeypatch.setattr(bench_streams, "Substrate", fake_substrate(cuda, one_ms=2000.0, differ=True))
    r = bench_streams.measure(Path("L2p1_fake.py"), [2, 8], 3, 0.5, FakeTorch(cuda), "cuda:0", seconds=10)
    assert r["k"]["2"]["passes"] == 1 and r["skipped"] == {"8": "time"}
    assert not r["k"]["2"]["outputs_agree"], "a copy whose bits changed on streams is reported"


# `--census`: the launches' geometry, on the CPU.

def test_a_wave_fills_the_blocks_the_sms_hold_when_threads_are_the_only_limit():
    fill = bench_streams.wave_fill
    assert fill(264, 1024, 132) == 1.0, "two 1,024-thread blocks per SM fill 132 SMs with 264 blocks"
    assert fill(132, 1024, 132) == pytest.approx(0.5)
    assert fill(16, 1024, 132) == pytest.approx(16 / 264)
    # Small blocks: 32 per SM at most, whatever their threads allow.
    assert fill(132 * 32, 32, 132) == 1.0 and fill(132 * 16, 32, 132) == pytest.approx(0.5)
    assert fill(10**7, 256, 132) == 1.0, "capped at the whole device"
    assert fill(66, 256, 66) == pytest.approx(1 / 8), "the SM count is the caller's"


def test_the_census_over_meta_tensors_sees_the_launches_real_tensors_get():
    """The census builds the descriptor over meta tensors (no storage); its grids and blocks
    must be those of the same descriptor over real tensors at the official sizes."""
    import torch

    from kmut import loader
    from kmut.contract import draw_inputs
    from kmut.fastrand import Drawing
    from kmut.validate import is_pipeline, kernel_names, parse_descriptor

    path = ROOT / "substrates" / "accepted" / "L3p4_lenet5.py"
    fields, K, _ = loader.load(path, torch)
    suite, sizes = bench_streams.official(path, fields, K)
    inputs = draw_inputs(suite, suite.seeds[0], sizes, Drawing(torch))
    K.zero_init.clear()
    steps, _ = parse_descriptor(fields["launch"](inputs, torch), is_pipeline(fields), kernel_names(fields), str(path), torch)
    real = [(s.grid[0] * s.grid[1] * s.grid[2], s.block[0] * s.block[1] * s.block[2]) for s in steps]
    assert len(real) == 7
    assert bench_streams.geometry(path, torch) == real


def test_the_census_runs_without_a_gpu_and_tells_a_full_grid_from_a_starved_one(kmut_cmd):
    relu, layernorm, lstm = (f"substrates/accepted/{n}.py" for n in ("L1p19_relu", "L1p40_layernorm", "L3p35_lstm"))
    got = subprocess.run([*kmut_cmd, "bench", "streams", "--census", "--sample", "0", "--json", relu, layernorm, lstm],
                         capture_output=True, text=True, cwd=ROOT)
    assert got.returncode == 0, got.stderr
    import json

    rows = {r["substrate"]: r for r in json.loads(got.stdout.strip().splitlines()[-1])["rows"]}
    # ReLU over 4096 x 393,216 elements: millions of blocks, every launch fills the device.
    assert rows["L1p19_relu"]["launches"] == 1 and rows["L1p19_relu"]["under_half"] == 0
    assert rows["L1p19_relu"]["mean_fill"] == 1.0
    # LayerNorm: one block per normalised row, 16 rows: 16 of the 264 blocks 132 SMs hold.
    assert rows["L1p40_layernorm"]["least_blocks"] == 16 and rows["L1p40_layernorm"]["under_half"] == 1
    # The LSTM: thousands of launches, nearly all a few blocks each.
    assert rows["L3p35_lstm"]["launches"] > 3000 and rows["L3p35_lstm"]["under_half"] / rows["L3p35_lstm"]["launches"] > 0.99
    table = subprocess.run([*kmut_cmd, "bench", "streams", "--census", "--sample", "0", relu, layernorm], capture_output=True,
                           text=True, cwd=ROOT)
    assert table.returncode == 0, table.stderr
    assert "L1: 1 of 2 substrates have every launch filling at least half the device" in table.stdout
    fewer = subprocess.run([*kmut_cmd, "bench", "streams", "--census", "--sms", "8", "--json", layernorm], capture_output=True,
                           text=True, cwd=ROOT)
    assert json.loads(fewer.stdout.strip().splitlines()[-1])["rows"][0]["under_half"] == 0, "16 blocks of 1,024 threads fill 8 SMs"


def test_a_census_of_a_broken_substrate_names_it_and_fails(kmut_cmd, tmp_path):
    broken = tmp_path / "L1p1_broken.py"
    broken.write_text("this is not python\n", encoding="utf-8")
    got = subprocess.run([*kmut_cmd, "bench", "streams", "--census", str(broken)], capture_output=True, text=True, cwd=ROOT)
    assert got.returncode != 0
    assert "L1p1_broken" in got.stdout and "failed:" in got.stdout
