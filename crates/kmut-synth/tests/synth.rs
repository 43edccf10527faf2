//! Suite synthesis from a real store: hand-built kill matrices with known covers.

use std::time::Duration;

use kmut_model::{Backend, Class, Column, Family, Mutant, MutantKind, Outcome, Protocol, SubstrateDescription, SuiteDescription, GENERATED_SEEDS};
use kmut_store::{Baseline, ClassRecord, CompileRecord, Evaluation, Store};
use kmut_synth::{synthesize, Half, MatrixOptions, Split, Status, SynthOptions};

const TARGET: &str = "nvrtc 13.0 -arch=sm_90";
const ORIGINAL: &str = "img-original";
// Pairs of generated columns (one seed each, `GENERATED_SEEDS`): a scaled, a boundary and a
// spiky family, two members each, so a kill can be "by either member" of a family.
const GEN: [&str; 6] = ["W:scaled:100:small", "W:scaled:1000:small", "W:boundary:1:n=257", "W:boundary:1:n=255", "W:spiky:1000:small", "W:spiky:100:small"];

fn desc(name: &str) -> SubstrateDescription {
    let suite = |n: &str, seeds: &[u64]| SuiteDescription { name: n.into(), seeds: seeds.to_vec(), purpose: String::new(), small: false };
    SubstrateDescription {
        name: name.into(),
        level: 1,
        path: format!("substrates/accepted/{name}.py"),
        cuda: "k".into(),
        cuda_line: 1,
        kernels: vec!["k".into()],
        steps: vec![],
        cdiv_calls: vec![],
        launch_line: 1,
        suites: vec![suite("T0_original", &[1, 2]), suite("T1_remainder", &[7])],
        generated: GEN.iter().map(|s| (*s).to_owned()).collect(),
    }
}

fn mutant(substrate: &str, id: &str) -> Mutant {
    Mutant {
        id: id.into(),
        substrate: substrate.into(),
        rule: "arith-plus-to-minus".into(),
        family: Family::Arithmetic,
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

fn cell(id: &str, suite: &str, seed: u64, kill: bool) -> Evaluation {
    Evaluation {
        mutant: id.into(),
        target: TARGET.into(),
        suite: suite.into(),
        seed,
        image: format!("img-{id}"),
        backend: "cuda:test".into(),
        outcome: Outcome::Completed,
        crash: None,
        detail: None,
        tau: Some(if kill { 0.5 } else { 1e-6 }),
        max_abs: None,
        max_rel: None,
        nonfinite: false,
        shape_ok: true,
        canary: false,
        inputs_restored: false,
        kernel_ms: Some(1.0),
        wall_ms: 2.0,
        orders: vec![],
    }
}

/// The columns, in candidate order: `T0_original` seeds 1 and 2, `T1_remainder` seed 7, then
/// each generated column at its seed.
fn columns() -> Vec<Column> {
    let mut out: Vec<Column> =
        [("T0_original", 1), ("T0_original", 2), ("T1_remainder", 7)].iter().map(|&(s, seed)| Column { suite: s.into(), seed }).collect();
    for g in GEN {
        out.extend(GENERATED_SEEDS.iter().map(|&seed| Column { suite: g.into(), seed }));
    }
    out
}

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    run: i64,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let run = store.begin_run("test", "13.0", TARGET).unwrap();
        Fixture { _dir: dir, store, run }
    }

    /// A substrate whose mutants `ids` are live, the original passing every column, each
    /// generated column valid unless listed in `invalid`, and `kills[m]` listing the columns
    /// (indices into `columns()`) that kill mutant m; every other column is run and passes,
    /// except those in `missing[m]`.
    fn substrate(&mut self, name: &str, ids: &[&str], kills: &[&[usize]], missing: &[&[usize]], invalid: &[&str]) {
        let d = desc(name);
        self.store.put_substrate(&d, "h").unwrap();
        self.store.put_mutants(name, &ids.iter().map(|id| mutant(name, id)).collect::<Vec<_>>()).unwrap();
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
        let mut records: Vec<CompileRecord> = ids.iter().map(|id| record(Some(id), format!("img-{id}"))).collect();
        records.push(record(None, ORIGINAL.into()));
        self.store.put_compilations(&records, self.run).unwrap();
        self.store
            .put_classes(TARGET, &ids.iter().map(|id| ClassRecord { mutant: (*id).into(), class: Class::Live, duplicate_of: None }).collect::<Vec<_>>())
            .unwrap();
        for c in columns() {
            let generated = c.suite.starts_with("W:");
            let b = Baseline {
                substrate: name.into(),
                target: TARGET.into(),
                suite: c.suite.clone(),
                seed: c.seed,
                backend: "cuda:test".into(),
                sizes: "{}".into(),
                tau: Some(0.0),
                max_abs: Some(0.0),
                kernel_ms: Some(1.0),
                prep_s: Some(0.1),
                image: Some(ORIGINAL.into()),
                peak_bytes: None,
                valid: generated.then(|| !invalid.contains(&c.suite.as_str())),
                tau64_ref: None,
                tau64_orig: None,
            };
            self.store.put_baseline(&b, self.run).unwrap();
        }
        let mut cells = Vec::new();
        for (m, id) in ids.iter().enumerate() {
            for (i, c) in columns().iter().enumerate() {
                if !missing.get(m).is_some_and(|x| x.contains(&i)) {
                    cells.push(cell(id, &c.suite, c.seed, kills[m].contains(&i)));
                }
            }
        }
        self.store.put_evaluations(&cells, self.run).unwrap();
    }
}

fn options(budgets: &[usize]) -> SynthOptions {
    let protocol = Protocol::named("official").unwrap();
    SynthOptions {
        matrix: MatrixOptions { tolerance: protocol.tolerance(), protocol, backend: Backend::Gpu },
        budgets: budgets.to_vec(),
        split: Split::None,
        with_official: false,
        exact: None,
        optimistic: false,
        splits: 0,
    }
}

fn suites(chosen: &[kmut_synth::Chosen]) -> Vec<String> {
    chosen.iter().map(|c| format!("{}:{}", c.column.suite, c.column.seed)).collect()
}

// Column indices: 0 T0:1, 1 T0:2, 2 T1:7, 3 scaled x100, 4 scaled x1000, 5 boundary n=257, 6 boundary n=255,
// 7 spiky x1000, 8 spiky x100.

#[test]
fn greedy_picks_the_known_cover_and_breaks_ties_towards_the_earliest_candidate() {
    let mut f = Fixture::new();
    // a, b: killed by the official trials; c, d: only by scaled (either member) or boundary
    // n=255; e: only by spiky x100. Scaled x100 and boundary n=255 tie on {c, d}: the earlier
    // (scaled x100) wins.
    let kills: &[&[usize]] = &[&[0, 1], &[0], &[3, 4, 6], &[3, 4, 6], &[8]];
    f.substrate("L1p1_x", &["a", "b", "c", "d", "e"], kills, &[], &[]);
    let s = synthesize(&f.store, &[], &options(&[1, 2, 3, 4])).unwrap();
    let p = &s.problems[0];
    assert_eq!(p.status, Status::Chosen);
    assert_eq!(p.counts.witnessed, 5);
    assert_eq!(suites(&p.chosen), ["T0_original:1", "W:scaled:100:small:1", "W:spiky:100:small:1"]);
    assert_eq!(p.chosen.iter().map(|c| c.adds).collect::<Vec<_>>(), [2, 2, 1]);
    assert_eq!(p.needed, Some(3));
    // The curve: 2/5, 4/5, 5/5, then flat; the official trials detect 2 of 5.
    let rates: Vec<f64> = s.curve.iter().map(|pt| pt.full.rate.unwrap()).collect();
    assert_eq!(rates, [0.4, 0.8, 1.0, 1.0]);
    assert!(s.curve.iter().all(|pt| pt.full.complete()));
    assert_eq!(s.official_full.rate, Some(0.4));
    assert_eq!(s.needed.median, Some(3.0));
    // Forcing the official trials in: budgets count the inputs added to them.
    let mut o = options(&[1, 2]);
    o.with_official = true;
    let s = synthesize(&f.store, &[], &o).unwrap();
    assert_eq!(suites(&s.problems[0].chosen), ["T0_original:1", "T0_original:2", "W:scaled:100:small:1", "W:spiky:100:small:1"]);
    assert_eq!(s.problems[0].chosen[1].adds, 0, "the second trial adds nothing, and says so");
    assert_eq!(s.curve[0].full.rate, Some(0.8));
}

#[test]
fn the_exact_optimum_beats_greedy_where_greedy_is_suboptimal_and_never_does_worse() {
    let mut f = Fixture::new();
    // Six mutants the official trials miss. scaled:1 kills {m1, m2, m4, m5} (the most), then
    // greedy adds one more; T1:7 = {m1, m2, m3} with boundary:1 = {m4, m5, m6} kills all six.
    let ids = ["m1", "m2", "m3", "m4", "m5", "m6"];
    let kills: &[&[usize]] = &[&[2, 3], &[2, 3], &[2], &[3, 5], &[3, 5], &[5]];
    f.substrate("L1p2_y", &ids, kills, &[], &[]);
    let mut o = options(&[1, 2, 3]);
    o.exact = Some(Duration::from_secs(20));
    let s = synthesize(&f.store, &[], &o).unwrap();
    let at = |b: usize| &s.curve[b - 1];
    assert_eq!(at(2).full.detected.known, 5, "greedy: scaled:1, then one of the rest");
    assert_eq!(at(2).exact_full.unwrap().detected.known, 6, "exact: T1_remainder:7 and boundary:1");
    assert_eq!(at(2).exact_proven, Some((1, 1)));
    for pt in &s.curve {
        assert!(pt.exact_full.unwrap().detected.known >= pt.full.detected.known);
        assert!(pt.exact_held_out.unwrap().detected.total == pt.held_out.detected.total);
    }
    // The per-problem choice with --exact: the smallest optimal suite within the budget.
    let p = &s.problems[0];
    assert_eq!(suites(&p.chosen), ["T1_remainder:7", "W:boundary:1:n=257:1"]);
    assert_eq!(p.exact_optimal, Some(true));
    assert_eq!(p.needed, Some(3), "greedy needs three to cover all six");
}

#[test]
#[allow(clippy::many_single_char_names)]
fn the_split_is_stable_disjoint_and_the_held_out_rate_is_chosen_on_dev_and_read_on_test() {
    let ids: Vec<String> = (0..200).map(|i| format!("{i:016x}")).collect();
    let halves: Vec<Half> = ids.iter().map(|id| Half::of(id)).collect();
    assert_eq!(halves, ids.iter().map(|id| Half::of(id)).collect::<Vec<_>>(), "the same in every run");
    // The split is a fixed function of the id (SHA-256), not of the run or the order.
    assert_eq!(Half::of("0000000000000000"), halves[0]);
    let dev = halves.iter().filter(|h| **h == Half::Dev).count();
    assert!((70..=130).contains(&dev), "about half: {dev} of 200");
    // Disjoint and complete, in a problem's masks too.
    let mut f = Fixture::new();
    let refs: Vec<&str> = ids.iter().take(40).map(String::as_str).collect();
    // Even mutants only by scaled x100, odd ones only by spiky x100.
    let kills: Vec<&[usize]> = (0..40).map(|i| if i % 2 == 0 { &[3usize][..] } else { &[8usize][..] }).collect();
    f.substrate("L1p3_z", &refs, &kills, &[], &[]);
    let (problems, _) = kmut_synth::load(&f.store, &[], &options(&[1]).matrix).unwrap();
    let p = &problems[0];
    let (d, t) = (p.mask(Some(Half::Dev)), p.mask(Some(Half::Test)));
    assert_eq!(d.count() + t.count(), 40);
    assert!((0..40).all(|i| d.get(i) != t.get(i)));
    let s = synthesize(&f.store, &[], &options(&[1, 2])).unwrap();
    assert_eq!(s.curve[0].held_out.detected.total, t.count());
    assert_eq!(s.curve[1].held_out.rate, Some(1.0));
    let again = synthesize(&f.store, &[], &options(&[1, 2])).unwrap();
    assert_eq!(serde_json::to_string(&s).unwrap(), serde_json::to_string(&again).unwrap(), "a synthesis is reproducible");
}

#[test]
fn missing_data_is_reported_never_read_as_detection() {
    let mut f = Fixture::new();
    // A problem with no witnessed mutant: p possibly equivalent (every valid column run, no
    // kill), q killed only past the ceiling (spiky is invalid there).
    f.substrate("L1p4_none", &["p", "q"], &[&[], &[7, 8]], &[], &["W:spiky:1000:small", "W:spiky:100:small"]);
    // A first-kill run: u is killed by T0:1 and has no other cell; v's search stopped midway
    // (not killed so far); w is killed by scaled x1000 and was run everywhere.
    let all_but_first: Vec<usize> = (1..9).collect();
    f.substrate("L1p5_first", &["u", "v", "w"], &[&[0], &[], &[4]], &[&all_but_first, &[5, 6, 7, 8], &[]], &[]);
    let s = synthesize(&f.store, &[], &options(&[1, 2])).unwrap();
    let none = s.problems.iter().find(|p| p.substrate == "L1p4_none").unwrap();
    assert_eq!(none.status, Status::NoWitnessed);
    assert!(none.chosen.is_empty() && none.needed.is_none());
    assert_eq!((none.counts.possibly_equivalent, none.counts.invalid_columns, none.counts.witnessed), (2, 2, 0));
    let first = s.problems.iter().find(|p| p.substrate == "L1p5_first").unwrap();
    assert_eq!(first.counts.witnessed, 2, "u (by the trial) and w (by scaled:2)");
    assert_eq!(first.counts.undecided, 1, "v: its search is incomplete");
    assert_eq!(first.counts.missing_cells, 8, "u's cells past its first kill");
    // At b = 1 greedy takes T0:1 (u) and scaled x1000 (w) tie at one known kill: the earliest wins.
    // u was never run on scaled x1000, w was run on T0:1: the rate is 1/2 known, 1/2 at most.
    let b1 = &s.curve[0].full;
    assert_eq!((b1.detected.known, b1.detected.possible, b1.detected.total), (1, 1, 2));
    assert_eq!(s.curve[1].full.detected.known, 2);
    assert!(s.curve[1].full.complete());
    // Choosing scaled x1000 alone would be open: u has no cell there.
    let (problems, _) = kmut_synth::load(&f.store, &["L1p5_first".into()], &options(&[1]).matrix).unwrap();
    let d = kmut_synth::detect(&problems[0], &[4], &problems[0].mask(None));
    assert_eq!((d.known, d.possible), (1, 2));
    assert!(s.warnings.iter().any(|w| w.contains("no witnessed mutant") && w.contains("L1p4_none")), "{:?}", s.warnings);
    assert!(s.warnings.iter().any(|w| w.contains("never run") && w.contains("--full-matrix")), "{:?}", s.warnings);
    assert!(s.warnings.iter().any(|w| w.contains("incomplete witness search")), "{:?}", s.warnings);
    // v is left out, and the rates read high by its share: 1 of the 3 witnessed and undecided.
    assert!(s.warnings.iter().any(|w| w.contains("reads high") && w.contains("33.3%") && w.contains("66.7% of what it reads")), "{:?}", s.warnings);
    // A named substrate the store lacks is reported, not dropped.
    let s = synthesize(&f.store, &["L9p9_absent".into()], &options(&[1])).unwrap();
    assert_eq!(s.skipped[0].substrate, "L9p9_absent");
}

#[test]
fn the_official_rate_agrees_with_kmut_score_on_witnessed_mutants() {
    let mut f = Fixture::new();
    let kills: &[&[usize]] = &[&[0, 1], &[0], &[3, 4, 6], &[3, 4, 6], &[8], &[]];
    f.substrate("L1p1_x", &["a", "b", "c", "d", "e", "eq"], kills, &[], &[]);
    let s = synthesize(&f.store, &[], &options(&[1])).unwrap();
    let o = kmut_score::ScoreOptions {
        denominator: kmut_score::Denominator::Witnessed,
        ..kmut_score::ScoreOptions::of(&Protocol::named("official").unwrap(), Backend::Gpu)
    };
    let score = kmut_score::score(&f.store, &[], &o).unwrap();
    let miss = score.overall.miss.unwrap().rate;
    assert!((s.official_full.rate.unwrap() - (1.0 - miss)).abs() < 1e-12, "{} vs 1 - {miss}", s.official_full.rate.unwrap());
    assert_eq!(score.overall.possibly_equivalent, s.totals.possibly_equivalent);
}

#[test]
#[allow(clippy::items_after_statements)]
fn the_exported_protocol_round_trips_as_a_protocol_file_with_each_problems_inputs() {
    let mut f = Fixture::new();
    f.substrate("L1p1_x", &["a", "b", "c", "d", "e"], &[&[0, 1], &[0], &[3, 4, 6], &[3, 4, 6], &[8]], &[], &[]);
    f.substrate("L1p4_none", &["p"], &[&[]], &[], &[]);
    let s = synthesize(&f.store, &[], &options(&[1, 2, 3])).unwrap();
    let base = Protocol::named("official").unwrap();
    let exported = kmut_synth::protocol(&s, &base);
    let text = serde_json::to_string_pretty(&exported).unwrap();
    // It reads back, and its `protocols` list parses as the protocol files' does.
    let back: kmut_synth::ExportedProtocol = serde_json::from_str(&text).unwrap();
    assert_eq!(back, exported);
    #[derive(serde::Deserialize)]
    struct File {
        protocols: Vec<Protocol>,
    }
    let file: File = serde_json::from_str(&text).unwrap();
    let p = &file.protocols[0];
    assert_eq!(p.tolerance, base.tolerance);
    let inputs = &back.problems["L1p1_x"].inputs;
    assert_eq!(inputs.iter().map(|i| format!("{}:{}", i.suite, i.seed)).collect::<Vec<_>>(), ["T0_original:1", "W:scaled:100:small:1", "W:spiky:100:small:1"]);
    assert_eq!(inputs[1].source, "scaled x100 @small");
    // The protocol itself carries each problem's inputs, so `kmut audit` runs exactly them, and
    // the file loads as a protocol file; an unlisted problem keeps the base's inputs.
    let listed: Vec<String> = p.inputs.per_problem["L1p1_x"].iter().map(|c| format!("{}:{}", c.suite, c.seed)).collect();
    assert_eq!(listed, ["T0_original:1", "W:scaled:100:small:1", "W:spiky:100:small:1"]);
    assert_eq!(p.inputs.suites, base.inputs.suites);
    let loaded = Protocol::parse_file(&text, "synth.json").unwrap();
    assert_eq!(&loaded, p);
    assert!(!back.problems.contains_key("L1p4_none"), "no witnessed mutant: no inputs");
    // The plot is an SVG with the curve and the official line.
    let svg = kmut_synth::svg(&s).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("greedy, full pool") && svg.contains("official trials, full pool"));
}

#[test]
fn a_problem_with_no_dev_mutant_is_held_out_on_the_protocols_inputs_not_on_nothing() {
    // Mutant ids that all fall in the test half: dev selects nothing for this problem.
    let ids: Vec<String> = (0..200).map(|i| format!("t{i}")).filter(|id| Half::of(id) == Half::Test).take(3).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let mut f = Fixture::new();
    // Two killed by the first official trial, one only by spiky x100.
    f.substrate("L1p5_t", &refs, &[&[0], &[0, 1], &[8]], &[], &[]);
    let s = synthesize(&f.store, &[], &options(&[1, 2])).unwrap();
    // b=1: the filler is the protocol's first input (2 of 3); b=2 adds its second, which
    // kills nothing new; never the spiky input, which only the test half could have shown.
    assert_eq!(s.curve[0].held_out.detected.total, 3);
    assert_eq!(s.curve[0].held_out.detected.known, 2);
    assert_eq!(s.curve[1].held_out.detected.known, 2);
    // The full pool is chosen on every mutant: 3 of 3 at b=2.
    assert_eq!(s.curve[1].full.rate, Some(1.0));
}

#[test]
fn the_fill_list_names_only_mutants_whose_missing_cells_can_still_add_kills() {
    let mut f = Fixture::new();
    // a, b: killed by T0:1 (greedy's first input), a with missing cells past it: nothing to fill.
    // c: missed by the trials, witnessed by boundary n=257 (5), not run on the columns after it.
    // d: missed by the trials, witnessed by scaled x100 (3), run everywhere: nothing missing.
    let after_witness: Vec<usize> = (6..9).collect();
    f.substrate("L1p6_fill", &["a", "b", "c", "d"], &[&[0], &[0, 1], &[5], &[3]], &[&[2, 3, 4], &[], &after_witness, &[]], &[]);
    let s = synthesize(&f.store, &[], &options(&[1, 2])).unwrap();
    assert_eq!(s.fill.mutants, vec!["c".to_owned()], "a's missing cells are of a mutant the first input kills");
    assert_eq!(s.fill.cells, 3);
    assert_eq!(s.totals.missing_cells, 6, "a's three and c's three");
    assert!(s.warnings.iter().any(|w| w.contains("3 cells of 1 mutants can still add kills") && w.contains("--mutants-from")), "{:?}", s.warnings);
    // Forcing the protocol's inputs in first gives the same list here (both trials miss c).
    let mut o = options(&[1, 2]);
    o.with_official = true;
    assert_eq!(synthesize(&f.store, &[], &o).unwrap().fill.mutants, vec!["c".to_owned()]);
}

#[test]
fn assuming_every_missing_cell_kills_gives_upper_bounds_that_hold_the_known_rates() {
    let mut f = Fixture::new();
    // c is missed by the trials and witnessed by boundary n=257 (5), its cells after it missing;
    // e likewise by spiky x1000 (7). Known: no single generated input kills both.
    let after = |k: usize| -> Vec<usize> { (k + 1..9).collect() };
    let (c_missing, e_missing) = (after(5), after(7));
    f.substrate("L1p7_bound", &["a", "c", "e"], &[&[0], &[5], &[7]], &[&[], &c_missing, &e_missing], &[]);
    let known = synthesize(&f.store, &[], &options(&[1, 2])).unwrap();
    let mut o = options(&[1, 2]);
    o.optimistic = true;
    let bound = synthesize(&f.store, &[], &o).unwrap();
    assert!(bound.optimistic && bound.assumed_cells == 4 && bound.totals.missing_cells == 0);
    assert!(bound.warnings.iter().any(|w| w.contains("upper bound")), "{:?}", bound.warnings);
    for (k, b) in known.curve.iter().zip(&bound.curve) {
        assert!(b.full.detected.known >= k.full.detected.known, "a bound never falls below the known kills");
    }
    // Known, b = 2 takes the trial and one of c's or e's witnesses (2 of 3); assumed, e's
    // witness column (7) also kills c (c's missing cell there), so b = 2 reaches all three.
    assert_eq!(known.curve[1].full.detected.known, 2);
    assert_eq!(bound.curve[1].full.detected.known, 3);
}

#[test]
fn salted_splits_are_fixed_balanced_and_split_zero_is_the_held_out_columns_own() {
    let ids: Vec<String> = (0..200).map(|i| format!("{i:016x}")).collect();
    assert!(ids.iter().all(|id| Half::salted(id, 0) == Half::of(id)), "split 0 is the held-out column's split");
    for salt in 1..4 {
        let halves: Vec<Half> = ids.iter().map(|id| Half::salted(id, salt)).collect();
        assert_eq!(halves, ids.iter().map(|id| Half::salted(id, salt)).collect::<Vec<_>>(), "the same in every run");
        let dev = halves.iter().filter(|h| **h == Half::Dev).count();
        assert!((70..=130).contains(&dev), "split {salt}: about half, {dev} of 200");
        let moved = ids.iter().zip(&halves).filter(|(id, h)| Half::of(id) != **h).count();
        assert!((50..=150).contains(&moved), "split {salt} is not split 0 again: {moved} of 200 changed half");
    }
}

#[test]
fn cross_validation_reads_every_split_both_ways_and_its_first_fold_is_the_held_out_column() {
    let ids: Vec<String> = (0..40).map(|i| format!("cv{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    // Even mutants only by scaled x100 (3), odd ones only by spiky x100 (8); every fourth also
    // by the first official trial.
    let kills: Vec<Vec<usize>> = (0..40)
        .map(|i| if i % 2 == 0 { vec![3] } else { vec![8] })
        .map(|mut k| {
            k.push(0);
            k
        })
        .enumerate()
        .map(|(i, mut k)| {
            if i % 4 != 0 {
                k.pop();
            }
            k
        })
        .collect();
    let kill_refs: Vec<&[usize]> = kills.iter().map(Vec::as_slice).collect();
    let mut f = Fixture::new();
    f.substrate("L1p8_cv", &refs, &kill_refs, &[], &[]);
    let mut o = options(&[1, 2, 3]);
    o.splits = 3;
    let s = synthesize(&f.store, &[], &o).unwrap();
    assert_eq!(s.splits, 3);
    assert_eq!(s.cross_validated.iter().map(|c| c.budget).collect::<Vec<_>>(), [1, 2, 3]);
    for (cv, pt) in s.cross_validated.iter().zip(&s.curve) {
        assert_eq!(cv.folds.len(), 6, "three splits, each read both ways");
        assert_eq!(cv.pooled.total, 3 * 40, "each mutant held out once per split");
        assert_eq!(cv.folds[0], pt.held_out.rate, "fold 0 is split 0 chosen on dev, read on test: the held-out column");
        let (low, high) = cv.range().unwrap();
        assert!(low <= cv.rate().unwrap() && cv.rate().unwrap() <= high, "the pooled rate lies inside the folds' range");
    }
    // Two inputs cover both parities in every fold; one input covers about half.
    assert_eq!(s.cross_validated[1].rate(), Some(1.0));
    assert!(s.cross_validated[1].folds.iter().all(|r| *r == Some(1.0)));
    let one = s.cross_validated[0].rate().unwrap();
    assert!((0.4..=0.8).contains(&one), "b = 1: {one}");
    assert!(s.cross_validated[1].to_string().starts_with("100.0% (folds 100.0 to 100.0)"), "{}", s.cross_validated[1]);
    // Reproducible, and absent when not asked for.
    let again = synthesize(&f.store, &[], &o).unwrap();
    assert_eq!(serde_json::to_string(&s.cross_validated).unwrap(), serde_json::to_string(&again.cross_validated).unwrap());
    assert!(kmut_synth::svg(&s).unwrap().contains("held out, 3x2 cross-validated"), "the plot draws the pooled line");
    let without = synthesize(&f.store, &[], &options(&[1])).unwrap();
    assert!(without.cross_validated.is_empty());
    assert!(!kmut_synth::svg(&without).unwrap().contains("cross-validated"));
}

#[test]
fn cross_validation_counts_missing_cells_as_open_never_as_kills() {
    let mut f = Fixture::new();
    // c is missed by the official trials (0, 1), killed by boundary n=257 (5) and never run on
    // the other columns. Whenever c is held out, b = 2 takes the first trial and one more input
    // that is neither the second trial (which kills nothing) nor 5 (nothing on the choosing half
    // makes 5 worth a pick or its kind worth a weight): c is then open once per split.
    f.substrate("L1p9_cvmiss", &["a", "b", "c", "d"], &[&[0], &[0], &[5], &[3]], &[&[], &[], &[2, 3, 4, 6, 7, 8], &[]], &[]);
    let mut o = options(&[2]);
    o.splits = 2;
    let s = synthesize(&f.store, &[], &o).unwrap();
    let cv = &s.cross_validated[0];
    assert_eq!(cv.pooled.total, 2 * 4);
    assert_eq!(cv.pooled.possible - cv.pooled.known, 2, "c, once per split, is open, not killed");
    assert!(cv.to_string().contains(" to "), "an open rate is printed as a range: {cv}");
}

#[test]
fn a_restricted_problem_keeps_each_kept_mutants_cells_and_its_given_half() {
    let mut f = Fixture::new();
    // a: T0:1; b: scaled x100, missing on spiky x100; c: spiky x100.
    f.substrate("L1p10_cut", &["a", "b", "c"], &[&[0], &[3], &[8]], &[&[], &[8], &[]], &[]);
    let (problems, _) = kmut_synth::load(&f.store, &[], &options(&[1]).matrix).unwrap();
    let p = &problems[0];
    let at = |id: &str| p.mutants.iter().position(|m| m == id).unwrap();
    let cut = p.restrict(&[at("c"), at("b")], |id| if id == "c" { Half::Dev } else { Half::Test });
    assert_eq!(cut.mutants, ["c", "b"]);
    assert_eq!(cut.halves, [Half::Dev, Half::Test]);
    let column = |suite: &str| p.candidates.iter().position(|c| c.column.suite == suite).unwrap();
    let (scaled, spiky) = (column("W:scaled:100:small"), column("W:spiky:100:small"));
    assert!(cut.kills[spiky].get(0) && !cut.kills[spiky].get(1), "c's kill moved with c");
    assert!(cut.kills[scaled].get(1) && cut.unknown[spiky].get(1), "b's kill and its missing cell moved with b");
    assert_eq!(cut.kills[column("T0_original")].count(), 0, "a is gone, and its kill with it");
}
