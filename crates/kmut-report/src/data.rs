//! What a report shows, read once from the store and the scores: every section, page, JSON
//! report and table is rendered from a [`ReportData`], never from the store directly, so they
//! all say the same thing.

use std::collections::HashMap;

use kmut_model::{Backend, Class, Column, CpuFidelity, Mutant, Protocol, SubstrateDescription};
use kmut_score::{Kill, Score, ScoreOptions, Verdict};
use kmut_store::{Baseline, Evaluation, Store};
use serde::Serialize;

use crate::ReportError;

/// What to report on.
#[derive(Debug, Clone)]
pub struct ReportOptions {
    /// The protocols scored side by side (the first is the report's primary one: the JSON
    /// report per protocol, the filters' default).
    pub protocols: Vec<Protocol>,
    pub backend: Backend,
    /// Which mutants the listings show (the substrate pages, the Stryker JSON, the tables);
    /// every count and score is over all mutants whatever it is.
    pub scope: Scope,
}

/// Which mutants a report lists one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Those with at least one evaluation of their current image on the report's backend: a
    /// sampled campaign's store holds every mutant of every substrate (163,881 for the accepted
    /// corpus), and listing the ones never run made a 738 MB report.
    Run,
    /// Every current mutant, the ones never run listed as `not-run`.
    All,
}

impl Scope {
    pub fn parse(s: &str) -> Result<Scope, String> {
        match s {
            "run" => Ok(Scope::Run),
            "all" => Ok(Scope::All),
            other => Err(format!("unknown report scope `{other}`: expected `run` or `all`")),
        }
    }
}

/// Everything a report renders.
#[derive(Debug, Clone, Serialize)]
pub struct ReportData {
    pub kmut_version: String,
    pub store: String,
    pub backend: Backend,
    /// One score per protocol, in the order asked for.
    pub scores: Vec<ProtocolScore>,
    pub substrates: Vec<SubstrateData>,
    /// The stages' analyses of the store, under the first protocol (the audit: under all).
    pub depth: Stage<kmut_depth::Depth>,
    pub synthesis: Stage<kmut_synth::Synthesis>,
    pub audit: Stage<kmut_audit::Audit>,
}

/// A stage's analysis of the store, or why the store cannot give one (and what would).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage<T> {
    Measured(T),
    /// Plain text: what is missing and which command measures it.
    NotMeasured(String),
}

/// A protocol's score of the whole store.
#[derive(Debug, Clone, Serialize)]
pub struct ProtocolScore {
    pub name: String,
    pub title: String,
    pub tolerance: f64,
    #[serde(skip)]
    pub protocol: Protocol,
    pub score: Score,
}

/// One substrate: its kernels, its input columns and every current mutant.
#[derive(Debug, Clone, Serialize)]
pub struct SubstrateData {
    pub name: String,
    pub level: u8,
    pub path: String,
    pub cuda: String,
    /// The compile target its classes are of; `None` when it was never compiled.
    pub target: Option<String>,
    pub kernels: Vec<KernelData>,
    /// The input columns the backend's baselines were measured on (the original's runs).
    pub columns: Vec<ColumnData>,
    /// The mutants listed (all of them, or those run: [`Scope`]).
    pub mutants: Vec<MutantData>,
    /// Current mutants by class name over all of them, listed or not (`uncompiled` for those
    /// without a compile record).
    pub classes: Vec<(&'static str, usize)>,
    /// Current mutants not listed because none of their cells is stored ([`Scope::Run`]).
    pub unlisted: usize,
    /// Stored cells of earlier images (or of stale mutants): not shown, not scored.
    pub stale_cells: usize,
    /// The whole description (launch steps, `K.cdiv` calls, suites).
    #[serde(skip)]
    pub desc: SubstrateDescription,
}

/// One kernel of a substrate, in pipeline order, with its launch on the small suite.
#[derive(Debug, Clone, Serialize)]
pub struct KernelData {
    pub layer: usize,
    pub name: String,
    /// `grid (x, y, z), block (x, y, z)` of each step launching it.
    pub launches: Vec<String>,
    pub mutants: usize,
}

/// One input column of a substrate and what its baseline says of it.
#[derive(Debug, Clone, Serialize)]
pub struct ColumnData {
    pub suite: String,
    pub seed: u64,
    /// A witness search's generated column (`W:<generator>:<scale>:<sizes>`, replayable from the name).
    pub generated: bool,
    pub sizes: String,
    /// The original's tau\* on it.
    pub tau: Option<f64>,
    /// The witness search's validity gate: `None` where not checked (a substrate's own suite).
    pub valid: Option<bool>,
    pub tau64_ref: Option<f64>,
    pub tau64_orig: Option<f64>,
    /// Whether the baseline is of the current original (else no mutant's cell there counts).
    pub current: bool,
}

/// One current mutant with its class, its verdict under each protocol and its current cells.
#[derive(Debug, Clone, Serialize)]
pub struct MutantData {
    pub mutant: Mutant,
    /// `None`: no compile record for the substrate's target.
    pub class: Option<Class>,
    pub duplicate_of: Option<String>,
    /// One per protocol, in the report's order; `None` for a mutant that is not live.
    pub verdicts: Vec<Option<MutantVerdict>>,
    /// CPU backend: how its CPU verdict relates to a GPU's.
    pub fidelity: CpuFidelity,
    /// Its cells of its current image, in column order.
    #[serde(skip)]
    pub cells: Vec<Evaluation>,
}

/// A live mutant's verdict under one protocol, as words and as the score counted it.
#[derive(Debug, Clone, Serialize)]
pub struct MutantVerdict {
    pub verdict: Verdict,
    /// One word: `killed`, `crashed`, `survived`, `timeout`, `undecided`, `not-run`,
    /// `possibly-equivalent` (what the filters and the tables use).
    pub word: &'static str,
    /// The input that witnessed a miss (witnessed denominator).
    pub witness: Option<Column>,
    pub out_of_bounds: bool,
}

impl MutantVerdict {
    fn of(v: &kmut_score::MutantVerdict) -> MutantVerdict {
        MutantVerdict { word: verdict_word(&v.verdict), verdict: v.verdict.clone(), witness: v.witness.clone(), out_of_bounds: v.out_of_bounds }
    }
}

/// The one-word name of a verdict.
pub fn verdict_word(v: &Verdict) -> &'static str {
    match v {
        Verdict::Killed(Kill::Crash(_)) => "crashed",
        Verdict::Killed(Kill::Timeout) | Verdict::TimedOut => "timeout",
        Verdict::Killed(Kill::Value) => "killed",
        Verdict::Survived => "survived",
        Verdict::Undecided => "undecided",
        Verdict::NotRun => "not-run",
        Verdict::PossiblyEquivalent => "possibly-equivalent",
    }
}

/// Every verdict word, in the order the filters list them.
pub const VERDICT_WORDS: [&str; 7] = ["killed", "crashed", "survived", "timeout", "undecided", "not-run", "possibly-equivalent"];

/// Read the store and score it under every protocol of `options`.
pub fn collect(store: &Store, options: &ReportOptions) -> Result<ReportData, ReportError> {
    if options.protocols.is_empty() {
        return Err(ReportError::NoProtocol);
    }
    let mut scores = Vec::new();
    for p in &options.protocols {
        let of_p = kmut_score::score(store, &[], &ScoreOptions::of(p, options.backend))?;
        scores.push(ProtocolScore { name: p.name.clone(), title: p.title.clone(), tolerance: of_p.tolerance, protocol: p.clone(), score: of_p });
    }
    // (substrate, mutant) -> verdict, per protocol.
    let by_mutant: Vec<HashMap<(&str, &str), &kmut_score::MutantVerdict>> =
        scores.iter().map(|s| s.score.verdicts.iter().map(|v| ((v.substrate.as_str(), v.mutant.as_str()), v)).collect()).collect();
    let mut substrates = Vec::new();
    for desc in store.substrates()? {
        substrates.push(substrate(store, &desc, options, &by_mutant)?);
    }
    let first = &options.protocols[0];
    Ok(ReportData {
        kmut_version: env!("CARGO_PKG_VERSION").to_owned(),
        store: store.path().display().to_string(),
        backend: options.backend,
        depth: depth(store, first, options.backend)?,
        synthesis: synthesis(store, first, options.backend)?,
        audit: audit(store, options)?,
        scores,
        substrates,
    })
}

/// The depth analysis under `protocol`; not measured without a pipeline substrate.
fn depth(store: &Store, protocol: &Protocol, backend: Backend) -> Result<Stage<kmut_depth::Depth>, ReportError> {
    match kmut_depth::analyse(store, &[], &ScoreOptions::of(protocol, backend)) {
        Ok(d) => Ok(Stage::Measured(d)),
        Err(kmut_depth::DepthError::NoPipeline(_)) => Ok(Stage::NotMeasured(
            "The store holds no pipeline substrate (two kernels or more): run `kmut run` (or `kmut witness`) on level-3 networks or level-1/2 chains, which stores every step's error, then report again.".into(),
        )),
        Err(e) => Err(ReportError::Depth(e)),
    }
}

/// The suite synthesis under `protocol` (greedy, full pool and held out, `kmut synth`'s
/// defaults); not measured without a witnessed mutant.
fn synthesis(store: &Store, protocol: &Protocol, backend: Backend) -> Result<Stage<kmut_synth::Synthesis>, ReportError> {
    let options = kmut_synth::SynthOptions {
        matrix: kmut_synth::MatrixOptions::of(protocol, backend),
        budgets: kmut_synth::DEFAULT_BUDGETS.to_vec(),
        split: kmut_synth::Split::None,
        with_official: false,
        exact: None,
        optimistic: false,
        splits: kmut_synth::DEFAULT_SPLITS,
    };
    let s = kmut_synth::synthesize(store, &[], &options)?;
    if s.totals.witnessed == 0 {
        return Ok(Stage::NotMeasured(format!(
            "No witnessed mutant in the store ({} problems, {} live mutants read): run `kmut witness` first; the synthesis chooses inputs from the witness search's kill matrix.",
            s.problems.len(),
            s.totals.live
        )));
    }
    Ok(Stage::Measured(s))
}

/// The audit of the report's protocols from the stored cells only (`kmut audit --no-run`);
/// not measured unless two protocols or more decide some witnessed mutant.
fn audit(store: &Store, options: &ReportOptions) -> Result<Stage<kmut_audit::Audit>, ReportError> {
    let names: Vec<&str> = options.protocols.iter().map(|p| p.name.as_str()).collect();
    let run = format!("run `kmut audit {}` (it runs what each protocol still needs), then report again", names.join(" "));
    if options.protocols.len() < 2 {
        return Ok(Stage::NotMeasured(format!(
            "An audit compares two protocols or more and this report has one ({}): pass `--protocol` twice or more.",
            names.join("")
        )));
    }
    let audit_options = kmut_audit::AuditOptions { protocols: options.protocols.clone(), backend: options.backend, baseline: 0, examples: 0 };
    let a = match kmut_audit::audit(store, &[], &audit_options) {
        Ok(a) => a,
        Err(kmut_audit::AuditError::Empty(_)) => return Ok(Stage::NotMeasured(format!("The store holds no compiled substrate: {run}."))),
        Err(e) => return Err(ReportError::Audit(e)),
    };
    if a.population.unified == 0 {
        let p = &a.population;
        return Ok(Stage::NotMeasured(format!(
            "No witnessed mutant is decided under every protocol of the report ({}): of {} live mutants, {} witnessed, {} of them undecided under some protocol, {} with an incomplete witness search. To measure it, {run}.",
            names.join(", "),
            p.live,
            p.witnessed,
            p.undecided,
            p.search_incomplete
        )));
    }
    Ok(Stage::Measured(a))
}

fn substrate(
    store: &Store,
    desc: &SubstrateDescription,
    options: &ReportOptions,
    verdicts: &[HashMap<(&str, &str), &kmut_score::MutantVerdict>],
) -> Result<SubstrateData, ReportError> {
    let backend = options.backend;
    let target = store.targets(&desc.name)?.into_iter().next();
    let mutants = store.mutants(&desc.name)?;
    let (classes, cells, baselines, current) = match &target {
        Some(t) => {
            let on = backend.evaluation_target(t);
            (store.classes(&desc.name, t)?, store.evaluations(&desc.name, &on)?, store.baselines(&desc.name, &on)?, store.current_images(desc, t, backend)?)
        }
        None => Default::default(),
    };
    let mut stale_cells = 0;
    let mut cells_of: HashMap<String, Vec<Evaluation>> = HashMap::new();
    for e in cells {
        if current.mutants.get(&e.mutant) == Some(&e.image) {
            cells_of.entry(e.mutant.clone()).or_default().push(e);
        } else {
            stale_cells += 1;
        }
    }
    let order = column_order(desc, &baselines);
    let rows: Vec<MutantData> = mutants
        .into_iter()
        .map(|m| {
            let class = classes.get(&m.id);
            let mut cells = cells_of.remove(&m.id).unwrap_or_default();
            cells.sort_by_key(|e| order.get(&(e.suite.clone(), e.seed)).copied().unwrap_or(usize::MAX));
            let verdicts: Vec<Option<MutantVerdict>> =
                verdicts.iter().map(|p| p.get(&(desc.name.as_str(), m.id.as_str())).map(|v| MutantVerdict::of(v))).collect();
            let fidelity = match backend {
                Backend::Cpu => kmut_model::cpu_fidelity(m.family, &m.rule),
                Backend::Gpu => CpuFidelity::Comparable,
            };
            MutantData { class: class.map(|c| c.class), duplicate_of: class.and_then(|c| c.duplicate_of.clone()), verdicts, fidelity, cells, mutant: m }
        })
        .collect();
    let classes = class_counts(&rows);
    let mut columns: Vec<ColumnData> = baselines.iter().map(|b| column(b, current.original.as_deref())).collect();
    columns.sort_by_key(|c| order.get(&(c.suite.clone(), c.seed)).copied().unwrap_or(usize::MAX));
    let kernels = desc
        .kernels
        .iter()
        .enumerate()
        .map(|(layer, name)| KernelData {
            layer,
            name: name.clone(),
            launches: desc.steps.iter().filter(|s| &s.kernel == name).map(|s| format!("grid {:?}, block {:?}", s.grid, s.block)).collect(),
            mutants: rows.iter().filter(|m| m.mutant.layer == Some(layer)).count(),
        })
        .collect();
    let listed: Vec<MutantData> = match options.scope {
        Scope::All => rows,
        Scope::Run => rows.into_iter().filter(|m| !m.cells.is_empty()).collect(),
    };
    Ok(SubstrateData {
        name: desc.name.clone(),
        level: desc.level,
        path: desc.path.clone(),
        cuda: desc.cuda.clone(),
        target,
        kernels,
        columns,
        unlisted: classes.iter().map(|(_, n)| n).sum::<usize>() - listed.len(),
        mutants: listed,
        classes,
        stale_cells,
        desc: desc.clone(),
    })
}

/// Columns in the order a witness search tries them: the substrate's suites as it lists them,
/// then its generated columns, then anything else by name.
fn column_order(desc: &SubstrateDescription, baselines: &[Baseline]) -> HashMap<(String, u64), usize> {
    let mut order = HashMap::new();
    let mut next = 0;
    let mut put = |suite: &str, seed: u64| {
        order.entry((suite.to_owned(), seed)).or_insert_with(|| {
            next += 1;
            next
        });
    };
    for s in &desc.suites {
        s.seeds.iter().for_each(|&seed| put(&s.name, seed));
    }
    for g in &desc.generated {
        for seed in kmut_model::GENERATED_SEEDS {
            put(g, seed);
        }
    }
    for b in baselines {
        put(&b.suite, b.seed);
    }
    order
}

fn column(b: &Baseline, original: Option<&str>) -> ColumnData {
    ColumnData {
        suite: b.suite.clone(),
        seed: b.seed,
        generated: b.suite.starts_with("W:"),
        sizes: b.sizes.clone(),
        tau: b.tau,
        valid: b.valid,
        tau64_ref: b.tau64_ref,
        tau64_orig: b.tau64_orig,
        current: b.image.is_some() && b.image.as_deref() == original,
    }
}

impl SubstrateData {
    /// The input columns `score` checks for this substrate (the protocol's, on the score's inputs).
    pub fn checked_columns(&self, score: &ProtocolScore) -> Vec<Column> {
        score.protocol.columns_for(&self.desc, score.score.inputs)
    }

    /// Every current mutant, listed or not.
    pub fn total_mutants(&self) -> usize {
        self.classes.iter().map(|(_, n)| n).sum()
    }

    /// Live mutants, listed or not.
    pub fn live_mutants(&self) -> usize {
        self.classes.iter().find(|(c, _)| *c == "live").map_or(0, |(_, n)| *n)
    }
}

/// Mutants by class name (`stillborn`, ..., `uncompiled` for those without a record).
fn class_counts(rows: &[MutantData]) -> Vec<(&'static str, usize)> {
    let names = ["live", "stillborn", "equivalent", "duplicate"];
    let mut out: Vec<(&'static str, usize)> = names.iter().map(|&n| (n, rows.iter().filter(|m| m.class.map(Class::name) == Some(n)).count())).collect();
    out.push(("uncompiled", rows.iter().filter(|m| m.class.is_none()).count()));
    out
}
