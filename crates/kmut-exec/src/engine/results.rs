//! Results into the store: columns' baselines, evaluations (heard, or made up for a timeout or a
//! death), the run's counts, and the progress report.

use std::time::Instant;

use kmut_model::Outcome;
use kmut_store::{Baseline, Evaluation};

use super::pool::SlotState;
use super::unit::UnitKey;
use super::{Engine, Progress};
use crate::protocol::{ColumnReport, EvalReport, OriginalRun};
use crate::ExecError;

impl Engine<'_> {
    pub(super) fn on_column(&mut self, unit: UnitKey, v: &ColumnReport) -> Result<(), ExecError> {
        self.original_ms.insert(unit, v.kernel_ms.unwrap_or(0.0));
        if let Some(s) = v.prep_s {
            self.prep_s.insert(unit, s);
        }
        self.summary.columns_prepared += 1;
        if v.original_deferred {
            // Nothing measured of the original here yet: no baseline until a failing
            // evaluation runs it (`on_deferred_original`), and the sibling's kernel time
            // scales the watchdog meanwhile.
            self.summary.original_deferred += 1;
            self.deferred.insert(unit, v.clone());
            self.check_original_time(unit, v.kernel_ms);
            return Ok(());
        }
        self.summary.original_reused += usize::from(v.original_stored);
        self.put_original(unit, v)
    }

    /// The column's original figures into the store (its baseline) and what they decide: a
    /// column the validity gate refuses, or that the run's own bound rejects, is set aside
    /// (`invalid`); one the original fails is noted (`kmut score` leaves it out).
    fn put_original(&mut self, unit: UnitKey, v: &ColumnReport) -> Result<(), ExecError> {
        let kernel_ms = v.kernel_ms;
        let plan = &self.plans[unit.sub];
        let col = &plan.columns[unit.col];
        // A preparation that took the original's figures from a baseline ran neither the original
        // nor the validity gate, so its peak can be below the one a full preparation needs: the
        // stored peak stays, so that a later run that measures afresh (`--rerun-original`) is
        // budgeted for what it will do.
        let earlier_peak = if v.original_stored { self.known_originals.get(&unit).and_then(|k| k.peak_bytes) } else { None };
        let b = Baseline {
            substrate: plan.name.clone(),
            target: self.config.target.clone(),
            suite: col.suite.clone(),
            seed: col.seed,
            backend: self.summary.backend.clone(),
            sizes: v.sizes.clone(),
            tau: v.tau,
            max_abs: v.max_abs,
            kernel_ms,
            prep_s: v.prep_s,
            image: Some(plan.original_id.clone()),
            peak_bytes: v.peak_bytes.max(earlier_peak),
            valid: v.valid,
            tau64_ref: v.tau64_ref,
            tau64_orig: v.tau64_orig,
        };
        self.store.put_baseline(&b, self.run)?;
        if let Some(layout) = v.steps.as_ref().and_then(|s| crate::steps::layout(&b.substrate, &b.target, &b.suite, b.seed, s)) {
            self.store.put_step_layout(&layout, self.run)?;
        }
        let false_kill = plan.rejects_original(b.tau, b.max_abs);
        self.known_originals.insert(unit, b.clone());
        if false_kill {
            self.summary.false_kill_columns += 1;
        }
        if b.valid == Some(false) || false_kill {
            // Past the legitimate-variance ceiling, or rejected by the run's own bound: a
            // correct kernel fails here too, so no mutant's cell on it can decide anything.
            self.invalid.insert(unit);
            if let Some(u) = self.units.get_mut(&unit) {
                u.pending.clear();
            }
            self.maybe_close(unit);
            return Ok(());
        }
        if b.tau.is_some_and(|t| t > self.config.tolerance) {
            self.reporter.note(&format!(
                "{}: the original itself fails {} seed {} (tau* {:.3e}); kills on it mean nothing",
                plan.name,
                col.suite,
                col.seed,
                b.tau.unwrap_or(f64::NAN)
            ));
        }
        self.check_original_time(unit, kernel_ms);
        Ok(())
    }

    /// A substrate whose original is too slow here is set aside (`max_original_ms`).
    fn check_original_time(&mut self, unit: UnitKey, kernel_ms: Option<f64>) {
        if let (Some(limit), Some(ms)) = (self.config.max_original_ms, kernel_ms) {
            if ms > limit {
                self.set_aside(unit.sub, &format!("its original takes {:.1} s per input here (limit {:.1} s)", ms / 1e3, limit / 1e3));
            }
        }
    }

    /// The original's run that a failing evaluation triggered on a deferred column: its baseline
    /// completes the preparation's, and its verdict on the column decides whether the
    /// evaluation counts. Returns false where it must not: the original crashed there, or the
    /// run's own bound rejects it (a column that would have been set aside before any mutant
    /// ran on it, had the original run at the preparation). A column the original merely
    /// fails keeps its evaluations, as a measured one does (the run notes it; `kmut score`
    /// leaves the column out).
    pub(super) fn on_deferred_original(&mut self, unit: UnitKey, run: &OriginalRun) -> Result<bool, ExecError> {
        let Some(mut report) = self.deferred.remove(&unit) else {
            // A second report for a column already completed (two workers on it): the first
            // baseline stands, and the verdict it gave.
            return Ok(!self.invalid.contains(&unit));
        };
        self.summary.deferred_run += 1;
        if let Some(crash) = &run.crash {
            let col = &self.plans[unit.sub].columns[unit.col];
            self.reporter.note(&format!(
                "{}: the original crashed on {} seed {} ({crash}) where a sibling column passed; no mutant's cell there decides anything",
                self.plans[unit.sub].name, col.suite, col.seed
            ));
            self.invalid.insert(unit);
            if let Some(u) = self.units.get_mut(&unit) {
                u.pending.clear();
            }
            return Ok(false);
        }
        report.tau = run.tau;
        report.max_abs = run.max_abs;
        report.kernel_ms = run.kernel_ms.or(report.kernel_ms);
        report.original_deferred = false;
        self.original_ms.insert(unit, report.kernel_ms.unwrap_or(0.0));
        self.put_original(unit, &report)?;
        Ok(!self.invalid.contains(&unit))
    }

    pub(super) fn evaluation_from(&self, unit: UnitKey, cand: usize, v: &EvalReport) -> Evaluation {
        let plan = &self.plans[unit.sub];
        let c = &plan.candidates[cand];
        let col = &plan.columns[unit.col];
        Evaluation {
            mutant: c.id.clone(),
            target: self.config.target.clone(),
            suite: col.suite.clone(),
            seed: col.seed,
            image: c.image_id.clone(),
            backend: self.summary.backend.clone(),
            outcome: if v.crash.is_some() { Outcome::Crash } else { Outcome::Completed },
            crash: v.crash.clone(),
            detail: v.detail.clone(),
            tau: v.tau,
            max_abs: v.max_abs,
            max_rel: v.max_rel,
            nonfinite: v.nonfinite,
            shape_ok: v.shape_ok,
            canary: v.canary,
            inputs_restored: v.inputs_restored,
            kernel_ms: v.kernel_ms,
            wall_ms: v.wall_ms.unwrap_or(0.0),
            orders: v.orders.clone(),
        }
    }

    pub(super) fn failed_evaluation(&self, unit: UnitKey, cand: usize, outcome: Outcome, crash: Option<String>, detail: String, sent: Instant) -> Evaluation {
        let plan = &self.plans[unit.sub];
        let c = &plan.candidates[cand];
        let col = &plan.columns[unit.col];
        Evaluation {
            mutant: c.id.clone(),
            target: self.config.target.clone(),
            suite: col.suite.clone(),
            seed: col.seed,
            image: c.image_id.clone(),
            backend: self.summary.backend.clone(),
            outcome,
            crash,
            detail: Some(detail),
            tau: None,
            max_abs: None,
            max_rel: None,
            nonfinite: false,
            shape_ok: true,
            canary: false,
            inputs_restored: false,
            kernel_ms: None,
            wall_ms: sent.elapsed().as_secs_f64() * 1e3,
            orders: Vec::new(),
        }
    }

    pub(super) fn record(&mut self, unit: UnitKey, cand: usize, e: Evaluation) {
        self.summary.evaluations += 1;
        match e.outcome {
            Outcome::Crash => self.summary.crashes += 1,
            Outcome::Timeout => self.summary.timeouts += 1,
            Outcome::Completed => {}
        }
        self.summary.canaries += usize::from(e.canary);
        self.summary.kernel_ms += e.kernel_ms.unwrap_or(0.0);
        self.summary.wall_ms += e.wall_ms;
        if e.outcome == Outcome::Completed {
            let w = self.eval_wall.entry(unit.sub).or_default();
            w.0 += e.wall_ms / 1e3;
            w.1 += 1;
        }
        let st = &mut self.states[unit.sub][cand];
        st.evaluated.insert(unit.col);
        st.killed |= e.kills_at(self.config.tolerance);
        self.batch.push(e);
        if let Some(u) = self.units.get_mut(&unit) {
            u.in_flight -= 1;
        }
        self.maybe_close(unit);
    }

    pub(super) fn flush(&mut self) -> Result<(), ExecError> {
        if !self.batch.is_empty() {
            self.store.put_evaluations(&self.batch, self.run)?;
            self.batch.clear();
            self.store.put_step_errors(&self.step_batch)?;
            self.step_batch.clear();
        }
        Ok(())
    }

    pub(super) fn report(&self) {
        let mut p = Progress { total: self.summary.total, evaluations: self.summary.evaluations, elapsed: self.started.elapsed(), ..Progress::default() };
        for &(sub, cand) in &self.order {
            if self.decided(sub, cand) {
                p.decided += 1;
                p.killed += usize::from(self.states[sub][cand].killed);
            }
        }
        p.workers = self.slots.iter().filter(|s| !matches!(s.state, SlotState::Dead)).count();
        self.reporter.progress(&p);
    }
}
