//! Planning against the real compile stage (NVRTC), the real store and, for the CPU backend, g++.

use std::sync::atomic::AtomicBool;

use kmut_compile::{CompileStage, ImageCache, Reporter};
use kmut_model::{Backend, Class, Family, Inputs, Mutant, Protocol, SubstrateDescription, SuiteDescription};
use kmut_nvrtc::{Compiler, NvrtcSearch, Options};
use kmut_plan::{plan_cpu, plan_gpu, Compiled, CpuPlanOptions, GpuImages, RoundCompiler, Sampling};
use kmut_store::{Baseline, Store};

const SOURCE: &str = r#"extern "C" __global__ void k(const float* x, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i] * 2.0f + 1.0f;
    __syncthreads();
    out[i] = v > 0.0f ? expf(v) : 0.0f;
}
"#;

fn desc(name: &str) -> SubstrateDescription {
    let suite = |name: &str, seeds: &[u64], small| SuiteDescription { name: name.into(), seeds: seeds.to_vec(), purpose: String::new(), small };
    SubstrateDescription {
        name: name.into(),
        level: 1,
        path: format!("{name}.py"),
        cuda: SOURCE.into(),
        cuda_line: 1,
        kernels: vec!["k".into()],
        steps: vec![kmut_model::LaunchStep { kernel: "k".into(), grid: [4, 1, 1], block: [256, 1, 1] }],
        cdiv_calls: vec![],
        launch_line: 1,
        suites: vec![suite("T0_original", &[1, 2, 3], false), suite("T1_small", &[7, 8], true)],
        generated: vec![],
    }
}

struct Quiet;
impl Reporter for Quiet {
    fn progress(&self, _: &str, _: usize, _: usize) {}
}

struct Fixture {
    dir: tempfile::TempDir,
    store: Store,
    compiler: Compiler,
    cache: ImageCache,
    target: String,
    substrates: Vec<(SubstrateDescription, Vec<Mutant>)>,
}

/// Two substrates with this source, every mutant of every rule generated and compiled.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let compiler = Compiler::open(&NvrtcSearch::from_environment()).expect("NVRTC must be installed (scripts/test installs it)");
    let cache = ImageCache::new(dir.path().join("cache"));
    let stage = CompileStage::new(&compiler, Some(cache.clone()), 2, Options::default()).unwrap();
    let target = stage.target.key();
    let run = store.begin_run("compile", "x", "y").unwrap();
    let rules = kmut_rules::select::select(&[], &[]).unwrap();
    let mut substrates = Vec::new();
    for name in ["L1p1_a", "L1p2_b"] {
        let d = desc(name);
        let mutants = kmut_rules::mutate(&d, &rules).unwrap().mutants;
        store.put_substrate(&d, "h").unwrap();
        store.put_mutants(name, &mutants).unwrap();
        stage.run(&mut store, run, &d, &mutants, &AtomicBool::new(false), &Quiet).unwrap();
        substrates.push((d, mutants));
    }
    drop(stage);
    Fixture { dir, store, compiler, cache, target, substrates }
}

fn live_ids(f: &Fixture, name: &str) -> Vec<String> {
    let classes = f.store.classes(name, &f.target).unwrap();
    let mut ids: Vec<String> = classes.into_values().filter(|c| c.class == Class::Live).map(|c| c.mutant).collect();
    ids.sort();
    ids
}

#[test]
fn a_gpu_plan_takes_the_live_mutants_labelled_by_their_current_images_and_compiles_only_the_sample() {
    let f = fixture();
    let view = Compiled { store: &f.store, target: &f.target, substrates: &f.substrates };
    // An empty cache: the plan must compile what it runs, and only that.
    let empty = ImageCache::new(f.dir.path().join("empty"));
    let images = GpuImages { cache: &empty, compiler: &f.compiler, service: &f.compiler, options: &Options::default(), threads: 2, defer_mutants: false };
    let protocol = Protocol::named("official").unwrap();
    let planned = plan_gpu(&view, &images, &protocol, Inputs::Protocol, Sampling { seed: 3, sample: Some(5) }).unwrap();
    assert_eq!(planned.plans.len(), 2);
    for (p, (d, _)) in planned.plans.iter().zip(&f.substrates) {
        let mut ids: Vec<String> = p.candidates.iter().map(|c| c.id.clone()).collect();
        ids.sort();
        assert_eq!(ids, live_ids(&f, &d.name), "the candidates are exactly the live mutants");
        let current = f.store.current_images(d, &f.target, Backend::Gpu).unwrap();
        assert!(p.candidates.iter().all(|c| current.mutants[&c.id] == c.image_id));
        assert_eq!(Some(&p.original_id), current.original.as_ref());
        assert_eq!(p.columns.len(), 3, "the protocol's T0_original seeds");
        assert!(p.original_image.is_file());
    }
    assert_eq!(planned.order.len(), 5);
    // Two originals and the sampled source mutants' distinct images, nothing else.
    let compiled: usize = planned.notes.iter().find_map(|n| n.strip_prefix("compiled ")).and_then(|n| n.split(' ').next()).unwrap().parse().unwrap();
    let sampled_sources = planned.order.iter().filter(|&&(s, c)| planned.plans[s].candidates[c].image.is_some()).count();
    assert!(compiled <= 1 + sampled_sources && compiled >= 1, "{compiled} images for {sampled_sources} sampled source mutants");
    // The same seed gives the same order; another seed another.
    let again = plan_gpu(&view, &images, &protocol, Inputs::Protocol, Sampling { seed: 3, sample: Some(5) }).unwrap();
    assert_eq!(again.order, planned.order);
    let all = plan_gpu(&view, &images, &protocol, Inputs::All, Sampling { seed: 4, sample: None }).unwrap();
    assert_eq!(all.order.len(), all.plans.iter().map(|p| p.candidates.len()).sum::<usize>());
    assert_eq!(all.plans[0].columns.len(), 5, "T0_original and T1_small");
}

/// How many `.cubin` images a cache folder holds.
fn images_in(cache: &ImageCache) -> usize {
    walk(cache.dir())
}

fn walk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |rd| {
        rd.filter_map(Result::ok)
            .map(|e| if e.path().is_dir() { walk(&e.path()) } else { usize::from(e.path().extension().is_some_and(|x| x == "cubin")) })
            .sum()
    })
}

#[test]
fn a_deferred_gpu_plan_compiles_the_originals_now_and_each_round_only_its_own_mutants() {
    use kmut_exec::RoundImages as _;
    let f = fixture();
    let view = Compiled { store: &f.store, target: &f.target, substrates: &f.substrates };
    let cold = ImageCache::new(f.dir.path().join("cold"));
    let images = GpuImages { cache: &cold, compiler: &f.compiler, service: &f.compiler, options: &Options::default(), threads: 2, defer_mutants: true };
    let protocol = Protocol::named("official").unwrap();
    let planned = plan_gpu(&view, &images, &protocol, Inputs::Protocol, Sampling { seed: 3, sample: None }).unwrap();
    // Both substrates have the same source: one original image, and no mutant's yet.
    assert_eq!(images_in(&cold), 1, "only the original is compiled at plan time");
    let sources = planned.order.iter().filter(|&&(s, c)| planned.plans[s].candidates[c].image.is_some()).count();
    assert_eq!(planned.deferred.len(), sources, "every source mutant of the order is deferred");
    let mut rounds = RoundCompiler { images, target: &f.target, deferred: planned.deferred.clone() };
    let first: Vec<(usize, usize)> = planned.order.iter().copied().filter(|&(s, c)| planned.plans[s].candidates[c].image.is_some()).take(3).collect();
    let made = rounds.make(&planned.plans, &first).unwrap();
    assert!((1..=3).contains(&made), "{made}");
    for &(s, c) in &first {
        assert!(planned.plans[s].candidates[c].image.as_ref().unwrap().is_file(), "the round's images exist");
    }
    assert_eq!(images_in(&cold), 1 + made, "nothing beyond the round");
    // Asked again, the same round compiles nothing.
    assert_eq!(rounds.make(&planned.plans, &first).unwrap(), 0);
    assert_eq!(rounds.deferred.len(), sources - first.len());
}

#[test]
fn a_substrate_without_a_compiled_original_is_an_error_naming_it() {
    let f = fixture();
    let mut other = desc("L1p3_c");
    other.cuda = SOURCE.replace("2.0f", "3.0f");
    let substrates = vec![(other, vec![])];
    let view = Compiled { store: &f.store, target: &f.target, substrates: &substrates };
    let images = GpuImages { cache: &f.cache, compiler: &f.compiler, service: &f.compiler, options: &Options::default(), threads: 1, defer_mutants: false };
    let err = plan_gpu(&view, &images, &Protocol::named("official").unwrap(), Inputs::Protocol, Sampling::default()).unwrap_err();
    assert!(err.to_string().contains("L1p3_c has no compiled original"), "{err}");
}

#[test]
fn a_cpu_plan_takes_the_gpus_order_less_fast_math_runs_races_in_every_order_and_sets_heavy_substrates_aside() {
    // The CPU backend needs g++, which CI has (scripts/test's host); elsewhere nothing to test.
    let Ok(gxx) = kmut_cpu::Compiler::find() else { return };
    let f = fixture();
    // An earlier CPU run measured L1p2_b at 5 s per input.
    let run = f.store.begin_run("run", "", "cpu").unwrap();
    let heavy = Baseline {
        substrate: "L1p2_b".into(),
        target: "cpu".into(),
        suite: "T1_small".into(),
        seed: 7,
        backend: "cpu:test".into(),
        sizes: "{}".into(),
        tau: Some(0.0),
        max_abs: Some(0.0),
        kernel_ms: Some(5000.0),
        prep_s: Some(1.0),
        image: None,
        peak_bytes: None,
        valid: None,
        tau64_ref: None,
        tau64_orig: None,
    };
    f.store.put_baseline(&heavy, run).unwrap();
    let view = Compiled { store: &f.store, target: &f.target, substrates: &f.substrates };
    let images = GpuImages { cache: &f.cache, compiler: &f.compiler, service: &f.compiler, options: &Options::default(), threads: 1, defer_mutants: false };
    let protocol = Protocol::named("official").unwrap();
    let gpu = plan_gpu(&view, &images, &protocol, Inputs::Small, Sampling { seed: 1, sample: None }).unwrap();
    let interrupt = AtomicBool::new(false);
    let build = kmut_cpu::BuildOptions { cache_dir: f.dir.path().join("cpu"), ..kmut_cpu::BuildOptions::default() };
    let options = CpuPlanOptions { gxx: &gxx, build, heavy_ms: Some(2000.0), interrupt: &interrupt };
    let cpu = plan_cpu(&view, &protocol, Inputs::Small, Sampling { seed: 1, sample: None }, &options).unwrap();
    assert!(cpu.notes.iter().any(|n| n.starts_with("L1p2_b: set aside: an earlier CPU run measured its original at 5.0 s")), "{:?}", cpu.notes);
    let fast_math = |s: usize, c: usize| {
        kmut_model::cpu_fidelity(Family::Precision, &f.substrates[s].1.iter().find(|m| m.id == cpu.plans[s].candidates[c].id).unwrap().rule)
            == kmut_model::CpuFidelity::EquivalentOnCpu
    };
    // The GPU's order, less the heavy substrate and the fast-math mutants (and any g++ could not build).
    let expected: Vec<(usize, usize)> = gpu.order.iter().copied().filter(|&(s, c)| s == 0 && !fast_math(s, c)).collect();
    assert_eq!(cpu.order, expected);
    assert!(cpu.notes.iter().any(|n| n.contains("fast-math mutants are equivalent on the CPU")), "{:?}", cpu.notes);
    for &(s, c) in &cpu.order {
        let cand = &cpu.plans[s].candidates[c];
        let m = f.substrates[s].1.iter().find(|m| m.id == cand.id).unwrap();
        let racy = kmut_model::cpu_fidelity(m.family, &m.rule) == kmut_model::CpuFidelity::RacyOnCpu;
        assert_eq!(cand.orders.len(), if racy { 3 } else { 0 }, "{}", m.rule);
        assert!(cand.image_id.starts_with("cpu:") || cand.image_id.starts_with("launch:cpu:"), "{}", cand.image_id);
    }
    assert!(cpu.plans.iter().all(|p| p.columns.iter().all(|c| c.suite == "T1_small")), "the CPU backend runs the small suites");
}
