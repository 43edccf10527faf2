"""The gate rejects malformed candidates, each with its own precise message.

Every case is the accepted ReLU substrate with one fault written into it; the real gate worker
(`python -m kmut._gate_worker`) checks it in a subprocess, exactly as `kmut gate` does.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import SUBSTRATES

BASE = (SUBSTRATES / "accepted" / "L1p19_relu.py").read_text(encoding="utf-8")


def edit(old: str, new: str, count: int = 1):
    def apply(src: str) -> str:
        assert old in src, f"fixture drifted: {old!r} is no longer in the ReLU substrate"
        return src.replace(old, new, count)

    return apply


def prepend(text: str):
    return lambda src: text + src


# (id, transformation, check that fails, fragment of its message)
CASES = [
    ("syntax_error", lambda s: s + "\ndef broken(:\n    pass\n", "import", "syntax error"),
    ("gpu_work_at_import", prepend("import torch\ntorch.cuda.init()\n"), "import", "GPU work: CUDA initialisation (_lazy_init) during import"),
    ("allocation_at_import", prepend("import torch\n_TABLE = torch.zeros(16)\n"), "import", "tensor allocation (zeros) during import"),
    ("compilation_at_import", prepend("import torch.utils.cpp_extension as ce\nce.load_inline('x', '')\n"), "import", "compilation (load_inline) during import"),
    ("weights_built_in_register", edit("    def launch(inputs, torch):", "    _w = torch.randn(8)\n\n    def launch(inputs, torch):"),
     "import", "`register` does tensor allocation (randn) during register"),
    ("no_register", edit("def register(K, torch, ctypes):", "def setup(K, torch, ctypes):"), "import", "defines no `register(K, torch, ctypes)`"),
    ("register_wrong_arity", edit("def register(K, torch, ctypes):", "def register(K, torch):"), "import", "must take exactly (K, torch, ctypes)"),
    ("register_returns_list", lambda s: s.replace("    return K.substrate(", "    return list(K.substrate(").rstrip() + ")\n",
     "import", "returned list; expected the dict of fields"),
    ("unknown_field", edit('        notes="Official', '        colour="blue",\n        notes="Official'), "import", "unknown substrate field(s) colour"),
    ("missing_field", edit("        ref=ref,\n", ""), "contract", "field `ref`: missing"),
    ("kernel_not_in_source", edit('kernel_name="relu_kernel"', 'kernel_name="relu_kernel_v2"'), "contract", "'relu_kernel_v2' is not a __global__ function in `cuda`"),
    ("one_kernel_pipeline", edit('kernel_name="relu_kernel"', 'kernel_name=["relu_kernel"]'), "contract", "a pipeline has one kernel per layer or pass, at least two"),
    ("pipeline_kernel_names_returning_one_step", edit('kernel_name="relu_kernel"', 'kernel_name=["relu_kernel", "relu_tail_kernel"]'), "contract",
     "'relu_tail_kernel' is not a __global__ function in `cuda`"),
    ("string_kernel_name_at_level_3", lambda s: s.replace('name="L1p19_relu"', 'name="L3p19_relu"').replace("level=1,", "level=3,"),
     "contract", "a level-3 substrate is a pipeline: expected a list"),
    ("bad_name", edit('name="L1p19_relu"', 'name="relu"'), "contract", "expected L{level}p{problem}_{short}"),
    ("problem_number_mismatch", edit('problem="19_ReLU"', 'problem="20_LeakyReLU"'), "contract", "'20_LeakyReLU' is problem 20 but the name"),
    ("no_t0_original", edit('K.suite("T0_original"', 'K.suite("T0_official"'), "contract", "no T0_original suite"),
    ("t0_wrong_seeds", edit("rand_inputs, purpose=", "rand_inputs, seeds=[0, 1], purpose="), "contract", "must use the official v0.1 trial seeds"),
    ("suite_size_not_declared", edit('sizes={"batch": 3, "dim": 1001}', 'sizes={"batch": 3, "width": 1001}'), "contract", "size 'width' is not a declared dimension"),
    ("no_small_suite", edit("small=True", "small=False"), "contract", "no suite is marked small=True"),
    ("suite_without_purpose", edit('purpose="sparse large positives', 'purpose="" and "sparse large positives'), "contract", "state its purpose"),
    ("compile_error_names_the_python_line", edit("    out[i] = v > 0.0f ? v : 0.0f;", "    out[i] = v > 0.0f ? v : zero;"),
     "compile", ': error: identifier "zero" is undefined'),
    ("launch_tuple_of_wrong_arity", edit("            [(ctypes.c_longlong, n)],\n", ""), "descriptor", "expected a 5-tuple"),
    ("scalar_of_the_wrong_c_type", edit("(ctypes.c_longlong, n)", "(ctypes.c_int, n)"), "descriptor", "the kernel takes 3 parameter(s) of [8, 8, 8] bytes"),
    ("block_too_large", edit("BLOCK = 256", "BLOCK = 2048"), "descriptor", "block.x = 2048 exceeds the CUDA limit 1024"),
    ("output_shape_differs_from_ref", edit("out = torch.empty_like(x)", "out = torch.empty_like(x)[:-1]"), "descriptor", "the output buffer is (2, 1001)"),
]


def run_worker(path: Path) -> dict[str, dict]:
    out = subprocess.run([sys.executable, "-m", "kmut._gate_worker", str(path)], capture_output=True, text=True, timeout=300)
    results = {}
    for line in out.stdout.splitlines():
        r = json.loads(line)
        results[r["check"]] = r
    assert results, out.stderr
    return results


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_malformed_candidate_is_rejected_with_its_own_message(case, tmp_path):
    _id, transform, check, fragment = case
    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(transform(BASE), encoding="utf-8")
    results = run_worker(path)
    failed = [c for c, r in results.items() if r["status"] == "fail"]
    assert failed == [check], {c: r["detail"] for c, r in results.items()}
    assert fragment in results[check]["detail"]
    assert str(path) in results[check]["detail"]  # every message names the file
    # Nothing after the failing check ran.
    order = list(results)
    assert all(results[c]["status"] == "skip" for c in order[order.index(check) + 1 :])


def test_messages_are_distinct():
    assert len({c[3] for c in CASES}) == len(CASES) >= 10


def test_a_valid_candidate_passes_every_cpu_check_and_owes_the_gpu_ones(tmp_path):
    import torch

    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(BASE, encoding="utf-8")
    results = run_worker(path)
    gpu = {"suites", "nan_fill", "determinism", "fp64"}
    for check, r in results.items():
        expected = ("pass" if torch.cuda.is_available() else "no_gpu") if check in gpu else "pass"
        assert r["status"] == expected, (check, r["detail"])
    assert "weights" in results["small_time"]["detail"]


def test_compile_error_points_at_the_line_in_the_python_file(tmp_path):
    src = CASES[[c[0] for c in CASES].index("compile_error_names_the_python_line")][1](BASE)
    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(src, encoding="utf-8")
    line = next(i for i, text in enumerate(src.splitlines(), 1) if "? v : zero;" in text)
    detail = run_worker(path)["compile"]["detail"]
    assert f"{path}:{line}: error" in detail
    assert f"{line:>6} |     out[i] = v > 0.0f ? v : zero;" in detail


def test_kernels_with_cpp_linkage_are_accepted_as_the_brief_allows(tmp_path):
    # The level-3 brief does not require extern "C"; kmut resolves mangled symbols through NVRTC.
    src = BASE.replace('extern "C" __global__', "__global__")
    assert src != BASE
    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(src, encoding="utf-8")
    results = run_worker(path)
    assert all(r["status"] in ("pass", "no_gpu") for r in results.values()), {c: r["detail"] for c, r in results.items()}


def test_a_declared_small_limit_needs_a_reason_and_a_sane_value(tmp_path):
    path = tmp_path / "candidate_L1p19_relu.py"
    no_reason = BASE.replace('        notes="Official', '        small_limit_s=5.0,\n        notes="Official')
    path.write_text(no_reason, encoding="utf-8")
    assert "needs its reason in `notes`" in run_worker(path)["contract"]["detail"]
    too_big = BASE.replace('        notes="Official', '        small_limit_s=600,\n        notes="small suite is costly. Official')
    path.write_text(too_big, encoding="utf-8")
    assert "at most 30" in run_worker(path)["contract"]["detail"]
    fine = BASE.replace('        notes="Official', '        small_limit_s=5.0,\n        notes="The small suite is costly. Official')
    path.write_text(fine, encoding="utf-8")
    results = run_worker(path)
    assert results["small_time"]["status"] == "pass"
    assert "limit 5000 ms declared by the substrate" in results["small_time"]["detail"]


def test_a_level_1_or_2_chain_may_be_a_pipeline_of_several_kernels(tmp_path):
    # A chain whose statistics need their own pass (BatchNorm over the batch) is two or three
    # kernels: `kernel_name` a list, `launch` a pipeline, as at level 3. Here ReLU, then a copy.
    src = BASE.replace('kernel_name="relu_kernel"', 'kernel_name=["relu_kernel", "copy_kernel"]')
    src = src.replace('CUDA = r"""\n', 'CUDA = r"""\nextern "C" __global__ void copy_kernel(const float* __restrict__ x, float* __restrict__ out, long long n)\n'
                      '{\n    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= n) return;\n    out[i] = x[i];\n}\n\n')
    src = src.replace('''        return (
            "relu_kernel",
            (K.cdiv(n, BLOCK), 1, 1),
            (BLOCK, 1, 1),
            [x, out],
            [(ctypes.c_longlong, n)],
        )''', '''        mid = torch.empty_like(x)
        grid = (K.cdiv(n, BLOCK), 1, 1)
        seq = [("relu_kernel", grid, (BLOCK, 1, 1), [x, mid], [(ctypes.c_longlong, n)]),
               ("copy_kernel", grid, (BLOCK, 1, 1), [mid, out], [(ctypes.c_longlong, n)])]
        return {"seq": seq, "out": out}''')
    assert src.count("copy_kernel") == 3
    path = tmp_path / "candidate_L1p19_relu.py"
    path.write_text(src, encoding="utf-8")
    results = run_worker(path)
    assert all(r["status"] in ("pass", "no_gpu") for r in results.values()), {c: r["detail"] for c, r in results.items()}
    assert "2 step(s)" in results["descriptor"]["detail"]
    # The same chain returning one step is refused with the pipeline's own message.
    path.write_text(src.replace('return {"seq": seq, "out": out}', "return seq[0]"), encoding="utf-8")
    assert "a pipeline (kernel_name is a list) returns" in run_worker(path)["descriptor"]["detail"]
