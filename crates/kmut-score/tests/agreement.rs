//! CPU/GPU agreement from a real store holding both backends' evaluations.

use kmut_model::{Family, Mutant, MutantKind, Outcome, SubstrateDescription};
use kmut_store::{CompileRecord, Evaluation, Store};

const GPU: &str = "sm_90";

fn mutant(id: &str, family: Family, rule: &str) -> Mutant {
    Mutant {
        id: id.into(),
        substrate: "L1p1_x".into(),
        rule: rule.into(),
        family,
        kernel: "k".into(),
        layers: vec![0],
        layer: Some(0),
        depth: 0.0,
        line: 1,
        col: 1,
        span: [0, 1],
        original: "+".into(),
        replacement: "-".into(),
        mutation: MutantKind::Source { edits: vec![] },
        diff: String::new(),
    }
}

fn eval(mutant: &str, target: &str, seed: u64, tau: f64) -> Evaluation {
    Evaluation {
        mutant: mutant.into(),
        target: target.into(),
        suite: "T1_small".into(),
        seed,
        // What each backend's cells of the current images are labelled (Store::current_images).
        image: if target == "cpu" { "cpu:s".into() } else { "i".into() },
        backend: if target == "cpu" { "cpu:test".into() } else { "cuda:test".into() },
        outcome: Outcome::Completed,
        crash: None,
        detail: None,
        tau: Some(tau),
        max_abs: Some(tau),
        max_rel: Some(tau),
        nonfinite: false,
        shape_ok: true,
        canary: false,
        inputs_restored: false,
        kernel_ms: Some(1.0),
        wall_ms: 1.0,
        orders: vec![],
    }
}

#[test]
fn agreement_counts_shared_cells_per_family_and_keeps_racy_mutants_apart() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", GPU).unwrap();
    let desc = SubstrateDescription {
        name: "L1p1_x".into(),
        level: 1,
        path: "x.py".into(),
        cuda: "k".into(),
        cuda_line: 1,
        kernels: vec!["k".into()],
        steps: vec![],
        cdiv_calls: vec![],
        launch_line: 1,
        suites: vec![],
        generated: vec![],
    };
    store.put_substrate(&desc, "h").unwrap();
    let mutants = [
        mutant("both-kill", Family::Arithmetic, "arith-plus-to-minus"),
        mutant("cpu-only", Family::Arithmetic, "arith-plus-to-minus"),
        mutant("gpu-only", Family::Boundary, "bound-lt-to-le"),
        mutant("racy", Family::Synchronization, "sync-barrier-remove"),
        mutant("gpu-alone", Family::Indexing, "index-x"),
    ];
    store.put_mutants("L1p1_x", &mutants).unwrap();
    let record = |id: &str| CompileRecord {
        mutant: Some(id.into()),
        substrate: "L1p1_x".into(),
        target: GPU.into(),
        scope: "k".into(),
        source_hash: "s".into(),
        image_hash: Some("i".into()),
        log: String::new(),
        compile_ms: 1.0,
        cached: false,
    };
    store.put_compilations(&mutants.iter().map(|m| record(&m.id)).collect::<Vec<_>>(), run).unwrap();
    let mut evals = Vec::new();
    for seed in [1, 2] {
        evals.push(eval("both-kill", GPU, seed, 0.5));
        evals.push(eval("both-kill", "cpu", seed, 0.5));
        evals.push(eval("cpu-only", GPU, seed, 1e-6));
        evals.push(eval("cpu-only", "cpu", seed, if seed == 2 { 0.5 } else { 1e-6 }));
        evals.push(eval("gpu-only", GPU, seed, 0.5));
        evals.push(eval("gpu-only", "cpu", seed, 1e-6));
        evals.push(eval("racy", GPU, seed, 1e-6));
        evals.push(eval("racy", "cpu", seed, 1e-6));
        // No CPU cell: not compared at all.
        evals.push(eval("gpu-alone", GPU, seed, 0.5));
    }
    // A CPU cell with no GPU counterpart is ignored too.
    evals.push(eval("both-kill", "cpu", 3, 1e-6));
    // So is a cell of an earlier image: it would make "gpu-only" agree.
    let mut stale = eval("gpu-only", "cpu", 3, 0.5);
    stale.image = "cpu:an-earlier-source".into();
    evals.push(stale.clone());
    stale.target = GPU.into();
    evals.push(stale);
    store.put_evaluations(&evals, run).unwrap();

    let a = kmut_score::agreement(&store, &store, 1e-2).unwrap();
    assert_eq!((a.comparable.mutants, a.comparable.agree, a.comparable.cpu_only, a.comparable.gpu_only), (3, 1, 1, 1));
    assert_eq!((a.comparable.cells, a.comparable.cells_agree), (6, 3));
    assert_eq!((a.racy_on_cpu.mutants, a.racy_on_cpu.agree), (1, 1));
    let names: Vec<&str> = a.by_family.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["arithmetic", "boundary", "synchronization"]);
    assert_eq!(a.by_family[0].rate(), Some(0.5));
    assert_eq!(a.cpu_backends, ["cpu:test"]);
    // At a looser tolerance nothing is killed anywhere, so everything agrees.
    let loose = kmut_score::agreement(&store, &store, 1.0).unwrap();
    assert_eq!(loose.comparable.agree, 3);
}
