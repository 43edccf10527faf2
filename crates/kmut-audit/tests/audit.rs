//! The audit from a real store: what enters the unified denominator, false kills, the
//! monotonicity of tolerances and the decomposition of a gain.

use kmut_audit::{audit, columns, judge_tolerance, witnessed, Audit, AuditOptions};
use kmut_model::{Backend, Bound, Class, Family, Mutant, MutantKind, Protocol, SubstrateDescription, SuiteDescription};
use kmut_store::{Baseline, ClassRecord, CompileRecord, Evaluation, Store};

const TARGET: &str = "nvrtc 13.0 -arch=sm_90";
const ORIGINAL: &str = "img-original";
/// The witness search's generated column of the fixture (valid, seeds 1 and 2).
const WITNESS: &str = "W:scaled:10:small";
const KBV: [&str; 4] = ["W:fresh1:1:official", "W:fresh2:3:official", "W:fresh3:0.01:official", "W:fresh4:-1:official"];

fn desc(name: &str) -> SubstrateDescription {
    let suite = |name: &str, seeds: &[u64]| SuiteDescription { name: name.into(), seeds: seeds.to_vec(), purpose: String::new(), small: false };
    SubstrateDescription {
        name: name.into(),
        level: 1,
        path: format!("{name}.py"),
        cuda: "k".into(),
        cuda_line: 1,
        kernels: vec!["k".into()],
        steps: vec![],
        cdiv_calls: vec![],
        launch_line: 1,
        suites: vec![suite("T0_original", &[1, 2, 3])],
        generated: vec![WITNESS.into()],
    }
}

fn mutant(substrate: &str, id: &str, family: Family) -> Mutant {
    Mutant {
        id: id.into(),
        substrate: substrate.into(),
        rule: "arith-plus-to-minus".into(),
        family,
        kernel: "k".into(),
        layers: vec![0],
        layer: Some(0),
        depth: 0.0,
        line: 7,
        col: 1,
        span: [0, 1],
        original: "+".into(),
        replacement: "-".into(),
        mutation: MutantKind::Source { edits: vec![] },
        diff: String::new(),
    }
}

fn cell(id: &str, suite: &str, seed: u64, tau: f64) -> Evaluation {
    Evaluation {
        mutant: id.into(),
        target: TARGET.into(),
        suite: suite.into(),
        seed,
        image: format!("img-{id}"),
        backend: "cuda:test".into(),
        outcome: kmut_model::Outcome::Completed,
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
        wall_ms: 2.0,
        orders: vec![],
    }
}

struct Fixture {
    dir: tempfile::TempDir,
    store: Store,
    run: i64,
}

/// A store with one substrate whose live mutants are `ids`, the original measured at 0 on the
/// official trials, the witness column (valid) and KBV's four hidden draws, except where
/// `original` says otherwise.
fn fixture(name: &str, ids: &[(&str, Family)], original: &[(&str, u64, f64)]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", TARGET).unwrap();
    store.put_substrate(&desc(name), "h").unwrap();
    store.put_mutants(name, &ids.iter().map(|(id, f)| mutant(name, id, *f)).collect::<Vec<_>>()).unwrap();
    let record = |m: Option<&str>, img: String| CompileRecord {
        mutant: m.map(str::to_owned),
        substrate: name.into(),
        target: TARGET.into(),
        scope: "k".into(),
        source_hash: "s".into(),
        image_hash: Some(img),
        log: String::new(),
        compile_ms: 1.0,
        cached: false,
    };
    let mut records: Vec<CompileRecord> = ids.iter().map(|(id, _)| record(Some(id), format!("img-{id}"))).collect();
    records.push(record(None, ORIGINAL.into()));
    store.put_compilations(&records, run).unwrap();
    store
        .put_classes(TARGET, &ids.iter().map(|(id, _)| ClassRecord { mutant: (*id).into(), class: Class::Live, duplicate_of: None }).collect::<Vec<_>>())
        .unwrap();
    let mut columns: Vec<(String, u64)> = (1..=3).map(|s| ("T0_original".to_owned(), s)).collect();
    columns.extend([1, 2].map(|s| (WITNESS.to_owned(), s)));
    columns.extend(KBV.iter().map(|s| ((*s).to_owned(), 3)));
    for (suite, seed) in columns {
        let tau = original.iter().find(|(s, n, _)| *s == suite && *n == seed).map_or(0.0, |o| o.2);
        let b = Baseline {
            substrate: name.into(),
            target: TARGET.into(),
            suite: suite.clone(),
            seed,
            backend: "cuda:test".into(),
            sizes: "{}".into(),
            tau: Some(tau),
            max_abs: Some(tau),
            kernel_ms: Some(1.0),
            prep_s: Some(0.1),
            image: Some(ORIGINAL.into()),
            peak_bytes: None,
            valid: suite.starts_with("W:scaled").then_some(true),
            tau64_ref: None,
            tau64_orig: None,
        };
        store.put_baseline(&b, run).unwrap();
    }
    Fixture { dir, store, run }
}

fn protocols(names: &[&str]) -> Vec<Protocol> {
    names.iter().map(|n| Protocol::builtin(n).unwrap()).collect()
}

fn run(f: &Fixture, protocols: Vec<Protocol>) -> Audit {
    audit(&f.store, &[], &AuditOptions { protocols, backend: Backend::Gpu, baseline: 0, examples: 3 }).unwrap()
}

/// `official` at another tolerance, named for it.
fn official_at(t: f64) -> Protocol {
    let mut p = Protocol::builtin("official").unwrap();
    p.name = format!("official@{t:e}");
    p.tolerance.fp32 = Bound { atol: t, rtol: t };
    p
}

/// Every cell of `id` on every column: T0 at `t0`, the KBV draws at `kbv`, the witness at `w`.
fn cells(id: &str, t0: f64, kbv: f64, w: f64) -> Vec<Evaluation> {
    let mut out: Vec<Evaluation> = (1..=3).map(|s| cell(id, "T0_original", s, t0)).collect();
    out.extend(KBV.iter().map(|s| cell(id, s, 3, kbv)));
    out.extend([1, 2].map(|s| cell(id, WITNESS, s, w)));
    out
}

#[test]
fn a_protocol_with_a_looser_tolerance_never_detects_more_on_identical_inputs() {
    // 60 mutants whose errors spread over six decades, in three families.
    let families = [Family::Arithmetic, Family::Boundary, Family::Precision];
    let ids: Vec<(String, Family)> = (0..60).map(|i| (format!("m{i:02}"), families[i % 3])).collect();
    let refs: Vec<(&str, Family)> = ids.iter().map(|(i, f)| (i.as_str(), *f)).collect();
    let mut f = fixture("L1p1_x", &refs, &[]);
    let mut all = vec![];
    for (i, (id, _)) in ids.iter().enumerate() {
        // A deterministic spread: tau* from 1e-7 to 1e-1 on T0, and a witness kill for each.
        let t0 = 10f64.powf(-7.0 + 6.0 * ((i * 37) % 60) as f64 / 59.0);
        all.extend(cells(id, t0, t0 / 3.0, 0.5));
    }
    f.store.put_evaluations(&all, f.run).unwrap();
    let tolerances = [1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6];
    let a = run(&f, tolerances.iter().map(|&t| official_at(t)).collect());
    assert_eq!(a.population.unified, 60);
    for w in a.rates.windows(2) {
        let (loose, tight) = (&w[0], &w[1]);
        assert!(
            loose.overall.detected <= tight.overall.detected,
            "{} detects {} > {} detects {}",
            loose.protocol,
            loose.overall.detected,
            tight.protocol,
            tight.overall.detected
        );
        for (l, t) in loose.by_family.iter().zip(&tight.by_family) {
            assert!(l.detected <= t.detected, "{}: {} vs {}", l.group, l.detected, t.detected);
        }
    }
    assert!(a.rates[0].overall.detected < a.rates[5].overall.detected, "the spread makes the tolerances differ");
    // Same inputs: every point of the gain is tolerance.
    for d in &a.decompositions {
        assert_eq!(d.inputs, 0, "{d:?}");
        assert!(d.inputs_points.abs() < 1e-12 && d.total >= 0 && (d.tolerance_points - d.total_points).abs() < 1e-9, "{d:?}");
    }
}

#[test]
fn a_false_kill_is_reported_as_such_never_as_detection() {
    // The original itself fails KBV's x3 draw at 1e-3 (tau* 5e-3), not at 1e-2.
    let mut f = fixture("L1p1_x", &[("fooled", Family::Arithmetic), ("caught", Family::Arithmetic)], &[(KBV[1], 3, 5e-3)]);
    let mut all = cells("fooled", 1e-6, 1e-6, 0.5);
    // "fooled" fails only on the column the original fails too.
    all.retain(|e| e.suite != KBV[1]);
    all.push(cell("fooled", KBV[1], 3, 0.2));
    all.extend(cells("caught", 1e-6, 0.2, 0.5));
    f.store.put_evaluations(&all, f.run).unwrap();
    let a = run(&f, protocols(&["official", "kbv-inputs", "kbv-full"]));
    let [official, inputs, full] = &a.rates[..] else { panic!() };
    assert_eq!((official.overall.detected, official.false_kill_columns), (0, 0));
    assert_eq!((inputs.overall.detected, inputs.false_kill_columns), (2, 0), "at 1e-2 the original passes: both are detections");
    assert_eq!(full.false_kill_columns, 1);
    assert_eq!(full.false_kill_problems, 1);
    assert_eq!(full.overall.detected, 1, "the kill on the falsely killed input is not a detection");
    // "fooled" is detected by KBV inputs alone (KBV full's kill of it is a false kill); "caught" by both.
    assert_eq!([official.only_detected, inputs.only_detected, full.only_detected], [0, 1, 0]);
    let fk = a.false_kills.iter().find(|k| k.protocol == "kbv-full").unwrap();
    assert_eq!((fk.substrate.as_str(), fk.columns[0].suite.as_str(), fk.columns[0].seed, fk.columns[0].tau), ("L1p1_x", KBV[1], 3, Some(5e-3)));
    let text = kmut_audit::render(&a);
    assert!(text.contains("false kills: inputs on which a protocol rejects the original"), "{text}");
    assert!(text.contains(&format!("kbv-full L1p1_x: {}:3 (tau* 5.00e-3", KBV[1])), "{text}");
}

#[test]
fn a_protocol_that_rejects_the_original_on_every_input_is_reported_blind_there() {
    // The original is 5e-3 off on all three official trials: at 1e-2 they decide, at 1e-3 the
    // protocol rejects the correct kernel on every input it has, so it tells no mutant apart.
    let t0 = [("T0_original", 1, 5e-3), ("T0_original", 2, 5e-3), ("T0_original", 3, 5e-3)];
    let mut f = fixture("L1p1_x", &[("broken", Family::Arithmetic), ("subtle", Family::Arithmetic)], &t0);
    let mut all = cells("broken", 0.5, 0.5, 0.5);
    all.extend(cells("subtle", 1e-6, 1e-6, 0.5));
    f.store.put_evaluations(&all, f.run).unwrap();
    let a = run(&f, vec![Protocol::builtin("official").unwrap(), official_at(1e-3)]);
    let [loose, tight] = &a.rates[..] else { panic!() };
    assert_eq!((loose.overall.detected, loose.blind_mutants, loose.blind_problems), (1, 0, 0));
    assert_eq!((tight.overall.mutants, tight.overall.detected), (2, 0), "no deciding input: nothing is detected");
    assert_eq!((tight.false_kill_columns, tight.blind_mutants, tight.blind_problems), (3, 2, 1));
    let text = kmut_audit::render(&a);
    assert!(text.contains("blind (mutants / problems)") && text.contains("2 / 1"), "{text}");
    assert_eq!((loose.only_detected, tight.only_detected), (1, 0));
    assert!(text.contains("detected by one protocol alone (unified mutants no other audited protocol detects): official 1, official@1e-3 0"), "{text}");
}

#[test]
fn the_decomposition_of_kbvs_gain_adds_up_to_the_total() {
    // a: the official trials kill it. b: only KBV's draws at 1e-2. c: only the official trials at
    // 1e-3. d: only KBV's draws at 1e-3. e: every protocol misses it, a witness exposes it.
    let spec = [("a", 0.5, 0.5), ("b", 1e-6, 0.5), ("c", 5e-3, 1e-6), ("d", 1e-6, 5e-3), ("e", 1e-6, 1e-6)];
    let mut ids = vec![];
    let mut all = vec![];
    for (k, (name, t0, kbv)) in spec.iter().enumerate() {
        for i in 0..=k {
            let id = format!("{name}{i}");
            all.extend(cells(&id, *t0, *kbv, 0.5));
            ids.push((id, Family::Boundary));
        }
    }
    let refs: Vec<(&str, Family)> = ids.iter().map(|(i, f)| (i.as_str(), *f)).collect();
    let mut f = fixture("L1p1_x", &refs, &[]);
    f.store.put_evaluations(&all, f.run).unwrap();
    let a = run(&f, protocols(&["official", "kbv-inputs", "kbv-full", "head"]));
    assert_eq!(a.population.unified, 15);
    let detected: Vec<usize> = a.rates.iter().map(|r| r.overall.detected).collect();
    // official: a (1); KBV inputs: a, b (1 + 2); KBV full: a to d (1 + 2 + 3 + 4); HEAD: a, c.
    assert_eq!(detected, [1, 3, 10, 4]);
    let full = a.decompositions.iter().find(|d| d.to == "kbv-full").unwrap();
    assert_eq!((full.total, full.inputs, full.tolerance), (9, 2, 7));
    assert!((full.inputs_points + full.tolerance_points - full.total_points).abs() < 1e-9, "{full:?}");
    assert!((full.total_points - 100.0 * 9.0 / 15.0).abs() < 1e-9, "exact on a fully settled store: {full:?}");
    assert!((full.inputs_points - 100.0 * 2.0 / 15.0).abs() < 1e-9);
    let inputs_only = a.decompositions.iter().find(|d| d.to == "kbv-inputs").unwrap();
    assert_eq!((inputs_only.inputs, inputs_only.tolerance), (2, 0), "same tolerance as official: all inputs");
    let head = a.decompositions.iter().find(|d| d.to == "head").unwrap();
    assert_eq!((head.inputs, head.tolerance), (0, 3), "same inputs as official: all tolerance");
    assert!(a.rates.iter().all(|r| r.overall.exact));
    // e0..e4 are missed by every protocol and witnessed by the generated column.
    assert_eq!(a.missed_by_all, 5);
    let ex = &a.missed_by_family[0];
    assert_eq!((ex.family.as_str(), ex.mutants, ex.examples.len()), ("boundary", 5, 3));
    assert_eq!(ex.examples[0].witness, format!("{WITNESS}:1"));
}

#[test]
fn unwitnessed_and_undecided_mutants_stay_out_of_the_unified_denominator() {
    let ids = [("killed", Family::Semantic), ("equiv", Family::Semantic), ("half", Family::Semantic), ("unsearched", Family::Semantic)];
    let mut f = fixture("L1p1_x", &ids, &[]);
    let mut all = cells("killed", 0.5, 0.5, 0.5);
    all.extend(cells("equiv", 1e-7, 1e-7, 1e-7));
    // Witnessed, but KBV's draws never ran: undecided under KBV.
    all.extend(cells("half", 1e-7, 1e-7, 0.5).into_iter().filter(|e| !e.suite.starts_with("W:fresh")));
    // Survived the official trials, the witness search never ran.
    all.extend((1..=3).map(|s| cell("unsearched", "T0_original", s, 1e-7)));
    f.store.put_evaluations(&all, f.run).unwrap();
    let a = run(&f, protocols(&["official", "kbv-full"]));
    let pop = &a.population;
    assert_eq!((pop.live, pop.witnessed, pop.possibly_equivalent, pop.search_incomplete, pop.undecided, pop.unified), (4, 2, 1, 1, 1, 1));
    assert!(a.warnings.iter().any(|w| w.contains("not yet decided under every protocol")));
    // Only part of the live mutants are settled: the rate is an estimate with an interval.
    let rate = &a.rates[0].overall;
    assert!(!rate.exact && rate.low.unwrap() < rate.rate.unwrap() + 1e-12 && rate.high.unwrap() >= rate.rate.unwrap() - 1e-12, "{rate:?}");
    let seen = witnessed(&f.store, &desc("L1p1_x"), Backend::Gpu).unwrap();
    assert_eq!(seen.len(), 2);
    assert!(seen.contains("killed") && seen.contains("half"));
}

#[test]
fn the_illusion_judges_absolute_errors_per_problem() {
    // Absolute bounds read max |ref - out|, not tau*: a large output with a small relative error
    // fails the matmul bound (5e-2) while its tau* would pass.
    let ids = [("m", Family::Arithmetic)];
    let f = fixture("L1p1_square_matmul", &ids, &[]);
    let illusion = Protocol::builtin("illusion").unwrap();
    let judge = kmut_audit::Judge::new(&illusion, &illusion, &desc("L1p1_square_matmul"), Backend::Gpu);
    let mut e = cell("m", "W:uniform:10:small", 1, 1e-3);
    e.max_abs = Some(0.2);
    assert!(judge.kills(&e));
    e.max_abs = Some(0.04);
    assert!(!judge.kills(&e));
    drop(f);
}

#[test]
fn each_judge_stops_at_its_loosest_bound_and_the_audit_runs_every_protocols_columns_once() {
    let ps = protocols(&["official", "kbv-full", "illusion", "robust-kbench"]);
    let options = AuditOptions { protocols: ps.clone(), backend: Backend::Gpu, baseline: 1, examples: 0 };
    let tolerances: Vec<f64> = (0..kmut_audit::judge_count(&options)).map(|j| judge_tolerance(&options, j)).collect();
    // The four protocols, then official, illusion and robust-kbench's inputs at KBV's 1e-3.
    assert_eq!(tolerances, [1e-2, 1e-3, 5e-2, 1e-5, 1e-3, 1e-3, 1e-3], "the Illusion's loosest is its matmul bound");
    let mut d = desc("L1p1_x");
    d.generated.push("W:boundary:1:n=257".into());
    let cols = columns(&ps, &d, Backend::Gpu);
    let names: Vec<String> = cols.iter().map(|c| format!("{}:{}", c.suite, c.seed)).collect();
    assert_eq!(names.iter().filter(|n| n.starts_with("T0_original")).count(), 3, "shared by official and KBV, once: {names:?}");
    assert!(names.contains(&"W:uniform:10:n=257:2".to_owned()) && names.contains(&"W:normal:1:official:5".to_owned()), "{names:?}");
}

#[test]
fn what_a_judge_still_needs_leaves_out_the_inputs_the_original_fails() {
    // KBV full rejects the original on the x3 draw; "pending" has only the official trials and
    // the witness: under KBV it is undecided and needs the other three draws, never the x3 one.
    let mut f = fixture("L1p1_x", &[("pending", Family::Arithmetic), ("done", Family::Arithmetic)], &[(KBV[1], 3, 5e-3)]);
    let mut all: Vec<Evaluation> = cells("pending", 1e-6, 1e-6, 0.5).into_iter().filter(|e| !e.suite.starts_with("W:fresh")).collect();
    all.extend(cells("done", 1e-6, 1e-6, 0.5));
    f.store.put_evaluations(&all, f.run).unwrap();
    let options = AuditOptions { protocols: protocols(&["official", "kbv-full"]), backend: Backend::Gpu, baseline: 0, examples: 0 };
    assert_eq!(kmut_audit::judge_count(&options), 3, "two protocols and one intermediate");
    let official = kmut_audit::needs(&f.store, &desc("L1p1_x"), &options, 0).unwrap();
    assert!(official.mutants.is_empty(), "both are decided under official");
    let kbv = kmut_audit::needs(&f.store, &desc("L1p1_x"), &options, 1).unwrap();
    assert_eq!(kbv.judge, "kbv-full");
    assert_eq!(kbv.mutants.iter().collect::<Vec<_>>(), ["pending"]);
    let suites: Vec<&str> = kbv.columns.iter().map(|c| c.suite.as_str()).collect();
    assert!(!suites.contains(&KBV[1]) && suites.contains(&KBV[0]) && suites.contains(&"T0_original"), "{suites:?}");
    let mid = kmut_audit::needs(&f.store, &desc("L1p1_x"), &options, 2).unwrap();
    assert_eq!(mid.judge, "kbv-full@official");
    assert!(mid.columns.iter().any(|c| c.suite == KBV[1]), "at official's 1e-2 the original passes the x3 draw");
    // Each need carries its judge's bound, which the run uses to skip a column found to reject
    // the original while it runs (the x3 draw's 5e-3 fails KBV full's 1e-3, not official's 1e-2).
    let bound = |n: &kmut_audit::Need| n.bound.expect("a judge's bound");
    assert!(bound(&kbv).fails(Some(5e-3), Some(5e-3)) && !bound(&mid).fails(Some(5e-3), Some(5e-3)));
}

#[test]
fn a_cell_on_a_column_without_a_baseline_is_needed_again_under_every_judge() {
    // `kmut run` deferred the original on the third trial and no evaluation there failed, so the
    // column holds cells but no baseline. `decided` is killed on the first trial, so official
    // calls it decided; its cell on the third trial still sends it back there, where the audit's
    // run measures the original before judging it at each protocol's tolerance.
    let mut f = fixture("L1p1_x", &[("decided", Family::Arithmetic)], &[]);
    let mut all = cells("decided", 1e-6, 1e-6, 0.5);
    all[0].tau = Some(0.5);
    f.store.put_evaluations(&all, f.run).unwrap();
    let options = AuditOptions { protocols: protocols(&["official"]), backend: Backend::Gpu, baseline: 0, examples: 0 };
    assert!(kmut_audit::needs(&f.store, &desc("L1p1_x"), &options, 0).unwrap().mutants.is_empty(), "every column measured: decided");
    let db = rusqlite::Connection::open(f.dir.path().join("s.sqlite")).unwrap();
    db.execute("DELETE FROM baselines WHERE suite = 'T0_original' AND seed = 3", []).unwrap();
    let need = kmut_audit::needs(&f.store, &desc("L1p1_x"), &options, 0).unwrap();
    assert_eq!(need.mutants.iter().collect::<Vec<_>>(), ["decided"]);
    assert!(need.columns.iter().any(|c| c.suite == "T0_original" && c.seed == 3));
}
