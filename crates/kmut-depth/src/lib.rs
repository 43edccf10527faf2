//! The depth analysis (`kmut depth`, `docs/depth.md`): how far a fault in one layer of a
//! pipeline travels, from the per-step rows the run worker captures (`kmut_store::StepError`).
//!
//! * **Survival by depth quartile**: the mutated layer's position over the pipeline's length
//!   (`Mutant::depth`, 0 for the first kernel and 1 for the last) in quartiles, with the miss
//!   rate per quartile from the score's own verdicts and estimator (`kmut_score`), overall and
//!   per architecture (substrate).
//! * **Propagation**: for a fault injected at step k, the relative L2 error at every later step
//!   j against j - k (median and quartiles), by the kind of layer the error was measured after,
//!   and each kind's gain: the error after a step over the largest error among the steps it reads.
//! * **Masking**: survivors whose error exceeds the tolerance after some intermediate step and not
//!   at the output; the step that brings it back under (and its kind), and how far from the fault.
//! * **What-if**: the miss rate of a checker that compared every layer's output with the
//!   original's, beside the output-only protocol's.

mod stats;
pub mod svg;

use std::collections::{BTreeMap, HashMap, HashSet};

use kmut_model::{Backend, LaunchTransform, Mutant, MutantKind};
use kmut_score::{Group, Kill, MutantVerdict, ScoreOptions, Verdict};
use kmut_store::{Keep, StepError, StepLayout, Store};
use serde::Serialize;

pub use stats::{quantiles, Spread};

#[derive(Debug, thiserror::Error)]
pub enum DepthError {
    #[error(transparent)]
    Score(#[from] kmut_score::ScoreError),
    #[error(transparent)]
    Store(#[from] kmut_store::StoreError),
    #[error("no pipeline substrate (two kernels or more) in the store{0}; `kmut depth` reads level-3 networks and level-1/2 chains")]
    NoPipeline(String),
}

/// The depth quartile of a mutated layer at `depth` in [0, 1]: 0 for [0, 0.25), ..., 3 for
/// [0.75, 1].
pub fn quartile(depth: f64) -> usize {
    ((depth * 4.0).floor().max(0.0) as usize).min(3)
}

/// Survival of one architecture (a pipeline substrate).
#[derive(Debug, Clone, Serialize)]
pub struct Architecture {
    pub substrate: String,
    pub kernels: usize,
    /// Steps launched (a kernel launched once per time step counts each time), from a stored layout.
    pub steps: Option<usize>,
    pub overall: Group,
    pub quartiles: Vec<Group>,
}

/// The spread of an error (or a gain) over the mutants at one point of a curve.
#[derive(Debug, Clone, Serialize)]
pub struct CurvePoint {
    /// j - k: steps after the injected one (0: the injected step itself).
    pub distance: usize,
    #[serde(flatten)]
    pub spread: Spread,
}

/// Propagation measured after steps of one layer kind.
#[derive(Debug, Clone, Serialize)]
pub struct KindPropagation {
    pub kind: String,
    /// The error after a step of this kind against j - k.
    pub curve: Vec<CurvePoint>,
    /// Error after the step over the largest error among the steps it reads (where that is
    /// positive and finite): below 1 the kind attenuates an error, above 1 it amplifies it.
    pub gain: Spread,
    /// Of those crossings, the share where the step removed the error entirely (gain 0).
    pub erased: f64,
}

/// One masked survivor.
#[derive(Debug, Clone, Serialize)]
pub struct MaskSite {
    pub substrate: String,
    pub mutant: String,
    /// The column where the error exceeded the tolerance inside the network.
    pub suite: String,
    pub seed: u64,
    /// The injected step (k), where known.
    pub injected: Option<usize>,
    /// The last intermediate step whose tau\* exceeds the tolerance.
    pub exceeded: usize,
    /// The step that brings the error back under the tolerance: the first later step reading
    /// the exceeding one that is within it (else the next step).
    pub step: usize,
    pub kind: Option<String>,
    /// `step - injected`.
    pub distance: Option<usize>,
    /// `step / (steps - 1)`.
    pub depth: f64,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Masking {
    /// Survivors of the protocol (settled, in the denominator).
    pub survivors: usize,
    /// Of them, with per-step rows on at least one scored column.
    pub with_steps: usize,
    /// Of those, masked: the error exceeded the tolerance after an intermediate step.
    pub masked: usize,
    pub sites: Vec<MaskSite>,
    /// Masked survivors by the kind of the masking step.
    pub by_kind: BTreeMap<String, usize>,
    /// The masking distance (`step - injected`) over the masked survivors.
    pub distance: Spread,
}

/// The every-layer checker beside the output-only one.
#[derive(Debug, Clone, Serialize)]
pub struct WhatIf {
    /// The protocol as it is: only the network's output is compared.
    pub output_only: Group,
    /// A checker that also compares every step's output with the original's at the same
    /// tolerance: a survivor whose error exceeded it after any step is caught; a survivor with
    /// no per-step rows on some column and caught on none is undecided.
    pub every_layer: Group,
}

/// The whole analysis.
#[derive(Debug, Clone, Serialize)]
pub struct Depth {
    pub protocol: String,
    pub tolerance: f64,
    pub backend: Backend,
    pub denominator: kmut_score::Denominator,
    pub substrates: usize,
    pub quartiles: Vec<Group>,
    pub by_architecture: Vec<Architecture>,
    /// The median over architectures of their miss-rate point estimates.
    pub architecture_median: Option<f64>,
    /// Every fault's error (relative L2 against the original's step output) against j - k.
    pub propagation: Vec<CurvePoint>,
    pub by_kind: Vec<KindPropagation>,
    /// Mutant-columns with per-step rows whose error is zero at every step (no effect there).
    pub no_effect: usize,
    /// Mutant-columns used for the curves.
    pub curves_from: usize,
    pub masking: Masking,
    pub what_if: WhatIf,
    /// Columns whose original step outputs were kept on the host, not the device.
    pub columns_kept_on_host: usize,
    /// Columns with a step layout.
    pub columns_with_layout: usize,
    /// Live mutants of pipelines evaluated without per-step rows (`kmut run --no-steps`, or
    /// stores from before the capture).
    pub evaluated_without_steps: usize,
    pub warnings: Vec<String>,
}

/// One mutant's per-step rows on one column, in step order.
struct Column<'a> {
    suite: &'a str,
    seed: u64,
    rows: Vec<&'a StepError>,
    layout: &'a StepLayout,
}

fn tau_of(s: &StepError) -> f64 {
    s.tau.filter(|t| !t.is_nan()).unwrap_or(f64::INFINITY)
}

fn err_of(s: &StepError) -> f64 {
    s.rel_l2.filter(|t| !t.is_nan()).unwrap_or(f64::INFINITY)
}

/// The step a fault enters at: a launch mutant's step, else the first step launching a kernel
/// the fault reaches.
fn injected(m: &Mutant, kernels: &[String], layout: &StepLayout) -> Option<usize> {
    if let MutantKind::Launch { transform } = &m.mutation {
        match transform {
            LaunchTransform::SwapGridBlock { step } | LaunchTransform::GridX { step, .. } | LaunchTransform::BlockX { step, .. } => return Some(*step),
            LaunchTransform::CdivFloor { .. } => {}
        }
    }
    let reached: HashSet<&str> = m.layers.iter().filter_map(|&l| kernels.get(l)).map(String::as_str).collect();
    layout.kernels.iter().position(|k| reached.contains(k.as_str()))
}

/// The analysis over `substrates` (names; empty: every pipeline in the store) under `options`.
pub fn analyse(store: &Store, substrates: &[String], options: &ScoreOptions) -> Result<Depth, DepthError> {
    let scored = kmut_score::score(store, substrates, options)?;
    let pipelines: Vec<_> =
        store.substrates()?.into_iter().filter(|d| d.kernels.len() >= 2 && (substrates.is_empty() || substrates.contains(&d.name))).collect();
    if pipelines.is_empty() {
        let which = if substrates.is_empty() { String::new() } else { format!(" among {}", substrates.join(", ")) };
        return Err(DepthError::NoPipeline(which));
    }
    let mut verdicts: HashMap<&str, Vec<&MutantVerdict>> = HashMap::new();
    // Racy-on-CPU mutants are scored apart from the tables; so they are here.
    for v in scored.verdicts.iter().filter(|v| v.fidelity == kmut_model::CpuFidelity::Comparable) {
        verdicts.entry(v.substrate.as_str()).or_default().push(v);
    }
    let mut acc = Gather::new(scored.tolerance);
    let mut archs = Vec::new();
    for d in &pipelines {
        if let Some(mine) = verdicts.get(d.name.as_str()) {
            archs.extend(acc.substrate(store, d, mine, options, scored.backend)?);
        }
    }
    acc.quartiles.iter_mut().for_each(Group::finish);
    acc.what_if.output_only.finish();
    acc.what_if.every_layer.finish();
    acc.masking.distance = quantiles(&mut acc.mask_distances);
    let mut rates: Vec<f64> = archs.iter().filter_map(|a| a.overall.miss.as_ref()).map(|e| e.rate).filter(|r| r.is_finite()).collect();
    let architecture_median = (!rates.is_empty()).then(|| quantiles(&mut rates).median);
    let mut warnings = scored.warnings.clone();
    if acc.without_steps > 0 {
        warnings.push(format!(
            "{} settled pipeline mutants have no per-step rows on any scored column (run with --no-steps, or stored before the capture): they count in the survival tables, not in the curves, masking or what-if (a survivor among them is undecided there)",
            acc.without_steps
        ));
    }
    let (propagation, by_kind, no_effect, curves_from) = acc.curves.finish();
    Ok(Depth {
        protocol: scored.protocol,
        tolerance: scored.tolerance,
        backend: scored.backend,
        denominator: scored.denominator,
        substrates: archs.len(),
        quartiles: acc.quartiles,
        by_architecture: archs,
        architecture_median,
        propagation,
        by_kind,
        no_effect,
        curves_from,
        masking: acc.masking,
        what_if: acc.what_if,
        columns_kept_on_host: acc.on_host,
        columns_with_layout: acc.with_layout,
        evaluated_without_steps: acc.without_steps,
        warnings,
    })
}

/// What the analysis gathers over the substrates.
struct Gather {
    tol: f64,
    quartiles: Vec<Group>,
    curves: Curves,
    masking: Masking,
    mask_distances: Vec<f64>,
    what_if: WhatIf,
    on_host: usize,
    with_layout: usize,
    without_steps: usize,
}

/// A substrate's stored per-step data, restricted to current cells on scored columns.
struct Stored {
    layouts: Vec<StepLayout>,
    rows: Vec<StepError>,
    /// (mutant, suite, seed) of every current cell on a scored column.
    cells: HashSet<(String, String, u64)>,
}

impl Stored {
    fn read(store: &Store, d: &kmut_model::SubstrateDescription, options: &ScoreOptions, backend: Backend) -> Result<Option<Stored>, DepthError> {
        let Some(target) = store.targets(&d.name)?.into_iter().next() else { return Ok(None) };
        let on = backend.evaluation_target(&target);
        let current = store.current_images(d, &target, backend)?;
        let scored: HashSet<(String, u64)> = options.protocol.columns_for(d, options.inputs.on(backend)).into_iter().map(|c| (c.suite, c.seed)).collect();
        let cells: HashSet<(String, String, u64)> = store
            .evaluations(&d.name, &on)?
            .into_iter()
            .filter(|e| current.mutants.get(&e.mutant) == Some(&e.image) && scored.contains(&(e.suite.clone(), e.seed)))
            .map(|e| (e.mutant, e.suite, e.seed))
            .collect();
        let mut rows = store.step_errors(&d.name, &on)?;
        rows.retain(|r| cells.contains(&(r.mutant.clone(), r.suite.clone(), r.seed)));
        Ok(Some(Stored { layouts: store.step_layouts(&d.name, &on)?, rows, cells }))
    }
}

impl Gather {
    fn new(tol: f64) -> Gather {
        Gather {
            tol,
            quartiles: (1..=4).map(|q| Group::named(format!("Q{q}"))).collect(),
            curves: Curves::default(),
            masking: Masking::default(),
            mask_distances: Vec::new(),
            what_if: WhatIf { output_only: Group::named("output only"), every_layer: Group::named("every layer") },
            on_host: 0,
            with_layout: 0,
            without_steps: 0,
        }
    }

    /// One pipeline substrate: its verdicts by quartile, and its per-step rows.
    fn substrate(
        &mut self,
        store: &Store,
        d: &kmut_model::SubstrateDescription,
        verdicts: &[&MutantVerdict],
        options: &ScoreOptions,
        backend: Backend,
    ) -> Result<Option<Architecture>, DepthError> {
        let Some(stored) = Stored::read(store, d, options, backend)? else { return Ok(None) };
        self.with_layout += stored.layouts.len();
        self.on_host += stored.layouts.iter().filter(|l| l.keep == Keep::Host).count();
        let layout_of: HashMap<(&str, u64), &StepLayout> = stored.layouts.iter().map(|l| ((l.suite.as_str(), l.seed), l)).collect();
        let mut by_cell: BTreeMap<(&str, &str, u64), Vec<&StepError>> = BTreeMap::new();
        for r in &stored.rows {
            by_cell.entry((r.mutant.as_str(), r.suite.as_str(), r.seed)).or_default().push(r);
        }
        let mut cells_of: HashMap<&str, usize> = HashMap::new();
        for (m, _, _) in &stored.cells {
            *cells_of.entry(m.as_str()).or_default() += 1;
        }
        let mutants: HashMap<String, Mutant> = store.mutants(&d.name)?.into_iter().map(|m| (m.id.clone(), m)).collect();
        let mut arch = Architecture {
            substrate: d.name.clone(),
            kernels: d.kernels.len(),
            steps: stored.layouts.first().map(|l| l.kernels.len()),
            overall: Group::named(d.name.clone()),
            quartiles: (1..=4).map(|q| Group::named(format!("Q{q}"))).collect(),
        };
        for v in verdicts {
            let Some(m) = mutants.get(&v.mutant) else { continue };
            let q = quartile(m.depth);
            arch.overall.add(&d.name, v.family, &v.verdict, v.out_of_bounds);
            arch.quartiles[q].add(&d.name, v.family, &v.verdict, v.out_of_bounds);
            self.quartiles[q].add(&d.name, v.family, &v.verdict, v.out_of_bounds);
            // This mutant's columns with complete step rows, in the store's column order.
            let columns: Vec<Column> = by_cell
                .range((m.id.as_str(), "", 0)..)
                .take_while(|((id, _, _), _)| *id == m.id)
                .filter_map(|((_, suite, seed), rows)| {
                    let layout = layout_of.get(&(*suite, *seed))?;
                    (rows.len() == layout.kernels.len()).then(|| Column { suite, seed: *seed, rows: rows.clone(), layout })
                })
                .collect();
            self.mutant(&d.name, m, &d.kernels, v, &columns, cells_of.get(m.id.as_str()).copied().unwrap_or(0));
        }
        arch.overall.finish();
        arch.quartiles.iter_mut().for_each(Group::finish);
        Ok(Some(arch))
    }

    /// One mutant's curves, masking and what-if verdict from its `columns` with step rows (of
    /// `cells` current cells on scored columns).
    fn mutant(&mut self, substrate: &str, m: &Mutant, kernels: &[String], v: &MutantVerdict, columns: &[Column], cells: usize) {
        if matches!(v.verdict, Verdict::Killed(_) | Verdict::Survived) && columns.is_empty() {
            self.without_steps += 1;
        }
        if let Some(c) = columns.first() {
            self.curves.add(c, injected(m, kernels, c.layout));
        }
        let mut every = v.verdict.clone();
        if v.verdict == Verdict::Survived {
            self.masking.survivors += 1;
            self.masking.with_steps += usize::from(!columns.is_empty());
            if let Some(site) = columns.iter().find_map(|c| mask_site(substrate, m, kernels, c, self.tol)) {
                self.masking.masked += 1;
                *self.masking.by_kind.entry(site.kind.clone().unwrap_or_else(|| "unknown".into())).or_default() += 1;
                self.mask_distances.extend(site.distance.map(|x| x as f64));
                self.masking.sites.push(site);
                every = Verdict::Killed(Kill::Value);
            } else if columns.len() < cells {
                every = Verdict::Undecided;
            }
        }
        self.what_if.output_only.add(substrate, v.family, &v.verdict, v.out_of_bounds);
        self.what_if.every_layer.add(substrate, v.family, &every, v.out_of_bounds);
    }
}

/// Where a survivor's error, above `tol` after some intermediate step of column `c`, is masked.
fn mask_site(substrate: &str, m: &Mutant, kernels: &[String], c: &Column, tol: f64) -> Option<MaskSite> {
    let n = c.rows.len();
    let exceeded = (0..n - 1).rev().find(|&s| tau_of(c.rows[s]) > tol)?;
    let step = (exceeded + 1..n).find(|&j| c.layout.reads[j].contains(&exceeded) && tau_of(c.rows[j]) <= tol).unwrap_or(exceeded + 1);
    let inj = injected(m, kernels, c.layout);
    Some(MaskSite {
        substrate: substrate.to_owned(),
        mutant: m.id.clone(),
        suite: c.suite.to_owned(),
        seed: c.seed,
        injected: inj,
        exceeded,
        step,
        kind: c.layout.kinds.get(step).cloned().flatten(),
        distance: inj.map(|k| step.saturating_sub(k)),
        depth: step as f64 / (n - 1).max(1) as f64,
    })
}

/// Values by distance j - k.
type ByDistance = BTreeMap<usize, Vec<f64>>;

/// The propagation curves as they are gathered.
#[derive(Default)]
struct Curves {
    all: ByDistance,
    /// Per kind: the curve, and the gains of its crossings.
    by_kind: BTreeMap<String, (ByDistance, Vec<f64>)>,
    no_effect: usize,
    from: usize,
}

impl Curves {
    fn add(&mut self, c: &Column, k: Option<usize>) {
        let errors: Vec<f64> = c.rows.iter().map(|r| err_of(r)).collect();
        if errors.iter().all(|&e| e == 0.0) {
            self.no_effect += 1;
            return;
        }
        let Some(k) = k else { return };
        self.from += 1;
        for j in k..errors.len() {
            self.all.entry(j - k).or_default().push(errors[j]);
            if j == k {
                continue;
            }
            let kind = c.layout.kinds.get(j).cloned().flatten().unwrap_or_else(|| "unknown".into());
            let (curve, gains) = self.by_kind.entry(kind).or_default();
            curve.entry(j - k).or_default().push(errors[j]);
            let input = c.layout.reads[j].iter().map(|&i| errors[i]).fold(0.0, f64::max);
            if input > 0.0 && input.is_finite() && errors[j].is_finite() {
                gains.push(errors[j] / input);
            }
        }
    }

    fn finish(self) -> (Vec<CurvePoint>, Vec<KindPropagation>, usize, usize) {
        let curve = |m: ByDistance| -> Vec<CurvePoint> { m.into_iter().map(|(distance, mut v)| CurvePoint { distance, spread: quantiles(&mut v) }).collect() };
        let by_kind = self
            .by_kind
            .into_iter()
            .map(|(kind, (c, mut gains))| {
                let erased = if gains.is_empty() { 0.0 } else { gains.iter().filter(|&&g| g == 0.0).count() as f64 / gains.len() as f64 };
                KindPropagation { kind, curve: curve(c), gain: quantiles(&mut gains), erased }
            })
            .collect();
        (curve(self.all), by_kind, self.no_effect, self.from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quartiles_split_the_depth_range_into_four_with_the_last_layer_in_q4() {
        assert_eq!([0.0, 0.24, 0.25, 0.5, 0.74, 0.75, 1.0].map(quartile), [0, 0, 1, 2, 2, 3, 3]);
    }
}
