//! Scoring: the verdict of every live mutant under a checking protocol, from the evaluations in
//! the store, and miss rates overall and by family, level and substrate.
//!
//! Nothing runs here. A kill is decided from the stored continuous verdict: a crash, a timeout,
//! a shape mismatch or `tau* > tolerance` on any of the protocol's inputs. So `KernelBench` HEAD's
//! 1e-4 is scored from the same evaluations as v0.1's 1e-2.

mod agreement;
mod estimate;

use std::collections::{BTreeMap, HashMap};

use kmut_model::{cpu_fidelity, Backend, Column, CpuFidelity, Family, Inputs, Protocol, CPU_TARGET};
use kmut_store::{Evaluation, Store};
use serde::Serialize;

pub use agreement::{agreement, Agreement, AgreementRow};
pub use estimate::{miss_rate, Estimate, Stratum};

#[derive(Debug, thiserror::Error)]
pub enum ScoreError {
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error("the store `{0}` holds no compiled substrate; run `kmut compile` and `kmut run` first")]
    Empty(String),
}

/// How a live mutant fared under the protocol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Some input's output fails the comparison.
    KilledByValue,
    /// Some input crashed (CUDA error class, `launch:...`, `worker_died`).
    KilledByCrash(String),
    KilledByTimeout,
    /// Every input passes: the protocol misses this fault.
    Survived,
    /// Not every input was evaluated and none kills.
    Undetermined,
}

/// The counts of one group of mutants.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Group {
    pub name: String,
    pub live: usize,
    /// Live mutants with a settled verdict.
    pub evaluated: usize,
    pub killed: usize,
    pub survived: usize,
    pub crashes: usize,
    pub timeouts: usize,
    /// Survivors that wrote out of bounds (a canary was hit): a latent bug the protocol misses.
    pub survived_out_of_bounds: usize,
    pub miss: Option<Estimate>,
    #[serde(skip)]
    strata: BTreeMap<(String, Family), Stratum>,
}

impl Group {
    fn named(name: impl Into<String>) -> Group {
        Group { name: name.into(), ..Group::default() }
    }

    fn add(&mut self, substrate: &str, family: Family, verdict: &Verdict, canary: bool) {
        self.live += 1;
        let s = self.strata.entry((substrate.to_owned(), family)).or_default();
        s.population += 1;
        if *verdict == Verdict::Undetermined {
            return;
        }
        self.evaluated += 1;
        s.sampled += 1;
        match verdict {
            Verdict::Survived => {
                self.survived += 1;
                s.missed += 1;
                self.survived_out_of_bounds += usize::from(canary);
            }
            Verdict::KilledByCrash(_) => {
                self.killed += 1;
                self.crashes += 1;
            }
            Verdict::KilledByTimeout => {
                self.killed += 1;
                self.timeouts += 1;
            }
            _ => self.killed += 1,
        }
    }

    fn finish(&mut self) {
        let strata: Vec<Stratum> = self.strata.values().copied().collect();
        self.miss = miss_rate(&strata);
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
    pub substrates: usize,
    /// generated, stillborn, equivalent, duplicate, live
    pub classes: [usize; 5],
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
    /// Inputs on which the original itself fails the comparison.
    pub original_failures: Vec<String>,
}

/// The verdict of one mutant from its evaluations on `columns`.
pub fn verdict(evaluations: &[&Evaluation], columns: &[Column], tolerance: f64) -> Verdict {
    let on: Vec<&&Evaluation> = evaluations.iter().filter(|e| columns.iter().any(|c| c.suite == e.suite && c.seed == e.seed)).collect();
    // Any kill decides, whatever else is missing; the first in column order names it.
    for c in columns {
        if let Some(e) = on.iter().find(|e| e.suite == c.suite && e.seed == c.seed) {
            if e.kills_at(tolerance) {
                return match e.outcome.as_str() {
                    "timeout" => Verdict::KilledByTimeout,
                    "crash" => Verdict::KilledByCrash(e.crash.clone().unwrap_or_default()),
                    _ => Verdict::KilledByValue,
                };
            }
        }
    }
    let covered = columns.iter().all(|c| on.iter().any(|e| e.suite == c.suite && e.seed == c.seed));
    if covered {
        Verdict::Survived
    } else {
        Verdict::Undetermined
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
    fn take(&mut self, substrate: &str, m: &kmut_model::Mutant, v: &Verdict, canary: bool, evals: &[&Evaluation], tolerance: f64) -> bool {
        match cpu_fidelity(m.family, &m.rule) {
            CpuFidelity::EquivalentOnCpu => self.equivalent += 1,
            CpuFidelity::RacyOnCpu => {
                self.racy.add(substrate, m.family, v, canary);
                self.witnesses += usize::from(matches!(v, Verdict::KilledByValue | Verdict::KilledByCrash(_) | Verdict::KilledByTimeout));
                self.order_dependent += usize::from(evals.iter().any(|e| e.order_dependent(tolerance)));
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

/// Score `substrates` (all in the store when empty) under `protocol` at `tolerance`, from the
/// evaluations `backend` stored. On the CPU backend the inputs are the small suites, and mutants
/// whose CPU verdict does not stand for a GPU's are set apart (`kmut_model::cpu_fidelity`).
pub fn score(store: &Store, substrates: &[String], protocol: &Protocol, tolerance: f64, inputs: Inputs, backend: Backend) -> Result<Score, ScoreError> {
    let inputs = inputs.on(backend);
    let descs: Vec<_> = store.substrates()?.into_iter().filter(|d| substrates.is_empty() || substrates.contains(&d.name)).collect();
    let mut overall = Group::named("all");
    let mut by_family: BTreeMap<Family, Group> = BTreeMap::new();
    let mut by_level: BTreeMap<u8, Group> = BTreeMap::new();
    let mut by_substrate = Vec::new();
    let mut classes = [0usize; 5];
    let mut backends = std::collections::BTreeSet::new();
    let mut original_failures = Vec::new();
    let mut apart = CpuApart::default();
    let mut scored = 0;
    for d in &descs {
        let Some(target) = store.targets(&d.name)?.into_iter().next() else {
            continue;
        };
        scored += 1;
        let columns = protocol.columns_for(d, inputs);
        let evaluated_on = backend.evaluation_target(&target);
        let mutants = store.mutants(&d.name)?;
        let class_of = store.classes(&d.name, &target)?;
        let evals = store.evaluations(&d.name, &evaluated_on)?;
        let mut by_mutant: HashMap<&str, Vec<&Evaluation>> = HashMap::new();
        for e in &evals {
            backends.insert(e.backend.clone());
            by_mutant.entry(e.mutant.as_str()).or_default().push(e);
        }
        for b in store.baselines(&d.name, &evaluated_on)? {
            if columns.iter().any(|c| c.suite == b.suite && c.seed == b.seed) && b.tau.is_none_or_nan_or_above(tolerance) {
                original_failures.push(format!("{} {} seed {} (tau* {:.3e})", d.name, b.suite, b.seed, b.tau.unwrap_or(f64::NAN)));
            }
        }
        let mut group = Group::named(d.name.clone());
        for m in &mutants {
            let class = class_of.get(&m.id).map_or("unclassified", |c| c.class.as_str());
            classes[0] += 1;
            match class {
                "stillborn" => classes[1] += 1,
                "equivalent" => classes[2] += 1,
                "duplicate" => classes[3] += 1,
                "live" => classes[4] += 1,
                _ => {}
            }
            if class != "live" {
                continue;
            }
            let mine = by_mutant.get(m.id.as_str()).map(Vec::as_slice).unwrap_or_default();
            let v = verdict(mine, &columns, tolerance);
            let canary = mine.iter().any(|e| e.canary && columns.iter().any(|c| c.suite == e.suite && c.seed == e.seed));
            if backend == Backend::Cpu && apart.take(&d.name, m, &v, canary, mine, tolerance) {
                continue;
            }
            group.add(&d.name, m.family, &v, canary);
            overall.add(&d.name, m.family, &v, canary);
            by_family.entry(m.family).or_insert_with(|| Group::named(m.family.name())).add(&d.name, m.family, &v, canary);
            by_level.entry(d.level).or_insert_with(|| Group::named(format!("level {}", d.level))).add(&d.name, m.family, &v, canary);
        }
        group.finish();
        by_substrate.push(group);
    }
    if scored == 0 {
        return Err(ScoreError::Empty(store.path().display().to_string()));
    }
    overall.finish();
    apart.racy.finish();
    let mut finish = |g: &mut Group| g.finish();
    let mut by_family: Vec<Group> = by_family.into_values().collect();
    let mut by_level: Vec<Group> = by_level.into_values().collect();
    by_family.iter_mut().for_each(&mut finish);
    by_level.iter_mut().for_each(&mut finish);
    let sampled = overall.evaluated < overall.live;
    Ok(Score {
        protocol: protocol.name.clone(),
        title: protocol.title.clone(),
        tolerance,
        inputs,
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
    })
}

trait FailsAt {
    fn is_none_or_nan_or_above(&self, tolerance: f64) -> bool;
}

impl FailsAt for Option<f64> {
    fn is_none_or_nan_or_above(&self, tolerance: f64) -> bool {
        !matches!(self, Some(t) if *t <= tolerance)
    }
}
