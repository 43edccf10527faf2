"""The scripts that bring device results home: the subset of a campaign store one campaign's
runs evaluated (scripts/store-subset.py), and a split export read back as one file
(scripts/merge-device-results.py)."""

from __future__ import annotations

import gzip
import importlib.util
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tiny_store(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript(
        """
        CREATE TABLE evaluations (mutant TEXT, suite TEXT, run INTEGER);
        CREATE TABLE step_errors (mutant TEXT, suite TEXT, step INTEGER, PRIMARY KEY (mutant, suite, step)) WITHOUT ROWID;
        INSERT INTO evaluations VALUES ('a', 'T0', 1), ('a', 'W', 3), ('b', 'T0', 2), ('c', 'T0', 1), ('c', 'T0b', 2);
        INSERT INTO step_errors VALUES ('a', 'T0', 0), ('b', 'T0', 0), ('b', 'T0', 1), ('c', 'T0', 0);
        """
    )
    db.commit()
    db.close()


def subset(src: Path, out: Path, *flag: str) -> sqlite3.Connection:
    subprocess.run([sys.executable, str(ROOT / "scripts/store-subset.py"), str(src), str(out), *flag], check=True, capture_output=True)
    return sqlite3.connect(out)


def test_a_subset_keeps_every_row_of_the_mutants_the_runs_evaluated(tmp_path):
    src = tmp_path / "store.sqlite"
    tiny_store(src)
    db = subset(src, tmp_path / "runs1.sqlite", "--runs", "1")
    # a and c were evaluated by run 1: all their rows stay, whichever run made them (a's run 3).
    assert sorted(db.execute("SELECT mutant, suite FROM evaluations")) == [("a", "T0"), ("a", "W"), ("c", "T0"), ("c", "T0b")]
    assert sorted(db.execute("SELECT mutant FROM step_errors")) == [("a",), ("c",)]
    db = subset(src, tmp_path / "not1.sqlite", "--not-runs", "1")
    assert sorted(db.execute("SELECT mutant FROM evaluations")) == [("b",)]
    assert db.execute("SELECT count(*) FROM step_errors").fetchone()[0] == 2
    # The source is untouched.
    assert sqlite3.connect(src).execute("SELECT count(*) FROM evaluations").fetchone()[0] == 5


def test_a_split_export_is_read_back_as_one_file(tmp_path):
    spec = importlib.util.spec_from_file_location("merge", ROOT / "scripts/merge-device-results.py")
    merge = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(merge)
    payload = bytes(range(256)) * 4000
    whole = tmp_path / "results.sqlite.gz"
    whole.write_bytes(gzip.compress(payload))
    data = whole.read_bytes()
    for i, at in enumerate(range(0, len(data), 101)):
        (tmp_path / f"results.sqlite.gz.part{i:02d}").write_bytes(data[at : at + 101])
    whole.unlink()
    assert len(list(tmp_path.glob("results.sqlite.gz.part*"))) > 3
    with gzip.open(merge.joined(str(whole)), "rb") as f:
        assert f.read() == payload


def test_the_packed_device_store_keeps_every_result_but_the_per_step_rows(tmp_path):
    src = tmp_path / "store.sqlite"
    tiny_store(src)
    out = tmp_path / "carry" / "wit.sqlite.gz"
    done = subprocess.run([sys.executable, str(ROOT / "scripts/pack-device-store.py"), str(src), str(out)], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "4 per-step rows left out" in done.stdout
    # From a checkout it also says what a device call would carry (the tree, .whl/, the store's folder).
    assert "a device call from here would carry about" in done.stdout and "MiB of its 64" in done.stdout
    unpacked = tmp_path / "unpacked.sqlite"
    unpacked.write_bytes(gzip.decompress(out.read_bytes()))
    db = sqlite3.connect(unpacked)
    assert db.execute("SELECT count(*) FROM evaluations").fetchone()[0] == 5
    assert db.execute("SELECT count(*) FROM step_errors").fetchone()[0] == 0
    # The source keeps its rows; a packed store over the limit fails loudly instead of a refused call.
    assert sqlite3.connect(src).execute("SELECT count(*) FROM step_errors").fetchone()[0] == 4
    over = subprocess.run([sys.executable, str(ROOT / "scripts/pack-device-store.py"), str(src), str(out), "--limit", "0"], capture_output=True, text=True)
    assert over.returncode == 1 and "over the 0 MB limit" in over.stderr


def test_an_xz_export_merges_like_a_gzip_one(tmp_path):
    """The merged campaign under docs/data/ is xz (it must fit a device call's carry); the merge
    reads it by its suffix, and a gzip export as before."""
    import lzma

    export = tmp_path / "export.sqlite"
    tiny_store(export)
    raw = export.read_bytes()
    for name, pack in (("results.sqlite.xz", lzma.compress), ("results.sqlite.gz", gzip.compress)):
        (tmp_path / name).write_bytes(pack(raw))
        store = tmp_path / f"{name}.store.sqlite"
        db = sqlite3.connect(store)
        db.executescript("CREATE TABLE evaluations (mutant TEXT, suite TEXT, run INTEGER, PRIMARY KEY (mutant, suite));"
                         "CREATE TABLE step_errors (mutant TEXT, suite TEXT, step INTEGER, PRIMARY KEY (mutant, suite, step)) WITHOUT ROWID;")
        db.close()
        out = subprocess.run([sys.executable, str(ROOT / "scripts/merge-device-results.py"), str(tmp_path / name), str(store)],
                             check=True, capture_output=True, text=True)
        assert "'evaluations': 5" in out.stdout and "'step_errors': 4" in out.stdout, out.stdout


def test_the_ceiling_table_shows_each_generator_s_bracket_per_substrate():
    rows = [
        {"substrate": "L1p6_x", "generator": "signed", "sizes": "small", "lowest": 1.0, "ceiling": 7500.0, "first_invalid": 10000.0},
        {"substrate": "L1p6_x", "generator": "scaled", "sizes": "small", "lowest": 1.0, "ceiling": 10000.0, "first_invalid": None},
        {"substrate": "L1p14_y", "generator": "signed", "sizes": "small", "lowest": 1.0, "ceiling": None, "first_invalid": 1.0},
    ]
    out = subprocess.run([sys.executable, str(ROOT / "scripts/ceiling-table.py")], input=json.dumps(rows), text=True,
                         capture_output=True, check=True).stdout.splitlines()
    assert out[0] == "| substrate | scaled | signed |"
    # Level, then problem number: L1p6 before L1p14.
    assert out[2] == "| L1p6_x | >= 10000 | 7500 / 10000 |"
    assert out[3] == "| L1p14_y | not measured | < 1 |"
    assert out[-1].startswith("2 substrates, 3 ceilings at sizes small; 2 end inside")


def baselines_store(tmp_path, rows):
    """A store holding only the `baselines` columns scripts/footprints.py reads: (substrate,
    suite, backend, peak bytes) rows, seed 1."""
    store = tmp_path / "s.sqlite"
    db = sqlite3.connect(store)
    db.executescript("CREATE TABLE baselines (substrate TEXT, suite TEXT, seed INTEGER, backend TEXT, peak_bytes INTEGER);")
    db.executemany("INSERT INTO baselines VALUES (?, ?, 1, ?, ?)", rows)
    db.commit()
    db.close()
    return store


def test_the_footprint_table_keeps_each_size_class_s_largest_gpu_peak(tmp_path):
    # scripts/footprints.py: per substrate and size class (the engine's memory::size_class), the
    # largest GPU peak of at least --min-gib; CPU baselines and small classes left out.
    gib = 1 << 30
    store = baselines_store(
        tmp_path,
        [
            ("L1p19_relu", "T0_original", "cuda:NVIDIA H200", 30 * gib),
            ("L1p19_relu", "W:scaled:1000:official", "cuda:NVIDIA H100 80GB HBM3", 42 * gib),  # same class, larger
            ("L1p19_relu", "W:signed:10:small", "cuda:NVIDIA H200", gib // 4),  # under --min-gib
            ("L1p19_relu", "W:boundary:1:batch=255", "cuda:NVIDIA H200", 3 * gib),
            ("L1p19_relu", "T1_remainder", "cpu", 9 * gib),  # host memory: not a device footprint
            ("L1p1_tiny", "T0_original", "cuda:NVIDIA H200", gib // 2),
        ],
    )
    out = tmp_path / "footprints.json"
    subprocess.run([sys.executable, str(ROOT / "scripts/footprints.py"), str(store), "--out", str(out)], check=True, capture_output=True)
    doc = json.loads(out.read_text())
    assert doc["substrates"] == {"L1p19_relu": {"batch=255": 3 * gib, "official": 42 * gib}}
    assert "at least 1 GiB" in doc["about"]


def test_a_newer_workers_log_s_peaks_replace_the_store_s_for_the_classes_it_measured(tmp_path):
    # --from-log: a column that a newer worker measured smaller (2026-12-07: the one-launch
    # comparison) takes the log's peak, even below the store's; classes the log did not
    # measure keep the store's; a log's small class still falls under --min-gib.
    gib = 1 << 30
    store = baselines_store(
        tmp_path,
        [
            ("L1p19_relu", "T0_original", "cuda:NVIDIA H200", 42 * gib),
            ("L1p19_relu", "W:boundary:1:batch=255", "cuda:NVIDIA H200", 3 * gib),
            ("L1p38_l1norm", "T0_original", "cuda:NVIDIA H200", 64 * gib),
        ],
    )
    log = tmp_path / "workers.log"
    log.write_text(
        "  [worker 1] prepared L1p19_relu T0_original seed 7: draw 3 ms; held 20480.0 MiB of a 25600.0 MiB peak\n"
        "  [worker 2] prepared L1p19_relu T0_original seed 8: draw 3 ms; held 20000.0 MiB of a 25716.0 MiB peak\n"
        "  [worker 2] context lost after CUDA_ERROR_ILLEGAL_ADDRESS; exiting so a fresh worker takes over\n"
        "  [worker 3] prepared L1p38_l1norm W:signed:10:small seed 1: draw 1 ms; held 100.0 MiB of a 512.0 MiB peak\n"
    )
    out = tmp_path / "footprints.json"
    subprocess.run([sys.executable, str(ROOT / "scripts/footprints.py"), str(store), "--out", str(out), "--from-log", str(log)],
                   check=True, capture_output=True)
    doc = json.loads(out.read_text())
    assert doc["substrates"] == {"L1p19_relu": {"batch=255": 3 * gib, "official": 25716 * 2**20}, "L1p38_l1norm": {"official": 64 * gib}}
    missing = subprocess.run([sys.executable, str(ROOT / "scripts/footprints.py"), str(store), "--out", str(out), "--from-log", str(tmp_path / "nope.log")],
                             capture_output=True, text=True)
    assert missing.returncode == 1 and "nope.log" in missing.stderr


def test_the_shipped_footprint_table_names_only_accepted_substrates():
    # substrates/footprints.json budgets a fresh store's first columns (kmut_plan::footprints):
    # a name that is no accepted substrate is a stale table.
    doc = json.loads((ROOT / "substrates/footprints.json").read_text())
    accepted = {p.stem for p in (ROOT / "substrates/accepted").glob("*.py")}
    assert doc["substrates"] and set(doc["substrates"]) <= accepted, set(doc["substrates"]) - accepted
    assert all(isinstance(b, int) and b >= 1 << 30 for by in doc["substrates"].values() for b in by.values())


def test_the_rewritten_corpus_swaps_in_only_the_rewrites_that_passed(tmp_path):
    accepted = tmp_path / "substrates" / "accepted"
    accepted.mkdir(parents=True)
    for name in ("L1p1_a.py", "L2p2_b.py", "L2p3_c.py"):
        (accepted / name).write_text("")
    # b's rewrite passed, c's failed, d's passed but rewrites nothing accepted.
    for name in ("L2p2_b.py", "L2p3_c.py", "L2p4_d.py"):
        (tmp_path / "substrates" / f"candidate_{name}").write_text("")
    report = [
        {"path": "substrates/candidate_L2p2_b.py", "verdict": "PASS"},
        {"path": "substrates/candidate_L2p3_c.py", "verdict": "FAIL"},
        {"path": "substrates/candidate_L2p4_d.py", "verdict": "PASS"},
    ]
    gate = tmp_path / "gate.json"
    gate.write_text(json.dumps(report))
    script = ROOT / "scripts/rewrite-corpus.py"
    out = subprocess.run([sys.executable, str(script), str(gate), "--root", str(tmp_path)], check=True, capture_output=True, text=True)
    assert out.stdout.split() == ["substrates/accepted/L1p1_a.py", "substrates/candidate_L2p2_b.py", "substrates/accepted/L2p3_c.py"]
    # A gate that never wrote its JSON is named, not read as "nothing passed".
    bad = subprocess.run([sys.executable, str(script), str(tmp_path / "missing.json")], capture_output=True, text=True)
    assert bad.returncode == 2 and "missing.json" in bad.stderr


def tiny_wheel(folder: Path, version: str) -> Path:
    """A minimal valid wheel of a package `kmut` whose module says its version."""
    import zipfile

    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.whl"):
        old.unlink()
    path = folder / "kmut-0.1.0-py3-none-any.whl"
    info = "kmut-0.1.0.dist-info"
    files = {
        "kmut/__init__.py": f"VERSION = {version!r}\n",
        f"{info}/METADATA": "Metadata-Version: 2.1\nName: kmut\nVersion: 0.1.0\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    with zipfile.ZipFile(path, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
        z.writestr(f"{info}/RECORD", "".join(f"{n},,\n" for n in files) + f"{info}/RECORD,,\n")
    return path


def test_the_device_wheel_is_installed_once_per_wheel_not_once_per_script(tmp_path):
    site = tmp_path / "site"
    install = f"source {ROOT}/scripts/device/wheel.sh && install_wheel"
    # The test's own Python (a venv with pip) as the script's python3.
    env = {"KMUT_SITE": str(site), "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "HOME": str(tmp_path)}

    def run() -> None:
        subprocess.run(["bash", "-c", install], cwd=tmp_path, env=env, check=True, capture_output=True)

    tiny_wheel(tmp_path / ".whl", "1")
    run()
    assert "VERSION = '1'" in (site / "kmut/__init__.py").read_text()
    # The same wheel again (a script the first one runs): nothing reinstalled, so a file
    # changed since stays as it is.
    (site / "kmut/__init__.py").write_text("touched\n")
    run()
    assert (site / "kmut/__init__.py").read_text() == "touched\n"
    # Another wheel (a warm machine's next call): installed over the first.
    tiny_wheel(tmp_path / ".whl", "2")
    run()
    assert "VERSION = '2'" in (site / "kmut/__init__.py").read_text()
