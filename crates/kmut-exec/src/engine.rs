//! The scheduler: units of work, worker slots, watchdogs, and the one store writer.
//!
//! A *unit* is one substrate's input column and the mutants still to run on it. A worker
//! prepares a column once (inputs, reference, the original's run) and then takes that unit's
//! mutants one at a time, so inputs are reused across mutants and every evaluation has its own
//! deadline. In first-kill mode a substrate's columns run as waves: column `c + 1` gets only the
//! mutants that survived columns `0..=c`. Work is taken in *rounds* (all of it at once, or
//! slices of the stratified order under a time budget), so an interrupted budget still leaves a
//! stratified sample of fully evaluated mutants.
//!
//! Verdicts are the mutant's alone. The watchdog times only the kernels (from the worker's
//! `begin` before the first launch to its `end` after the last kernel completed), not the
//! comparison or checksums after them. A failure that is the machine's (out of memory, a
//! worker killed by the kernel's OOM killer, a worker that stalls outside the kernels) is
//! never stored: the evaluation is retried once with the device to itself, then reported as
//! an error of the run. GPU memory is budgeted across a device's workers (`memory`). Every
//! result is written to the store as soon as it arrives, so a killed run loses at most the
//! evaluations in flight.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use kmut_model::Outcome;
use kmut_store::{Baseline, Evaluation, Store};
use serde_json::{json, Value};

use crate::memory::{Ledger, Need};
use crate::plan::SubstratePlan;
use crate::worker::{Exit, Heard, Said, WorkerProcess};
use crate::ExecError;

/// How the engine runs.
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Program and arguments of a worker; `--device N` and `--scratch DIR` are appended.
    pub worker_command: Vec<String>,
    /// GPU indices to use, and workers on each.
    pub devices: Vec<u32>,
    pub workers_per_device: usize,
    /// Started, idle workers kept ready on each device: a worker lost to a poisoned context or
    /// a hang is replaced at once instead of after a fresh interpreter, torch and CUDA start.
    pub spares_per_device: usize,
    /// Folder where workers share drawn inputs (removed by the caller).
    pub scratch: Option<PathBuf>,
    /// Workers' stderr is appended here.
    pub log: PathBuf,
    /// Stop evaluating a mutant once an input kills it.
    pub first_kill: bool,
    /// The protocol tolerance deciding kills (first-kill mode and the live counts).
    pub tolerance: f64,
    /// The watchdog: an evaluation may take `max(timeout_factor x the original's kernel time,
    /// min_timeout)` from its first launch.
    pub timeout_factor: f64,
    pub min_timeout: Duration,
    /// From sending an evaluation to its first launch (loading the image, running `launch`).
    pub start_timeout: Duration,
    /// For preparing a column (drawing inputs, the reference, the original's run).
    pub prep_timeout: Duration,
    /// Mutants in the first round under a time budget; `None` runs everything in one round.
    /// Later rounds are sized from the rate so far to fit the time left.
    pub round: Option<usize>,
    /// No new round starts after this instant.
    pub deadline: Option<Instant>,
    /// The compile target the images were built for (stored with every evaluation).
    pub target: String,
    /// Set aside a substrate whose original takes longer than this per input (ms): the CPU
    /// backend's limit for problems whose fixed weights make every run slow there.
    pub max_original_ms: Option<f64>,
    /// With `max_original_ms`: a column preparation longer than this plus twice the limit
    /// sets its substrate aside without waiting for the measurement (loading gigaparameter
    /// weights and one run of their original can take minutes on a CPU).
    pub heavy_prep_grace: Duration,
    /// The witness search: generated columns (`W:` suites) are checked against the fp64
    /// reference with this margin when prepared, and one that fails (an input no correct kernel
    /// passes) is skipped: no mutant runs on it, since no kill there could witness anything.
    pub validity_margin: Option<f64>,
}

/// Progress as the engine sees it; the CLI draws it.
#[derive(Debug, Clone, Default)]
pub struct Progress {
    /// Mutants whose verdict is settled (killed, or run on every column) out of all planned.
    pub decided: usize,
    pub total: usize,
    /// Evaluations made by this run so far, and kills among the settled mutants.
    pub evaluations: usize,
    pub killed: usize,
    pub workers: usize,
    pub elapsed: Duration,
}

pub trait Reporter: Sync {
    fn progress(&self, progress: &Progress);
    /// A one-line note worth showing (a worker replaced, a substrate that failed).
    fn note(&self, message: &str);
}

/// What a run did.
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub evaluations: usize,
    /// Evaluations already in the store and reused.
    pub resumed: usize,
    pub crashes: usize,
    pub timeouts: usize,
    pub canaries: usize,
    pub respawns: usize,
    /// Of those, replaced at once by a ready spare.
    pub spares_used: usize,
    pub kernel_ms: f64,
    pub wall_ms: f64,
    pub elapsed: Duration,
    pub decided: usize,
    pub total: usize,
    pub killed: usize,
    pub interrupted: bool,
    pub budget_spent: bool,
    /// Substrates that could not be evaluated, with the reason.
    pub failures: Vec<String>,
    /// Substrates set aside as too slow to run here (`max_original_ms`), with why.
    pub set_aside: Vec<String>,
    /// Evaluations and column preparations that failed for the machine's reasons (out of
    /// memory, ...) twice, the second time with the device to themselves: errors of the run,
    /// not verdicts; nothing of them is stored.
    pub environment_errors: Vec<String>,
    /// Of the machine's failures, those retried successfully.
    pub environment_retried: usize,
    pub backend: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct UnitKey {
    sub: usize,
    col: usize,
}

struct Unit {
    pending: VecDeque<usize>,
    in_flight: usize,
}

enum SlotState {
    Starting {
        since: Instant,
    },
    Idle,
    Preparing {
        unit: UnitKey,
        since: Instant,
    },
    Evaluating {
        unit: UnitKey,
        cand: usize,
        sent: Instant,
        /// Since the worker's latest `begin` (its kernels are running).
        running: Option<Instant>,
        /// Kernel time of the runs already ended (a CPU mutant runs once per thread order).
        spent: Duration,
        /// `end`s heard; once every run ended, only the comparison is left.
        ends: u32,
        ended: Option<Instant>,
    },
    /// Asked to drop its column and free its memory; back to idle on `released`.
    Releasing {
        since: Instant,
    },
    Dead,
}

struct Slot {
    device: u32,
    /// The id of the worker process now in the slot.
    worker: u64,
    process: Option<WorkerProcess>,
    state: SlotState,
    prepared: Option<UnitKey>,
    /// Device bytes its column holds (measured after preparing; estimated while preparing).
    held: u64,
    failed_starts: usize,
}

/// A started worker waiting to replace a lost one.
struct Spare {
    worker: u64,
    device: u32,
    process: WorkerProcess,
    ready: bool,
}

/// Who a worker id belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Owner {
    Slot(usize),
    Spare,
}

struct MutantState {
    killed: bool,
    evaluated: BTreeSet<usize>,
}

pub struct Engine<'a> {
    config: EngineConfig,
    plans: &'a [SubstratePlan],
    store: &'a mut Store,
    run: i64,
    reporter: &'a dyn Reporter,
    interrupt: &'a AtomicBool,
    // state
    states: Vec<Vec<MutantState>>,
    units: HashMap<UnitKey, Unit>,
    /// Per substrate: the candidates of the current round (first-kill waves need them).
    round_members: Vec<Vec<usize>>,
    failed: Vec<Option<String>>,
    /// Substrates stopped for being slow, not broken: `failed` stops them, this keeps them out
    /// of the failures.
    heavy: Vec<bool>,
    prep_failures: HashMap<UnitKey, usize>,
    original_ms: HashMap<UnitKey, f64>,
    slots: Vec<Slot>,
    spares: Vec<Spare>,
    /// Worker id -> its slot or the spare pool; ids of killed workers are removed.
    owners: HashMap<u64, Owner>,
    next_worker: u64,
    /// Spare starts that failed; past a few, no more spares are started.
    spare_failures: usize,
    tx: Sender<Heard>,
    rx: Receiver<Heard>,
    batch: Vec<Evaluation>,
    /// Per-step rows of the evaluations in `batch` (`kmut depth`), stored right after them.
    step_batch: Vec<kmut_store::StepError>,
    last_report: Instant,
    started: Instant,
    summary: RunSummary,
    last_error: String,
    order: Vec<(usize, usize)>,
    ledger: Ledger,
    /// Device -> the slot that has it to itself and the unit it retries there.
    reserved: HashMap<u32, (usize, UnitKey)>,
    /// Evaluations (unit, candidate) and columns that failed for the machine's reasons.
    env_failed_evals: HashMap<(UnitKey, usize), usize>,
    env_failed_preps: HashMap<UnitKey, usize>,
    /// Columns to prepare with the device to themselves.
    alone: HashSet<UnitKey>,
    /// Generated columns the validity gate refused: nothing runs on them.
    invalid: HashSet<UnitKey>,
}

impl<'a> Engine<'a> {
    pub fn new(
        config: EngineConfig,
        plans: &'a [SubstratePlan],
        store: &'a mut Store,
        run: i64,
        reporter: &'a dyn Reporter,
        interrupt: &'a AtomicBool,
    ) -> Engine<'a> {
        let (tx, rx) = mpsc::channel();
        Engine {
            config,
            plans,
            store,
            run,
            reporter,
            interrupt,
            states: Vec::new(),
            units: HashMap::new(),
            round_members: vec![Vec::new(); plans.len()],
            failed: vec![None; plans.len()],
            heavy: vec![false; plans.len()],
            prep_failures: HashMap::new(),
            original_ms: HashMap::new(),
            slots: Vec::new(),
            spares: Vec::new(),
            owners: HashMap::new(),
            next_worker: 0,
            spare_failures: 0,
            tx,
            rx,
            batch: Vec::new(),
            step_batch: Vec::new(),
            last_report: Instant::now(),
            started: Instant::now(),
            summary: RunSummary::default(),
            last_error: String::new(),
            order: Vec::new(),
            ledger: Ledger::default(),
            reserved: HashMap::new(),
            env_failed_evals: HashMap::new(),
            env_failed_preps: HashMap::new(),
            alone: HashSet::new(),
            invalid: HashSet::new(),
        }
    }

    /// Run `order` (positions `(substrate, candidate)` in the order mutants are taken) to the
    /// end, the budget, or an interrupt.
    pub fn run(mut self, order: &[(usize, usize)]) -> Result<RunSummary, ExecError> {
        self.load_stored()?;
        self.order = order.to_vec();
        self.summary.total = order.len();
        self.summary.resumed = order.iter().map(|&(s, c)| self.states[s][c].evaluated.len()).sum();
        let mut taken = self.config.round.unwrap_or(order.len()).clamp(1, order.len().max(1)).min(order.len());
        self.start_round(&order[..taken]);
        self.start_workers()?;
        let result = loop {
            if self.interrupt.load(Ordering::Relaxed) {
                self.summary.interrupted = true;
                break Ok(());
            }
            if self.units.is_empty() {
                if taken >= order.len() {
                    break Ok(());
                }
                if self.config.deadline.is_some_and(|d| Instant::now() >= d) {
                    self.summary.budget_spent = true;
                    break Ok(());
                }
                let size = self.next_round_size(taken, order.len() - taken);
                self.start_round(&order[taken..taken + size]);
                taken += size;
                continue;
            }
            if let Err(e) = self.step() {
                break Err(e);
            }
        };
        self.flush()?;
        for spare in self.spares.drain(..) {
            spare.process.quit();
        }
        for slot in &mut self.slots {
            if let Some(p) = slot.process.take() {
                if matches!(slot.state, SlotState::Idle | SlotState::Starting { .. } | SlotState::Releasing { .. }) {
                    p.quit();
                } else {
                    let mut p = p;
                    p.kill();
                }
            }
        }
        result?;
        self.count_decided(order);
        self.summary.elapsed = self.started.elapsed();
        let named = |(i, f): (usize, &Option<String>)| f.as_ref().map(|f| format!("{}: {f}", self.plans[i].name));
        self.summary.failures = self.failed.iter().enumerate().filter(|(i, _)| !self.heavy[*i]).filter_map(named).collect();
        self.summary.set_aside = self.failed.iter().enumerate().filter(|(i, _)| self.heavy[*i]).filter_map(named).collect();
        Ok(self.summary)
    }

    // --- Planning ---------------------------------------------------------------------------

    /// Stored evaluations of the same images count as done.
    fn load_stored(&mut self) -> Result<(), ExecError> {
        for (sub, plan) in self.plans.iter().enumerate() {
            // Footprints measured by earlier runs budget this one's memory from the start, and
            // generated columns the validity gate refused (for the same original) stay skipped.
            for b in self.store.baselines(&plan.name, &self.config.target)? {
                let Some(col) = plan.columns.iter().position(|k| k.suite == b.suite && k.seed == b.seed) else { continue };
                if let Some(bytes) = b.peak_bytes {
                    self.ledger.measured(sub, col, bytes);
                }
                if b.valid == Some(false) && b.image.as_deref() == Some(plan.original_id.as_str()) && self.config.validity_margin.is_some() {
                    self.invalid.insert(UnitKey { sub, col });
                }
            }
            let stored = self.store.evaluations(&plan.name, &self.config.target)?;
            let mut by_id: HashMap<&str, Vec<&Evaluation>> = HashMap::new();
            for e in &stored {
                by_id.entry(e.mutant.as_str()).or_default().push(e);
            }
            let states = plan
                .candidates
                .iter()
                .map(|c| {
                    let mut st = MutantState { killed: false, evaluated: BTreeSet::new() };
                    for e in by_id.get(c.id.as_str()).into_iter().flatten().filter(|e| e.image == c.image_id) {
                        if let Some(col) = plan.columns.iter().position(|k| k.suite == e.suite && k.seed == e.seed) {
                            st.evaluated.insert(col);
                            st.killed |= e.kills_at(self.config.tolerance);
                        }
                    }
                    st
                })
                .collect();
            self.states.push(states);
        }
        Ok(())
    }

    fn needs(&self, sub: usize, cand: usize, col: usize) -> bool {
        let st = &self.states[sub][cand];
        !(st.evaluated.contains(&col) || self.config.first_kill && st.killed)
    }

    /// Under a budget: as many mutants as the rate so far says fit in 80% of the time left
    /// (at least half the first round, at most what is left).
    fn next_round_size(&self, done: usize, left: usize) -> usize {
        let first = self.config.round.unwrap_or(left).max(1);
        let Some(deadline) = self.config.deadline else { return left };
        let elapsed = self.started.elapsed().as_secs_f64().max(1e-3);
        let remaining = deadline.saturating_duration_since(Instant::now()).as_secs_f64();
        let fit = (done as f64 / elapsed * remaining * 0.8) as usize;
        fit.max(first / 2).max(1).min(left)
    }

    fn start_round(&mut self, round: &[(usize, usize)]) {
        for members in &mut self.round_members {
            members.clear();
        }
        for &(sub, cand) in round {
            if self.failed[sub].is_none() {
                self.round_members[sub].push(cand);
            }
        }
        for sub in 0..self.plans.len() {
            if self.config.first_kill {
                self.open_wave(sub, 0);
            } else {
                for col in 0..self.plans[sub].columns.len() {
                    self.open_unit(sub, col);
                }
            }
        }
    }

    /// Open column `col` (or the next one with work) of `sub` for the round's mutants that need it.
    fn open_wave(&mut self, sub: usize, from: usize) {
        for col in from..self.plans[sub].columns.len() {
            if self.open_unit(sub, col) {
                return;
            }
        }
    }

    fn open_unit(&mut self, sub: usize, col: usize) -> bool {
        if self.invalid.contains(&UnitKey { sub, col }) {
            return false;
        }
        let pending: VecDeque<usize> = self.round_members[sub].iter().copied().filter(|&c| self.needs(sub, c, col)).collect();
        if pending.is_empty() {
            return false;
        }
        self.units.insert(UnitKey { sub, col }, Unit { pending, in_flight: 0 });
        true
    }

    /// A unit with nothing pending or in flight is closed; in first-kill mode the next wave opens.
    fn maybe_close(&mut self, key: UnitKey) {
        let done = self.units.get(&key).is_some_and(|u| u.pending.is_empty() && u.in_flight == 0);
        if done {
            self.units.remove(&key);
            if self.config.first_kill && self.failed[key.sub].is_none() {
                self.open_wave(key.sub, key.col + 1);
            }
        }
    }

    /// Stop a substrate that is too slow to run here: like a failure, but reported apart.
    fn set_aside(&mut self, sub: usize, why: &str) {
        if self.failed[sub].is_none() {
            self.heavy[sub] = true;
            self.fail_substrate(sub, format!("set aside: {why}"));
        }
    }

    fn fail_substrate(&mut self, sub: usize, why: String) {
        if self.failed[sub].is_some() {
            return; // a second column of it failing (or in flight) says nothing new
        }
        self.reporter.note(&format!("{}: {why}; its remaining mutants are skipped", self.plans[sub].name));
        self.failed[sub] = Some(why);
        let keys: Vec<UnitKey> = self.units.keys().copied().filter(|k| k.sub == sub).collect();
        for k in keys {
            if let Some(u) = self.units.get_mut(&k) {
                u.pending.clear();
            }
            self.maybe_close(k);
        }
    }

    // --- Workers ----------------------------------------------------------------------------

    fn start_workers(&mut self) -> Result<(), ExecError> {
        for &device in &self.config.devices {
            for _ in 0..self.config.workers_per_device.max(1) {
                self.slots.push(Slot { device, worker: u64::MAX, process: None, state: SlotState::Dead, prepared: None, held: 0, failed_starts: 0 });
            }
        }
        for i in 0..self.slots.len() {
            self.spawn(i)?;
        }
        for &device in &self.config.devices.clone() {
            for _ in 0..self.config.spares_per_device {
                self.spawn_spare(device)?;
            }
        }
        Ok(())
    }

    fn start_process(&mut self, device: u32, owner: Owner) -> Result<(u64, WorkerProcess), ExecError> {
        let id = self.next_worker;
        self.next_worker += 1;
        let process = WorkerProcess::spawn(&self.config.worker_command, device, self.config.scratch.as_deref(), &self.config.log, id, self.tx.clone())?;
        self.owners.insert(id, owner);
        Ok((id, process))
    }

    fn spawn(&mut self, i: usize) -> Result<(), ExecError> {
        let (id, process) = self.start_process(self.slots[i].device, Owner::Slot(i))?;
        let slot = &mut self.slots[i];
        slot.worker = id;
        slot.prepared = None;
        slot.held = 0;
        slot.process = Some(process);
        slot.state = SlotState::Starting { since: Instant::now() };
        Ok(())
    }

    fn spawn_spare(&mut self, device: u32) -> Result<(), ExecError> {
        if self.spare_failures >= 3 || self.interrupt.load(Ordering::Relaxed) {
            return Ok(());
        }
        let (worker, process) = self.start_process(device, Owner::Spare)?;
        self.spares.push(Spare { worker, device, process, ready: false });
        Ok(())
    }

    /// Put a ready spare of slot `i`'s device into the slot, and start another spare.
    fn take_spare(&mut self, i: usize) -> Result<bool, ExecError> {
        let device = self.slots[i].device;
        let Some(at) = self.spares.iter().position(|s| s.ready && s.device == device) else { return Ok(false) };
        let spare = self.spares.swap_remove(at);
        self.owners.insert(spare.worker, Owner::Slot(i));
        self.summary.spares_used += 1;
        let slot = &mut self.slots[i];
        slot.worker = spare.worker;
        slot.process = Some(spare.process);
        slot.prepared = None;
        slot.held = 0;
        slot.state = SlotState::Idle;
        self.spawn_spare(device)?;
        Ok(true)
    }

    /// Kill slot `i`'s worker and put a spare or a fresh one in its place (or retire the slot
    /// after repeated failed starts).
    fn replace(&mut self, i: usize, why: &str) -> Result<(), ExecError> {
        if let Some(mut p) = self.slots[i].process.take() {
            p.kill();
        }
        self.owners.remove(&self.slots[i].worker);
        self.slots[i].state = SlotState::Dead;
        self.slots[i].prepared = None;
        self.slots[i].held = 0;
        self.summary.respawns += 1;
        if self.slots[i].failed_starts >= 3 {
            self.reporter.note(&format!("worker {i} failed to start 3 times ({why}); retiring it"));
            if self.slots.iter().all(|s| matches!(s.state, SlotState::Dead) && s.failed_starts >= 3) {
                return Err(ExecError::NoWorker(self.last_error.clone()));
            }
            return Ok(());
        }
        if self.take_spare(i)? {
            return Ok(());
        }
        self.spawn(i)
    }

    /// Give an idle worker its next evaluation (or column).
    fn dispatch(&mut self, i: usize) {
        if !matches!(self.slots[i].state, SlotState::Idle) || self.interrupt.load(Ordering::Relaxed) {
            return;
        }
        let device = self.slots[i].device;
        let mut retry = None;
        match self.reserved.get(&device).copied() {
            // The unit to retry is gone (its substrate failed), or its work was taken by a
            // worker on another device: nothing to wait for.
            Some((_, unit)) if self.units.get(&unit).is_none_or(|u| u.pending.is_empty()) => {
                self.reserved.remove(&device);
            }
            // Another slot is waiting to have this device to itself: take no new work, and
            // give back the memory of the column held.
            Some((owner, _)) if owner != i => {
                self.release(i);
                return;
            }
            // This slot's retry waits until every other worker on the device holds nothing.
            Some(_) if self.held_by_others(i) > 0 => return,
            Some((_, unit)) => retry = Some(unit),
            None => {}
        }
        // Stay on the prepared column while it has work; otherwise take the unit with the most
        // pending work per worker already on it that fits in the device's memory.
        let key = match self.slots[i].prepared {
            _ if retry.is_some() => retry.expect("checked"),
            Some(k) if self.units.get(&k).is_some_and(|u| !u.pending.is_empty()) => k,
            _ => {
                let Some(k) = self.next_unit(i) else {
                    self.release_idle_for(i);
                    return;
                };
                k
            }
        };
        if self.slots[i].prepared != Some(key) {
            self.prepare(i, key);
            return;
        }
        let unit = self.units.get_mut(&key).expect("unit exists");
        let cand = unit.pending.pop_front().expect("pending work");
        unit.in_flight += 1;
        let c = &self.plans[key.sub].candidates[cand];
        let request = json!({
            "op": "eval",
            "eval": cand,
            "mutant": c.id,
            "image": c.image,
            "scope": c.scope,
            "transform": c.transform,
            "variant": c.variant,
            "orders": c.orders,
        });
        let slot = &mut self.slots[i];
        slot.state = SlotState::Evaluating { unit: key, cand, sent: Instant::now(), running: None, spent: Duration::ZERO, ends: 0, ended: None };
        if let Some(p) = slot.process.as_mut() {
            p.send(&request);
        }
    }

    /// The unit slot `i` should prepare next: pending work, not being prepared by another
    /// worker, and fitting in its device's memory beside what the other workers hold.
    fn next_unit(&self, i: usize) -> Option<UnitKey> {
        let device = self.slots[i].device;
        let on = |k: &UnitKey| self.slots.iter().filter(|s| s.prepared == Some(*k)).count();
        // A unit another worker is preparing waits for its report: it may set the substrate
        // aside (too slow here), and a second worker would pay the same preparation (and, on
        // the CPU, hold the same weights) for nothing.
        // Likewise a substrate never measured: its first column's footprint budgets the rest.
        let preparing = |k: &UnitKey| {
            let unmeasured = self.ledger.need(k.sub, k.col, false) == Need::Unknown;
            self.slots.iter().any(|s| matches!(s.state, SlotState::Preparing { unit, .. } if unit == *k || unmeasured && unit.sub == k.sub))
        };
        let others = self.held_by_others(i);
        self.units
            .iter()
            .filter(|(k, u)| !u.pending.is_empty() && !preparing(k))
            .filter(|(k, _)| self.ledger.fits(device, self.need(**k), self.config.workers_per_device, others))
            .max_by(|(a, ua), (b, ub)| (ua.pending.len() * 1000 / (on(a) + 1)).cmp(&(ub.pending.len() * 1000 / (on(b) + 1))).then(b.sub.cmp(&a.sub)).then(b.col.cmp(&a.col)))
            .map(|(k, _)| *k)
    }

    fn need(&self, unit: UnitKey) -> Need {
        self.ledger.need(unit.sub, unit.col, self.alone.contains(&unit))
    }

    /// Device bytes held by the other workers on slot `i`'s device.
    fn held_by_others(&self, i: usize) -> u64 {
        let device = self.slots[i].device;
        self.slots.iter().enumerate().filter(|(j, s)| *j != i && s.device == device).map(|(_, s)| s.held).sum()
    }

    /// Slot `i` found nothing that fits: if pending work is kept out only by memory that
    /// idle workers on its device hold for columns with no work left, release them.
    fn release_idle_for(&mut self, i: usize) {
        let device = self.slots[i].device;
        let waiting = self.units.iter().any(|(k, u)| !u.pending.is_empty() && !self.slots.iter().any(|s| s.prepared == Some(*k)));
        if !waiting {
            return;
        }
        let idle: Vec<usize> = (0..self.slots.len())
            .filter(|&j| j != i && self.slots[j].device == device && matches!(self.slots[j].state, SlotState::Idle) && self.slots[j].held > 0)
            .filter(|&j| self.slots[j].prepared.is_none_or(|k| self.units.get(&k).is_none_or(|u| u.pending.is_empty())))
            .collect();
        for j in idle {
            self.release(j);
        }
        if self.slots[i].held > 0 && self.slots[i].prepared.is_none_or(|k| self.units.get(&k).is_none_or(|u| u.pending.is_empty())) {
            self.release(i);
        }
    }

    /// Ask an idle worker to drop its column and free the device memory it holds.
    fn release(&mut self, i: usize) {
        let slot = &mut self.slots[i];
        if !matches!(slot.state, SlotState::Idle) || (slot.held == 0 && slot.prepared.is_none()) {
            return;
        }
        slot.state = SlotState::Releasing { since: Instant::now() };
        slot.prepared = None;
        if let Some(p) = slot.process.as_mut() {
            p.send(&json!({"op": "release"}));
        }
    }

    fn prepare(&mut self, i: usize, key: UnitKey) {
        let plan = &self.plans[key.sub];
        let column = &plan.columns[key.col];
        // The validity gate runs on generated columns only: a substrate's own suites passed the
        // gate's fp64 check when it was accepted.
        let margin = self.config.validity_margin.filter(|_| column.suite.starts_with("W:"));
        let request = json!({
            "op": "column",
            "substrate": {"name": plan.name, "path": plan.path, "original_image": plan.original_image, "symbols": plan.symbols, "original_variant": plan.original_variant},
            "suite": column.suite,
            "seed": column.seed,
            "margin": margin,
        });
        let need = self.need(key);
        let held = self.ledger.bytes(self.slots[i].device, need, self.config.workers_per_device).unwrap_or(0);
        let slot = &mut self.slots[i];
        slot.state = SlotState::Preparing { unit: key, since: Instant::now() };
        // Until the worker reports its measured peak, count the estimate as held.
        slot.held = held;
        slot.prepared = None;
        if let Some(p) = slot.process.as_mut() {
            p.send(&request);
        }
    }

    // --- The loop ---------------------------------------------------------------------------

    fn step(&mut self) -> Result<(), ExecError> {
        for i in 0..self.slots.len() {
            self.dispatch(i);
        }
        match self.rx.recv_timeout(Duration::from_millis(100)) {
            Ok(heard) => self.hear(heard)?,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => unreachable!("the engine holds a sender"),
        }
        self.watchdog()?;
        // Every result is stored as soon as it is heard: a kill -9 of the orchestrator loses
        // only the evaluations in flight (one short transaction each; SQLite's WAL keeps it cheap).
        if !self.batch.is_empty() {
            self.flush()?;
        }
        if self.last_report.elapsed() > Duration::from_millis(250) {
            self.last_report = Instant::now();
            self.report();
        }
        Ok(())
    }

    fn hear(&mut self, heard: Heard) -> Result<(), ExecError> {
        match (self.owners.get(&heard.worker).copied(), heard.said) {
            (None, _) => Ok(()), // a replaced worker's last words
            (Some(Owner::Slot(i)), Said::Gone) => self.on_gone(i),
            (Some(Owner::Slot(i)), Said::Line(v)) => self.on_line(i, &v),
            (Some(Owner::Spare), said) => self.on_spare(heard.worker, &said),
        }
    }

    fn on_spare(&mut self, worker: u64, said: &Said) -> Result<(), ExecError> {
        let Some(at) = self.spares.iter().position(|s| s.worker == worker) else { return Ok(()) };
        let ready = matches!(said, Said::Line(v) if v.get("event").and_then(Value::as_str) == Some("ready"));
        if ready {
            self.spares[at].ready = true;
            return Ok(());
        }
        if matches!(said, Said::Line(v) if v.get("event").and_then(Value::as_str) != Some("error")) {
            return Ok(());
        }
        // It could not start: drop it and try another, a few times at most.
        let mut spare = self.spares.swap_remove(at);
        spare.process.kill();
        self.owners.remove(&worker);
        self.spare_failures += 1;
        self.spawn_spare(spare.device)
    }

    fn on_line(&mut self, i: usize, v: &Value) -> Result<(), ExecError> {
        let event = v.get("event").and_then(Value::as_str).unwrap_or("");
        match (event, &self.slots[i].state) {
            ("ready", SlotState::Starting { .. }) => {
                self.slots[i].failed_starts = 0;
                if self.summary.backend.is_empty() {
                    self.summary.backend = match v.get("backend").and_then(Value::as_str) {
                        Some(b) => b.to_owned(),
                        None => format!("cuda:{}", v.get("name").and_then(Value::as_str).unwrap_or("?")),
                    };
                }
                if let Some(total) = v.get("memory_total").and_then(Value::as_u64) {
                    self.ledger.set_total(self.slots[i].device, total);
                }
                self.slots[i].state = SlotState::Idle;
            }
            ("column", &SlotState::Preparing { unit, .. }) => {
                self.slots[i].prepared = Some(unit);
                self.slots[i].state = SlotState::Idle;
                if let Some(peak) = v.get("peak_bytes").and_then(Value::as_u64) {
                    self.ledger.measured(unit.sub, unit.col, peak);
                    self.slots[i].held = peak;
                }
                if self.alone.remove(&unit) {
                    self.summary.environment_retried += 1;
                    self.unreserve(i);
                }
                self.on_column(unit, v)?;
            }
            ("released", SlotState::Releasing { .. }) => {
                self.slots[i].held = 0;
                self.slots[i].state = SlotState::Idle;
            }
            ("error", state) => {
                let detail = v.get("detail").and_then(Value::as_str).unwrap_or("no detail").to_owned();
                self.last_error.clone_from(&detail);
                let fatal = v.get("fatal").and_then(Value::as_bool).unwrap_or(false);
                let environment = v.get("environment").and_then(Value::as_bool).unwrap_or(false);
                match *state {
                    SlotState::Preparing { unit, .. } if environment => {
                        self.slots[i].state = SlotState::Idle;
                        self.slots[i].held = 0;
                        self.prep_environment_failed(i, unit, &detail);
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
            ("begin", SlotState::Evaluating { .. }) => {
                if let SlotState::Evaluating { running, .. } = &mut self.slots[i].state {
                    *running = Some(Instant::now());
                }
            }
            ("end", SlotState::Evaluating { .. }) => {
                let runs = self.runs_of(i);
                if let SlotState::Evaluating { running, spent, ends, ended, .. } = &mut self.slots[i].state {
                    if let Some(since) = running.take() {
                        *spent += since.elapsed();
                    }
                    *ends += 1;
                    if *ends >= runs {
                        *ended = Some(Instant::now());
                    }
                }
            }
            ("result", &SlotState::Evaluating { unit, cand, .. }) => {
                let fatal = v.get("fatal").and_then(Value::as_bool).unwrap_or(false);
                self.slots[i].state = SlotState::Idle;
                if let Some(why) = v.get("environment").and_then(Value::as_str) {
                    self.eval_environment_failed(i, unit, cand, why);
                } else {
                    let e = self.evaluation_from(unit, cand, v);
                    self.step_batch.extend(crate::steps::rows(&e, v));
                    self.record(unit, cand, e);
                    self.retried(i, unit, cand);
                }
                if fatal {
                    self.replace(i, "its CUDA context did not survive the fault")?;
                }
            }
            ("noise", _) => self.reporter.note(&format!("worker {i} printed: {}", v.get("line").and_then(Value::as_str).unwrap_or(""))),
            _ => {}
        }
        Ok(())
    }

    /// How many times the candidate slot `i` evaluates runs its pipeline (once per thread
    /// order on the CPU backend).
    fn runs_of(&self, i: usize) -> u32 {
        match self.slots[i].state {
            SlotState::Evaluating { unit, cand, .. } => self.plans[unit.sub].candidates[cand].orders.len().max(1) as u32,
            _ => 1,
        }
    }

    fn on_gone(&mut self, i: usize) -> Result<(), ExecError> {
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
                let e = self.failed_evaluation(unit, cand, Outcome::Crash, Some(class.into()), format!("the worker died during the evaluation ({status})"), sent);
                self.record(unit, cand, e);
                self.retried(i, unit, cand);
            }
            SlotState::Preparing { unit, .. } if killed => {
                self.prep_environment_failed(i, unit, &format!("the worker was killed from outside ({status}; the kernel's OOM killer?)"));
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

    /// An evaluation failed for the machine's reasons (out of memory, ...): nothing is stored.
    /// The first time, it goes back to the front of its unit and slot `i` gets the device to
    /// itself for it; the second time it is an error of the run and the mutant stays not run.
    fn eval_environment_failed(&mut self, i: usize, unit: UnitKey, cand: usize, why: &str) {
        let n = self.env_failed_evals.entry((unit, cand)).or_insert(0);
        *n += 1;
        let id = self.plans[unit.sub].candidates[cand].id.clone();
        if let Some(u) = self.units.get_mut(&unit) {
            u.in_flight -= 1;
            if *n < 2 {
                u.pending.push_front(cand);
            }
        }
        if *n < 2 {
            self.reporter.note(&format!("{id} on {}: {why}: not a verdict; retrying it with the device to itself", self.plans[unit.sub].name));
            self.reserve(i, unit);
        } else {
            self.summary.environment_errors.push(format!("{} mutant {id}: {why} (twice, the second time with the device to itself); nothing stored", self.plans[unit.sub].name));
            self.unreserve(i);
        }
        self.maybe_close(unit);
    }

    /// A column could not be prepared for the machine's reasons: retried once alone, then the
    /// substrate fails with the reason (a failure of the run, no verdict).
    fn prep_environment_failed(&mut self, i: usize, unit: UnitKey, why: &str) {
        let n = self.env_failed_preps.entry(unit).or_insert(0);
        *n += 1;
        let col = &self.plans[unit.sub].columns[unit.col];
        if *n < 2 {
            self.reporter.note(&format!("{} {} seed {}: {why}: retrying it with the device to itself", self.plans[unit.sub].name, col.suite, col.seed));
            self.alone.insert(unit);
            self.reserve(i, unit);
        } else {
            let what = format!("column {} seed {} could not be prepared: {why} (twice, the second time with the device to itself)", col.suite, col.seed);
            self.summary.environment_errors.push(format!("{}: {what}", self.plans[unit.sub].name));
            self.alone.remove(&unit);
            self.unreserve(i);
            self.fail_substrate(unit.sub, what);
        }
    }

    /// An evaluation that failed for the machine's reasons before has now been made.
    fn retried(&mut self, i: usize, unit: UnitKey, cand: usize) {
        if self.env_failed_evals.remove(&(unit, cand)).is_some() {
            self.summary.environment_retried += 1;
            self.unreserve(i);
        }
    }

    /// Give slot `i` its device to itself for `unit`, unless another slot already waits for it
    /// (that one's turn comes first; this retry then runs beside nothing but it).
    fn reserve(&mut self, i: usize, unit: UnitKey) {
        self.reserved.entry(self.slots[i].device).or_insert((i, unit));
    }

    fn unreserve(&mut self, i: usize) {
        let device = self.slots[i].device;
        if self.reserved.get(&device).is_some_and(|&(slot, _)| slot == i) {
            self.reserved.remove(&device);
        }
    }

    fn prep_failed(&mut self, unit: UnitKey, why: &str) {
        let n = self.prep_failures.entry(unit).or_insert(0);
        *n += 1;
        if *n >= 2 {
            let col = &self.plans[unit.sub].columns[unit.col];
            self.fail_substrate(unit.sub, format!("column {} seed {} failed twice: {why}", col.suite, col.seed));
        }
    }

    fn watchdog(&mut self) -> Result<(), ExecError> {
        let now = Instant::now();
        for i in 0..self.slots.len() {
            match self.slots[i].state {
                SlotState::Evaluating { unit, cand, sent, running, spent, ended, .. } => {
                    // A mutant run in several thread orders runs the pipeline once per order;
                    // only the kernels count (from each `begin` to its `end`).
                    let runs = self.plans[unit.sub].candidates[cand].orders.len().max(1) as u32;
                    let budget = self.eval_budget(unit) * runs;
                    let kernels = spent + running.map_or(Duration::ZERO, |r| now.duration_since(r));
                    if running.is_some() && kernels > budget {
                        let what = format!(
                            "its kernels ran {:.1} s without finishing (max({} x the original's {:.3} ms, {:.1} s){})",
                            kernels.as_secs_f64(),
                            self.config.timeout_factor,
                            self.original_ms.get(&unit).copied().unwrap_or(0.0),
                            self.config.min_timeout.as_secs_f64(),
                            if runs > 1 { format!(" per thread order, {runs} orders") } else { String::new() }
                        );
                        let e = self.failed_evaluation(unit, cand, Outcome::Timeout, None, what, sent);
                        self.slots[i].state = SlotState::Dead;
                        self.record(unit, cand, e);
                        self.replace(i, "an evaluation hung")?;
                        continue;
                    }
                    // Outside the kernels the worker only loads the image, builds the launch,
                    // compares and checks: a stall there is the machine's, never a verdict.
                    let stalled = match ended {
                        Some(e) => (now.duration_since(e) > self.config.prep_timeout).then(|| format!("no result {:.0} s after its kernels completed", self.config.prep_timeout.as_secs_f64())),
                        None if running.is_none() && spent.is_zero() && now.duration_since(sent) > self.config.start_timeout => {
                            Some(format!("no launch within {:.0} s of the request", self.config.start_timeout.as_secs_f64()))
                        }
                        None => None,
                    };
                    if let Some(why) = stalled {
                        self.slots[i].state = SlotState::Dead;
                        self.eval_environment_failed(i, unit, cand, &format!("the worker stalled: {why}"));
                        self.replace(i, "a worker stalled outside the kernels")?;
                    }
                }
                SlotState::Preparing { unit, since } if self.heavy_cutoff().is_some_and(|c| now.duration_since(since) > c) => {
                    // Far past what a substrate within the limit needs to prepare a column (draw
                    // small inputs, the reference, one run of the original): it is heavy here.
                    let waited = now.duration_since(since).as_secs_f64();
                    self.slots[i].state = SlotState::Dead;
                    let limit = self.config.max_original_ms.unwrap_or(0.0) / 1e3;
                    self.set_aside(unit.sub, &format!("preparing one input took over {waited:.0} s here (its original's limit is {limit:.1} s)"));
                    self.replace(i, "a column preparation was too slow")?;
                }
                SlotState::Preparing { unit, since } if now.duration_since(since) > self.config.prep_timeout => {
                    self.slots[i].state = SlotState::Dead;
                    self.prep_failed(unit, &format!("preparing it took longer than {:.0} s", self.config.prep_timeout.as_secs_f64()));
                    self.replace(i, "a column preparation hung")?;
                }
                SlotState::Starting { since } if now.duration_since(since) > self.config.prep_timeout => {
                    self.slots[i].failed_starts += 1;
                    self.replace(i, "it did not start")?;
                }
                SlotState::Releasing { since } if now.duration_since(since) > self.config.start_timeout => {
                    self.replace(i, "it did not release its column")?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// With `max_original_ms`: how long a column's preparation may take before its substrate is
    /// set aside unmeasured (the grace for loading and drawing, plus twice the limit: one run of
    /// the original and the reference's).
    fn heavy_cutoff(&self) -> Option<Duration> {
        self.config.max_original_ms.map(|ms| self.config.heavy_prep_grace + Duration::from_secs_f64(2.0 * ms / 1e3))
    }

    fn eval_budget(&self, unit: UnitKey) -> Duration {
        let original = self.original_ms.get(&unit).copied().unwrap_or(0.0);
        let scaled = Duration::from_secs_f64((original * self.config.timeout_factor / 1e3).max(0.0));
        scaled.max(self.config.min_timeout)
    }

    // --- Results ----------------------------------------------------------------------------

    fn on_column(&mut self, unit: UnitKey, v: &Value) -> Result<(), ExecError> {
        let kernel_ms = number(v.get("kernel_ms"));
        self.original_ms.insert(unit, kernel_ms.unwrap_or(0.0));
        let plan = &self.plans[unit.sub];
        let col = &plan.columns[unit.col];
        let b = Baseline {
            substrate: plan.name.clone(),
            target: self.config.target.clone(),
            suite: col.suite.clone(),
            seed: col.seed,
            backend: self.summary.backend.clone(),
            sizes: v.get("sizes").map_or_else(|| "{}".to_owned(), Value::to_string),
            tau: number(v.get("tau")),
            max_abs: number(v.get("max_abs")),
            kernel_ms,
            prep_s: number(v.get("prep_s")),
            image: Some(plan.original_id.clone()),
            peak_bytes: v.get("peak_bytes").and_then(Value::as_u64),
            valid: v.get("valid").and_then(Value::as_bool),
            tau64_ref: number(v.get("tau64_ref")),
            tau64_orig: number(v.get("tau64_orig")),
        };
        self.store.put_baseline(&b, self.run)?;
        if let Some(layout) = crate::steps::layout(&b.substrate, &b.target, &b.suite, b.seed, v) {
            self.store.put_step_layout(&layout, self.run)?;
        }
        if b.valid == Some(false) {
            // Past the legitimate-variance ceiling: a correct kernel fails here too.
            self.invalid.insert(unit);
            if let Some(u) = self.units.get_mut(&unit) {
                u.pending.clear();
            }
            self.maybe_close(unit);
            return Ok(());
        }
        if let (Some(limit), Some(ms)) = (self.config.max_original_ms, kernel_ms) {
            if ms > limit {
                self.set_aside(unit.sub, &format!("its original takes {:.1} s per input here (limit {:.1} s)", ms / 1e3, limit / 1e3));
                return Ok(());
            }
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
        Ok(())
    }

    fn evaluation_from(&self, unit: UnitKey, cand: usize, v: &Value) -> Evaluation {
        let plan = &self.plans[unit.sub];
        let c = &plan.candidates[cand];
        let col = &plan.columns[unit.col];
        let crash = v.get("crash").and_then(Value::as_str).map(str::to_owned);
        let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
        Evaluation {
            mutant: c.id.clone(),
            target: self.config.target.clone(),
            suite: col.suite.clone(),
            seed: col.seed,
            image: c.image_id.clone(),
            backend: self.summary.backend.clone(),
            outcome: if crash.is_some() { Outcome::Crash } else { Outcome::Completed },
            crash,
            detail: v.get("detail").and_then(Value::as_str).map(str::to_owned).or_else(|| v.get("shape").and_then(Value::as_str).map(str::to_owned)),
            tau: number(v.get("tau")),
            max_abs: number(v.get("max_abs")),
            max_rel: number(v.get("max_rel")),
            nonfinite: flag("nonfinite"),
            shape_ok: v.get("shape_ok").and_then(Value::as_bool).unwrap_or(true),
            canary: flag("canary"),
            inputs_restored: flag("inputs_restored"),
            kernel_ms: number(v.get("kernel_ms")),
            wall_ms: number(v.get("wall_ms")).unwrap_or(0.0),
            orders: v.get("orders").and_then(Value::as_array).map_or_else(Vec::new, |a| a.iter().filter_map(order_tau).collect()),
        }
    }

    fn failed_evaluation(&self, unit: UnitKey, cand: usize, outcome: Outcome, crash: Option<String>, detail: String, sent: Instant) -> Evaluation {
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

    fn record(&mut self, unit: UnitKey, cand: usize, e: Evaluation) {
        self.summary.evaluations += 1;
        match e.outcome {
            Outcome::Crash => self.summary.crashes += 1,
            Outcome::Timeout => self.summary.timeouts += 1,
            Outcome::Completed => {}
        }
        self.summary.canaries += usize::from(e.canary);
        self.summary.kernel_ms += e.kernel_ms.unwrap_or(0.0);
        self.summary.wall_ms += e.wall_ms;
        let st = &mut self.states[unit.sub][cand];
        st.evaluated.insert(unit.col);
        st.killed |= e.kills_at(self.config.tolerance);
        self.batch.push(e);
        if let Some(u) = self.units.get_mut(&unit) {
            u.in_flight -= 1;
        }
        self.maybe_close(unit);
    }

    fn flush(&mut self) -> Result<(), ExecError> {
        if !self.batch.is_empty() {
            self.store.put_evaluations(&self.batch, self.run)?;
            self.batch.clear();
            self.store.put_step_errors(&self.step_batch)?;
            self.step_batch.clear();
        }
        Ok(())
    }

    fn decided(&self, sub: usize, cand: usize) -> bool {
        let st = &self.states[sub][cand];
        let skipped = (0..self.plans[sub].columns.len()).filter(|&col| self.invalid.contains(&UnitKey { sub, col }) && !st.evaluated.contains(&col)).count();
        (self.config.first_kill && st.killed) || st.evaluated.len() + skipped == self.plans[sub].columns.len()
    }

    fn report(&self) {
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

    fn count_decided(&mut self, order: &[(usize, usize)]) {
        self.summary.decided = order.iter().filter(|&&(s, c)| self.decided(s, c)).count();
        self.summary.killed = order.iter().filter(|&&(s, c)| self.decided(s, c) && self.states[s][c].killed).count();
    }
}

/// One `[order, tau]` pair of a multi-order evaluation; a missing or non-finite tau is `None`.
fn order_tau(v: &Value) -> Option<(u32, Option<f64>)> {
    let pair = v.as_array()?;
    let order = u32::try_from(pair.first()?.as_u64()?).ok()?;
    Some((order, number(pair.get(1)).filter(|t| t.is_finite())))
}

/// A number from the worker: JSON has no infinity, so the worker sends `"inf"` or `"nan"`.
pub(crate) fn number(v: Option<&Value>) -> Option<f64> {
    match v? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => match s.as_str() {
            "inf" | "Infinity" => Some(f64::INFINITY),
            "-inf" | "-Infinity" => Some(f64::NEG_INFINITY),
            "nan" | "NaN" => Some(f64::NAN),
            other => other.parse().ok(),
        },
        _ => None,
    }
}
