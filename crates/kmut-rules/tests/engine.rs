//! The generator on substrate-like sources: ids, layers, kernels only, unreadable code, launches.

use kmut_model::{CdivCall, LaunchStep, LaunchTransform, MutantKind, SubstrateDescription};
use kmut_rules::{mutate, RULES};

const PIPELINE: &str = r#"
struct __align__(16) Pair { float a; float b; };
__device__ float relu(float v) { return v > 0.0f ? v : 0.0f; }
extern "C" __global__ void layer0(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = relu(x[i] * 2.0f);
}
extern "C" __global__ void layer1(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = relu(x[i]) + 1.0f;
}
"#;

fn desc() -> SubstrateDescription {
    SubstrateDescription {
        name: "L3p0_test".into(),
        level: 3,
        path: "substrates/candidate_L3p0_test.py".into(),
        cuda: PIPELINE.into(),
        cuda_line: 10,
        kernels: vec!["layer0".into(), "layer1".into()],
        steps: vec![
            LaunchStep { kernel: "layer0".into(), grid: [4, 1, 1], block: [256, 1, 1] },
            LaunchStep { kernel: "layer1".into(), grid: [4, 1, 1], block: [256, 1, 1] },
        ],
        cdiv_calls: vec![CdivCall { a: 1000, b: 256, result: 4, line: 42 }, CdivCall { a: 1000, b: 256, result: 4, line: 50 }],
        launch_line: 40,
        suites: Vec::new(),
        generated: vec![],
    }
}

fn all() -> Vec<&'static kmut_rules::Rule> {
    RULES.iter().collect()
}

#[test]
fn ids_are_stable_across_runs_and_unique() {
    let a = mutate(&desc(), &all()).unwrap().mutants;
    let b = mutate(&desc(), &all()).unwrap().mutants;
    let ids: Vec<_> = a.iter().map(|m| m.id.clone()).collect();
    assert_eq!(ids, b.iter().map(|m| m.id.clone()).collect::<Vec<_>>());
    let unique: std::collections::HashSet<_> = ids.iter().collect();
    assert_eq!(unique.len(), ids.len());
    assert!(a.len() > 50, "{} mutants", a.len());
}

#[test]
fn no_source_mutant_edits_outside_a_gpu_function() {
    let d = desc();
    let src = kmut_syntax::CudaSource::parse("t.cu", &d.cuda).unwrap();
    let ranges: Vec<_> = src.functions().iter().filter(|f| !f.has_error).map(|f| f.node.byte_range()).collect();
    for m in mutate(&d, &all()).unwrap().mutants {
        let MutantKind::Source { edits } = &m.mutation else {
            continue;
        };
        let fault = &edits[0];
        assert!(ranges.iter().any(|r| r.start <= fault.start && fault.end <= r.end), "{} edits outside a kernel", m.name());
        assert_ne!(m.apply(&d.cuda).unwrap(), d.cuda);
    }
}

#[test]
fn the_unreadable_struct_is_reported_and_never_mutated() {
    let out = mutate(&desc(), &all()).unwrap();
    assert!(out.unreadable.iter().any(|u| u.line == 11 && u.function.is_none()), "{:?}", out.unreadable);
    assert!(out.mutants.iter().all(|m| m.line != 11));
}

#[test]
fn a_device_helper_mutant_reaches_every_calling_layer() {
    let out = mutate(&desc(), &all()).unwrap().mutants;
    let helper: Vec<_> = out.iter().filter(|m| m.kernel == "relu").collect();
    assert!(!helper.is_empty());
    for m in helper {
        assert_eq!(m.layers, [0, 1]);
        assert_eq!(m.layer, Some(0));
    }
    let last = out.iter().find(|m| m.kernel == "layer1").unwrap();
    assert_eq!((last.layers.as_slice(), last.depth), (&[1usize][..], 1.0));
}

#[test]
fn lines_are_in_the_substrate_file() {
    let out = mutate(&desc(), &all()).unwrap().mutants;
    let m = out.iter().find(|m| m.rule == "boundary-guard-return-drop").unwrap();
    // `if (i >= n) return;` is line 6 of the CUDA, which starts at line 10 of the file.
    assert_eq!(m.line, 15);
    assert!(m.diff.contains("-    if (i >= n) return;"), "{}", m.diff);
}

#[test]
fn launch_rules_make_one_mutant_per_step_and_cdiv_call() {
    let rules: Vec<_> = RULES.iter().filter(|r| r.is_launch_rule()).collect();
    let out = mutate(&desc(), &rules).unwrap().mutants;
    let count = |rule: &str| out.iter().filter(|m| m.rule == rule).count();
    assert_eq!(count("launch-swap-grid-block"), 2);
    assert_eq!(count("launch-grid-plus-one"), 2);
    assert_eq!(count("launch-grid-minus-one"), 2);
    assert_eq!(count("launch-block-minus-one"), 2);
    assert_eq!(count("launch-cdiv-floor"), 2);
    let cdiv = out.iter().find(|m| m.rule == "launch-cdiv-floor").unwrap();
    assert_eq!(cdiv.mutation, MutantKind::Launch { transform: LaunchTransform::CdivFloor { call: 0 } });
    assert_eq!((cdiv.line, cdiv.original.as_str(), cdiv.replacement.as_str()), (42, "K.cdiv(1000, 256)", "1000 // 256"));
    let swap = out.iter().find(|m| m.rule == "launch-swap-grid-block" && m.layer == Some(1)).unwrap();
    assert_eq!(swap.replacement, "grid (256, 1, 1), block (4, 1, 1)");
}

#[test]
fn a_source_without_readable_functions_is_an_error_naming_the_substrate_file_line() {
    let mut d = desc();
    d.cuda = "int x = ;\n__global__ void k( {{\n".into();
    let err = mutate(&d, &all()).unwrap_err();
    assert_eq!(err.file, "substrates/candidate_L3p0_test.py");
    assert!(err.line >= 10, "{err}");
}

#[test]
fn every_diff_applies_with_patch_to_give_the_mutated_source() {
    let d = desc();
    let dir = std::env::temp_dir().join(format!("kmut-diff-{}", std::process::id()));
    for m in mutate(&d, &all()).unwrap().mutants.iter().filter(|m| matches!(m.mutation, MutantKind::Source { .. })) {
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("L3p0_test.cu");
        std::fs::write(&file, &d.cuda).unwrap();
        let status = std::process::Command::new("patch")
            .args(["-s", "-f", "-p1", "-d"])
            .arg(&dir)
            .args(["-i", "-"])
            .stdin(std::process::Stdio::piped())
            .spawn()
            .and_then(|mut child| {
                use std::io::Write as _;
                child.stdin.take().unwrap().write_all(m.diff.as_bytes())?;
                child.wait()
            })
            .unwrap();
        assert!(status.success(), "patch rejected the diff of {}:\n{}", m.name(), m.diff);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), m.apply(&d.cuda).unwrap(), "{}", m.diff);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
