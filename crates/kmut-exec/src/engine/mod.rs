//! The scheduler: units of work, worker slots, watchdogs, and the one store writer.
//!
//! Its parts, each a module: `unit` (a column's queue of mutants, and each mutant's state),
//! `rounds` (which mutants are taken now, on which columns),
//! `pool` (worker slots and spares, handing out work within device memory), `events`
//! (what workers say, and their deaths), `watchdog` (timeouts), `retries` (the machine's
//! failures, never verdicts) and `results` (the store and the counts). This file holds the
//! configuration, the summary and the loop that ties them; the worker's line protocol is typed
//! in `crate::protocol`.
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

mod events;
mod pool;
mod results;
mod retries;
mod rounds;
mod unit;
mod watchdog;

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::time::{Duration, Instant};

use kmut_store::{Evaluation, Store};

use crate::memory::Ledger;
use crate::plan::SubstratePlan;
use crate::protocol::ColumnReport;
use crate::worker::{Heard, Said};
use crate::ExecError;
use crate::RoundImages;
use pool::{Owner, Slot, SlotState, Spare};
use unit::{MutantState, Unit, UnitKey};

/// How the engine runs.
// Its switches are independent (each set from the CLI or a bench configuration, each with its
// own baseline): a state machine would not say more than the flags do.
#[allow(clippy::struct_excessive_bools)]
#[derive(Debug, Clone)]
pub struct EngineConfig {
    /// Program and arguments of a worker; `--device N` and `--scratch DIR` are appended.
    pub worker_command: Vec<String>,
    /// GPU indices to use, and workers on each.
    pub devices: Vec<u32>,
    pub workers_per_device: usize,
    /// Started, idle workers kept ready on each device: a worker lost to a poisoned context or
    /// a hang is replaced at once instead of after a fresh interpreter, torch and CUDA start.
    /// The least kept: while workers are lost faster than spares start, up to half the workers
    /// more are kept (`Engine::spare_target`).
    pub spares_per_device: usize,
    /// Host memory (bytes) below which the spare pool does not grow past `spares_per_device`:
    /// each spare is a process with torch and a CUDA context (1-2 GiB of host memory), beside
    /// the workers' draws and the scratch folder in `/dev/shm` (the 2026-12-07 fill peaked at
    /// 110 of the host's 128 GiB). `SPARE_HOST_RESERVE` by default.
    pub spare_host_reserve: u64,
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
    /// Capture per-step rows on a witness search's columns too (`kmut witness --search-steps`),
    /// not only on the protocol's own.
    pub steps_on_search: bool,
    /// First kill: an idle worker carries a wave's survivors to their next column before the
    /// wave ends (`advance_waves`); off, a column opens only when the wave before it ended
    /// (`kmut bench run --baseline waves` measures the difference).
    pub advance_waves: bool,
    /// First kill: a worker with nothing it may take prepares the next column of a substrate
    /// whose wave is still running, before any mutant has survived into it (`prefetch_unit`),
    /// so the survivors find it ready; off, a column is prepared once a survivor needs it
    /// (`kmut bench run --baseline prefetch` measures the difference).
    pub prefetch: bool,
    /// A worker choosing a protocol column takes the heaviest that fits first, where a column
    /// needs more than a fair share of its device (`Engine::heavy_key`): the few columns too
    /// large for more than two or three to fit at once then run beside the light ones instead
    /// of being left to the run's end, where most workers would wait for memory (2026-12-07:
    /// the whole-corpus bench on an H100 idle 29% of its slot time on memory, its 25-32 GiB
    /// level-1 columns two at a time at the end). Off, they are taken in the usual order
    /// (`kmut bench run --baseline heavy-first` measures the difference).
    pub heavy_first: bool,
    /// A column whose original's figures a stored baseline of the same original image on the
    /// same backend holds (an earlier run's, or this run's first preparation of it) is prepared
    /// without running the original, unless its mutants need the original's outputs
    /// (`Engine::known_original`; `kmut run --rerun-original` turns it off).
    pub reuse_original: bool,
    /// A column nothing is known of, whose sibling of the same suite this run measured, is
    /// prepared with the original's run deferred to its first failing evaluation
    /// (`protocol::DeferredOriginal`; `kmut run --rerun-original` turns it off too). Off in
    /// `kmut audit`, which reads every column's original tau\* at each protocol's tolerance.
    pub defer_original: bool,
    /// Stored cells count as done only on columns with a baseline of the original (any image):
    /// a cell on a column whose original's run an earlier `kmut run` deferred and never made is
    /// evaluated again, the column prepared with the original measured. On in `kmut audit`,
    /// whose false kills read each column's tau\* at every protocol's tolerance.
    pub cells_need_baseline: bool,
}

/// The default `EngineConfig::spare_host_reserve`: 16 GiB.
pub const SPARE_HOST_RESERVE: u64 = 16 << 30;

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
    /// Of those, replaced by a spare: a ready one at once, or one still starting, which is ready
    /// sooner than a fresh start (`Engine::adopt_spare`).
    pub spares_used: usize,
    /// The most spares one device held at once (ready or starting): the configured count, or
    /// more while workers are lost faster than spares start (`Engine::spare_target`).
    pub spares_most: usize,
    /// Images made round by round (`Engine::with_round_images`), and the time it took: inside
    /// the run's elapsed time and its budget.
    pub images_made: usize,
    pub image_time: Duration,
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
    /// Columns on which the original failed the run's bound for its substrate
    /// (`SubstratePlan::original_bound`), skipped for every mutant.
    pub false_kill_columns: usize,
    /// Columns prepared ahead of their first-kill wave (`EngineConfig::prefetch`), and of those
    /// the ones a mutant was then evaluated on: the rest were prepared for nothing.
    pub prefetched: usize,
    pub prefetch_used: usize,
    /// Columns prepared, and of those the ones whose original was not run again: its figures
    /// came from a stored baseline (`EngineConfig::reuse_original`).
    pub columns_prepared: usize,
    pub original_reused: usize,
    /// Columns prepared with the original's run deferred (`EngineConfig::defer_original`), and
    /// the deferred runs made at a column's first failing evaluation.
    pub original_deferred: usize,
    pub deferred_run: usize,
    pub backend: String,
    /// Where the worker slots' time went, summed over the slots (the run's elapsed time times
    /// the slots, up to the scheduler loop's own few milliseconds).
    pub slot_time: SlotTime,
    /// Pipeline steps of the evaluations that returned a result, and of those the steps
    /// replayed from the original's kept outputs instead of launched: the leading steps before
    /// a mutant's first changed one (`python/kmut/replay.py`, `prefix_steps`), and the
    /// steps after its last changed one where its run had left the original's state
    /// (`tail_from`, `converged`), counted again in `tail_replayed` over `tails` evaluations.
    pub pipeline_steps: u64,
    pub steps_replayed: u64,
    pub tail_replayed: u64,
    pub tails: u64,
    /// Where the evaluations that returned a result spent their wall time, by part.
    pub eval_parts: crate::EvalParts,
}

/// Worker-slot time by what the slot was doing (issue 21: a GPU busy 39% of a witness call's
/// tail, with preparation and evaluations not filling the workers' time, had no account of the
/// rest). Accounted around the scheduler loop's one wait (`Engine::account_slots`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct SlotTime {
    /// A worker process starting (interpreter, torch, CUDA), first or as a replacement.
    pub starting: Duration,
    /// Preparing a column: drawing inputs, the references, the original's run, validity.
    pub preparing: Duration,
    /// From sending an evaluation to its result (loading the image, launches, comparison).
    pub evaluating: Duration,
    /// Dropping a column to free device memory.
    pub releasing: Duration,
    /// Started and waiting: no unit with work it may take (none left, or the device's memory
    /// held by others' columns). The sum of `idle_why`'s parts.
    pub idle: Duration,
    /// Why the idle time was idle (issue 21: 41% of a whole-corpus bench's slot time was idle,
    /// and nothing said whether memory, a retry's drain or the work's shape kept it so).
    pub idle_why: IdleTime,
    /// Empty: its worker died and no replacement has started yet.
    pub dead: Duration,
}

/// What kept an idle worker idle, as `dispatch` found it the last time it looked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum IdleReason {
    /// Its device is kept for a retry with the device to itself (another slot's, or this one's
    /// waiting for the others to release their columns).
    Drain,
    /// Work is waiting that it may take, but none fits beside the device's held columns.
    Memory,
    /// It holds a column that earlier columns still feed survivors to, and waits for them.
    Chain,
    /// No pending work it may take: the round's columns held by other workers, being
    /// prepared, or not worth joining; or nothing left.
    NoWork,
}

/// Idle worker-slot time by reason (`IdleReason`).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct IdleTime {
    pub drain: Duration,
    pub memory: Duration,
    pub chain: Duration,
    pub no_work: Duration,
}

impl IdleTime {
    fn add(&mut self, why: IdleReason, dt: Duration) {
        *match why {
            IdleReason::Drain => &mut self.drain,
            IdleReason::Memory => &mut self.memory,
            IdleReason::Chain => &mut self.chain,
            IdleReason::NoWork => &mut self.no_work,
        } += dt;
    }

    /// `no work 30%, memory 8%, ...` of `total`, largest first, the zero parts left out.
    fn shares(&self, total: f64) -> String {
        percentages([("no work", self.no_work), ("memory", self.memory), ("drain", self.drain), ("chain", self.chain)], total, |_| String::new())
    }
}

/// `name p%` for each nonzero part of `total` seconds, largest first, each followed by `after(name)`.
fn percentages<const N: usize>(mut parts: [(&str, Duration); N], total: f64, after: impl Fn(&str) -> String) -> String {
    parts.sort_by_key(|p| std::cmp::Reverse(p.1));
    parts
        .iter()
        .filter(|(_, d)| !d.is_zero())
        .map(|(name, d)| format!("{name} {:.0}%{}", 100.0 * d.as_secs_f64() / total, after(name)))
        .collect::<Vec<_>>()
        .join(", ")
}

impl SlotTime {
    fn add(&mut self, state: &SlotState, idle_why: IdleReason, dt: Duration) {
        let bucket = match state {
            SlotState::Starting { .. } => &mut self.starting,
            SlotState::Idle => {
                self.idle_why.add(idle_why, dt);
                &mut self.idle
            }
            SlotState::Preparing { .. } => &mut self.preparing,
            SlotState::Evaluating { .. } => &mut self.evaluating,
            SlotState::Releasing { .. } => &mut self.releasing,
            SlotState::Dead => &mut self.dead,
        };
        *bucket += dt;
    }

    #[must_use]
    pub fn total(&self) -> Duration {
        self.starting + self.preparing + self.evaluating + self.releasing + self.idle + self.dead
    }

    /// `evaluating 41%, preparing 33%, idle 20% (no work 12%, memory 8%), ...` of the total,
    /// largest first; empty when nothing was accounted.
    #[must_use]
    pub fn shares(&self) -> String {
        let total = self.total().as_secs_f64();
        if total <= 0.0 {
            return String::new();
        }
        let parts = [
            ("evaluating", self.evaluating),
            ("preparing", self.preparing),
            ("idle", self.idle),
            ("starting", self.starting),
            ("dead", self.dead),
            ("releasing", self.releasing),
        ];
        percentages(parts, total, |name| if name == "idle" { format!(" ({})", self.idle_why.shares(total)) } else { String::new() })
    }
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
    /// The last baseline of each column measured with the current original image: the store's
    /// at the start, then this run's (`known_original`).
    known_originals: HashMap<UnitKey, kmut_store::Baseline>,
    /// Columns prepared with the original's run deferred, and what their preparation reported
    /// (the sizes drawn, its peak and time): the baseline the deferred run completes.
    deferred: HashMap<UnitKey, ColumnReport>,
    /// Columns a failing evaluation reached while their original's run was deferred, with no
    /// deferred run after it (its worker ended): prepared again, they measure the original.
    must_measure: HashSet<UnitKey>,
    /// Seconds each column's preparation took (its worker's report), and per substrate the
    /// summed wall seconds and count of its completed evaluations: what `worth_joining` weighs.
    prep_s: HashMap<UnitKey, f64>,
    eval_wall: HashMap<usize, (f64, usize)>,
    slots: Vec<Slot>,
    spares: Vec<Spare>,
    /// Worker id -> its slot or the spare pool; ids of killed workers are removed.
    owners: HashMap<u64, Owner>,
    next_worker: u64,
    /// Spare starts that failed; past a few, no more spares are started.
    spare_failures: usize,
    /// When each recent worker replacement happened, and on which device: the rate that sizes
    /// the spare pool (`spare_target`).
    replaced_at: VecDeque<(Instant, u32)>,
    /// Seconds from a worker's start to its `ready`, summed, and how many starts: the mean start.
    start_secs: (f64, u32),
    tx: Sender<Heard>,
    rx: Receiver<Heard>,
    batch: Vec<Evaluation>,
    /// Per-step rows of the evaluations in `batch` (`kmut depth`), stored right after them.
    step_batch: Vec<kmut_store::StepError>,
    last_report: Instant,
    /// Until when the slots' time is accounted (`SlotTime`).
    accounted: Instant,
    started: Instant,
    summary: RunSummary,
    last_error: String,
    order: Vec<(usize, usize)>,
    ledger: Ledger,
    /// Set by `dispatch` when an idle worker found nothing it could take (the run loop may then
    /// start the next round early); cleared at each step.
    starved: bool,
    /// Whether rounds of the order are still to be taken (and may be, before the deadline): a
    /// worker with nothing to do then starts the next round rather than prefetch a column.
    more_rounds: bool,
    /// Device -> the slots that wait to have it to themselves, each with the unit it retries
    /// there, in turn: the first has it now.
    reserved: HashMap<u32, VecDeque<(usize, UnitKey)>>,
    /// Evaluations (unit, candidate) and columns that failed for the machine's reasons.
    env_failed_evals: HashMap<(UnitKey, usize), usize>,
    env_failed_preps: HashMap<UnitKey, usize>,
    /// Columns to prepare with the device to themselves.
    alone: HashSet<UnitKey>,
    /// Columns nothing runs on: generated columns the validity gate refused, and columns on
    /// which the original fails the run's bound for its substrate (`original_bound`). A
    /// mutant's verdict does not wait for them.
    invalid: HashSet<UnitKey>,
    /// Columns this machine could not prepare (out of memory twice, the second time with the
    /// device to itself): nothing runs on them in this run, later columns still open, and a
    /// mutant that needs one stays undecided (it is not a verdict, and a later run retries it).
    unpreparable: HashSet<UnitKey>,
    /// Columns a worker failed to join for the machine's reasons while another held them: no
    /// worker joins them again while they are held (`prep_environment_failed`).
    crowded: HashSet<UnitKey>,
    /// Columns prepared ahead of their wave (`prefetch_unit`) on which nothing was evaluated yet.
    prefetched: HashSet<UnitKey>,
    /// Makes each round's images when it starts; `None`: the plan made them all.
    images: Option<&'a mut dyn RoundImages>,
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
            known_originals: HashMap::new(),
            deferred: HashMap::new(),
            must_measure: HashSet::new(),
            prep_s: HashMap::new(),
            eval_wall: HashMap::new(),
            slots: Vec::new(),
            spares: Vec::new(),
            owners: HashMap::new(),
            next_worker: 0,
            spare_failures: 0,
            replaced_at: VecDeque::new(),
            start_secs: (0.0, 0),
            tx,
            rx,
            batch: Vec::new(),
            step_batch: Vec::new(),
            last_report: Instant::now(),
            accounted: Instant::now(),
            started: Instant::now(),
            summary: RunSummary::default(),
            last_error: String::new(),
            order: Vec::new(),
            ledger: Ledger::default(),
            starved: false,
            more_rounds: false,
            reserved: HashMap::new(),
            env_failed_evals: HashMap::new(),
            env_failed_preps: HashMap::new(),
            alone: HashSet::new(),
            invalid: HashSet::new(),
            unpreparable: HashSet::new(),
            crowded: HashSet::new(),
            prefetched: HashSet::new(),
            images: None,
        }
    }

    /// Make each round's images when the round starts (a budgeted run's plan compiles none of
    /// the mutants'): the time goes into the budget, and a mutant the budget leaves out is
    /// never compiled.
    #[must_use]
    pub fn with_round_images(mut self, images: &'a mut dyn RoundImages) -> Engine<'a> {
        self.images = Some(images);
        self
    }

    /// Run `order` (positions `(substrate, candidate)` in the order mutants are taken) to the
    /// end, the budget, or an interrupt.
    pub fn run(mut self, order: &[(usize, usize)]) -> Result<RunSummary, ExecError> {
        self.load_stored()?;
        self.order = order.to_vec();
        self.summary.total = order.len();
        self.summary.resumed = order.iter().map(|&(s, c)| self.states[s][c].evaluated.len()).sum();
        let mut taken = self.config.round.unwrap_or(order.len()).clamp(1, order.len().max(1)).min(order.len());
        // Workers start (an interpreter, torch, a CUDA context) while the first round's images
        // are made.
        self.start_workers()?;
        self.accounted = Instant::now();
        let mut result = self.start_round(&order[..taken]);
        let result = loop {
            if result.is_err() {
                break result;
            }
            if self.interrupt.load(Ordering::Relaxed) {
                self.summary.interrupted = true;
                break Ok(());
            }
            // The next round starts as soon as nothing of this one waits for a worker (only
            // evaluations in flight are left), or as soon as a worker stands idle with nothing
            // it may take while every column with work is held (`starved_round`), so a round's
            // last long first-kill chains do not leave the other workers idle. After the
            // deadline no round starts, and the taken ones run to their end: every mutant taken
            // is fully evaluated.
            let past_deadline = self.config.deadline.is_some_and(|d| Instant::now() >= d);
            self.more_rounds = taken < order.len() && !past_deadline;
            if self.more_rounds && (self.units.values().all(|u| u.pending.is_empty()) || self.starved_round(&order[..taken])) {
                let settled = order[..taken].iter().filter(|&&(s, c)| self.decided(s, c)).count();
                let size = self.next_round_size(settled, order.len() - taken);
                result = self.start_round(&order[taken..taken + size]);
                taken += size;
                // The idle workers have not yet been offered this round's work: whether they
                // still find nothing is the next step's to say, not the last one's.
                self.starved = false;
                continue;
            }
            if self.units.is_empty() {
                if taken < order.len() {
                    self.summary.budget_spent = true;
                }
                break Ok(());
            }
            if let Err(e) = self.step() {
                break Err(e);
            }
        };
        self.account_slots();
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

    /// The time since the last account goes to each slot's current state. Called before the
    /// loop's transitions (`dispatch`) and right after its one wait, before what it heard is
    /// handled: between two calls no state changes but at the interval's start, so the time goes
    /// to the state the slot was in (to within the scheduler's own processing, milliseconds).
    fn account_slots(&mut self) {
        let now = Instant::now();
        let dt = now.saturating_duration_since(self.accounted);
        self.accounted = now;
        for slot in &self.slots {
            self.summary.slot_time.add(&slot.state, slot.idle_why, dt);
        }
    }

    fn step(&mut self) -> Result<(), ExecError> {
        self.account_slots();
        self.starved = false;
        for i in 0..self.slots.len() {
            self.dispatch(i);
        }
        let heard = self.rx.recv_timeout(Duration::from_millis(100));
        // The wait belongs to the states `dispatch` left; what is heard changes them after it.
        self.account_slots();
        match heard {
            Ok(heard) => self.hear(heard)?,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => unreachable!("the engine holds a sender"),
        }
        // Everything already said is heard before the watchdog looks: a kernel's `end` waiting
        // in the channel (behind a round's compile) must not read as a hang.
        while let Ok(heard) = self.rx.try_recv() {
            self.hear(heard)?;
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
            (Some(Owner::Slot(i)), Said::Line(event)) => self.on_line(i, event, heard.at),
            (Some(Owner::Spare), said) => self.on_spare(heard.worker, &said),
        }
    }
}
