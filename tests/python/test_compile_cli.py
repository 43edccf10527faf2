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
