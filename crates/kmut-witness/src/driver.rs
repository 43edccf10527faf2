//! Probing a generator's scales on run workers: each probe is one column of the witness
//! search (`{"op": "column", "suite": "W:<generator>:<scale>:<sizes>", "margin": ...}`), which
//! the worker answers with the validity gate's verdict and both distances to fp64. Several
//! substrates are searched at once, one per worker; every probe is reported as it arrives (the
//! caller stores it, so an interrupted search loses nothing and a resumed one re-probes
//! nothing it already has).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::time::{Duration, Instant};

use kmut_exec::protocol::{ColumnReport, Event, Request, SubstrateRef};
use kmut_exec::worker::{Heard, Said, WorkerProcess};
use kmut_exec::SubstratePlan;

use crate::ceiling::{bisect, scale_text, Bracket};

/// How to probe.
#[derive(Debug, Clone)]
pub struct DriverConfig {
    /// The run worker (`python -m kmut._run_worker`, plus `--backend cpu` on the CPU backend).
    pub worker_command: Vec<String>,
    pub devices: Vec<u32>,
    pub workers_per_device: usize,
    pub scratch: Option<PathBuf>,
    pub log: PathBuf,
    /// The validity margin in tau\* units (the protocol's tolerance times `--margin`).
    pub margin: f64,
    /// Every seed must be valid for a scale to count as valid.
    pub seeds: Vec<u64>,
    pub lowest: f64,
    pub highest: f64,
    pub steps: u32,
    pub start_timeout: Duration,
    pub prep_timeout: Duration,
}

/// One substrate's search: its plan (the original image the worker runs), the generators to
/// search at `sizes`, and the probes already stored for its current original.
#[derive(Debug, Clone)]
pub struct CeilingJob {
    pub plan: SubstratePlan,
    pub generators: Vec<String>,
    pub sizes: String,
    pub known: HashMap<ProbeKey, Probe>,
}

/// A probe's identity within one substrate: generator, sizes, the scale's bits and the seed.
pub type ProbeKey = (String, String, u64, u64);

/// One probe's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub generator: String,
    pub sizes: String,
    pub scale: f64,
    pub seed: u64,
    pub valid: bool,
    pub tau64_ref: Option<f64>,
    pub tau64_orig: Option<f64>,
}

impl Probe {
    pub fn key(&self) -> ProbeKey {
        (self.generator.clone(), self.sizes.clone(), self.scale.to_bits(), self.seed)
    }
}

/// What the driver reports as it goes, with the job's index.
#[derive(Debug, Clone)]
pub enum JobOutcome {
    /// A new probe (never one of `known`).
    Probed(usize, Probe),
    /// A generator's search ended: its bracket, or why it could not be probed (a worker that
    /// died or timed out, the original failing on the column). A failure is the machine's or
    /// the substrate's, never a ceiling.
    Searched { job: usize, generator: String, result: Result<Bracket, String> },
    /// Every generator of the job is done.
    Finished(usize),
}

/// Run every job, `config.devices.len() * workers_per_device` at once, calling `report` on this
/// thread as outcomes arrive. Stops taking new jobs once `interrupt` is set.
pub fn probe_ceilings(config: &DriverConfig, jobs: &[CeilingJob], interrupt: &AtomicBool, mut report: impl FnMut(JobOutcome)) {
    let next = AtomicUsize::new(0);
    let (tx, rx) = channel::<JobOutcome>();
    std::thread::scope(|scope| {
        let slots = config.devices.iter().flat_map(|&d| std::iter::repeat_n(d, config.workers_per_device.max(1)));
        for (slot, device) in slots.enumerate() {
            let tx = tx.clone();
            let next = &next;
            scope.spawn(move || {
                let mut worker = Prober::new(config, device, slot as u64 * 1_000_000);
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    if i >= jobs.len() || interrupt.load(Ordering::SeqCst) {
                        break;
                    }
                    worker.job(i, &jobs[i], &tx, interrupt);
                    let _ = tx.send(JobOutcome::Finished(i));
                }
                worker.quit();
            });
        }
        drop(tx);
        for outcome in rx {
            report(outcome);
        }
    });
}

/// One worker slot: a run worker process (started on first use, replaced when it dies).
struct Prober<'a> {
    config: &'a DriverConfig,
    device: u32,
    next_id: u64,
    process: Option<(WorkerProcess, u64, Receiver<Heard>)>,
}

impl<'a> Prober<'a> {
    fn new(config: &'a DriverConfig, device: u32, first_id: u64) -> Prober<'a> {
        Prober { config, device, next_id: first_id, process: None }
    }

    fn job(&mut self, index: usize, job: &CeilingJob, tx: &Sender<JobOutcome>, interrupt: &AtomicBool) {
        let c = self.config;
        for generator in &job.generators {
            if interrupt.load(Ordering::SeqCst) {
                return;
            }
            let result = bisect(c.lowest, c.highest, c.steps, |scale| {
                for &seed in &c.seeds {
                    let key = (generator.clone(), job.sizes.clone(), scale.to_bits(), seed);
                    let probe = if let Some(p) = job.known.get(&key) {
                        p.clone()
                    } else {
                        let p = self.probe(&job.plan, generator, &job.sizes, scale, seed)?;
                        let _ = tx.send(JobOutcome::Probed(index, p.clone()));
                        p
                    };
                    // One invalid seed settles the scale: the others need not run.
                    if !probe.valid {
                        return Ok(false);
                    }
                }
                Ok(true)
            });
            let _ = tx.send(JobOutcome::Searched { job: index, generator: generator.clone(), result });
        }
    }

    /// One column on the worker: the original on `W:<generator>:<scale>:<sizes>` under `seed`.
    fn probe(&mut self, plan: &SubstratePlan, generator: &str, sizes: &str, scale: f64, seed: u64) -> Result<Probe, String> {
        let suite = format!("W:{generator}:{}:{sizes}", scale_text(scale));
        let request = Request::Column {
            substrate: SubstrateRef {
                name: &plan.name,
                path: &plan.path,
                original_image: &plan.original_image,
                symbols: &plan.symbols,
                original_variant: plan.original_variant.as_deref(),
            },
            suite: &suite,
            seed,
            margin: Some(self.config.margin),
            // A probe needs the validity gate only, never the per-step rows.
            steps: false,
            // A probe is the measurement: the original always runs.
            known: None,
            defer: None,
        };
        let answer = self.ask(&request, self.config.prep_timeout).map_err(|e| format!("{suite} seed {seed}: {e}"))?;
        let valid = answer.valid.ok_or_else(|| format!("{suite} seed {seed}: the worker did not run the validity gate"))?;
        Ok(Probe { generator: generator.to_owned(), sizes: sizes.to_owned(), scale, seed, valid, tau64_ref: answer.tau64_ref, tau64_orig: answer.tau64_orig })
    }

    /// Send a column request and wait for its `column` event; an `error` event, the worker's
    /// exit or a timeout is an error (and a worker that may be wedged is replaced).
    fn ask(&mut self, request: &Request<'_>, timeout: Duration) -> Result<ColumnReport, String> {
        self.ensure_started()?;
        let (process, id, _) = self.process.as_mut().expect("started");
        let id = *id;
        if !process.send(request) {
            self.drop_process();
            return Err("the worker exited before the request".into());
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(heard) = self.process.as_ref().expect("started").2.recv_timeout(left) else {
                self.drop_process();
                return Err(format!("no answer in {} s; the worker was stopped", timeout.as_secs()));
            };
            if heard.worker != id {
                continue;
            }
            let Said::Line(event) = heard.said else {
                self.drop_process();
                return Err("the worker exited while preparing the column (see the worker log)".into());
            };
            match event {
                Event::Column(report) => return Ok(report),
                Event::Error { detail, fatal, environment, .. } => {
                    if fatal {
                        self.drop_process();
                    }
                    return Err(if environment { format!("the machine failed (not a verdict): {detail}") } else { detail });
                }
                _ => {}
            }
        }
    }

    fn ensure_started(&mut self) -> Result<(), String> {
        if self.process.is_some() {
            return Ok(());
        }
        let (tx, rx) = channel();
        let id = self.next_id;
        self.next_id += 1;
        let c = self.config;
        let process = WorkerProcess::spawn(&c.worker_command, self.device, c.scratch.as_deref(), &c.log, id, tx).map_err(|e| e.to_string())?;
        let deadline = Instant::now() + c.start_timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(Heard { said: Said::Line(Event::Ready { .. }), .. }) => break,
                Ok(Heard { said: Said::Line(Event::Error { detail, .. }), .. }) => return Err(format!("the worker could not start: {detail}")),
                Ok(Heard { said: Said::Line(_), .. }) => {}
                Ok(Heard { said: Said::Gone, .. }) => return Err(format!("the worker exited while starting (see {})", c.log.display())),
                Err(_) => return Err(format!("the worker did not start in {} s", c.start_timeout.as_secs())),
            }
        }
        self.process = Some((process, id, rx));
        Ok(())
    }

    fn drop_process(&mut self) {
        if let Some((mut p, _, _)) = self.process.take() {
            p.kill();
        }
    }

    fn quit(&mut self) {
        if let Some((p, _, _)) = self.process.take() {
            p.quit();
        }
    }
}
