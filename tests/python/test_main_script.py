"""scripts/main, the README's first command: which kmut commands it runs, with which selection,
on a machine without a GPU. The script runs as written, in a copy of the tree whose bootstrap,
virtual environment, `python` and `kmut` are stand-ins that record their arguments, so the test
takes a second instead of the job's minutes."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def fake_tree(tmp_path: Path) -> tuple[Path, Path]:
    tree = tmp_path / "tree"
    (tree / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts/main", tree / "scripts/main")
    (tree / "scripts/bootstrap").write_text("#!/usr/bin/env bash\n", encoding="utf-8")
    bin_dir = tree / ".venv/bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "activate").write_text(f'export PATH="{bin_dir}:$PATH"\n', encoding="utf-8")
    log = tmp_path / "calls.log"
    # `python -c '...torch.cuda.is_available()...'` answers "no GPU"; kmut records its arguments.
    (bin_dir / "python").write_text("#!/usr/bin/env bash\nexit 1\n", encoding="utf-8")
    (bin_dir / "kmut").write_text(f'#!/usr/bin/env bash\necho "$*" >> "{log}"\n', encoding="utf-8")
    (tree / "substrates/accepted").mkdir(parents=True)
    (tree / "substrates/accepted/A.py").write_text("", encoding="utf-8")
    for f in ("scripts/main", "scripts/bootstrap", ".venv/bin/python", ".venv/bin/kmut"):
        (tree / f).chmod(0o755)
    return tree, log


def run_main(tmp_path: Path, **env: str) -> tuple[list[str], str]:
    tree, log = fake_tree(tmp_path)
    base = {k: v for k, v in os.environ.items() if not k.startswith("KMUT_")}  # the defaults, whatever this shell set
    proc = subprocess.run(["bash", str(tree / "scripts/main")], env={**base, **env}, capture_output=True, text=True, check=True)
    return log.read_text(encoding="utf-8").splitlines(), proc.stderr


def test_without_a_gpu_compile_and_run_draw_from_one_mutant_per_rule(tmp_path):
    calls, err = run_main(tmp_path)
    assert calls[0].startswith("gate substrates/accepted/A.py")
    assert calls[1] == "compile --max-per-rule 1"
    assert calls[2] == "run --max-per-rule 1 --backend cpu --sample 2000 --budget 30m"
    assert "no GPU is visible" in err and "KMUT_CPU_MAX_PER_RULE=0" in err


def test_the_selection_sample_and_budget_follow_the_environment(tmp_path):
    calls, _ = run_main(tmp_path, KMUT_CPU_MAX_PER_RULE="3", KMUT_CPU_SAMPLE="50", KMUT_BUDGET="2m")
    assert calls[1:] == ["compile --max-per-rule 3", "run --max-per-rule 3 --backend cpu --sample 50 --budget 2m"]


def test_zero_compiles_every_mutant(tmp_path):
    calls, _ = run_main(tmp_path, KMUT_CPU_MAX_PER_RULE="0")
    assert calls[1:] == ["compile", "run --backend cpu --sample 2000 --budget 30m"]
