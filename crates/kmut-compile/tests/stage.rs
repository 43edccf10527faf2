//! The compile stage against the real NVRTC and the real `SQLite` store.

use std::sync::atomic::{AtomicBool, Ordering};

use kmut_compile::{CompileStage, ImageCache, Reporter};
use kmut_model::{Edit, Family, Mutant, MutantKind, SubstrateDescription};
use kmut_nvrtc::{Compiler, NvrtcSearch, Options};
use kmut_store::Store;

const SOURCE: &str =
    "extern \"C\" __global__ void k(const float* x, float* out, int n) {\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = x[i] + 1.0f;\n}\n";

fn compiler() -> Compiler {
    Compiler::open(&NvrtcSearch::from_environment()).expect("NVRTC must be installed (scripts/test installs it)")
}

fn desc() -> SubstrateDescription {
    SubstrateDescription {
        name: "L1p1_k".into(),
        level: 1,
        path: "k.py".into(),
        cuda: SOURCE.into(),
        cuda_line: 1,
        kernels: vec!["k".into()],
        steps: vec![],
        cdiv_calls: vec![],
        launch_line: 1,
        suites: Vec::new(),
        generated: vec![],
    }
}

/// A mutant replacing the first occurrence of `from` with `to`.
fn mutant(id: &str, from: &str, to: &str) -> Mutant {
    let start = SOURCE.find(from).unwrap();
    Mutant {
        id: id.into(),
        substrate: "L1p1_k".into(),
        rule: "test".into(),
        family: Family::Arithmetic,
        kernel: "k".into(),
        layers: vec![0],
        layer: Some(0),
        depth: 0.0,
        line: 3,
        col: 1,
        span: [start, start + from.len()],
        original: from.into(),
        replacement: to.into(),
        mutation: MutantKind::Source { edits: vec![Edit { start, end: start + from.len(), text: to.into() }] },
        diff: String::new(),
    }
}

fn mutants() -> Vec<Mutant> {
    vec![
        mutant("m1-comment", "out[i] =", "/* a comment */ out[i] ="),
        mutant("m2-times-one", "x[i] + 1.0f", "x[i] * 1.0f + 1.0f"),
        mutant("m3-plus-to-minus", "x[i] + 1.0f", "x[i] - 1.0f"),
        mutant("m4-syntax", "x[i] + 1.0f", "x[i] + "),
        mutant("m5-same-as-m3", "x[i] + 1.0f", "x[i] + (-1.0f)"),
        mutant("m0-launch", "", ""),
    ]
    .into_iter()
    .map(|mut m| {
        if m.id == "m0-launch" {
            m.mutation = MutantKind::Launch { transform: kmut_model::LaunchTransform::GridX { step: 0, delta: 1 } };
        }
        m
    })
    .collect()
}

struct Quiet;
impl Reporter for Quiet {
    fn progress(&self, _: &str, _: usize, _: usize) {}
}

fn run(store: &mut Store, cache: Option<ImageCache>, threads: usize, interrupt: &AtomicBool, reporter: &dyn Reporter) -> kmut_compile::SubstrateSummary {
    let c = compiler();
    let mut stage = CompileStage::new(&c, cache, threads, Options::default()).unwrap();
    // Store (and report) every result at once, so an interrupting reporter acts after the first.
    stage.batch = 1;
    let r = store.begin_run("compile", "x", "y").unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.put_mutants("L1p1_k", &mutants()).unwrap();
    stage.run(store, r, &desc(), &mutants(), interrupt, reporter).unwrap()
}

fn classes(store: &Store) -> Vec<(String, String, Option<String>)> {
    let target = store_target();
    let mut v: Vec<_> = store.classes("L1p1_k", &target).unwrap().into_values().map(|c| (c.mutant, c.class.name().to_owned(), c.duplicate_of)).collect();
    v.sort();
    v
}

fn store_target() -> String {
    let c = compiler();
    CompileStage::new(&c, None, 1, Options::default()).unwrap().target.key()
}

#[test]
fn crafted_mutants_are_classified_equivalent_live_stillborn_and_duplicate() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let s = run(&mut store, None, 2, &AtomicBool::new(false), &Quiet);
    assert_eq!(
        classes(&store),
        [
            ("m0-launch".into(), "live".into(), None),
            ("m1-comment".into(), "equivalent".into(), None),
            ("m2-times-one".into(), "equivalent".into(), None),
            ("m3-plus-to-minus".into(), "live".into(), None),
            ("m4-syntax".into(), "stillborn".into(), None),
            ("m5-same-as-m3".into(), "duplicate".into(), Some("m3-plus-to-minus".into())),
        ]
    );
    // generated, stillborn, equivalent, duplicate, live
    assert_eq!(s.counts.values(), [6, 1, 2, 1, 2]);
    assert_eq!(s.compiled, 5);
    let stillborn = store.compilations("L1p1_k", &store_target()).unwrap()["m4-syntax"].log.clone();
    assert!(stillborn.contains("error"), "{stillborn}");
}

#[test]
fn a_rerun_with_a_warm_cache_compiles_nothing_and_classifies_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let cache = ImageCache::new(dir.path().join("cache"));
    let mut first = Store::open(&dir.path().join("a.sqlite")).unwrap();
    let a = run(&mut first, Some(cache.clone()), 2, &AtomicBool::new(false), &Quiet);
    assert_eq!((a.compiled, a.cached), (5, 0));
    let mut second = Store::open(&dir.path().join("b.sqlite")).unwrap();
    let b = run(&mut second, Some(cache), 2, &AtomicBool::new(false), &Quiet);
    assert_eq!((b.compiled, b.cached), (0, 5));
    assert_eq!(classes(&first), classes(&second));
}

#[test]
fn a_rerun_on_the_same_store_resumes_without_recompiling() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    run(&mut store, None, 1, &AtomicBool::new(false), &Quiet);
    let again = run(&mut store, None, 1, &AtomicBool::new(false), &Quiet);
    assert_eq!((again.resumed, again.compiled, again.cached), (5, 0, 0));
}

/// Interrupts as soon as the first results are stored.
struct StopAfterFirst<'a>(&'a AtomicBool);
impl Reporter for StopAfterFirst<'_> {
    fn progress(&self, _: &str, done: usize, _: usize) {
        if done > 0 {
            self.0.store(true, Ordering::Relaxed);
        }
    }
}

#[test]
fn an_interrupted_run_keeps_its_results_and_the_resumed_run_ends_with_the_same_classes() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let stop = AtomicBool::new(false);
    let partial = run(&mut store, None, 1, &stop, &StopAfterFirst(&stop));
    assert!(partial.interrupted);
    let kept = store.compilations("L1p1_k", &store_target()).unwrap().len();
    // The first result, and at most the one the worker had already taken.
    assert!((1..=2).contains(&kept), "{kept} stored");
    assert!(classes(&store).is_empty(), "an interrupted run classifies nothing");

    let resumed = run(&mut store, None, 1, &AtomicBool::new(false), &Quiet);
    assert_eq!(resumed.resumed, kept);
    assert_eq!(resumed.compiled, 5 - kept);

    let mut fresh = Store::open(&dir.path().join("fresh.sqlite")).unwrap();
    run(&mut fresh, None, 2, &AtomicBool::new(false), &Quiet);
    assert_eq!(classes(&store), classes(&fresh));
}

#[test]
fn image_hashes_are_stable_across_runs_and_compilers() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Store::open(&dir.path().join("a.sqlite")).unwrap();
    let mut b = Store::open(&dir.path().join("b.sqlite")).unwrap();
    run(&mut a, None, 1, &AtomicBool::new(false), &Quiet);
    run(&mut b, None, 2, &AtomicBool::new(false), &Quiet);
    let t = store_target();
    let ha = a.compilations("L1p1_k", &t).unwrap();
    let hb = b.compilations("L1p1_k", &t).unwrap();
    for (id, r) in &ha {
        assert_eq!(r.image_hash, hb[id].image_hash, "{id}");
    }
    assert_eq!(a.original("L1p1_k", &t, "k").unwrap().unwrap().image_hash, b.original("L1p1_k", &t, "k").unwrap().unwrap().image_hash);
}

#[test]
fn an_original_that_does_not_compile_is_an_error_with_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let c = compiler();
    let stage = CompileStage::new(&c, None, 1, Options::default()).unwrap();
    let mut d = desc();
    d.cuda = "extern \"C\" __global__ void k(float* x) { x[0] = undefined_name; }".into();
    store.put_substrate(&d, "h").unwrap();
    let r = store.begin_run("compile", "x", "y").unwrap();
    let err = stage.run(&mut store, r, &d, &[], &AtomicBool::new(false), &Quiet).unwrap_err().to_string();
    assert!(err.contains("original source of `L1p1_k` does not compile") && err.contains("error"), "{err}");
}

const PIPELINE: &str = r#"
__device__ float act(float v) { return v > 0.0f ? v : 0.0f; }
extern "C" __global__ void l0(const float* x, float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = act(x[i]) + 1.0f; }
extern "C" __global__ void l1(const float* x, float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = x[i] * 2.0f; }
extern "C" __global__ void l2(const float* x, float* y, int n) { int i = threadIdx.x; if (i < n) y[i] = act(x[i]) - 3.0f; }
"#;

fn pipeline_mutant(id: &str, from: &str, to: &str, layers: Vec<usize>) -> Mutant {
    let start = PIPELINE.find(from).unwrap();
    let mut m = mutant(id, "x[i] + 1.0f", "x");
    m.substrate = "L3p9_p".into();
    m.layers = layers;
    m.mutation = MutantKind::Source { edits: vec![Edit { start, end: start + from.len(), text: to.into() }] };
    m
}

#[test]
fn a_mutant_is_compiled_with_only_the_kernels_its_fault_reaches() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let d = SubstrateDescription { name: "L3p9_p".into(), level: 3, cuda: PIPELINE.into(), kernels: vec!["l0".into(), "l1".into(), "l2".into()], ..desc() };
    let ms = vec![
        pipeline_mutant("a-l1-times-three", "x[i] * 2.0f", "x[i] * 3.0f", vec![1]),
        pipeline_mutant("b-l1-comment", "x[i] * 2.0f", "x[i] /* same */ * 2.0f", vec![1]),
        pipeline_mutant("c-helper", "v > 0.0f", "v >= 0.0f", vec![0, 2]),
    ];
    let c = compiler();
    let stage = CompileStage::new(&c, None, 2, Options::default()).unwrap();
    let run = store.begin_run("compile", "x", "y").unwrap();
    store.put_substrate(&d, "h").unwrap();
    store.put_mutants("L3p9_p", &ms).unwrap();
    let s = stage.run(&mut store, run, &d, &ms, &AtomicBool::new(false), &Quiet).unwrap();
    // generated, stillborn, equivalent, duplicate, live
    assert_eq!(s.counts.values(), [3, 0, 1, 0, 2]);
    let t = stage.target.key();
    let records = store.compilations("L3p9_p", &t).unwrap();
    assert_eq!(records["a-l1-times-three"].scope, "l1");
    assert_eq!(records["c-helper"].scope, "l0,l2");
    for scope in ["l0,l1,l2", "l1", "l0,l2"] {
        assert!(store.original("L3p9_p", &t, scope).unwrap().is_some(), "original cut to {scope}");
    }
    // The scoped image really holds only its kernels.
    let cut = kmut_model::apply_edits(PIPELINE, &kmut_compile::Scopes::parse(&d).unwrap().cuts(&["l1".to_owned()]));
    let image = c.compile(&cut, "kernel.cu", &Options::default()).unwrap().image.unwrap();
    let names: Vec<String> = kmut_nvrtc::inspect_cubin(&image).unwrap().into_iter().map(|k| k.name).collect();
    assert_eq!(names, ["l1"]);
}

#[test]
fn fill_compiles_only_the_images_the_cache_lacks_and_they_match_the_stage() {
    let dir = tempfile::tempdir().unwrap();
    let cache = ImageCache::new(dir.path().join("cache"));
    let nvrtc = compiler();
    let options = Options::default();
    let target = store_target();
    let other = SOURCE.replace("+ 1.0f", "- 1.0f");
    let sources = [SOURCE, other.as_str(), SOURCE];
    assert_eq!(cache.fill(&nvrtc, &options, &target, &sources, 2).unwrap(), 2, "the repeated source counts once per missing image");
    assert_eq!(cache.fill(&nvrtc, &options, &target, &sources, 2).unwrap(), 0, "a warm cache compiles nothing");
    // The image the stage would compile for the same source under the same target.
    let direct = nvrtc.compile(SOURCE, kmut_compile::PROGRAM_NAME, &options).unwrap().image.unwrap();
    assert_eq!(std::fs::read(cache.image_path(&kmut_compile::source_key(SOURCE, &target))).unwrap(), direct);
}
