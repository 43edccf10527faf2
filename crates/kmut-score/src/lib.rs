//! Scoring: the verdict of every live mutant under a checking protocol, from the evaluations in
//! the store, and miss rates overall and by family, level and substrate.
//!
//! Nothing runs here. What a score counts, and what it leaves out (`docs/scoring.md`):
//!
//! * **Current cells only.** A cell counts when it is of the mutant's current image (and its
//!   column's baseline of the current original): cells of images a substrate or compiler
//!   change left behind are counted as stale, never scored.
//! * **Decisive columns.** A column on which the original itself fails the comparison at the
//!   scoring tolerance decides nothing for its substrate and is left out of every verdict.
//! * **Verdicts from the columns a mutant was run on.** A kill on any decisive column decides
//!   (by value, or a crash); a mutant survives only when every decisive column was run and none
//!   kills. Run on some and killed by none, it is *undecided* (a first-kill run at a tighter
//!   tolerance, or `--suites all` after an official run); on none, *not run*. Neither is
//!   dropped silently: both have columns of their own, and undecided mutants widen the interval.
//! * **Timeouts** (the watchdog's stop) are their own column and outside the miss rate's
//!   denominator by default, since the audited protocols' whole-evaluation limits would not
//!   fail a merely slow kernel; `TimeoutPolicy::Kill` counts them as kills.

mod agreement;
mod estimate;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use kmut_model::{cpu_fidelity, Backend, ClassCounts, Column, CpuFidelity, Family, Inputs, Mutant, Outcome, Protocol, CPU_TARGET};
use kmut_store::{Baseline, Evaluation, Store};
use serde::Serialize;

pub use agreement::{agreement, Agreement, AgreementRow};
pub use estimate::{miss_rate, wilson, Estimate, Stratum};

#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error("the store `{0}` holds no compiled substrate; run `kmut compile` and `kmut run` first")]
    Empty(String),
}

/// How the watchdog's stops count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeoutPolicy {
    /// Their own column, outside the miss rate's denominator.
    #[default]
    Exclude,
    /// As kills (a protocol with a per-evaluation limit as short as kmut's watchdog).
    Kill,
}

impl TimeoutPolicy {
    /// `exclude` or `kill`, as `--timeouts` spells them.
    pub fn parse(text: &str) -> Result<TimeoutPolicy, String> {
        match text {
            "exclude" => Ok(TimeoutPolicy::Exclude),
            "kill" => Ok(TimeoutPolicy::Kill),
            other => Err(format!("unknown timeout policy `{other}`; known: exclude, kill")),
        }
    }
}

/// How a kill was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Kill {
    /// The output fails the comparison (or its shape differs).
    Value,
    /// A launch failed: the CUDA error class, `launch:<exception>`, `worker_died`, `memory_fault`.
    Crash(String),
    /// The watchdog stopped it, under `TimeoutPolicy::Kill`.
    Timeout,
}

/// What a miss rate is over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Denominator {
    /// Witnessed mutants once a witness search has run (the store holds generated columns), else live.
    #[default]
    Auto,
    /// Every live mutant: a mutant no input can tell from the original counts as a miss.
    Live,
    /// Witnessed mutants only: those some valid input kills (`kmut witness`); a survivor no
    /// valid input kills after a complete search is `possibly equivalent`, outside the rate.
    Witnessed,
}

impl Denominator {
    /// `auto`, `live` or `witnessed`, as `--denominator` spells them.
    pub fn parse(text: &str) -> Result<Denominator, String> {
        match text {
            "auto" => Ok(Denominator::Auto),
            "live" => Ok(Denominator::Live),
            "witnessed" => Ok(Denominator::Witnessed),
            other => Err(format!("unknown denominator `{other}`; known: auto, live, witnessed")),
        }
    }
}

/// How a live mutant fared under a scoring.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Killed(Kill),
    /// Every decisive column was run and passes: the protocol misses this fault.
    Survived,
    /// Not killed otherwise, and the watchdog stopped it on some column (`TimeoutPolicy::Exclude`).
    TimedOut,
    /// Run on some decisive columns, killed by none, not run on the others.
    Undecided,
    /// No current cell on any decisive column.
    NotRun,
    /// Witnessed scoring: the protocol misses it, and a complete witness search found no valid
    /// input that kills it either: perhaps no input can tell it from the original.
    PossiblyEquivalent,
}

/// The verdict of one mutant from its current cells, on the `decisive` columns in order.
pub fn verdict(cells: &[&Evaluation], decisive: &[Column], tolerance: f64, timeouts: TimeoutPolicy) -> Verdict {
    let mut run = 0;
    let mut timed_out = false;
    for c in decisive {
        let Some(e) = cells.iter().find(|e| e.suite == c.suite && e.seed == c.seed) else { continue };
        run += 1;
        match e.outcome {
            Outcome::Timeout if timeouts == TimeoutPolicy::Kill => return Verdict::Killed(Kill::Timeout),
            Outcome::Timeout => timed_out = true,
            Outcome::Crash => return Verdict::Killed(Kill::Crash(e.crash.clone().unwrap_or_default())),
            Outcome::Completed if e.kills_at(tolerance) => return Verdict::Killed(Kill::Value),
            Outcome::Completed => {}
        }
    }
    if timed_out {
        Verdict::TimedOut
    } else if run == decisive.len() {
        Verdict::Survived
    } else if run == 0 {
        Verdict::NotRun
    } else {
        Verdict::Undecided
    }
}

/// The counts of one group of mutants.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Group {
    pub name: String,
    pub live: usize,
    /// Live mutants with a settled verdict (killed or survived).
    pub evaluated: usize,
    pub killed: usize,
    pub survived: usize,
    /// Of the killed, by a crash.
    pub crashes: usize,
    /// Stopped by the watchdog: counted apart (`TimeoutPolicy::Exclude`) or among the killed.
    pub timeouts: usize,
    /// Run on some scored inputs, killed by none, missing the others.
    pub undecided: usize,
    /// No current cell on any scored input (outside the sample, set aside, or every input of
    /// the substrate failing its original).
    pub not_run: usize,
    /// Survivors that wrote out of bounds (a canary was hit): a latent bug the protocol misses.
    pub survived_out_of_bounds: usize,
    /// Witnessed scoring: survivors no valid input of a complete search kills (outside the rate).
    pub possibly_equivalent: usize,
    pub miss: Option<Estimate>,
    /// The miss rate of the settled sample itself, unweighted (`SampleRate`): what a campaign's
    /// mutants say before they are weighted to the corpus.
    pub sample: Option<SampleRate>,
    #[serde(skip)]
    strata: BTreeMap<(String, Family), Stratum>,
}

/// Survived over settled among the mutants of a group that have a settled verdict, with its 95%
/// Wilson interval: no weighting to the corpus (that is `Group::miss`), undecided, timed-out and
/// possibly-equivalent mutants left out (their counts are beside it).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SampleRate {
    pub rate: f64,
    pub low: f64,
    pub high: f64,
    /// Settled mutants it is over.
    pub settled: usize,
}

impl SampleRate {
    /// `None` for a group with no settled mutant.
    #[must_use]
    pub fn of(survived: usize, settled: usize) -> Option<SampleRate> {
        (settled > 0).then(|| {
            let rate = survived as f64 / settled as f64;
            let (low, high) = wilson(rate, settled as f64);
            // Rounding can leave an end a hair past the point (0.99999... at 10 of 10).
            SampleRate { rate, low: low.min(rate), high: high.max(rate), settled }
        })
    }
}

impl Group {
    pub fn named(name: impl Into<String>) -> Group {
        Group { name: name.into(), ..Group::default() }
    }

    /// Count one live mutant's verdict in the group (its stratum: substrate and family).
    pub fn add(&mut self, substrate: &str, family: Family, verdict: &Verdict, canary: bool) {
        self.live += 1;
        let s = self.strata.entry((substrate.to_owned(), family)).or_default();
        s.population += 1;
        match verdict {
            Verdict::Survived => {
                self.evaluated += 1;
                self.survived += 1;
                s.sampled += 1;
                s.missed += 1;
                self.survived_out_of_bounds += usize::from(canary);
            }
            Verdict::Killed(kill) => {
                self.evaluated += 1;
                self.killed += 1;
                s.sampled += 1;
                self.crashes += usize::from(matches!(kill, Kill::Crash(_)));
                self.timeouts += usize::from(*kill == Kill::Timeout);
            }
            Verdict::TimedOut => {
                self.timeouts += 1;
                s.excluded += 1;
            }
            Verdict::Undecided => {
                self.undecided += 1;
                s.undecided += 1;
            }
            Verdict::NotRun => self.not_run += 1,
            Verdict::PossiblyEquivalent => {
                self.possibly_equivalent += 1;
                s.excluded += 1;
            }
        }
    }

    /// Compute the group's miss-rate estimate from what was added.
    pub fn finish(&mut self) {
        let strata: Vec<Stratum> = self.strata.values().copied().collect();
        self.miss = miss_rate(&strata);
        self.sample = SampleRate::of(self.survived, self.evaluated);
    }
}

/// A column left out of a substrate's verdicts: the original itself fails it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OriginalFailure {
    pub substrate: String,
    pub suite: String,
    pub seed: u64,
    /// The original's tau\* on it (`None`: its run crashed).
    pub tau: Option<f64>,
}

/// One live mutant's verdict, as the tables counted it (for reports that list mutants).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MutantVerdict {
    pub substrate: String,
    pub mutant: String,
    pub family: Family,
    pub verdict: Verdict,
    /// The valid input that witnessed a survivor under the witnessed denominator (its first
    /// killing column, in search order); `None` otherwise.
    pub witness: Option<Column>,
    /// A canary was hit on a decisive column: the mutant wrote out of bounds.
    pub out_of_bounds: bool,
    /// CPU backend: whether the mutant was counted in the main tables (`Comparable`) or apart.
    pub fidelity: CpuFidelity,
}

impl MutantVerdict {
    fn of(substrate: &str, m: &Mutant, verdict: Verdict, witness: Option<Column>, out_of_bounds: bool, backend: Backend) -> MutantVerdict {
        let fidelity = if backend == Backend::Cpu { cpu_fidelity(m.family, &m.rule) } else { CpuFidelity::Comparable };
        MutantVerdict { substrate: substrate.to_owned(), mutant: m.id.clone(), family: m.family, verdict, witness, out_of_bounds, fidelity }
    }
}

/// A whole score.
#[derive(Debug, Clone, Serialize)]
pub struct Score {
    pub protocol: String,
    pub title: String,
    pub tolerance: f64,
    /// The input columns scored (the CPU backend's are always the small suites).
    pub inputs: Inputs,
    pub timeouts: TimeoutPolicy,
    /// What the rates are over (never `Auto`: the one resolved).
    pub denominator: Denominator,
    pub substrates: usize,
    /// The current mutants of the scored substrates, by compile class.
    pub classes: ClassCounts,
    pub backends: Vec<String>,
    /// Whose evaluations: a GPU's on the protocol's inputs, or the CPU backend's on the small suites.
    pub backend: Backend,
    /// CPU backend: fast-math mutants that are the original on the CPU (not run, not counted
    /// as live below).
    pub equivalent_on_cpu: usize,
    /// CPU backend: synchronisation and warp mutants, run in several thread orders and kept
    /// out of the tables above (which stay comparable with a GPU's).
    pub racy_on_cpu: Option<Group>,
    /// Racy-on-CPU mutants killed in any thread order: each kill is recorded as a race witness
    /// (evidence of a race on the CPU's schedule, not a GPU-comparable verdict).
    pub race_witnesses: usize,
    /// ... of which killed in some orders and not others: the verdict depends on the schedule.
    pub order_dependent: usize,
    /// Some live mutant has no settled verdict: the rates are estimates from a sample.
    pub sampled: bool,
    pub overall: Group,
    pub by_family: Vec<Group>,
    pub by_level: Vec<Group>,
    pub by_substrate: Vec<Group>,
    /// Columns left out of their substrate's verdicts because the original fails them.
    pub original_failures: Vec<OriginalFailure>,
    /// Stored evaluations not scored because they are of an earlier image (or of a mutant the
    /// current source no longer generates).
    pub stale_evaluations: usize,
    /// Things the reader must know before trusting the tables (undecided mutants, ...).
    pub warnings: Vec<String>,
    /// Every live mutant's verdict, in substrate and id order (not in `--json`: the tables are);
    /// what reports and later analyses (`kmut depth`) group in their own ways. On the CPU
    /// backend racy-on-CPU mutants are here too, marked by `fidelity`.
    #[serde(skip)]
    pub verdicts: Vec<MutantVerdict>,
}

/// What to score: the protocol's columns (or `inputs`) at `tolerance`, from `backend`'s cells.
#[derive(Debug, Clone)]
pub struct ScoreOptions {
    pub protocol: Protocol,
    pub tolerance: f64,
    pub inputs: Inputs,
    pub backend: Backend,
    pub timeouts: TimeoutPolicy,
    pub denominator: Denominator,
}

impl ScoreOptions {
    /// The protocol at its own tolerance, on its own inputs, timeouts excluded, over witnessed
    /// mutants where a witness search has run.
    pub fn of(protocol: &Protocol, backend: Backend) -> ScoreOptions {
        ScoreOptions {
            protocol: protocol.clone(),
            tolerance: protocol.tolerance(),
            inputs: Inputs::Protocol,
            backend,
            timeouts: TimeoutPolicy::Exclude,
            denominator: Denominator::Auto,
        }
    }
}

/// CPU backend: the mutants whose CPU verdict does not stand for a GPU's, counted apart.
struct CpuApart {
    equivalent: usize,
    racy: Group,
    witnesses: usize,
    order_dependent: usize,
}

impl Default for CpuApart {
    fn default() -> CpuApart {
        CpuApart { equivalent: 0, racy: Group::named("racy-on-CPU"), witnesses: 0, order_dependent: 0 }
    }
}

impl CpuApart {
    /// Count `m` here if it is equivalent- or racy-on-CPU; `false` leaves it to the main tables.
    fn take(&mut self, substrate: &str, m: &Mutant, v: &Verdict, canary: bool, cells: &[&Evaluation], tolerance: f64) -> bool {
        match cpu_fidelity(m.family, &m.rule) {
            CpuFidelity::EquivalentOnCpu => self.equivalent += 1,
            CpuFidelity::RacyOnCpu => {
                self.racy.add(substrate, m.family, v, canary);
                self.witnesses += usize::from(matches!(v, Verdict::Killed(_)));
                self.order_dependent += usize::from(cells.iter().any(|e| e.order_dependent(tolerance)));
            }
            CpuFidelity::Comparable => return false,
        }
        true
    }
}

/// The backend whose evaluations `kmut score` reads by default: a GPU's when the store has
/// any, else the CPU backend's (also for a store with none yet).
pub fn default_backend(store: &Store) -> Result<Backend, ScoreError> {
    let targets = store.evaluation_targets()?;
    Ok(if targets.iter().any(|t| t != CPU_TARGET) || targets.is_empty() { Backend::Gpu } else { Backend::Cpu })
}

/// Every group a mutant is counted in.
struct Tables {
    overall: Group,
    by_family: BTreeMap<Family, Group>,
    by_level: BTreeMap<u8, Group>,
}

impl Tables {
    fn add(&mut self, level: u8, substrate: &str, m: &kmut_model::Mutant, v: &Verdict, canary: bool) {
        let family = m.family;
        self.overall.add(substrate, family, v, canary);
        self.by_family.entry(family).or_insert_with(|| Group::named(family.name())).add(substrate, family, v, canary);
        self.by_level.entry(level).or_insert_with(|| Group::named(format!("level {level}"))).add(substrate, family, v, canary);
    }
}

/// Score `substrates` (all in the store when empty) as `options` says. On the CPU backend the
/// inputs are the small suites, and mutants whose CPU verdict does not stand for a GPU's are
/// set apart (`kmut_model::cpu_fidelity`).
pub fn score(store: &Store, substrates: &[String], options: &ScoreOptions) -> Result<Score, ScoreError> {
    let (backend, tolerance) = (options.backend, options.tolerance);
    let inputs = options.inputs.on(backend);
    let denominator = match options.denominator {
        Denominator::Auto if store.has_generated_baselines()? => Denominator::Witnessed,
        Denominator::Auto => Denominator::Live,
        d => d,
    };
    let descs: Vec<_> = store.substrates()?.into_iter().filter(|d| substrates.is_empty() || substrates.contains(&d.name)).collect();
    let mut tables = Tables { overall: Group::named("all"), by_family: BTreeMap::new(), by_level: BTreeMap::new() };
    let mut by_substrate = Vec::new();
    let mut classes = ClassCounts::default();
    let mut backends = BTreeSet::new();
    let mut original_failures = Vec::new();
    let mut apart = CpuApart::default();
    let mut stale_evaluations = 0;
    let mut scored = 0;
    let mut verdicts = Vec::new();
    for d in &descs {
        let Some(target) = store.targets(&d.name)?.into_iter().next() else {
            continue;
        };
        scored += 1;
        let evaluated_on = backend.evaluation_target(&target);
        let current = store.current_images(d, &target, backend)?;
        let columns = options.protocol.columns_for(d, inputs);
        let (decisive, failing) = decisive_columns(store, &d.name, &evaluated_on, current.original.as_deref(), &columns, tolerance)?;
        original_failures.extend(failing);
        let search = match denominator {
            Denominator::Witnessed => Some(witness_columns(store, d, &evaluated_on, current.original.as_deref(), &options.protocol, backend, tolerance)?),
            _ => None,
        };
        let mutants = store.mutants(&d.name)?;
        let class_of = store.classes(&d.name, &target)?;
        let evals = store.evaluations(&d.name, &evaluated_on)?;
        let mut cells: HashMap<&str, Vec<&Evaluation>> = HashMap::new();
        for e in &evals {
            if current.mutants.get(&e.mutant) == Some(&e.image) {
                backends.insert(e.backend.clone());
                cells.entry(e.mutant.as_str()).or_default().push(e);
            } else {
                stale_evaluations += 1;
            }
        }
        let mut group = Group::named(d.name.clone());
        for m in &mutants {
            let class = class_of.get(&m.id).map(|c| c.class);
            classes.add(class);
            if class != Some(kmut_model::Class::Live) {
                continue;
            }
            let mine = cells.get(m.id.as_str()).map(Vec::as_slice).unwrap_or_default();
            let (v, witness) = witnessed(verdict(mine, &decisive, tolerance, options.timeouts), search.as_ref(), mine, tolerance, options.timeouts);
            let canary = mine.iter().any(|e| e.canary && decisive.iter().any(|c| c.suite == e.suite && c.seed == e.seed));
            verdicts.push(MutantVerdict::of(&d.name, m, v.clone(), witness, canary, backend));
            if backend == Backend::Cpu && apart.take(&d.name, m, &v, canary, mine, tolerance) {
                continue;
            }
            group.add(&d.name, m.family, &v, canary);
            tables.add(d.level, &d.name, m, &v, canary);
        }
        group.finish();
        by_substrate.push(group);
    }
    if scored == 0 {
        return Err(ScoreError::Empty(store.path().display().to_string()));
    }
    let Tables { mut overall, by_family, by_level } = tables;
    overall.finish();
    apart.racy.finish();
    let mut by_family: Vec<Group> = by_family.into_values().collect();
    let mut by_level: Vec<Group> = by_level.into_values().collect();
    by_family.iter_mut().chain(by_level.iter_mut()).for_each(Group::finish);
    let sampled = overall.evaluated + overall.timeouts < overall.live;
    let warnings = warnings(&overall, options, denominator);
    Ok(Score {
        protocol: options.protocol.name.clone(),
        title: options.protocol.title.clone(),
        tolerance,
        inputs,
        timeouts: options.timeouts,
        denominator,
        substrates: scored,
        classes,
        backends: backends.into_iter().collect(),
        backend,
        equivalent_on_cpu: apart.equivalent,
        race_witnesses: apart.witnesses,
        order_dependent: apart.order_dependent,
        racy_on_cpu: (backend == Backend::Cpu).then_some(apart.racy),
        sampled,
        overall,
        by_family,
        by_level,
        by_substrate,
        original_failures,
        stale_evaluations,
        warnings,
        verdicts,
    })
}

/// Under the witnessed denominator (`search`), a survivor of the protocol gets the search's
/// verdict and the input that witnessed it; any other verdict stands.
fn witnessed(v: Verdict, search: Option<&Search>, cells: &[&Evaluation], tolerance: f64, timeouts: TimeoutPolicy) -> (Verdict, Option<Column>) {
    match (v, search) {
        (Verdict::Survived, Some(search)) => search.verdict(cells, tolerance, timeouts),
        (v, _) => (v, None),
    }
}

/// The scoring columns on which the current original passes at `tolerance` (in order), and
/// the ones it fails, which decide nothing. A column with no current baseline stays decisive:
/// nothing of the current images was run on it, so its mutants are not run there either.
fn decisive_columns(
    store: &Store,
    substrate: &str,
    target: &str,
    original: Option<&str>,
    columns: &[Column],
    tolerance: f64,
) -> Result<(Vec<Column>, Vec<OriginalFailure>), ScoreError> {
    let baselines = store.baselines(substrate, target)?;
    let mut decisive = Vec::new();
    let mut failing = Vec::new();
    for c in columns {
        let base = baselines.iter().find(|b| b.suite == c.suite && b.seed == c.seed && b.image.is_some() && b.image.as_deref() == original);
        match base {
            Some(b) if !matches!(b.tau, Some(t) if t <= tolerance) => {
                failing.push(OriginalFailure { substrate: substrate.to_owned(), suite: c.suite.clone(), seed: c.seed, tau: b.tau });
            }
            _ => decisive.push(c.clone()),
        }
    }
    Ok((decisive, failing))
}

/// A substrate's witness search: the valid columns that may witness, and whether it is complete.
/// `kmut witness --replay` finds a mutant's witness with it too, so the rule lives here once.
pub struct Search {
    /// The substrate's own suites its original passes, and the generated columns the validity
    /// gate admitted.
    valid: Vec<Column>,
    /// Generated columns never prepared (their validity unknown): the search is incomplete.
    unknown: usize,
}

impl Search {
    /// The witnessed verdict of a mutant the protocol misses: a miss when a valid input kills it
    /// (a timeout witnesses only under `TimeoutPolicy::Kill`), possibly equivalent when the
    /// search is complete and none does, undecided when part of the search has not run. A miss
    /// comes with the column that witnessed it.
    pub fn verdict(&self, cells: &[&Evaluation], tolerance: f64, timeouts: TimeoutPolicy) -> (Verdict, Option<Column>) {
        let mut run = 0;
        for c in &self.valid {
            let Some(e) = cells.iter().find(|e| e.suite == c.suite && e.seed == c.seed) else { continue };
            run += 1;
            let witnesses = match e.outcome {
                Outcome::Timeout => timeouts == TimeoutPolicy::Kill,
                Outcome::Crash => true,
                Outcome::Completed => e.kills_at(tolerance),
            };
            if witnesses {
                return (Verdict::Survived, Some(c.clone()));
            }
        }
        if run == self.valid.len() && self.unknown == 0 {
            (Verdict::PossiblyEquivalent, None)
        } else {
            (Verdict::Undecided, None)
        }
    }
}

/// The witness search's columns of `desc` and which of them may witness (baselines of the
/// `original` image only).
pub fn witness_columns(
    store: &Store,
    desc: &kmut_model::SubstrateDescription,
    target: &str,
    original: Option<&str>,
    protocol: &Protocol,
    backend: Backend,
    tolerance: f64,
) -> Result<Search, ScoreError> {
    let baselines = store.baselines(&desc.name, target)?;
    let current: Vec<&Baseline> = baselines.iter().filter(|b| b.image.is_some() && b.image.as_deref() == original).collect();
    Ok(witness_search(desc, &current, protocol, backend, tolerance))
}

/// The witness search of `desc` from its current original's `baselines`: a generated column may
/// witness when its validity gate admitted it (unknown when it was never prepared), one of the
/// substrate's own suites when its original passes at `tolerance` (or was not run there yet).
pub fn witness_search(desc: &kmut_model::SubstrateDescription, baselines: &[&Baseline], protocol: &Protocol, backend: Backend, tolerance: f64) -> Search {
    let mut valid = Vec::new();
    let mut unknown = 0;
    for c in protocol.columns_for(desc, Inputs::Witness.on(backend)) {
        let base = baselines.iter().find(|b| b.suite == c.suite && b.seed == c.seed);
        if c.suite.starts_with("W:") {
            match base.and_then(|b| b.valid) {
                Some(true) => valid.push(c),
                Some(false) => {}
                None => unknown += 1,
            }
        } else if !base.is_some_and(|b| !matches!(b.tau, Some(t) if t <= tolerance)) {
            // A substrate's own suite: valid by the gate's fp64 check, unless its original fails.
            valid.push(c);
        }
    }
    Search { valid, unknown }
}

/// What the reader must be told before the tables.
fn warnings(overall: &Group, options: &ScoreOptions, denominator: Denominator) -> Vec<String> {
    let mut out = Vec::new();
    if denominator == Denominator::Witnessed && overall.undecided > 0 {
        out.push(format!(
            "{} mutants the protocol misses have an incomplete witness search (or were run on only some of the scored inputs): whether a valid input kills them is unknown, and the miss rate is shown as the interval from none of them to all of them missed. Run `kmut witness` to complete the search.",
            overall.undecided
        ));
    } else if overall.undecided > 0 {
        out.push(format!(
            "{} mutants were run on only some of the inputs scored and killed by none: the run stopped at a first kill at a tighter tolerance than {:e}, or these inputs were not all run (e.g. --suites all after an official run). Their verdicts are unknown; the miss rate is shown as the interval from all of them killed to all surviving. Run `kmut run` with the same --protocol/--suites (and --full-matrix for a looser tolerance) to decide them.",
            overall.undecided, options.tolerance
        ));
    }
    out
}

#[cfg(test)]
mod sample_tests {
    use super::SampleRate;

    #[test]
    #[allow(clippy::float_cmp)] // the ends are clamped to exactly the point and to 0 / 1
    fn the_settled_sample_rate_is_survived_over_settled_with_a_wilson_interval() {
        // The sixth H200 campaign's figure: 172 of 1,018 witnessed mutants missed.
        let r = SampleRate::of(172, 1018).unwrap();
        assert!((r.rate - 172.0 / 1018.0).abs() < 1e-15);
        assert_eq!((format!("{:.1}", 100.0 * r.low), format!("{:.1}", 100.0 * r.high)), ("14.7".to_owned(), "19.3".to_owned()));
        assert_eq!(r.settled, 1018);
        assert!(SampleRate::of(0, 0).is_none(), "nothing settled: no rate, never 0%");
        let none = SampleRate::of(0, 12).unwrap();
        assert!(none.low == 0.0 && none.high > 0.2, "no survivor is not certainty: {none:?}");
        let all = SampleRate::of(10, 10).unwrap();
        assert!(all.low < 1.0 && all.high == 1.0 && all.rate == 1.0, "the interval holds its point: {all:?}");
    }
}
