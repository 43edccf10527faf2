//! Scores from a real store: what a verdict is made of, and what is left out and said so.

use kmut_model::{Backend, Class, Family, Inputs, Mutant, MutantKind, Outcome, Protocol, SubstrateDescription, SuiteDescription};
use kmut_score::{score, Denominator, Kill, ScoreOptions, TimeoutPolicy, Verdict};
use kmut_store::{Baseline, ClassRecord, CompileRecord, Evaluation, Store};

const TARGET: &str = "nvrtc 13.0 -arch=sm_90";
const ORIGINAL: &str = "img-original";

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
        suites: vec![suite("T0_original", &[1, 2, 3]), suite("T1_remainder", &[7])],
        generated: vec![],
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
        line: 1,
        col: 1,
        span: [0, 1],
        original: "+".into(),
        replacement: "-".into(),
        mutation: MutantKind::Source { edits: vec![] },
        diff: String::new(),
    }
}

fn image(id: &str) -> String {
    format!("img-{id}")
}

/// A cell of `id` on (suite, seed) with `tau`, or a timeout when `tau` is `None`.
fn cell(id: &str, suite: &str, seed: u64, tau: Option<f64>) -> Evaluation {
    Evaluation {
        mutant: id.into(),
        target: TARGET.into(),
        suite: suite.into(),
        seed,
        image: image(id),
        backend: "cuda:test".into(),
        outcome: if tau.is_some() { Outcome::Completed } else { Outcome::Timeout },
        crash: None,
        detail: None,
        tau,
        max_abs: tau,
        max_rel: tau,
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
    _dir: tempfile::TempDir,
    store: Store,
    run: i64,
}

/// A store with substrate `name` whose live mutants are `ids` (families in turn), compiled,
/// and the original measured at `original_tau` on every column.
fn fixture(name: &str, ids: &[(&str, Family)], original_tau: &[(&str, u64, Option<f64>)]) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", TARGET).unwrap();
    add_substrate(&mut store, run, name, ids, original_tau);
    Fixture { _dir: dir, store, run }
}

fn add_substrate(store: &mut Store, run: i64, name: &str, ids: &[(&str, Family)], original_tau: &[(&str, u64, Option<f64>)]) {
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
    let mut records: Vec<CompileRecord> = ids.iter().map(|(id, _)| record(Some(id), image(id))).collect();
    records.push(record(None, ORIGINAL.into()));
    store.put_compilations(&records, run).unwrap();
    store
        .put_classes(TARGET, &ids.iter().map(|(id, _)| ClassRecord { mutant: (*id).into(), class: Class::Live, duplicate_of: None }).collect::<Vec<_>>())
        .unwrap();
    for &(suite, seed, tau) in original_tau {
        let b = Baseline {
            substrate: name.into(),
            target: TARGET.into(),
            suite: suite.into(),
            seed,
            backend: "cuda:test".into(),
            sizes: "{}".into(),
            tau,
            max_abs: tau,
            kernel_ms: Some(1.0),
            prep_s: Some(0.1),
            image: Some(ORIGINAL.into()),
            peak_bytes: None,
            valid: None,
            tau64_ref: None,
            tau64_orig: None,
        };
        store.put_baseline(&b, run).unwrap();
    }
}

const CLEAN: [(&str, u64, Option<f64>); 4] =
    [("T0_original", 1, Some(0.0)), ("T0_original", 2, Some(0.0)), ("T0_original", 3, Some(0.0)), ("T1_remainder", 7, Some(0.0))];

fn options(protocol: &str, tolerance: f64, inputs: Inputs) -> ScoreOptions {
    let p = Protocol::named(protocol).unwrap();
    ScoreOptions { protocol: p, tolerance, inputs, backend: Backend::Gpu, timeouts: TimeoutPolicy::Exclude, denominator: Denominator::Auto }
}

#[test]
fn a_first_kill_run_at_head_scored_at_v01_leaves_the_weak_kills_undecided_not_dropped() {
    // Run under HEAD (1e-4) with first kill: "weak" mutants were killed on seed 1 at tau 1e-3
    // and never run on seeds 2 and 3. At 1e-2 they are not killed by seed 1, so their verdict
    // is unknown. Before, they were dropped from the sample and the score read 0% missed,
    // exactly; they must be counted as undecided and the interval must reach far up.
    let mut ids = vec![];
    for i in 0..10 {
        ids.push((format!("strong{i}"), Family::Arithmetic));
        ids.push((format!("weak{i}"), Family::Arithmetic));
    }
    let refs: Vec<(&str, Family)> = ids.iter().map(|(i, f)| (i.as_str(), *f)).collect();
    let mut f = fixture("L1p1_x", &refs, &CLEAN);
    let mut cells = vec![];
    for i in 0..10 {
        cells.push(cell(&format!("strong{i}"), "T0_original", 1, Some(0.5)));
        cells.push(cell(&format!("weak{i}"), "T0_original", 1, Some(1e-3)));
    }
    f.store.put_evaluations(&cells, f.run).unwrap();

    let head = score(&f.store, &[], &options("head", 1e-4, Inputs::Protocol)).unwrap();
    assert_eq!((head.overall.killed, head.overall.undecided), (20, 0));
    assert!(head.warnings.is_empty());

    let v01 = score(&f.store, &[], &options("official", 1e-2, Inputs::Protocol)).unwrap();
    assert_eq!((v01.overall.killed, v01.overall.survived, v01.overall.undecided), (10, 0, 10));
    let e = v01.overall.miss.unwrap();
    assert!(!e.exact);
    assert!(e.low <= 1e-9 && e.high >= 0.5, "all undecided surviving is half the sample: {e:?}");
    assert!(v01.warnings[0].contains("10 mutants were run on only some of the inputs"), "{:?}", v01.warnings);
}

#[test]
fn scoring_all_suites_after_an_official_run_makes_survivors_undecided() {
    let mut f = fixture("L1p1_x", &[("a", Family::Arithmetic), ("b", Family::Arithmetic)], &CLEAN);
    let cells: Vec<Evaluation> = [1, 2, 3].iter().flat_map(|&s| [cell("a", "T0_original", s, Some(1e-6)), cell("b", "T0_original", s, Some(1e-6))]).collect();
    f.store.put_evaluations(&cells, f.run).unwrap();
    f.store.put_evaluations(&[cell("b", "T1_remainder", 7, Some(0.5))], f.run).unwrap();
    let official = score(&f.store, &[], &options("official", 1e-2, Inputs::Protocol)).unwrap();
    assert_eq!((official.overall.survived, official.overall.undecided), (2, 0));
    let all = score(&f.store, &[], &options("official", 1e-2, Inputs::All)).unwrap();
    assert_eq!((all.overall.killed, all.overall.survived, all.overall.undecided), (1, 0, 1));
}

#[test]
fn an_input_the_original_fails_decides_nothing_and_is_named() {
    // The original fails seed 2 at 1e-4 (tau 5e-4) but passes at 1e-2. A mutant "killed" only
    // on seed 2 at 1e-4 is no kill there: the column is left out of the verdict.
    let tau = [("T0_original", 1, Some(0.0)), ("T0_original", 2, Some(5e-4)), ("T0_original", 3, Some(0.0))];
    let mut f = fixture("L1p1_x", &[("a", Family::Arithmetic)], &tau);
    f.store
        .put_evaluations(&[cell("a", "T0_original", 1, Some(1e-6)), cell("a", "T0_original", 2, Some(6e-4)), cell("a", "T0_original", 3, Some(1e-6))], f.run)
        .unwrap();
    let head = score(&f.store, &[], &options("head", 1e-4, Inputs::Protocol)).unwrap();
    assert_eq!((head.overall.killed, head.overall.survived), (0, 1));
    assert_eq!(head.original_failures.len(), 1);
    assert_eq!((head.original_failures[0].seed, head.original_failures[0].tau), (2, Some(5e-4)));
    let v01 = score(&f.store, &[], &options("official", 1e-2, Inputs::Protocol)).unwrap();
    assert!(v01.original_failures.is_empty());
}

#[test]
fn timeouts_are_their_own_column_unless_counted_as_kills() {
    let mut f = fixture("L1p1_x", &[("slow", Family::Arithmetic), ("ok", Family::Arithmetic), ("bad", Family::Arithmetic)], &CLEAN);
    let mut cells = vec![cell("slow", "T0_original", 1, None)];
    for s in [1, 2, 3] {
        cells.push(cell("ok", "T0_original", s, Some(1e-6)));
    }
    cells.push(cell("bad", "T0_original", 1, Some(0.5)));
    f.store.put_evaluations(&cells, f.run).unwrap();
    let excluded = score(&f.store, &[], &options("official", 1e-2, Inputs::Protocol)).unwrap();
    let o = &excluded.overall;
    assert_eq!((o.live, o.killed, o.survived, o.timeouts, o.evaluated), (3, 1, 1, 1, 2));
    let e = o.miss.unwrap();
    assert!(e.exact && (e.rate - 0.5).abs() < 1e-12, "one of the two settled survives: {e:?}");
    let mut kill = options("official", 1e-2, Inputs::Protocol);
    kill.timeouts = TimeoutPolicy::Kill;
    let killed = score(&f.store, &[], &kill).unwrap();
    assert_eq!((killed.overall.killed, killed.overall.timeouts), (2, 1));
    assert!((killed.overall.miss.unwrap().rate - 1.0 / 3.0).abs() < 1e-12);
}

#[test]
fn cells_of_an_earlier_image_and_baselines_of_an_earlier_original_are_not_scored() {
    let mut f = fixture("L1p1_x", &[("a", Family::Arithmetic)], &[]);
    // A kill recorded for an image the mutant no longer compiles to.
    let mut stale = cell("a", "T0_original", 1, Some(0.5));
    stale.image = "img-before-the-edit".into();
    f.store.put_evaluations(&[stale], f.run).unwrap();
    let s = score(&f.store, &[], &options("official", 1e-2, Inputs::Protocol)).unwrap();
    assert_eq!((s.overall.killed, s.overall.not_run, s.stale_evaluations), (0, 1, 1));
    // An original baseline of an earlier image failing seed 1 does not exclude the column.
    let old = Baseline {
        substrate: "L1p1_x".into(),
        target: TARGET.into(),
        suite: "T0_original".into(),
        seed: 1,
        backend: "cuda:test".into(),
        sizes: "{}".into(),
        tau: Some(0.9),
        max_abs: None,
        kernel_ms: None,
        prep_s: None,
        image: Some("img-earlier-original".into()),
        peak_bytes: None,
        valid: None,
        tau64_ref: None,
        tau64_orig: None,
    };
    f.store.put_baseline(&old, f.run).unwrap();
    f.store.put_evaluations(&[cell("a", "T0_original", 1, Some(0.5))], f.run).unwrap();
    let s = score(&f.store, &[], &options("official", 1e-2, Inputs::Protocol)).unwrap();
    assert!(s.original_failures.is_empty());
    assert_eq!(s.overall.killed, 1);
}

#[test]
fn a_substrate_with_no_verdict_counts_in_the_population_and_the_interval() {
    let mut f = fixture("L1p1_x", &[("a", Family::Arithmetic), ("b", Family::Arithmetic)], &CLEAN);
    add_substrate(&mut f.store, f.run, "L1p2_y", &[("c", Family::Arithmetic), ("d", Family::Arithmetic)], &CLEAN);
    let cells: Vec<Evaluation> = [1, 2, 3].iter().flat_map(|&s| [cell("a", "T0_original", s, Some(1e-6)), cell("b", "T0_original", s, Some(1e-6))]).collect();
    f.store.put_evaluations(&cells, f.run).unwrap();
    let s = score(&f.store, &[], &options("official", 1e-2, Inputs::Protocol)).unwrap();
    assert_eq!((s.overall.live, s.overall.survived, s.overall.not_run), (4, 2, 2));
    assert!(s.sampled);
    let e = s.overall.miss.unwrap();
    assert!(!e.exact, "half the live mutants have no verdict");
    assert!((e.unsampled - 0.5).abs() < 1e-12);
    assert!(e.low <= 0.5 + 1e-9 && e.high >= 1.0 - 1e-9, "the other half could all be killed: {e:?}");
}

#[test]
fn verdicts_follow_the_decisive_columns_in_order() {
    let cols: Vec<kmut_model::Column> = [1, 2].iter().map(|&seed| kmut_model::Column { suite: "T0_original".into(), seed }).collect();
    let a = cell("a", "T0_original", 1, None);
    let b = cell("a", "T0_original", 2, Some(0.5));
    let mut crash = cell("a", "T0_original", 2, Some(0.0));
    crash.outcome = Outcome::Crash;
    crash.crash = Some("CUDA_ERROR_ILLEGAL_ADDRESS".into());
    assert_eq!(kmut_score::verdict(&[&a, &b], &cols, 1e-2, TimeoutPolicy::Exclude), Verdict::Killed(Kill::Value));
    assert_eq!(kmut_score::verdict(&[&a], &cols, 1e-2, TimeoutPolicy::Exclude), Verdict::TimedOut);
    assert_eq!(kmut_score::verdict(&[&a], &cols, 1e-2, TimeoutPolicy::Kill), Verdict::Killed(Kill::Timeout));
    assert_eq!(kmut_score::verdict(&[&crash], &cols, 1e-2, TimeoutPolicy::Exclude), Verdict::Killed(Kill::Crash("CUDA_ERROR_ILLEGAL_ADDRESS".into())));
    assert_eq!(kmut_score::verdict(&[], &cols, 1e-2, TimeoutPolicy::Exclude), Verdict::NotRun);
}

#[test]
#[allow(clippy::many_single_char_names)]
fn over_witnessed_mutants_an_input_past_the_ceiling_never_witnesses() {
    // Generated columns: one valid, one past the ceiling (the validity gate refused it).
    let mut f = fixture("L1p1_x", &[("reach", Family::Boundary), ("ceil", Family::Boundary), ("none", Family::Boundary), ("half", Family::Boundary)], &CLEAN);
    let mut d = desc("L1p1_x");
    d.generated = vec!["W:boundary:1:n=257".into(), "W:scaled:1000:small".into()];
    f.store.put_substrate(&d, "h").unwrap();
    for (suite, valid) in [("W:boundary:1:n=257", true), ("W:scaled:1000:small", false)] {
        for seed in kmut_model::GENERATED_SEEDS {
            let b = Baseline {
                substrate: "L1p1_x".into(),
                target: TARGET.into(),
                suite: suite.into(),
                seed,
                backend: "cuda:test".into(),
                sizes: "{}".into(),
                tau: Some(0.0),
                max_abs: Some(0.0),
                kernel_ms: Some(1.0),
                prep_s: Some(0.1),
                image: Some(ORIGINAL.into()),
                peak_bytes: None,
                valid: Some(valid),
                tau64_ref: Some(if valid { 1e-7 } else { 0.3 }),
                tau64_orig: Some(if valid { 1e-7 } else { 0.3 }),
            };
            f.store.put_baseline(&b, f.run).unwrap();
        }
    }
    let mut cells = vec![];
    for id in ["reach", "ceil", "none", "half"] {
        // Every mutant survives the protocol's and the targeted suite's inputs.
        for s in [1, 2, 3] {
            cells.push(cell(id, "T0_original", s, Some(1e-6)));
        }
        cells.push(cell(id, "T1_remainder", 7, Some(1e-6)));
    }
    for seed in kmut_model::GENERATED_SEEDS {
        cells.push(cell("reach", "W:boundary:1:n=257", seed, Some(0.5))); // a valid witness
        cells.push(cell("ceil", "W:boundary:1:n=257", seed, Some(1e-6)));
        cells.push(cell("ceil", "W:scaled:1000:small", seed, Some(0.5))); // killed only past the ceiling
        cells.push(cell("none", "W:boundary:1:n=257", seed, Some(1e-6)));
    }
    // "half": the search stopped midway (its suites run, the valid generated column not yet).
    f.store.put_evaluations(&cells, f.run).unwrap();
    let mut o = options("official", 1e-2, Inputs::Protocol);
    o.denominator = Denominator::Witnessed;
    let s = score(&f.store, &[], &o).unwrap();
    assert_eq!(s.denominator, Denominator::Witnessed);
    let g = &s.overall;
    assert_eq!((g.survived, g.possibly_equivalent, g.undecided), (1, 2, 1), "reach missed; ceil and none possibly equivalent; half undecided");
    assert!(s.warnings.iter().any(|w| w.contains("incomplete witness search")), "{:?}", s.warnings);
    // Each mutant's verdict is listed as the tables counted it, a miss with the input that witnessed it.
    let of = |id: &str| s.verdicts.iter().find(|v| v.mutant == id).map(|v| (v.verdict.clone(), v.witness.clone())).unwrap();
    assert_eq!(s.verdicts.len(), 4);
    assert_eq!(of("reach"), (Verdict::Survived, Some(kmut_model::Column { suite: "W:boundary:1:n=257".into(), seed: 1 })));
    assert_eq!((of("ceil"), of("none")), ((Verdict::PossiblyEquivalent, None), (Verdict::PossiblyEquivalent, None)));
    assert_eq!(of("half"), (Verdict::Undecided, None));
    // Over live mutants all four are misses.
    o.denominator = Denominator::Live;
    assert_eq!(score(&f.store, &[], &o).unwrap().overall.survived, 4);
    // Auto: witnessed, since the store holds generated columns.
    o.denominator = Denominator::Auto;
    assert_eq!(score(&f.store, &[], &o).unwrap().denominator, Denominator::Witnessed);
}
