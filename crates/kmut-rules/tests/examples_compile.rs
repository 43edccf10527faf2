//! Every example of the catalogue, before and after, compiles with the real NVRTC.

use kmut_nvrtc::{Compiler, NvrtcSearch, Options};
use kmut_rules::RULES;

#[test]
fn every_example_compiles_before_and_after() {
    let compiler = Compiler::open(&NvrtcSearch::from_environment()).expect("NVRTC must be installed (scripts/test installs it)");
    let head = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\nextern \"C\" __global__ void example(const float* x, float* out, int n, int K) {\n";
    let mut failures = Vec::new();
    for rule in RULES.iter().filter(|r| !r.is_launch_rule()) {
        for (which, body) in [("before", rule.before), ("after", rule.after)] {
            let src = format!("{head}{body}\n}}\n");
            let out = compiler.compile(&src, "example.cu", &Options::default()).unwrap();
            if out.image.is_none() {
                failures.push(format!("{} {which}:\n{}", rule.id, out.log));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
