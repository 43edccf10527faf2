"""`kmut compile` end to end on the CPU: the real NVRTC, the real store, a kill -9 and a resume."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time

from .conftest import ACCEPTED

GEMM = str(next(p for p in ACCEPTED if p.stem == "L2p76_gemm_add_relu"))


def compile_cmd(kmut_cmd, store, *extra):
    return [*kmut_cmd, "compile", GEMM, "--store", str(store), "--no-cache", "--threads", "1", *extra]


def classes(store):
    with sqlite3.connect(store) as db:
        return sorted(db.execute("SELECT mutant, class, duplicate_of FROM classes").fetchall())


def test_compile_prints_tables_by_substrate_and_family_and_stores_classes(kmut_cmd, tmp_path):
    out = subprocess.run(compile_cmd(kmut_cmd, tmp_path / "s.sqlite", "--family", "precision"), capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "substrate" in out.stdout and "L2p76_gemm_add_relu" in out.stdout and "family" in out.stdout
    for column in ("generated", "stillborn", "equivalent", "duplicate", "live"):
        assert column in out.stdout
    assert "nvrtc 13.0 -arch=sm_90" in out.stderr
    rows = classes(tmp_path / "s.sqlite")
    assert rows and all(c in ("stillborn", "equivalent", "duplicate", "live") for _, c, _ in rows)


def test_a_killed_compile_resumes_and_ends_with_the_totals_of_an_uninterrupted_run(kmut_cmd, tmp_path):
    store = tmp_path / "killed.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")
    proc = subprocess.Popen(compile_cmd(kmut_cmd, store), stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    # Wait until some compilations are stored, then kill the whole process group.
    deadline = time.time() + 300
    stored = 0
    while time.time() < deadline and proc.poll() is None:
        time.sleep(0.5)
        if store.exists():
            try:
                with sqlite3.connect(store, timeout=1) as db:
                    stored = db.execute("SELECT count(*) FROM compilations").fetchone()[0]
            except sqlite3.OperationalError:
                continue
            if stored >= 10:
                break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert stored >= 10, "the compile run never stored results"
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT status FROM runs").fetchall() == [("running",)]

    resumed = subprocess.run(compile_cmd(kmut_cmd, store), capture_output=True, text=True, timeout=600, env=env)
    assert resumed.returncode == 0, resumed.stderr
    assert "already in the store" in resumed.stderr
    already = int(resumed.stderr.split(" from the cache, ")[1].split(" already")[0])
    assert already >= 10

    fresh = tmp_path / "fresh.sqlite"
    subprocess.run(compile_cmd(kmut_cmd, fresh), capture_output=True, text=True, timeout=600, env=env, check=True)
    assert classes(store) == classes(fresh)


def test_a_rule_filter_selects_and_never_deletes_and_an_edit_marks_mutants_stale_until_pruned(kmut_cmd, tmp_path):
    store = tmp_path / "s.sqlite"
    env = dict(os.environ, KMUT_NO_PROGRESS="1")

    def compile_(path, *extra):
        out = subprocess.run([*kmut_cmd, "compile", str(path), "--store", str(store), "--no-cache", "--threads", "2", *extra],
                             capture_output=True, text=True, timeout=600, env=env)
        assert out.returncode == 0, out.stderr
        return out

    def counts():
        with sqlite3.connect(store) as db:
            return (db.execute("SELECT count(*) FROM mutants WHERE stale = 0").fetchone()[0],
                    db.execute("SELECT count(*) FROM mutants WHERE stale = 1").fetchone()[0],
                    db.execute("SELECT count(*) FROM classes").fetchone()[0])

    compile_(GEMM, "--max-per-rule", "1")
    current, stale, classified = counts()
    assert current > classified > 0 and stale == 0, "every mutant is stored, the chosen ones classified"
    # A narrower filter compiles its own and leaves everything else as it was.
    compile_(GEMM, "--rules", "arith-plus-*")
    assert counts()[0] == current and counts()[1] == 0 and counts()[2] >= classified
    # An evaluation of a mutant whose site the next edit moves.
    with sqlite3.connect(store) as db:
        victim = db.execute("SELECT c.mutant FROM classes c JOIN mutants m ON m.id = c.mutant WHERE c.class = 'live' AND m.kind = 'source' LIMIT 1").fetchone()[0]
        db.execute("INSERT INTO evaluations (mutant, target, suite, seed, image, backend, outcome, tau, wall_ms) "
                   "SELECT ?1, target, 'T0_original', 1, 'img', 'cuda:test', 'completed', 0.5, 1.0 FROM classes WHERE mutant = ?1", (victim,))
    with sqlite3.connect(store) as db:
        sources = db.execute("SELECT count(*) FROM mutants WHERE kind = 'source'").fetchone()[0]
    # The same substrate with a line added above its kernel: every source site moves and every
    # source mutant's id changes (launch mutants are named by their launch step: they stay).
    edited = tmp_path / "L2p76_gemm_add_relu.py"
    src = open(GEMM, encoding="utf-8").read()
    assert 'extern "C" __global__' in src
    edited.write_text(src.replace('extern "C" __global__', '// edited\nextern "C" __global__', 1), encoding="utf-8")
    out = compile_(edited, "--max-per-rule", "1")
    assert f"{sources} stored mutants are no longer generated from its source" in out.stderr and "kmut store prune" in out.stderr
    now, stale, _ = counts()
    assert stale == sources and now == current
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM evaluations WHERE mutant = ?", (victim,)).fetchone()[0] == 1, "kept until pruned"
    dry = subprocess.run([*kmut_cmd, "store", "prune", "--dry-run", "--store", str(store)], capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0 and f"would remove {sources} stale mutants and 1 evaluations" in dry.stdout, dry.stdout + dry.stderr
    assert counts()[1] == sources
    pruned = subprocess.run([*kmut_cmd, "store", "prune", "--store", str(store)], capture_output=True, text=True, timeout=60)
    assert pruned.returncode == 0 and f"removed {sources} stale mutants and 1 evaluations" in pruned.stdout, pruned.stdout
    assert counts()[1] == 0 and counts()[0] == now
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT count(*) FROM evaluations").fetchone()[0] == 0
    again = subprocess.run([*kmut_cmd, "store", "prune", "--store", str(store)], capture_output=True, text=True, timeout=60)
    assert "nothing to remove" in again.stdout


def test_a_mutant_list_compiles_exactly_the_listed_mutants(kmut_cmd, tmp_path):
    # Some mutant ids, as `kmut synth --fill-list` writes them (a comment line, then one per line).
    listed = subprocess.run([*kmut_cmd, "mutate", GEMM], capture_output=True, text=True, timeout=120)
    assert listed.returncode == 0, listed.stderr
    ids = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()][:3]
    assert len(ids) == 3
    fill = tmp_path / "fill.txt"
    fill.write_text("# three mutants\n" + "\n".join(ids) + "\n\nffffffffffff\n")
    store = tmp_path / "listed.sqlite"
    out = subprocess.run(compile_cmd(kmut_cmd, store, "--mutants-from", str(fill)), capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    assert "1 of the 4 named mutant ids match no mutant" in out.stderr
    with sqlite3.connect(store) as db:
        compiled = sorted(r[0] for r in db.execute("SELECT DISTINCT mutant FROM compilations WHERE mutant IS NOT NULL"))
    assert compiled == sorted(ids)
    # A list that names nothing is an error naming the file, not a run of every mutant.
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    out = subprocess.run(compile_cmd(kmut_cmd, tmp_path / "e.sqlite", "--mutants-from", str(empty)), capture_output=True, text=True, timeout=600)
    assert out.returncode != 0 and "empty.txt" in out.stderr and "names no mutant" in out.stderr


def test_bench_compile_measures_the_same_images_on_every_pass(kmut_cmd):
    """`kmut bench compile` times one thread, N threads and the NVRTC process pool on one sample,
    and says how many images each made: a figure is only a rate of the same work."""
    import re

    out = subprocess.run([*kmut_cmd, "bench", "compile", GEMM, "--sample", "6", "--threads", "2"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    [(made, rejected)] = re.findall(r"(\d+) images made by every pass \((\d+) sources rejected", out.stdout)
    assert int(made) + int(rejected) == 6 and int(made) > 0, out.stdout
    assert re.search(r"one thread: [\d.]+ ms per mutant", out.stdout)
    assert re.search(r"2 threads of one process: [\d.]+ mutants/s", out.stdout)
    assert re.search(r"2 NVRTC processes \(kmut compile's pool\): [\d.]+ mutants/s", out.stdout)
    # The stage's other images: one substrate with one kernel has one cut original for all six.
    [(distinct, made_originals)] = re.findall(r"cut originals of the sample's scopes: (\d+) distinct \((\d+) made\)", out.stdout)
    assert (int(distinct), int(made_originals)) == (1, 1), out.stdout


def test_bench_compile_times_the_cut_originals_of_a_pipeline_s_scopes(kmut_cmd):
    """A pipeline's mutants reach different kernels, so the sample's cut originals are several;
    both passes (one at a time, the pool) must make every one of them."""
    import re

    lenet = str(next(p for p in ACCEPTED if p.stem == "L3p4_lenet5"))
    out = subprocess.run([*kmut_cmd, "bench", "compile", lenet, "--sample", "12", "--threads", "2"], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr
    [(distinct, made)] = re.findall(r"cut originals of the sample's scopes: (\d+) distinct \((\d+) made\)", out.stdout)
    assert 2 <= int(distinct) <= 12 and made == distinct, out.stdout
    assert re.search(r"pool of 2: [\d.]+ originals/s \([\d.]+x one at a time\)", out.stdout)
