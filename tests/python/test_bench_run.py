"""`kmut bench run` on the CPU backend: well-formed, non-empty figures for a baseline and the given
configuration on one tiny stratified sample (no timing is asserted: speed claims come from the
benchmark itself, on the machine it ran on)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time

import pytest

from .conftest import ROOT, kmut_command

ACCEPTED = ROOT / "substrates" / "accepted"
SUBSTRATES = ["L1p19_relu", "L1p23_softmax"]


def test_bench_run_reports_both_configurations_on_the_same_sample(tmp_path):
    env = dict(os.environ, KMUT_NO_PROGRESS="1", KMUT_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    args = ["bench", "run", *[str(ACCEPTED / f"{n}.py") for n in SUBSTRATES], "--backend", "cpu", "--sample", "6", "--seed", "1",
            "--cpu-workers", "2", "--json"]
    out = subprocess.run([*kmut_command(), *args], capture_output=True, text=True, timeout=1500, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    doc = json.loads(out.stdout)
    assert (doc["backend"], doc["sample"], doc["seed"]) == ("cpu", 6, 1)
    configs = doc["configurations"]
    assert [c["configuration"]["name"] for c in configs] == ["previous", "this"]
    assert configs[0]["configuration"]["worker_flags"] == ["--compare", "fp64", "--no-skip-prefix", "--no-skip-tail", "--no-fused", "--relocate-buffers"]
    assert configs[1]["configuration"]["worker_flags"] == []
    for c in configs:
        assert c["mutants"] == 6 and 0 < c["settled"] <= 6, c
        assert c["evaluations"] >= c["settled"], c
        assert c["seconds"] > 0 and c["evaluations_per_s"] > 0 and c["settled_per_s"] > 0, c
        assert c["wall_over_kernel"] is None or c["wall_over_kernel"] > 0, c
        assert c["gpu_busy"] is None, "no nvidia-smi figure on the CPU backend"
        assert c["gpu_seconds_per_evaluation"] is None and c["gpu_bound_per_s"] is None, "nor a bound derived from it"
        assert c["images"] > 0 and c["images_per_s"] > 0, "each configuration builds from a cold cache"
        assert c["worker_replacements"] >= 0 and isinstance(c["problems"], list)
        assert "evaluating" in c["worker_time"] and "preparing" in c["worker_time"], c["worker_time"]
        # Each evaluation's wall time by part, as its worker measured it.
        parts = c["evaluation"]
        assert 0 < parts["evaluations"] <= c["evaluations"], parts
        assert {"load", "setup", "kernels", "compare", "check"} <= parts["seconds"].keys(), parts
        # Where the mutants' kernel time went, from the configuration's stored evaluations: both
        # substrates of the sample at most, the heaviest first, summing to the whole.
        spread = c["kernel_by_substrate"]
        if c["wall_over_kernel"] is not None:
            assert spread is not None and 1 <= spread["substrates"] <= len(SUBSTRATES), spread
            names = [n for n, _ in spread["heaviest"]]
            seconds = [x for _, x in spread["heaviest"]]
            assert set(names) <= set(SUBSTRATES) and seconds == sorted(seconds, reverse=True), spread
            assert abs(sum(seconds) - spread["seconds"]) < 1e-9 and spread["heaviest_share"] == pytest.approx(1.0), spread
        prep = c["preparation"]
        assert prep["columns"] > 0 and prep["seconds"].get("draw", -1) >= 0 and "original" in prep["seconds"], prep
        # The original's run, split into its parts (the whole-corpus bench could not say where its
        # 634 s went): each is logged for every column.
        parts = ("original_setup", "original_kernels", "original_compare", "original_steps")
        assert all(prep["seconds"].get(p, -1) >= 0 for p in parts), prep
    # The same sample: both settle the same mutants (the comparison modes give the same figures).
    assert configs[0]["settled"] == configs[1]["settled"]
    # The temporary stores and caches are gone.
    assert not list(tmp_path.glob("kmut-run-bench-*"))
    # Each configuration's workers share their drawn inputs where `kmut run`'s do (RAM, when the
    # machine has /dev/shm), and the folder is gone after the bench.
    scratches = re.findall(r"workers share drawn inputs in `([^`]+)`", out.stderr)
    assert len(scratches) == 2, out.stderr[-3000:]
    for s in scratches:
        if os.path.isdir("/dev/shm"):
            assert s.startswith("/dev/shm/kmut-run-"), s
        assert not os.path.exists(s) and not os.path.exists(os.path.dirname(s)), s


def test_bench_run_without_a_baseline_measures_the_given_configuration_alone(tmp_path):
    started = time.time()
    env = dict(os.environ, KMUT_NO_PROGRESS="1", KMUT_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    args = ["bench", "run", str(ACCEPTED / "L1p19_relu.py"), "--backend", "cpu", "--sample", "2", "--seed", "1", "--cpu-workers", "2",
            "--baseline", "none"]
    logs = tmp_path / "logs"
    out = subprocess.run([*kmut_command(), *args, "--json", "--keep-logs", str(logs)], capture_output=True, text=True, timeout=900, env=env,
                         check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    configs = json.loads(out.stdout)["configurations"]
    assert [c["configuration"]["name"] for c in configs] == ["this"]
    # --keep-logs: the configuration's workers log outlives the temporary store, with a line per
    # prepared column (what a device call's export brings back to diagnose the run).
    kept = logs / "workers-this.log"
    assert kept.is_file() and " prepared " in kept.read_text(), sorted(logs.iterdir()) if logs.exists() else out.stderr[-2000:]
    # Each prepared line says when its column was ready (Unix time, within the bench's run).
    ready = [float(t) for t in re.findall(r" prepared .*; ready at ([\d.]+)$", kept.read_text(), re.M)]
    assert ready and all(started <= t <= time.time() for t in ready), kept.read_text()[-2000:]
    assert "kept workers-this.log" in out.stderr
    assert configs[0]["mutants"] == 2 and configs[0]["evaluations"] >= configs[0]["settled"] > 0
    # A --keep-logs folder that cannot be made (a file stands there) never costs the figures of a
    # benchmark that ran: the table comes first, then the error (exit 2).
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("")
    table = subprocess.run([*kmut_command(), *args, "--keep-logs", str(blocked)], capture_output=True, text=True, timeout=900, env=env,
                           check=False)
    assert table.returncode == 2 and "could not create" in table.stderr, (table.returncode, table.stderr[-3000:])
    header = next(line for line in table.stdout.splitlines() if line.startswith("figure"))
    assert "this" in header and "ratio" not in header and "previous" not in header
    assert any(line.startswith("column preparations") and " columns, " in line for line in table.stdout.splitlines()), table.stdout


def test_an_interrupted_bench_run_still_prints_the_figures_of_what_ran(tmp_path):
    # A device call's clock stops the benchmark with SIGINT: its table must come back, marked as
    # over part of the sample. The workers here never start (a sleeping stand-in).
    from .conftest import SLEEPING_WORKER, interrupted_at

    env = dict(os.environ, KMUT_NO_PROGRESS="1", KMUT_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    args = [*kmut_command(), "bench", "run", str(ACCEPTED / "L1p19_relu.py"), "--backend", "cpu", "--sample", "2", "--seed", "1",
            "--cpu-workers", "1", "--baseline", "none", *SLEEPING_WORKER]
    code, out, err = interrupted_at(args, "bench run: this", env, wait=600, settle=2.0)
    assert code == 130, (code, err[-2000:])
    assert "this: interrupted after" in out and "of 2 mutants settled" in out, out[-2000:]
    assert "evaluations/s" in out


def nvrtc_images(cache):
    """Image files in a kmut cache folder, leaving out the CPU backend's libraries (`cpu/`)."""
    return [f for f in cache.rglob("*") if f.is_file() and "cpu" not in f.relative_to(cache).parts]


def test_bench_run_classes_from_a_store_compile_no_image_to_classify(tmp_path):
    """`--classes-from STORE`: the mutants the sample is drawn from are classified from the
    store's compile records, so the user's image cache gets nothing; the sample and its figures
    are those of a bench that compiled them."""
    paths = [str(ACCEPTED / f"{n}.py") for n in SUBSTRATES]
    store = tmp_path / "compiled.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1", KMUT_CACHE_DIR=str(tmp_path / "first"), TMPDIR=str(tmp_path))
    out = subprocess.run([*kmut_command(), "compile", *paths, "--store", str(store)], capture_output=True, text=True, timeout=900, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    runs = {}
    for name, extra in (("with", ["--classes-from", str(store)]), ("without", [])):
        cache = tmp_path / f"cache-{name}"
        env = dict(os.environ, KMUT_NO_PROGRESS="1", KMUT_CACHE_DIR=str(cache), TMPDIR=str(tmp_path))
        args = ["bench", "run", *paths, "--backend", "cpu", "--sample", "4", "--seed", "1", "--cpu-workers", "2",
                "--baseline", "none", "--json", *extra]
        out = subprocess.run([*kmut_command(), *args], capture_output=True, text=True, timeout=900, env=env, check=False)
        assert out.returncode == 0, out.stderr[-3000:]
        runs[name] = (json.loads(out.stdout)["configurations"][0], out.stderr, nvrtc_images(cache) if cache.exists() else [])
    (with_, err, images), (without, _, images_without) = runs["with"], runs["without"]
    assert "compile records from" in err, err[-2000:]
    assert re.search(r"classified in [\d.]+ s \(0 compiled now, 0 from the cache, [1-9]\d* from stored records\)", err), err[-2000:]
    assert images == [] and len(images_without) > 0, "classifying compiled nothing into the user's cache"
    assert with_["mutants"] == without["mutants"] == 4 and with_["images"] == without["images"] > 0
    missing = subprocess.run([*kmut_command(), "bench", "run", *paths, "--backend", "cpu", "--classes-from", str(tmp_path / "none.sqlite")],
                             capture_output=True, text=True, timeout=300, env=env, check=False)
    assert missing.returncode != 0 and "no such store" in missing.stderr, missing.stderr[-2000:]


@pytest.mark.parametrize("baseline, flag", [("no-prefix", "--no-skip-prefix"), ("no-tail", "--no-skip-tail")])
def test_bench_run_no_prefix_or_no_tail_measures_one_replay_alone(tmp_path, baseline, flag):
    """`--baseline no-prefix` (`no-tail`): the same configuration with the steps before each
    mutant's first changed one (after its last changed one) launched, so the one difference
    between the columns is that replay, which its row counts."""
    env = dict(os.environ, KMUT_NO_PROGRESS="1", KMUT_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    args = ["bench", "run", str(ROOT / "tests" / "fixtures" / "L3p1_depth_demo.py"), "--backend", "cpu", "--sample", "8", "--seed", "1",
            "--cpu-workers", "2", "--baseline", baseline, "--json"]
    out = subprocess.run([*kmut_command(), *args], capture_output=True, text=True, timeout=900, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    base, this = json.loads(out.stdout)["configurations"]
    assert base["configuration"] == {**this["configuration"], "name": baseline, "worker_flags": [flag]}
    assert base["pipeline_steps"] > 0 and 0 < this["steps_replayed"] < this["pipeline_steps"]
    assert this["tails"] <= this["tail_replayed"] <= this["steps_replayed"]
    if baseline == "no-prefix":
        assert base["steps_replayed"] == base["tail_replayed"], "only tails are replayed without the prefix"
    else:
        assert base["tail_replayed"] == base["tails"] == 0 and base["steps_replayed"] > 0, "only prefixes without the tail"
    assert base["settled"] == this["settled"] == 8


@pytest.mark.parametrize("baseline, flag", [("no-fused", "--no-fused"), ("twist", "--draw-twist"), ("relocate", "--relocate-buffers")])
def test_bench_run_no_fused_or_twist_runs_the_workers_with_one_lever_off(tmp_path, baseline, flag):
    """`--baseline no-fused`: the same configuration with the worker's `--no-fused` (on the CPU
    backend both use torch, so the verdicts agree and only the flag differs); `--baseline twist`:
    with `--draw-twist` (the same values drawn with the twist on one thread); `--baseline
    relocate`: with `--relocate-buffers` (the CPU backend always moves the buffers)."""
    env = dict(os.environ, KMUT_NO_PROGRESS="1", KMUT_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    args = ["bench", "run", str(ACCEPTED / "L1p19_relu.py"), "--backend", "cpu", "--sample", "2", "--seed", "1",
            "--cpu-workers", "1", "--baseline", baseline, "--json"]
    out = subprocess.run([*kmut_command(), *args], capture_output=True, text=True, timeout=900, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    base, this = json.loads(out.stdout)["configurations"]
    assert base["configuration"] == {**this["configuration"], "name": baseline, "worker_flags": [flag]}
    assert base["settled"] == this["settled"] == 2


def test_bench_run_rerun_original_runs_the_original_on_every_column(tmp_path):
    """`--baseline rerun-original`: the same configuration with the engine's `reuse_original`
    off, so no column takes the original's figures from an earlier preparation; the table counts
    the columns that did in the given configuration (in a fresh store, only a column prepared
    again, as after a worker's replacement)."""
    env = dict(os.environ, KMUT_NO_PROGRESS="1", KMUT_CACHE_DIR=str(tmp_path / "cache"), TMPDIR=str(tmp_path))
    args = ["bench", "run", str(ACCEPTED / "L1p19_relu.py"), "--backend", "cpu", "--sample", "2", "--seed", "1",
            "--cpu-workers", "1", "--baseline", "rerun-original", "--json"]
    out = subprocess.run([*kmut_command(), *args], capture_output=True, text=True, timeout=900, env=env, check=False)
    assert out.returncode == 0, out.stderr[-3000:]
    base, this = json.loads(out.stdout)["configurations"]
    assert base["configuration"] == {**this["configuration"], "name": "rerun-original", "reuse_original": False}
    assert this["configuration"]["reuse_original"] is True
    assert base["original_reused"] == 0 and base["columns_prepared"] > 0
    assert 0 <= this["original_reused"] <= this["columns_prepared"] and this["columns_prepared"] > 0
    assert base["settled"] == this["settled"] == 2
    table = subprocess.run([*kmut_command(), *args[:-1]], capture_output=True, text=True, timeout=900, env=env, check=False)
    assert table.returncode == 0 and re.search(r"original's run skipped\s+0 of \d+ column preparations", table.stdout), table.stdout
