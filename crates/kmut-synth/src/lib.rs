//! Suite synthesis (`docs/synth.md`): per problem, the fewest valid inputs that detect the most
//! witnessed mutants, chosen from the kill matrix in the store.
//!
//! * **Candidates** of a problem: the protocol's trial inputs, the substrate's own suites and
//!   every generated column the witness search's validity gate admitted (`matrix`).
//! * **Population**: its witnessed mutants, those some candidate kills, read with the rules of
//!   `kmut score --denominator witnessed`; what is left out is counted (`Counts`).
//! * **Choice**: greedy maximum coverage at each budget, ties to the earliest candidate, the
//!   protocol's inputs optionally forced in first; with `exact`, the integer-program optimum
//!   (`cover`).
//! * **Held-out**: mutants split in halves by a hash of their id (`split`); inputs are chosen on
//!   `dev` and detection is reported on `test`, so the gain is not measured on the mutants it
//!   was chosen for; repeated two-fold cross-validation over salted splits (`crossval`) says
//!   how far that one split's reading can stray.
//! * **Missing cells** (a first-kill run leaves most) never count as kills: every rate is
//!   reported as known kills, and as what the missing cells could add.

mod bits;
mod cover;
mod crossval;
mod export;
mod matrix;
mod plot;
mod prior;
mod split;

use std::time::{Duration, Instant};

use kmut_model::{Backend, Column};
use kmut_store::Store;
use serde::Serialize;

pub use bits::Bits;
pub use cover::{detect, exact, greedy, pad, Detection, Exact};
pub use crossval::{cross_validate, fold, CrossValidated};
pub use export::{protocol, ChosenInput, ExportedProtocol};
pub use matrix::{load, Candidate, Counts, MatrixOptions, Problem, Skipped, Source};
pub use plot::svg;
pub use prior::{kind, Prior};
pub use split::Half;

#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error("the integer program of {substrate} at budget {budget} failed: {message}")]
    Solver { substrate: String, budget: usize, message: String },
}

/// Which witnessed mutants the per-problem choice (and the export) is selected on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    /// Every witnessed mutant (the full pool).
    #[default]
    None,
    /// The dev half (the held-out estimate's choice).
    Dev,
    /// The test half (the mirror split: chosen on test, so dev is held out).
    Test,
}

impl Split {
    pub fn parse(text: &str) -> Result<Split, String> {
        match text {
            "none" => Ok(Split::None),
            "dev" => Ok(Split::Dev),
            "test" => Ok(Split::Test),
            other => Err(format!("unknown split `{other}`; known: dev, test, none")),
        }
    }

    fn half(self) -> Option<Half> {
        match self {
            Split::None => None,
            Split::Dev => Some(Half::Dev),
            Split::Test => Some(Half::Test),
        }
    }
}

/// The budgets of `kmut synth`'s curve (and the report's), inputs per problem: the published
/// curve's range.
pub const DEFAULT_BUDGETS: [usize; 6] = [1, 2, 3, 4, 5, 6];

#[derive(Debug, Clone)]
pub struct SynthOptions {
    pub matrix: MatrixOptions,
    /// Budgets of the curve, inputs per problem (beyond the protocol's with `with_official`).
    pub budgets: Vec<usize>,
    pub split: Split,
    /// The protocol's inputs are taken first; budgets count the inputs added to them.
    pub with_official: bool,
    /// Solve the integer program too, with this time limit per problem.
    pub exact: Option<Duration>,
    /// Count every missing cell as a kill: what a filled matrix could give at most (whether
    /// filling it can reach a goal), never a detection rate.
    pub optimistic: bool,
    /// Salted 50/50 splits of the cross-validated held-out rate, each read both ways (0: none).
    pub splits: u32,
}

/// The default number of salted splits (`SynthOptions::splits`): five splits read both ways,
/// the usual 5x2 cross-validation.
pub const DEFAULT_SPLITS: u32 = 5;

/// A detection rate over sampled witnessed mutants.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Rate {
    pub detected: Detection,
    /// Known kills over the mutants (`None` when there are none).
    pub rate: Option<f64>,
    /// Kills plus the mutants a missing cell of a chosen input could still kill.
    pub upper: Option<f64>,
    /// 95% interval: Wilson's at the low end of the known kills and the high end of the upper
    /// rate, treating the witnessed mutants as a simple random sample of the problems' mutants.
    pub interval: Option<(f64, f64)>,
}

impl Rate {
    fn of(d: Detection) -> Rate {
        if d.total == 0 {
            return Rate { detected: d, ..Rate::default() };
        }
        let n = d.total as f64;
        let (low, _) = wilson(d.known as f64 / n, n);
        let (_, high) = wilson(d.possible as f64 / n, n);
        Rate { detected: d, rate: Some(d.known as f64 / n), upper: Some(d.possible as f64 / n), interval: Some((low, high)) }
    }

    /// Whether missing cells leave the rate open.
    pub fn complete(&self) -> bool {
        self.detected.known == self.detected.possible
    }
}

/// Wilson's 95% score interval for a proportion `p` of `n`.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z: f64 = 1.959_964;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// One budget of the curve.
#[derive(Debug, Clone, Serialize)]
pub struct Point {
    pub budget: usize,
    /// Greedy, chosen and reported on every witnessed mutant.
    pub full: Rate,
    /// Greedy, chosen on the dev half, reported on the test half.
    pub held_out: Rate,
    pub exact_full: Option<Rate>,
    pub exact_held_out: Option<Rate>,
    /// Problems whose integer programs at this budget were all proven optimal (of those solved).
    pub exact_proven: Option<(usize, usize)>,
}

/// One input chosen for a problem.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Chosen {
    pub column: Column,
    pub source: Source,
    /// Of the selection's mutants, how many this input kills that the inputs before it do not.
    pub adds: usize,
}

/// What a problem's synthesised suite is, or why it has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// A suite was chosen and every cell it rests on was run.
    Chosen,
    /// A suite was chosen, but some mutants have no cell on a chosen input (`upper` > `rate`).
    Incomplete,
    /// No witnessed mutant: nothing to choose for (counts say why).
    NoWitnessed,
}

/// One problem's result.
#[derive(Debug, Clone, Serialize)]
pub struct ProblemReport {
    pub substrate: String,
    pub level: u8,
    pub path: String,
    pub status: Status,
    pub counts: Counts,
    pub candidates: usize,
    /// The protocol's own inputs, on every witnessed mutant.
    pub official: Detection,
    /// The shortest greedy (or, with `exact`, optimal) choice within the largest budget that
    /// detects as many of the selection's mutants as that budget can; the protocol's inputs first
    /// with `with_official`.
    pub chosen: Vec<Chosen>,
    /// What `chosen` detects on the selection's mutants.
    pub detection: Detection,
    /// Greedy inputs (beyond the protocol's with `with_official`) that kill every witnessed
    /// mutant of the selection.
    pub needed: Option<usize>,
    /// With `exact`: whether every integer program of this problem was proven optimal.
    pub exact_optimal: Option<bool>,
}

/// How many inputs the problems need to detect every witnessed mutant.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Needed {
    pub median: Option<f64>,
    pub max: Option<usize>,
    /// (inputs, problems needing that many).
    pub histogram: Vec<(usize, usize)>,
    /// Problems that need more than the largest budget.
    pub over_budget: Vec<String>,
}

/// A whole synthesis.
#[derive(Debug, Clone, Serialize)]
pub struct Synthesis {
    pub protocol: String,
    pub tolerance: f64,
    pub backend: Backend,
    pub split: Split,
    pub with_official: bool,
    pub exact: bool,
    /// Every missing cell counted as a kill (`SynthOptions::optimistic`): the rates are upper
    /// bounds, and the missing cells they assumed are `assumed_cells`.
    pub optimistic: bool,
    pub assumed_cells: usize,
    pub budgets: Vec<usize>,
    pub curve: Vec<Point>,
    /// Splits of the cross-validated held-out rate (`SynthOptions::splits`).
    pub splits: u32,
    /// Per budget, the held-out rate cross-validated over `splits` splits read both ways
    /// (empty with no splits).
    pub cross_validated: Vec<CrossValidated>,
    /// The protocol's own inputs: on every witnessed mutant, and on the test half.
    pub official_full: Rate,
    pub official_held_out: Rate,
    pub problems: Vec<ProblemReport>,
    pub skipped: Vec<Skipped>,
    pub totals: Counts,
    pub needed: Needed,
    pub fill: Fill,
    pub warnings: Vec<String>,
}

/// The missing cells that can still add kills: those of the witnessed mutants each problem's
/// first input (greedy's, on the full pool and on dev; with `--with-official`, the protocol's
/// inputs) does not kill. A cell of a mutant that input kills adds nothing at any budget, so
/// running these mutants on every candidate (`kmut run --suites witness --full-matrix
/// --mutants-from`) decides every choice beyond the first input.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Fill {
    /// The mutants, by problem order, then id order.
    pub mutants: Vec<String>,
    /// Their missing cells on candidate inputs.
    pub cells: usize,
}

/// One problem's greedy and exact choices at every budget up to the largest.
struct Choices {
    /// Greedy order after the forced inputs: on every mutant, on dev, and on the selection.
    full: Vec<usize>,
    dev: Vec<usize>,
    /// Exact choices at budgets 1..=max on every mutant and on dev (index b - 1).
    exact_full: Vec<Exact>,
    exact_dev: Vec<Exact>,
}

/// Synthesise suites for `substrates` (all in the store when empty).
pub fn synthesize(store: &Store, substrates: &[String], o: &SynthOptions) -> Result<Synthesis, SynthError> {
    let (mut problems, skipped) = load(store, substrates, &o.matrix)?;
    let assumed_cells = if o.optimistic { assume_kills(&mut problems) } else { 0 };
    let mut budgets = o.budgets.clone();
    budgets.sort_unstable();
    budgets.dedup();
    budgets.retain(|&b| b > 0);
    let max = budgets.last().copied().unwrap_or(0);
    let mut choices = Vec::new();
    for p in &problems {
        choices.push(choose(p, o, max)?);
    }
    // What a short choice is filled with (`pad`), learned once on the halves the choices were made on.
    let priors = Priors { all: Prior::learn(&problems, None), dev: Prior::learn(&problems, Some(Half::Dev)) };
    let curve = budgets.iter().map(|&b| point(&problems, &choices, &priors, o, b)).collect();
    let cross_validated = if o.splits > 0 { cross_validate(&problems, &budgets, o.splits, |p| forced(p, o)) } else { Vec::new() };
    let mut official_full = Detection::default();
    let mut official_test = Detection::default();
    let mut totals = Counts::default();
    let mut reports = Vec::new();
    for (p, c) in problems.iter().zip(&choices) {
        official_full += detect(p, &p.official, &p.mask(None));
        official_test += detect(p, &p.official, &p.mask(Some(Half::Test)));
        add_counts(&mut totals, &p.counts);
        reports.push(report(p, c, o, max));
    }
    let needed = needed(&reports, max);
    let fill = fill(&problems, &choices, o);
    let mut s = Synthesis {
        protocol: o.matrix.protocol.name.clone(),
        tolerance: o.matrix.tolerance,
        backend: o.matrix.backend,
        split: o.split,
        with_official: o.with_official,
        exact: o.exact.is_some(),
        optimistic: o.optimistic,
        assumed_cells,
        budgets,
        curve,
        splits: o.splits,
        cross_validated,
        official_full: Rate::of(official_full),
        official_held_out: Rate::of(official_test),
        problems: reports,
        skipped,
        totals,
        needed,
        fill,
        warnings: Vec::new(),
    };
    s.warnings = warnings(&s);
    Ok(s)
}

/// Every missing cell made a kill; returns how many there were.
fn assume_kills(problems: &mut [Problem]) -> usize {
    let mut n = 0;
    for p in problems.iter_mut() {
        for (k, u) in p.kills.iter_mut().zip(p.unknown.iter_mut()) {
            n += u.count();
            k.union_with(u);
            *u = Bits::new(u.len());
        }
        p.counts.missing_cells = 0;
    }
    n
}

fn forced(p: &Problem, o: &SynthOptions) -> Vec<usize> {
    if o.with_official {
        p.official.clone()
    } else {
        Vec::new()
    }
}

fn choose(p: &Problem, o: &SynthOptions, max: usize) -> Result<Choices, SynthError> {
    let forced = forced(p, o);
    let full = greedy(p, &p.mask(None), &forced, max);
    let dev = greedy(p, &p.mask(Some(Half::Dev)), &forced, max);
    let (mut exact_full, mut exact_dev) = (Vec::new(), Vec::new());
    if let Some(limit) = o.exact {
        let started = Instant::now();
        for (mask, order, out) in [(p.mask(None), &full, &mut exact_full), (p.mask(Some(Half::Dev)), &dev, &mut exact_dev)] {
            for b in 1..=max {
                let start = &order[..b.min(order.len())];
                let start_known = detect(p, &[&forced[..], start].concat(), &mask).known;
                let everything = detect(p, &(0..p.candidates.len()).collect::<Vec<_>>(), &mask).known;
                let prev: Option<&Exact> = out.last();
                let e = if start_known == everything {
                    // Greedy already kills everything that can be killed: nothing to improve.
                    Exact { picks: start.to_vec(), optimal: true }
                } else if prev.is_some_and(|e| e.optimal && detect(p, &[&forced[..], &e.picks].concat(), &mask).known == everything) {
                    prev.cloned().unwrap_or(Exact { picks: Vec::new(), optimal: true })
                } else if let Some(left) = limit.checked_sub(started.elapsed()).filter(|d| !d.is_zero()) {
                    exact(p, &mask, &forced, b, start, left).map_err(|e| SynthError::Solver {
                        substrate: p.substrate.clone(),
                        budget: b,
                        message: e.to_string(),
                    })?
                } else {
                    Exact { picks: start.to_vec(), optimal: false }
                };
                // The solver's choice is read back and checked: never worse than greedy.
                let e =
                    if detect(p, &[&forced[..], &e.picks].concat(), &mask).known < start_known { Exact { picks: start.to_vec(), optimal: false } } else { e };
                out.push(e);
            }
        }
    }
    Ok(Choices { full, dev, exact_full, exact_dev })
}

fn fill(problems: &[Problem], choices: &[Choices], o: &SynthOptions) -> Fill {
    let mut out = Fill::default();
    for (p, c) in problems.iter().zip(choices) {
        let firsts: Vec<Vec<usize>> =
            if o.with_official { vec![p.official.clone()] } else { [c.full.first(), c.dev.first()].into_iter().flatten().map(|&i| vec![i]).collect() };
        let mut open = Vec::new();
        for m in 0..p.mutants.len() {
            // Killed by every first input: nothing more to learn about this mutant.
            if !firsts.is_empty() && firsts.iter().all(|f| f.iter().any(|&i| p.kills[i].get(m))) {
                continue;
            }
            let missing = p.unknown.iter().filter(|u| u.get(m)).count();
            if missing > 0 {
                open.push(p.mutants[m].clone());
                out.cells += missing;
            }
        }
        open.sort();
        out.mutants.extend(open);
    }
    out
}

/// The padding priors of the full pool and of the dev half.
struct Priors {
    all: Prior,
    dev: Prior,
}

fn point(problems: &[Problem], choices: &[Choices], priors: &Priors, o: &SynthOptions, b: usize) -> Point {
    let (mut full, mut held_out, mut exact_full, mut exact_held_out) = Default::default();
    let mut proven = (0, 0);
    for (p, c) in problems.iter().zip(choices) {
        let forced = forced(p, o);
        let with = |picks: &[usize]| [&forced[..], picks].concat();
        let (all, dev, test) = (p.mask(None), p.mask(Some(Half::Dev)), p.mask(Some(Half::Test)));
        // A choice that stopped short of `b` inputs is filled up to it (`pad`: the protocol's
        // first input, then kinds that added kills in the other problems' same half), each on
        // the mutants it was chosen on: a dev half with no mutant still gets inputs for the test half.
        let full_picks = |picks: &[usize]| pad(p, &all, &forced, picks, b, &priors.all);
        let dev_picks = |picks: &[usize]| pad(p, &dev, &forced, picks, b, &priors.dev);
        full += detect(p, &with(&full_picks(&c.full[..b.min(c.full.len())])), &all);
        held_out += detect(p, &with(&dev_picks(&c.dev[..b.min(c.dev.len())])), &test);
        if let (Some(ef), Some(ed)) = (c.exact_full.get(b - 1), c.exact_dev.get(b - 1)) {
            exact_full += detect(p, &with(&full_picks(&ef.picks)), &all);
            exact_held_out += detect(p, &with(&dev_picks(&ed.picks)), &test);
            proven.0 += usize::from(ef.optimal && ed.optimal);
            proven.1 += 1;
        }
    }
    let exact = o.exact.is_some();
    Point {
        budget: b,
        full: Rate::of(full),
        held_out: Rate::of(held_out),
        exact_full: exact.then(|| Rate::of(exact_full)),
        exact_held_out: exact.then(|| Rate::of(exact_held_out)),
        exact_proven: exact.then_some(proven),
    }
}

fn report(p: &Problem, c: &Choices, o: &SynthOptions, max: usize) -> ProblemReport {
    let forced = forced(p, o);
    let mask = p.mask(o.split.half());
    // The selection's greedy order (and exact choices where they were solved on it).
    let order = match o.split {
        Split::None => c.full.clone(),
        Split::Dev => c.dev.clone(),
        Split::Test => greedy(p, &mask, &forced, max),
    };
    let exact = match o.split {
        Split::None => Some(&c.exact_full),
        Split::Dev => Some(&c.exact_dev),
        Split::Test => None,
    }
    .filter(|e| !e.is_empty());
    let known = |picks: &[usize]| detect(p, &[&forced[..], picks].concat(), &mask).known;
    let picks: Vec<usize> = if let Some(e) = exact {
        let best = e.iter().map(|x| known(&x.picks)).max().unwrap_or(0).max(known(&order));
        e.iter().map(|x| x.picks.clone()).chain([order.clone()]).find(|x| known(x) == best).unwrap_or_default()
    } else {
        let best = known(&order);
        (0..=order.len()).map(|k| order[..k].to_vec()).find(|x| known(x) == best).unwrap_or_default()
    };
    let all: Vec<usize> = [&forced[..], &picks].concat();
    let mut covered = Bits::new(p.mutants.len());
    let mut chosen = Vec::new();
    for &i in &all {
        let adds = p.kills[i].count_new(&mask, &covered);
        covered.union_with(&p.kills[i]);
        chosen.push(Chosen { column: p.candidates[i].column.clone(), source: p.candidates[i].source.clone(), adds });
    }
    let detection = detect(p, &all, &mask);
    let needed = (mask.count() > 0).then(|| greedy(p, &mask, &forced, p.candidates.len()).len());
    let status = if p.mutants.is_empty() {
        Status::NoWitnessed
    } else if detection.known < detection.possible {
        Status::Incomplete
    } else {
        Status::Chosen
    };
    ProblemReport {
        substrate: p.substrate.clone(),
        level: p.level,
        path: p.path.clone(),
        status,
        counts: p.counts.clone(),
        candidates: p.candidates.len(),
        official: detect(p, &p.official, &p.mask(None)),
        chosen: if status == Status::NoWitnessed { Vec::new() } else { chosen },
        detection,
        needed,
        exact_optimal: (!c.exact_full.is_empty()).then(|| c.exact_full.iter().chain(&c.exact_dev).all(|e| e.optimal)),
    }
}

fn needed(reports: &[ProblemReport], max: usize) -> Needed {
    let mut n: Vec<usize> = reports.iter().filter_map(|r| r.needed).collect();
    n.sort_unstable();
    let median = match n.len() {
        0 => None,
        len if len % 2 == 1 => Some(n[len / 2] as f64),
        len => Some((n[len / 2 - 1] + n[len / 2]) as f64 / 2.0),
    };
    let mut histogram: Vec<(usize, usize)> = Vec::new();
    for &k in &n {
        match histogram.last_mut() {
            Some((v, c)) if *v == k => *c += 1,
            _ => histogram.push((k, 1)),
        }
    }
    let over_budget = reports.iter().filter(|r| r.needed.is_some_and(|k| k > max)).map(|r| r.substrate.clone()).collect();
    Needed { median, max: n.last().copied(), histogram, over_budget }
}

fn add_counts(t: &mut Counts, c: &Counts) {
    t.live += c.live;
    t.witnessed += c.witnessed;
    t.possibly_equivalent += c.possibly_equivalent;
    t.undecided += c.undecided;
    t.protocol_undecided += c.protocol_undecided;
    t.not_run += c.not_run;
    t.invalid_columns += c.invalid_columns;
    t.unprepared_columns += c.unprepared_columns;
    t.missing_cells += c.missing_cells;
}

/// What the reader must know before the tables.
fn warnings(s: &Synthesis) -> Vec<String> {
    let mut out = Vec::new();
    if s.optimistic {
        out.push(format!(
            "optimistic: each of the {} missing cells is counted as a kill, so every rate below is an upper bound of what a filled matrix could give (`kmut run --suites witness --full-matrix`), not a detection rate",
            s.assumed_cells
        ));
    }
    let none: Vec<&str> = s.problems.iter().filter(|p| p.status == Status::NoWitnessed).map(|p| p.substrate.as_str()).collect();
    if !none.is_empty() {
        out.push(format!("{} problems have no witnessed mutant and get no inputs (not a 100% detection): {}", none.len(), none.join(", ")));
    }
    if s.totals.missing_cells > 0 {
        out.push(format!(
            "{} cells of witnessed mutants on candidate inputs were never run (a first-kill run stops each mutant at its first kill): choices use known kills only, and rates are shown with what the missing cells could add. Fill the matrix with `kmut run --suites witness --full-matrix` on the same sample (--sample/--seed of the witness search).",
            s.totals.missing_cells
        ));
        if s.fill.cells > 0 {
            out.push(format!(
                "of them, {} cells of {} mutants can still add kills (the other mutants' first input kills them): `kmut synth --fill-list FILE`, then `kmut run --suites witness --full-matrix --mutants-from FILE`, runs only those.",
                s.fill.cells,
                s.fill.mutants.len()
            ));
        }
    }
    if s.totals.undecided + s.totals.protocol_undecided > 0 {
        out.push(format!(
            "{} mutants have an incomplete witness search or protocol run and are left out of every rate (whether they are witnessed is unknown); run `kmut witness` to complete it.",
            s.totals.undecided + s.totals.protocol_undecided
        ));
    }
    if s.totals.undecided > 0 {
        // A search settles an easy mutant (the protocol kills it) at once and a hard one (only
        // some rare input kills it) last: a sample whose search stopped midway keeps its easy
        // mutants and leaves its hard ones out, and its rates read high (2026-12-06: a grown
        // sample's held-out b=2 read 95.5%, against 93.0% for the same rule scored on the
        // earlier, complete sample; `examples/grown.rs`).
        let share = s.totals.undecided as f64 / (s.totals.witnessed + s.totals.undecided) as f64;
        out.push(format!(
            "the {} undecided mutants are the protocol's misses that no input tried so far kills, the hardest to detect: every detection rate above reads high while they are left out. They are {:.1}% of the witnessed and undecided together; were every one witnessed and missed, each rate would be {:.1}% of what it reads.",
            s.totals.undecided,
            100.0 * share,
            100.0 * (1.0 - share)
        ));
    }
    if s.totals.unprepared_columns > 0 {
        out.push(format!("{} generated columns were never prepared (validity unknown) and are not candidates.", s.totals.unprepared_columns));
    }
    for k in &s.skipped {
        out.push(format!("{}: skipped, {}", k.substrate, k.reason));
    }
    if !s.needed.over_budget.is_empty() {
        out.push(format!(
            "{} problems need more inputs than the largest budget to detect every witnessed mutant: {}",
            s.needed.over_budget.len(),
            s.needed.over_budget.join(", ")
        ));
    }
    out
}
