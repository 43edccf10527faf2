//! What `kmut_model::cpu_fidelity` declares about the CPU backend, checked against the backend:
//! every fast-math rule's mutant of its own catalogue example computes bit for bit what the
//! original computes here (so "equivalent-on-CPU" is true), and the rules the declaration names
//! exist in the catalogue.

use std::ffi::c_void;

use kmut_cpu::{build, BuildOptions, Compiler, Library, Order, Variant};
use kmut_model::{MutantKind, SubstrateDescription, FAST_MATH_RULES, WARP_RULES};

const HEAD: &str = "extern \"C\" __global__ void example(const float* x, float* out, int n, int K) {\n";

fn example(body: &str) -> String {
    format!("{HEAD}{body}\n}}\n")
}

/// The sources `rule` makes from its catalogue example.
fn mutants(rule: &str, original: &str) -> Vec<String> {
    let desc = SubstrateDescription {
        name: "example".into(),
        level: 1,
        path: String::new(),
        cuda: original.to_owned(),
        cuda_line: 0,
        kernels: vec!["example".into()],
        steps: vec![],
        cdiv_calls: vec![],
        launch_line: 0,
        suites: Vec::new(),
        generated: vec![],
    };
    let rules = [kmut_rules::rule(rule).expect("a catalogue rule")];
    kmut_rules::mutate(&desc, &rules)
        .expect("the example parses")
        .mutants
        .into_iter()
        .filter_map(|m| match m.mutation {
            MutantKind::Source { edits } => Some(kmut_model::apply_edits(original, &edits)),
            MutantKind::Launch { .. } => None,
        })
        .collect()
}

fn run(lib: &Library, variant: &str, x: &[f32]) -> Vec<u32> {
    let mut out = vec![0f32; x.len()];
    let (mut px, mut po, mut n, mut k) = (x.as_ptr(), out.as_mut_ptr(), x.len() as i32, 1i32);
    let mut args: [*mut c_void; 4] =
        [std::ptr::from_mut(&mut px).cast(), std::ptr::from_mut(&mut po).cast(), std::ptr::from_mut(&mut n).cast(), std::ptr::from_mut(&mut k).cast()];
    // SAFETY: one pointer per parameter of `example(const float*, float*, int, int)`, to values of
    // those types; the examples index `x` and `out` by threadIdx.x below x.len().
    unsafe { lib.launch(variant, "example", [1, 1, 1], [x.len() as u32, 1, 1], &mut args, Order::Forward) }.unwrap();
    out.iter().map(|v| v.to_bits()).collect()
}

#[test]
fn fast_math_mutants_are_the_original_on_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let x: Vec<f32> = (0..128).map(|i| (i as f32 - 64.0) * 0.37 + 0.01).collect();
    for rule in FAST_MATH_RULES {
        let r = kmut_rules::rule(rule).unwrap_or_else(|| panic!("{rule} is not in the catalogue"));
        let original = example(r.before);
        let made = mutants(rule, &original);
        assert!(!made.is_empty(), "{rule} makes no mutant of its own example");
        let mut variants = vec![Variant::new("original", original.clone(), &["example"])];
        variants.extend(made.iter().enumerate().map(|(i, m)| Variant::new(format!("m{i}"), m.clone(), &["example"])));
        let options = BuildOptions { cache_dir: dir.path().to_owned(), jobs: 1, max_per_unit: 64 };
        let out = build(&Compiler::find().unwrap(), &variants, &options).unwrap();
        assert!(out.failed.is_empty(), "{rule}: {:?}", out.failed);
        let lib = Library::open(&out.libraries["original"]).unwrap();
        let want = run(&lib, "original", &x);
        for (i, source) in made.iter().enumerate() {
            let lib = Library::open(&out.libraries[&format!("m{i}")]).unwrap();
            assert_eq!(run(&lib, &format!("m{i}"), &x), want, "{rule}: mutant {i} differs from the original on the CPU:\n{source}");
        }
    }
}

#[test]
fn the_rules_named_by_the_fidelity_declaration_exist() {
    for rule in FAST_MATH_RULES.iter().chain(WARP_RULES.iter()) {
        assert!(kmut_rules::rule(rule).is_some(), "{rule} is not a catalogue rule");
    }
}
