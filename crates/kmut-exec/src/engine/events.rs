//! What the workers say: each event moves its slot's state, and a worker's death is
//! classified (a memory fault, killed from outside, died) before it is replaced.

use std::time::Instant;

use kmut_model::Outcome;

use super::pool::SlotState;
use super::unit::UnitKey;
use super::Engine;
use crate::protocol::{EvalReport, Event};
use crate::worker::{Exit, WorkerProcess};
use crate::ExecError;

impl Engine<'_> {
    pub(super) fn on_line(&mut self, i: usize, event: Event, at: Instant) -> Result<(), ExecError> {
        match (event, &self.slots[i].state) {
            (Event::Ready { backend, name, memory_total }, &SlotState::Starting { since }) => {
                self.slots[i].failed_starts = 0;
                self.started_in(since.elapsed().as_secs_f64());
                if self.summary.backend.is_empty() {
                    self.summary.backend = backend.unwrap_or_else(|| format!("cuda:{}", name.as_deref().unwrap_or("?")));
                }
                if let Some(total) = memory_total {
                    self.ledger.set_total(self.slots[i].device, total);
                }
                self.slots[i].state = SlotState::Idle;
            }
            (Event::Column(report), &SlotState::Preparing { unit, .. }) => {
                self.slots[i].prepared = Some(unit);
                self.slots[i].state = SlotState::Idle;
                if let Some(peak) = report.peak_bytes {
                    self.ledger.measured(unit.sub, unit.col, crate::memory::size_class(&self.plans[unit.sub].columns[unit.col].suite), peak);
                    // Preparing took `peak`; evaluating holds less once the preparation's
                    // transient memory is given back (a witness column's float64 validity
                    // copies, the reference's activations), and the other workers may use the
                    // rest. A worker that does not say holds its peak.
                    self.slots[i].held = report.held_bytes.map_or(peak, |h| h.min(peak));
                }
                if self.alone.remove(&unit) {
                    self.summary.environment_retried += 1;
                    self.unreserve(i);
                }
                self.on_column(unit, &report)?;
            }
            (Event::Released, SlotState::Releasing { .. }) => {
                self.slots[i].held = 0;
                self.slots[i].state = SlotState::Idle;
            }
            (Event::Error { detail, fatal, environment, retry_alone }, state) => {
                self.last_error.clone_from(&detail);
                match *state {
                    SlotState::Preparing { unit, .. } if environment => {
                        self.slots[i].state = SlotState::Idle;
                        self.slots[i].held = 0;
                        self.prep_environment_failed(i, unit, &detail, retry_alone);
                    }
                    SlotState::Preparing { unit, .. } => {
                        self.slots[i].state = SlotState::Idle;
                        self.slots[i].held = 0;
                        self.fail_substrate(
                            unit.sub,
                            format!(
                                "column {} seed {} could not be prepared: {detail}",
                                self.plans[unit.sub].columns[unit.col].suite, self.plans[unit.sub].columns[unit.col].seed
                            ),
                        );
                    }
                    SlotState::Starting { .. } => self.slots[i].failed_starts += 1,
                    _ => self.reporter.note(&format!("worker {i}: {detail}")),
                }
                if fatal {
                    self.replace(i, &detail)?;
                }
            }
            (Event::Begin, SlotState::Evaluating { .. }) => {
                if let SlotState::Evaluating { running, .. } = &mut self.slots[i].state {
                    *running = Some(at);
                }
            }
            (Event::End, SlotState::Evaluating { .. }) => {
                let runs = self.runs_of(i);
                if let SlotState::Evaluating { running, spent, ends, ended, .. } = &mut self.slots[i].state {
                    if let Some(since) = running.take() {
                        *spent += at.saturating_duration_since(since);
                    }
                    *ends += 1;
                    if *ends >= runs {
                        *ended = Some(at);
                    }
                }
            }
            (Event::Result(report), &SlotState::Evaluating { unit, cand, .. }) => {
                self.slots[i].state = SlotState::Idle;
                if let Some(why) = &report.environment {
                    self.eval_environment_failed(i, unit, cand, why);
                } else if let Some(run) = report.original.as_ref().filter(|_| report.crash.is_none()) {
                    // A failing evaluation on a deferred column, with the original's run it
                    // triggered: the column's baseline first, then the evaluation if the column
                    // still decides.
                    if self.on_deferred_original(unit, run)? {
                        self.take_result(i, unit, cand, &report);
                    } else {
                        self.discard_result(i, unit, cand);
                    }
                } else {
                    self.take_result(i, unit, cand, &report);
                }
                if report.fatal {
                    self.replace(i, "its CUDA context did not survive the fault")?;
                }
            }
            (Event::Noise(line), _) => self.reporter.note(&format!("worker {i} printed: {line}")),
            _ => {}
        }
        Ok(())
    }

    /// An evaluation's result into the run: its cell, its step rows and replay counts.
    fn take_result(&mut self, i: usize, unit: UnitKey, cand: usize, report: &EvalReport) {
        let e = self.evaluation_from(unit, cand, report);
        if e.outcome == Outcome::Completed && e.kills_at(self.config.tolerance) && self.deferred.contains_key(&unit) {
            // A failing evaluation on a column still deferred: its worker could not run the
            // original after it (it ended: a CPU canary, a column it could not restore; or the
            // machine failed that run), so the column's next preparation measures the original.
            self.must_measure.insert(unit);
        }
        self.summary.pipeline_steps += report.steps_total;
        self.summary.steps_replayed += report.skipped_steps;
        self.summary.tail_replayed += report.tail_steps;
        self.summary.tails += u64::from(report.tail_steps > 0);
        self.summary.eval_parts.add(&report.phases_ms);
        if let Some(steps) = &report.steps {
            self.step_batch.extend(crate::steps::rows(&e, steps));
        }
        self.record(unit, cand, e);
        self.retried(i, unit, cand);
    }

    /// An evaluation on a column its deferred original's run set aside: no cell, as if the
    /// column had been set aside before the mutant ran there (the mutant goes on to its other
    /// columns).
    fn discard_result(&mut self, i: usize, unit: UnitKey, cand: usize) {
        if let Some(u) = self.units.get_mut(&unit) {
            u.in_flight -= 1;
        }
        self.retried(i, unit, cand);
        self.maybe_close(unit);
    }

    /// How many times the candidate slot `i` evaluates runs its pipeline (once per thread
    /// order on the CPU backend).
    pub(super) fn runs_of(&self, i: usize) -> u32 {
        match self.slots[i].state {
            SlotState::Evaluating { unit, cand, .. } => self.plans[unit.sub].candidates[cand].orders.len().max(1) as u32,
            _ => 1,
        }
    }

    pub(super) fn on_gone(&mut self, i: usize) -> Result<(), ExecError> {
        let exit = self.slots[i].process.as_mut().and_then(WorkerProcess::exit_status);
        let status = exit.map_or_else(|| "ended".to_owned(), |e| e.to_string());
        // A bad memory access (the CPU backend's guard pages, a wild pointer) is a
        // `memory_fault`; SIGKILL from outside (the kernel's OOM killer) is the machine's, not
        // the mutant's; any other death (the driver aborting) `worker_died`.
        let killed = exit.is_some_and(Exit::killed);
        let class = if exit.is_some_and(Exit::memory_fault) { "memory_fault" } else { "worker_died" };
        self.slots[i].held = 0;
        match std::mem::replace(&mut self.slots[i].state, SlotState::Dead) {
            SlotState::Evaluating { unit, cand, .. } if killed => {
                self.eval_environment_failed(i, unit, cand, &format!("the worker was killed from outside ({status}; the kernel's OOM killer?)"));
            }
            SlotState::Evaluating { unit, cand, sent, .. } => {
                let e =
                    self.failed_evaluation(unit, cand, Outcome::Crash, Some(class.into()), format!("the worker died during the evaluation ({status})"), sent);
                self.record(unit, cand, e);
                self.retried(i, unit, cand);
            }
            SlotState::Preparing { unit, .. } if killed => {
                self.prep_environment_failed(i, unit, &format!("the worker was killed from outside ({status}; the kernel's OOM killer?)"), true);
            }
            SlotState::Preparing { unit, .. } => self.prep_failed(unit, &format!("the worker died while preparing it ({status})")),
            SlotState::Starting { .. } => {
                self.slots[i].failed_starts += 1;
                if self.last_error.is_empty() {
                    self.last_error = format!("the worker exited at start ({status}); see {}", self.config.log.display());
                }
            }
            SlotState::Idle | SlotState::Releasing { .. } | SlotState::Dead => {}
        }
        self.replace(i, &status)
    }
}
