//! The protocol audit: every checking protocol audited, scored side by side on the same
//! mutants, from the cells in the store (`docs/protocols.md`).
//!
//! * **The unified denominator**: live mutants that a witness exposes (`witness.rs`) and whose
//!   verdict is decided (killed or survived) under every protocol audited and every
//!   intermediate of the decomposition. A mutant undecided anywhere, timed out anywhere, or
//!   with an incomplete witness search is left out and counted; so is every mutant no valid
//!   input exposes (possibly equivalent).
//! * **Detection** under a protocol: a kill on a column where the original passes that
//!   protocol's comparison. Columns on which the original fails are the protocol's **false
//!   kills** (it rejects the correct kernel there), listed per problem and never counted as
//!   detection; columns its validity filter drops are listed apart.
//! * **Rates** are `1 - miss rate` from `kmut_score`'s stratified estimator over (substrate,
//!   family) strata, with its 95% intervals: exact when the whole population is settled.
//! * **Decomposition** of protocol P's gain over Q: `inputs` is P's columns judged at Q's
//!   tolerance minus Q; `tolerance` is P minus that intermediate. The two add up to the total
//!   by construction, in counts and in estimates (all share the same strata and weights).

mod judge;
mod report;
mod witness;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use kmut_model::{cpu_fidelity, Backend, Class, Column, CpuFidelity, Family, Protocol};
use kmut_score::{miss_rate, Stratum};
use kmut_store::{Evaluation, Store};
use serde::Serialize;

pub use judge::{ColumnStatus, Judge, Verdict};
pub use report::render;
pub use witness::{Search, Witness, WITNESS_TOLERANCE};

#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error("the store `{0}` holds no compiled substrate; run `kmut compile`, `kmut witness` and `kmut audit` first")]
    Empty(String),
    #[error("an audit needs at least one protocol")]
    NoProtocol,
}

/// What to audit.
#[derive(Debug, Clone)]
pub struct AuditOptions {
    pub protocols: Vec<Protocol>,
    pub backend: Backend,
    /// The protocol every other one's gain is decomposed against (an index into `protocols`).
    pub baseline: usize,
    /// Examples shown per family of the mutants every protocol misses.
    pub examples: usize,
}

/// One protocol's detection, overall and by group.
#[derive(Debug, Clone, Serialize)]
pub struct ProtocolRates {
    pub protocol: String,
    pub title: String,
    /// The comparison, in words (`atol = rtol = 1e-2`, per-problem absolute bounds, ...).
    pub comparison: String,
    pub overall: Rate,
    pub by_family: Vec<Rate>,
    pub by_level: Vec<Rate>,
    /// Columns on which the protocol rejects the original (false kills), and the problems.
    pub false_kill_columns: usize,
    pub false_kill_problems: usize,
    /// Columns the protocol's validity filter drops (or stored cells cannot judge).
    pub dropped_columns: usize,
    /// Unified mutants of problems on which this protocol has no deciding input (it rejects
    /// the original, or drops the input, on every one), and those problems. The protocol
    /// cannot tell them from the original: they count as missed in `overall`, and this says
    /// how much of the rate is the protocol failing the correct kernel rather than a mutant
    /// passing it.
    pub blind_mutants: usize,
    pub blind_problems: usize,
    /// Unified mutants this protocol detects and no other audited protocol does (with one
    /// protocol audited: all it detects).
    pub only_detected: usize,
    /// What of the protocol kmut does not reproduce (from its file).
    pub not_modelled: Vec<String>,
}

/// Detection in one group of the unified denominator.
#[derive(Debug, Clone, Serialize)]
pub struct Rate {
    pub group: String,
    /// Unified mutants in the group, and of them, detected.
    pub mutants: usize,
    pub detected: usize,
    /// The stratified estimate of the detection rate and its 95% interval (`None`: no mutant).
    pub rate: Option<f64>,
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Every live mutant of the group is settled: the rate is exact.
    pub exact: bool,
}

/// The columns on which one protocol rejects one problem's original.
#[derive(Debug, Clone, Serialize)]
pub struct FalseKill {
    pub protocol: String,
    pub substrate: String,
    pub columns: Vec<FalseKillColumn>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FalseKillColumn {
    pub suite: String,
    pub seed: u64,
    /// The original's `tau*` and `max |ref - out|` there (`None`: not finite).
    pub tau: Option<f64>,
    pub max_abs: Option<f64>,
}

/// Protocol `to`'s gain over `from`, split into inputs and tolerance.
#[derive(Debug, Clone, Serialize)]
pub struct Decomposition {
    pub from: String,
    pub to: String,
    /// Percentage points on the unified denominator (stratified estimates).
    pub total_points: f64,
    pub inputs_points: f64,
    pub tolerance_points: f64,
    /// The same in mutants.
    pub total: i64,
    pub inputs: i64,
    pub tolerance: i64,
}

/// A mutant every protocol misses and a witness exposes.
#[derive(Debug, Clone, Serialize)]
pub struct Example {
    pub mutant: String,
    pub substrate: String,
    pub rule: String,
    pub line: usize,
    /// The valid input that exposes it, and its `tau*` there (`None`: a crash).
    pub witness: String,
    pub tau: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct MissedGroup {
    pub family: String,
    pub mutants: usize,
    pub examples: Vec<Example>,
}

/// Where the live mutants went: the unified denominator and everything left out of it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Population {
    pub substrates: usize,
    pub live: usize,
    /// On the CPU backend: equivalent- and racy-on-CPU mutants, set apart as `kmut score` does.
    pub apart_on_cpu: usize,
    /// A valid input kills them.
    pub witnessed: usize,
    /// The witness search is complete and no valid input kills them.
    pub possibly_equivalent: usize,
    /// The witness search has not finished for them.
    pub search_incomplete: usize,
    /// Witnessed, but stopped by the watchdog under some protocol.
    pub timed_out: usize,
    /// Witnessed, but not yet run on every column some protocol needs.
    pub undecided: usize,
    pub unified: usize,
}

/// A whole audit.
#[derive(Debug, Clone, Serialize)]
pub struct Audit {
    pub backend: Backend,
    pub witness_tolerance: f64,
    pub population: Population,
    pub rates: Vec<ProtocolRates>,
    pub false_kills: Vec<FalseKill>,
    pub decompositions: Vec<Decomposition>,
    /// Unified mutants every audited protocol misses, by family.
    pub missed_by_all: usize,
    pub missed_by_family: Vec<MissedGroup>,
    pub warnings: Vec<String>,
}

/// A judge's name in the tallies: protocol `i` on its own, or `to`'s inputs at `from`'s bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Key {
    Protocol(usize),
    Intermediate { from: usize, to: usize },
}

/// Per group (overall, family, level) and judge: strata of the unified denominator.
#[derive(Default)]
struct Tally {
    /// (substrate, family) -> (population, excluded)
    strata: BTreeMap<(String, Family), (usize, usize)>,
    /// Unified mutants per stratum, and per judge those it misses.
    unified: BTreeMap<(String, Family), usize>,
    missed: HashMap<Key, BTreeMap<(String, Family), usize>>,
}

impl Tally {
    fn rate(&self, name: &str, key: Key) -> Rate {
        let missed = self.missed.get(&key);
        let strata: Vec<Stratum> = self
            .strata
            .iter()
            .map(|(h, &(population, excluded))| {
                let sampled = self.unified.get(h).copied().unwrap_or(0);
                let m = missed.and_then(|m| m.get(h)).copied().unwrap_or(0);
                Stratum { population, sampled, missed: m, excluded, undecided: 0 }
            })
            .collect();
        let mutants: usize = strata.iter().map(|s| s.sampled).sum();
        let detected = mutants - strata.iter().map(|s| s.missed).sum::<usize>();
        let est = miss_rate(&strata);
        Rate {
            group: name.to_owned(),
            mutants,
            detected,
            rate: est.map(|e| 1.0 - e.rate),
            low: est.map(|e| 1.0 - e.high),
            high: est.map(|e| 1.0 - e.low),
            exact: est.is_some_and(|e| e.exact),
        }
    }
}

struct Tables {
    overall: Tally,
    by_family: BTreeMap<Family, Tally>,
    by_level: BTreeMap<u8, Tally>,
}

impl Tables {
    fn each(&mut self, level: u8, family: Family, mut f: impl FnMut(&mut Tally)) {
        f(&mut self.overall);
        f(self.by_family.entry(family).or_default());
        f(self.by_level.entry(level).or_default());
    }
}

/// The judges of an audit: every protocol, then every intermediate of the decomposition.
fn keys(n: usize, baseline: usize) -> Vec<Key> {
    let mut keys: Vec<Key> = (0..n).map(Key::Protocol).collect();
    keys.extend((0..n).filter(|&to| to != baseline).map(|to| Key::Intermediate { from: baseline, to }));
    keys
}

/// What the substrates add up to, before the rates are estimated.
struct Acc {
    tables: Tables,
    population: Population,
    false_kills: Vec<FalseKill>,
    dropped: Vec<usize>,
    /// Per protocol: unified mutants and problems with no deciding input (`blind_mutants`).
    blind: Vec<(usize, usize)>,
    /// Per protocol: unified mutants it alone detects.
    only: Vec<usize>,
    missed_examples: BTreeMap<Family, Vec<Example>>,
    missed_count: BTreeMap<Family, usize>,
}

/// Audit `substrates` (all in the store when empty) under `options.protocols`.
pub fn audit(store: &Store, substrates: &[String], options: &AuditOptions) -> Result<Audit, AuditError> {
    let protocols = &options.protocols;
    if protocols.is_empty() {
        return Err(AuditError::NoProtocol);
    }
    let baseline = options.baseline.min(protocols.len() - 1);
    let keys = keys(protocols.len(), baseline);
    let mut acc = Acc {
        tables: Tables { overall: Tally::default(), by_family: BTreeMap::new(), by_level: BTreeMap::new() },
        population: Population::default(),
        false_kills: Vec::new(),
        dropped: vec![0; protocols.len()],
        blind: vec![(0, 0); protocols.len()],
        only: vec![0; protocols.len()],
        missed_examples: BTreeMap::new(),
        missed_count: BTreeMap::new(),
    };
    for d in store.substrates()?.into_iter().filter(|d| substrates.is_empty() || substrates.contains(&d.name)) {
        audit_substrate(store, &d, options, &keys, &mut acc)?;
    }
    let Acc { tables, population, false_kills, dropped, blind, only, mut missed_examples, missed_count } = acc;
    if population.substrates == 0 {
        return Err(AuditError::Empty(store.path().display().to_string()));
    }
    let rates = protocols
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let key = Key::Protocol(i);
            let mine: Vec<&FalseKill> = false_kills.iter().filter(|f| f.protocol == p.name).collect();
            ProtocolRates {
                protocol: p.name.clone(),
                title: p.title.clone(),
                comparison: comparison(p),
                overall: tables.overall.rate("all", key),
                by_family: tables.by_family.iter().map(|(f, t)| t.rate(f.name(), key)).collect(),
                by_level: tables.by_level.iter().map(|(l, t)| t.rate(&format!("level {l}"), key)).collect(),
                false_kill_columns: mine.iter().map(|f| f.columns.len()).sum(),
                false_kill_problems: mine.len(),
                dropped_columns: dropped[i],
                blind_mutants: blind[i].0,
                blind_problems: blind[i].1,
                only_detected: only[i],
                not_modelled: p.not_modelled.clone(),
            }
        })
        .collect();
    let decompositions = (0..protocols.len())
        .filter(|&to| to != baseline)
        .map(|to| decompose(&tables.overall, &protocols[baseline].name, &protocols[to].name, baseline, to))
        .collect();
    let warnings = warnings(&population, options.backend);
    Ok(Audit {
        backend: options.backend,
        witness_tolerance: WITNESS_TOLERANCE,
        population,
        rates,
        false_kills,
        decompositions,
        missed_by_all: missed_count.values().sum(),
        missed_by_family: missed_count
            .iter()
            .map(|(f, &n)| MissedGroup { family: f.name().to_owned(), mutants: n, examples: missed_examples.remove(f).unwrap_or_default() })
            .collect(),
        warnings,
    })
}

/// One substrate's cells as an audit reads them: the current original's baselines, the
/// witness search, and the current cells of each mutant.
struct View {
    target: String,
    originals: Vec<kmut_store::Baseline>,
    evals: Vec<Evaluation>,
    current: kmut_store::CurrentImages,
}

impl View {
    fn load(store: &Store, d: &kmut_model::SubstrateDescription, backend: Backend) -> Result<Option<View>, AuditError> {
        let Some(target) = store.targets(&d.name)?.into_iter().next() else { return Ok(None) };
        let on = backend.evaluation_target(&target);
        let current = store.current_images(d, &target, backend)?;
        let originals = store.baselines(&d.name, &on)?.into_iter().filter(|b| b.image.is_some() && b.image == current.original).collect();
        let evals = store.evaluations(&d.name, &on)?;
        Ok(Some(View { target, originals, evals, current }))
    }

    fn originals(&self) -> Vec<&kmut_store::Baseline> {
        self.originals.iter().collect()
    }

    /// Each mutant's cells of its current image.
    fn cells(&self) -> HashMap<&str, Vec<&Evaluation>> {
        let mut cells: HashMap<&str, Vec<&Evaluation>> = HashMap::new();
        for e in &self.evals {
            if self.current.mutants.get(&e.mutant) == Some(&e.image) {
                cells.entry(e.mutant.as_str()).or_default().push(e);
            }
        }
        cells
    }
}

/// The judges of an audit for one substrate: every protocol, then each intermediate.
fn judges(options: &AuditOptions, keys: &[Key], d: &kmut_model::SubstrateDescription) -> Vec<(Key, Judge)> {
    let protocols = &options.protocols;
    keys.iter()
        .map(|&k| {
            let (inputs, comparison) = match k {
                Key::Protocol(i) => (&protocols[i], &protocols[i]),
                Key::Intermediate { from, to } => (&protocols[to], &protocols[from]),
            };
            (k, Judge::new(inputs, comparison, d, options.backend))
        })
        .collect()
}

/// Protocol `i`'s dropped columns and false kills on one substrate.
fn note_columns(acc: &mut Acc, i: usize, protocol: &str, substrate: &str, j: &Judge, st: &[ColumnStatus]) {
    acc.dropped[i] += st.iter().filter(|s| **s == ColumnStatus::Dropped).count();
    let columns: Vec<FalseKillColumn> = j
        .columns
        .iter()
        .zip(st)
        .filter_map(|(c, s)| match s {
            ColumnStatus::FalseKill { tau, max_abs } => Some(FalseKillColumn { suite: c.suite.clone(), seed: c.seed, tau: *tau, max_abs: *max_abs }),
            _ => None,
        })
        .collect();
    if !columns.is_empty() {
        acc.false_kills.push(FalseKill { protocol: protocol.to_owned(), substrate: substrate.to_owned(), columns });
    }
}

/// One substrate's share: its false kills and dropped columns per protocol, and each live
/// mutant's place in (or out of) the unified denominator.
fn audit_substrate(store: &Store, d: &kmut_model::SubstrateDescription, options: &AuditOptions, keys: &[Key], acc: &mut Acc) -> Result<(), AuditError> {
    let (protocols, backend) = (&options.protocols, options.backend);
    let Some(view) = View::load(store, d, backend)? else { return Ok(()) };
    acc.population.substrates += 1;
    let originals = view.originals();
    let search = Search::of(d, &originals, backend);
    let judges = judges(options, keys, d);
    let statuses: Vec<Vec<ColumnStatus>> = judges.iter().map(|(_, j)| j.statuses(&originals)).collect();
    // A protocol with columns here, every one of which rejects the original or is dropped.
    let blind: Vec<bool> = statuses[..protocols.len()]
        .iter()
        .map(|st| !st.is_empty() && st.iter().all(|s| matches!(s, ColumnStatus::FalseKill { .. } | ColumnStatus::Dropped)))
        .collect();
    let mut blind_here = vec![0usize; protocols.len()];
    for (i, p) in protocols.iter().enumerate() {
        note_columns(acc, i, &p.name, &d.name, &judges[i].1, &statuses[i]);
    }
    let classes = store.classes(&d.name, &view.target)?;
    let cells = view.cells();
    for m in store.mutants(&d.name)? {
        if classes.get(&m.id).map(|c| c.class) != Some(Class::Live) {
            continue;
        }
        acc.population.live += 1;
        if backend == Backend::Cpu && cpu_fidelity(m.family, &m.rule) != CpuFidelity::Comparable {
            acc.population.apart_on_cpu += 1;
            continue;
        }
        let h = (d.name.clone(), m.family);
        let tables = &mut acc.tables;
        tables.each(d.level, m.family, |t| t.strata.entry(h.clone()).or_default().0 += 1);
        let mine = cells.get(m.id.as_str()).map(Vec::as_slice).unwrap_or_default();
        let (column, tau) = match search.witness(mine) {
            Witness::By { column, tau } => (column, tau),
            Witness::None => {
                acc.population.possibly_equivalent += 1;
                tables.each(d.level, m.family, |t| t.strata.entry(h.clone()).or_default().1 += 1);
                continue;
            }
            Witness::Incomplete => {
                acc.population.search_incomplete += 1;
                continue;
            }
        };
        acc.population.witnessed += 1;
        let verdicts: Vec<Verdict> = judges.iter().zip(&statuses).map(|((_, j), st)| j.verdict(st, mine)).collect();
        if verdicts.contains(&Verdict::TimedOut) {
            // Outside the denominator, as `kmut score` keeps timeouts.
            acc.population.timed_out += 1;
            tables.each(d.level, m.family, |t| t.strata.entry(h.clone()).or_default().1 += 1);
            continue;
        }
        if !verdicts.iter().all(|v| v.decided()) {
            acc.population.undecided += 1;
            continue;
        }
        acc.population.unified += 1;
        for (i, b) in blind.iter().enumerate() {
            blind_here[i] += usize::from(*b);
        }
        tables.each(d.level, m.family, |t| {
            *t.unified.entry(h.clone()).or_default() += 1;
            for ((k, _), v) in judges.iter().zip(&verdicts) {
                if *v == Verdict::Survived {
                    *t.missed.entry(*k).or_default().entry(h.clone()).or_default() += 1;
                }
            }
        });
        let detectors: Vec<usize> = (0..protocols.len()).filter(|&i| verdicts[i] == Verdict::Killed).collect();
        if let [alone] = detectors[..] {
            acc.only[alone] += 1;
        }
        if verdicts[..protocols.len()].iter().all(|v| *v == Verdict::Survived) {
            *acc.missed_count.entry(m.family).or_default() += 1;
            let ex = acc.missed_examples.entry(m.family).or_default();
            if ex.len() < options.examples {
                ex.push(Example {
                    mutant: m.id.clone(),
                    substrate: d.name.clone(),
                    rule: m.rule.clone(),
                    line: m.line,
                    witness: format!("{}:{}", column.suite, column.seed),
                    tau,
                });
            }
        }
    }
    for (i, n) in blind_here.into_iter().enumerate() {
        if n > 0 {
            acc.blind[i].0 += n;
            acc.blind[i].1 += 1;
        }
    }
    Ok(())
}

fn decompose(overall: &Tally, from_name: &str, to_name: &str, from: usize, to: usize) -> Decomposition {
    let base = overall.rate("", Key::Protocol(from));
    let mid = overall.rate("", Key::Intermediate { from, to });
    let top = overall.rate("", Key::Protocol(to));
    let points = |hi: &Rate, lo: &Rate| match (hi.rate, lo.rate) {
        (Some(x), Some(y)) => 100.0 * (x - y),
        _ => 0.0,
    };
    let count = |r: &Rate| r.detected as i64;
    Decomposition {
        from: from_name.to_owned(),
        to: to_name.to_owned(),
        total_points: points(&top, &base),
        inputs_points: points(&mid, &base),
        tolerance_points: points(&top, &mid),
        total: count(&top) - count(&base),
        inputs: count(&mid) - count(&base),
        tolerance: count(&top) - count(&mid),
    }
}

/// A protocol's comparison in a few words.
fn comparison(p: &Protocol) -> String {
    let b = p.tolerance.fp32;
    let mut s = if b.rtol == 0.0 { format!("|ref - out| <= {:e}", b.atol) } else { format!("atol = rtol = {:e}", b.atol) };
    if !p.tolerance.per_problem.is_empty() {
        let _ = write!(s, " ({} per-problem bounds)", p.tolerance.per_problem.len());
    }
    if p.tolerance.equal_nan {
        s.push_str(", equal_nan");
    }
    s
}

fn warnings(p: &Population, backend: Backend) -> Vec<String> {
    let mut out = Vec::new();
    if p.search_incomplete > 0 {
        out.push(format!(
            "{} live mutants have an incomplete witness search and are outside the unified denominator; run `kmut witness` over them first",
            p.search_incomplete
        ));
    }
    if p.undecided > 0 {
        out.push(format!("{} witnessed mutants are not yet decided under every protocol (columns not run: a budget or an interrupted audit); run the same `kmut audit` again to resume", p.undecided));
    }
    if backend == Backend::Cpu {
        out.push(
            "CPU backend: the inputs are the small suites and generated columns at small sizes, not the protocols' official sizes (docs/cpu-backend.md)"
                .to_owned(),
        );
    }
    out
}

/// The tolerance judge `judge`'s run stops a mutant at: the loosest `tau*` bound of its
/// comparison over every problem, so a first kill on one of its deciding columns is a kill
/// under it (for an absolute bound too: `tau* <= max |ref - out|`).
pub fn judge_tolerance(options: &AuditOptions, judge: usize) -> f64 {
    let keys = keys(options.protocols.len(), options.baseline.min(options.protocols.len().saturating_sub(1)));
    match keys.get(judge) {
        Some(Key::Protocol(i)) => options.protocols[*i].loosest_tau(),
        Some(Key::Intermediate { from, .. }) => options.protocols[*from].loosest_tau(),
        None => 0.0,
    }
}

/// The columns an audit needs of `desc` on `backend`: every audited protocol's, each once, in
/// the order of the protocols.
pub fn columns(protocols: &[Protocol], desc: &kmut_model::SubstrateDescription, backend: Backend) -> Vec<Column> {
    let mut out: Vec<Column> = Vec::new();
    for p in protocols {
        for c in p.own_columns(desc, backend) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out
}

/// How many judges an audit has: each protocol, then each intermediate of the decomposition.
pub fn judge_count(options: &AuditOptions) -> usize {
    keys(options.protocols.len(), options.baseline.min(options.protocols.len().saturating_sub(1))).len()
}

/// What judge `judge` still needs of `desc`: the columns that decide under it (the original
/// passes there, or has not run there yet) and the witnessed mutants still undecided under it.
/// Run them with first kill at `judge_tolerance`: a kill there is a kill under the judge.
#[derive(Debug, Clone, Default)]
pub struct Need {
    /// The judge, in words: a protocol's name, or `P@Q` (P's inputs at Q's tolerance).
    pub judge: String,
    pub columns: Vec<Column>,
    pub mutants: std::collections::HashSet<String>,
    /// The judge's bound for this problem: a column on which the original fails it is a false
    /// kill, so the run evaluates no mutant there once its preparation shows that.
    pub bound: Option<kmut_model::Bound>,
}

pub fn needs(store: &Store, desc: &kmut_model::SubstrateDescription, options: &AuditOptions, judge: usize) -> Result<Need, AuditError> {
    let keys = keys(options.protocols.len(), options.baseline.min(options.protocols.len().saturating_sub(1)));
    let Some(&key) = keys.get(judge) else { return Ok(Need::default()) };
    let label = match key {
        Key::Protocol(i) => options.protocols[i].name.clone(),
        Key::Intermediate { from, to } => format!("{}@{}", options.protocols[to].name, options.protocols[from].name),
    };
    let Some(view) = View::load(store, desc, options.backend)? else { return Ok(Need { judge: label, ..Need::default() }) };
    let originals = view.originals();
    let search = Search::of(desc, &originals, options.backend);
    let (_, j) = judges(options, &[key], desc).remove(0);
    let statuses = j.statuses(&originals);
    let columns =
        j.columns.iter().zip(&statuses).filter(|(_, s)| matches!(s, ColumnStatus::Decisive | ColumnStatus::Missing)).map(|(c, _)| c.clone()).collect();
    let classes = store.classes(&desc.name, &view.target)?;
    let cells = view.cells();
    let mut mutants = std::collections::HashSet::new();
    for m in store.mutants(&desc.name)? {
        if classes.get(&m.id).map(|c| c.class) != Some(Class::Live)
            || options.backend == Backend::Cpu && cpu_fidelity(m.family, &m.rule) != CpuFidelity::Comparable
        {
            continue;
        }
        let mine = cells.get(m.id.as_str()).map(Vec::as_slice).unwrap_or_default();
        // A cell on a column with no baseline (a `kmut run` that deferred the column's original
        // and never ran it): whether this judge's tolerance rejects the original there is
        // unknown, so the mutant runs there again, with the original measured first.
        let unmeasured =
            mine.iter().any(|e| j.columns.iter().zip(&statuses).any(|(c, s)| *s == ColumnStatus::Missing && c.suite == e.suite && c.seed == e.seed));
        if matches!(search.witness(mine), Witness::By { .. }) && (unmeasured || j.verdict(&statuses, mine) == Verdict::Undecided) {
            mutants.insert(m.id.clone());
        }
    }
    Ok(Need { judge: label, columns, mutants, bound: Some(j.bound) })
}

/// The ids of `desc`'s live mutants that a valid input is known to expose: the only ones an
/// audit runs (the others cannot enter its denominator).
pub fn witnessed(store: &Store, desc: &kmut_model::SubstrateDescription, backend: Backend) -> Result<std::collections::HashSet<String>, AuditError> {
    let Some(view) = View::load(store, desc, backend)? else { return Ok(std::collections::HashSet::new()) };
    let search = Search::of(desc, &view.originals(), backend);
    Ok(view.cells().into_iter().filter(|(_, c)| matches!(search.witness(c), Witness::By { .. })).map(|(id, _)| id.to_owned()).collect())
}
