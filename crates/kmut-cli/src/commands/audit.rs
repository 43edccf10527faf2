//! `kmut audit`: run what the audited protocols need that the store lacks (through the engine
//! of `kmut run`), then print the audit (`kmut_audit`).

use std::collections::HashSet;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use kmut_audit::{AuditOptions, Need};
use kmut_exec::{Engine, EngineConfig, SubstratePlan};
use kmut_model::{Backend, Inputs, Protocol};
use kmut_plan::{Planned, Sampling};
use kmut_store::Store;

use crate::args::{AuditArgs, Selection};
use crate::commands::compile::{compile_substrates, interrupt_flag, store_path, Compiled};
use crate::commands::run::{heavy_limit, images_of, machines, parse_duration, plan, print_summary, scratch_dir, Machines, RunProgress};
use crate::{Environment, ExitStatus};

pub fn run(args: &AuditArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let protocols: Vec<Protocol> = args.protocols.iter().map(|p| Protocol::load(p)).collect::<Result<_, _>>().map_err(anyhow::Error::msg)?;
    let mut names = HashSet::new();
    for p in &protocols {
        anyhow::ensure!(names.insert(p.name.as_str()), "protocol `{}` is named twice", p.name);
    }
    let baseline = match &args.baseline {
        None => 0,
        Some(b) => protocols.iter().position(|p| &p.name == b).with_context(|| format!("--baseline {b} is not one of the protocols audited"))?,
    };
    let backend = Backend::parse(&args.backend).map_err(anyhow::Error::msg)?;
    let options = AuditOptions { protocols, backend, baseline, examples: args.examples };
    let mut status = ExitStatus::Success;
    let mut audited: Vec<String> = Vec::new();
    if !args.no_run {
        let (s, names) = execute(args, env, &options)?;
        if s == ExitStatus::Interrupted {
            // The cells stored so far still make an audit (undecided where columns did not run):
            // a run stopped by its caller's clock should not lose what it measured to the report.
            eprintln!("interrupted: every finished evaluation is stored; the audit below is of the cells stored so far, and the same command resumes");
        }
        status = s;
        audited = names;
    }
    let path = store_path(args.store.as_deref());
    anyhow::ensure!(path.is_file(), "no store at `{}`; run `kmut witness` first (or pass --store)", path.display());
    let store = Store::open(&path)?;
    let audit = kmut_audit::audit(&store, &audited, &options)?;
    for w in &audit.warnings {
        eprintln!("warning: {w}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&audit)?);
    } else {
        print!("{}", kmut_audit::render(&audit));
    }
    Ok(status)
}

/// Compile, plan and run, judge by judge, what the audit still needs; the names of the
/// substrates audited.
fn execute(args: &AuditArgs, env: &Environment, options: &AuditOptions) -> anyhow::Result<(ExitStatus, Vec<String>)> {
    let backend = options.backend;
    let budget = args.budget.as_deref().map(parse_duration).transpose()?;
    let heavy_ms = heavy_limit(args.heavy_limit, backend);
    let Machines { devices, workers, gxx } = machines(&args.gpus, args.workers_per_gpu, args.cpu_workers, backend)?;
    let mut compile_opts = args.compile.clone();
    let temp_cache = compile_opts.no_cache.then(|| std::env::temp_dir().join(format!("kmut-run-cache-{}", std::process::id())));
    if let Some(dir) = &temp_cache {
        compile_opts.no_cache = false;
        compile_opts.cache = Some(dir.clone());
    }
    let interrupt = interrupt_flag();
    let select = audited_selection(args)?;
    let mut compiled = compile_substrates(&args.substrates, &select, &compile_opts, args.store.as_deref(), env, &interrupt, "audit")?;
    if compiled.interrupted {
        return Ok((ExitStatus::Interrupted, vec![]));
    }
    let names: Vec<String> = compiled.substrates.iter().map(|(d, _)| d.name.clone()).collect();
    // The plan's candidates and images; each judge's run replaces the columns with its own.
    let official = Protocol::builtin("official").map_err(anyhow::Error::msg)?;
    // Images are deferred: only the audited (witnessed, sampled) mutants' are compiled, below.
    // Compiling every live mutant's first spent a whole 110 s H200 budget on 17,000 images.
    let defer = backend == Backend::Gpu;
    let Planned { plans, order, notes, deferred, .. } =
        plan(&compiled, gxx.as_ref(), &official, Inputs::Protocol.on(backend), Sampling { seed: args.seed, sample: None }, heavy_ms, defer, &interrupt)?;
    for n in &notes {
        eprintln!("audit: {n}");
    }
    // Only witnessed mutants can enter the audit's denominator: the others are not run.
    let mut witnessed = Vec::new();
    for p in &plans {
        witnessed.push(kmut_audit::witnessed(&compiled.store, desc(&compiled, &p.name)?, backend)?);
    }
    let mut chosen: Vec<(usize, usize)> = order.into_iter().filter(|&(s, c)| witnessed[s].contains(&plans[s].candidates[c].id)).collect();
    if let Some(n) = args.sample {
        chosen.truncate(n);
    }
    eprintln!(
        "audit: {} witnessed mutants of {} substrates{}, {} protocols ({} judges with the decomposition's intermediates), each mutant stopping at its first kill at the judge's loosest tolerance",
        chosen.len(),
        plans.len(),
        args.sample.map_or_else(String::new, |n| format!(" (at most {n}, seed {})", args.seed)),
        options.protocols.len(),
        kmut_audit::judge_count(options),
    );
    if !deferred.is_empty() && !chosen.is_empty() {
        let images = images_of(compiled.cache.as_ref(), &compiled.compiler, compiled.pool.as_ref(), &compiled.options, true)?;
        let mut round = kmut_plan::RoundCompiler { images, target: &compiled.target, deferred };
        let made = kmut_exec::RoundImages::make(&mut round, &plans, &chosen).map_err(anyhow::Error::msg)?;
        eprintln!("audit: {made} images of the audited mutants made (the others' are not needed)");
    }
    let (scratch, scratch_guard) = scratch_dir(args.scratch.as_deref())?;
    let engine = EngineSetup {
        args,
        python: env.python.display().to_string(),
        backend,
        devices,
        workers,
        scratch: scratch.clone(),
        deadline: budget.map(|b| Instant::now() + b),
        budgeted: budget.is_some(),
        heavy_ms,
        interrupt: &interrupt,
    };
    let mut status = ExitStatus::Success;
    // Two passes: the first prepares columns never run before, whose baselines may show the
    // original failing (a kill there decides nothing); the second runs what that left undecided.
    let judges = kmut_audit::judge_count(options);
    'passes: for _ in 0..2 {
        for judge in 0..judges {
            if engine.deadline.is_some_and(|d| Instant::now() >= d) {
                eprintln!("audit: the time budget is spent; what was run is stored and the same command resumes");
                break 'passes;
            }
            let deadline = judge_deadline(engine.deadline, Instant::now(), judges - judge);
            match run_judge(&mut compiled, &plans, &chosen, options, judge, &engine, deadline)? {
                ExitStatus::Interrupted => {
                    status = ExitStatus::Interrupted;
                    break 'passes;
                }
                ExitStatus::Success => {}
                other => status = other,
            }
        }
    }
    drop(scratch_guard);
    if let Some(dir) = &temp_cache {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok((status, names))
}

/// A judge's share of what is left of the budget: an equal part for each judge still to run in
/// this pass, so a budget cannot be spent by the first protocols while the last get nothing (on
/// the H200, 2026-12-03, a 130 s audit of five protocols left the fifth with no cell). What a
/// judge leaves unused flows to the next ones.
fn judge_deadline(deadline: Option<Instant>, now: Instant, judges_left: usize) -> Option<Instant> {
    deadline.map(|d| now + d.saturating_duration_since(now) / u32::try_from(judges_left.max(1)).unwrap_or(u32::MAX))
}

/// What every judge's engine run shares.
struct EngineSetup<'a> {
    args: &'a AuditArgs,
    python: String,
    backend: Backend,
    devices: Vec<u32>,
    workers: usize,
    scratch: PathBuf,
    deadline: Option<Instant>,
    budgeted: bool,
    heavy_ms: Option<f64>,
    interrupt: &'a std::sync::atomic::AtomicBool,
}

/// The mutants the audit may compile: only witnessed mutants are audited, and a witness is a
/// stored evaluation, so without `--mutant` the selection is narrowed to the mutants the store
/// has evaluations of. (Unnarrowed, classifying the corpus compiled 8,518 mutants on the H200
/// and spent the audit's whole 100 s before it evaluated anything.)
fn audited_selection(args: &AuditArgs) -> anyhow::Result<Selection> {
    let mut select = args.select.clone();
    if !select.mutants.is_empty() {
        return Ok(select);
    }
    let path = store_path(args.store.as_deref());
    anyhow::ensure!(path.is_file(), "no store at `{}`; run `kmut witness` first (or pass --store)", path.display());
    select.mutants = Store::open(&path)?.evaluated_mutants()?;
    anyhow::ensure!(!select.mutants.is_empty(), "`{}` holds no evaluations: run `kmut witness` first (only witnessed mutants are audited)", path.display());
    Ok(select)
}

fn desc<'c>(compiled: &'c Compiled, name: &str) -> anyhow::Result<&'c kmut_model::SubstrateDescription> {
    compiled.substrates.iter().map(|(d, _)| d).find(|d| d.name == name).with_context(|| format!("{name} was planned but not compiled"))
}

/// One judge's run: its deciding columns, for the chosen mutants still undecided under it.
fn run_judge(
    compiled: &mut Compiled,
    plans: &[SubstratePlan],
    chosen: &[(usize, usize)],
    options: &AuditOptions,
    judge: usize,
    setup: &EngineSetup<'_>,
    deadline: Option<Instant>,
) -> anyhow::Result<ExitStatus> {
    let mut mine: Vec<SubstratePlan> = plans.to_vec();
    let mut needs: Vec<Need> = Vec::new();
    for p in &mut mine {
        let need = kmut_audit::needs(&compiled.store, desc(compiled, &p.name)?, options, judge)?;
        p.columns.clone_from(&need.columns);
        // A column found to reject the original decides nothing under this judge: no mutant
        // is run on it (the illusion protocol's 1e-5 absolute bounds reject the original on
        // most columns of the deep networks, where each evaluation costs seconds).
        p.original_bound = need.bound;
        needs.push(need);
    }
    let order: Vec<(usize, usize)> = chosen.iter().copied().filter(|&(s, c)| needs[s].mutants.contains(&mine[s].candidates[c].id)).collect();
    let label = needs.first().map_or_else(String::new, |n| n.judge.clone());
    if order.is_empty() {
        return Ok(ExitStatus::Success);
    }
    let columns: usize = mine.iter().map(|p| p.columns.len()).sum();
    eprintln!("audit: {label}: {} mutants undecided, {columns} deciding input columns", order.len());
    let args = setup.args;
    let mut worker_command = if args.worker.is_empty() { vec![setup.python.clone(), "-m".into(), "kmut._run_worker".into()] } else { args.worker.clone() };
    if setup.backend == Backend::Cpu {
        worker_command.extend(["--backend".into(), "cpu".into()]);
    }
    let config = EngineConfig {
        worker_command,
        devices: setup.devices.clone(),
        workers_per_device: setup.workers,
        spares_per_device: args.spare_workers.unwrap_or_else(|| crate::commands::run::default_spares(setup.workers)),
        spare_host_reserve: kmut_exec::SPARE_HOST_RESERVE,
        scratch: Some(setup.scratch.clone()),
        log: PathBuf::from(format!("{}.workers.log", compiled.store.path().display())),
        first_kill: true,
        tolerance: kmut_audit::judge_tolerance(options, judge),
        timeout_factor: args.timeout_factor,
        min_timeout: Duration::from_secs_f64(args.min_timeout),
        start_timeout: Duration::from_mins(2),
        prep_timeout: Duration::from_secs_f64(args.prep_timeout),
        // A small first round, later ones sized from the rate to fit the judge's share: a round
        // always finishes whole, and on the H200 (2026-12-04) a first round of 768 mutants over
        // KBV's nine columns (each substrate's fresh draws at official sizes prepared first) ran
        // 270 s against a share of 54 s, so the last four protocols got nothing.
        round: setup.budgeted.then(|| (4 * setup.devices.len() * setup.workers).max(8)),
        deadline,
        target: setup.backend.evaluation_target(&compiled.target),
        max_original_ms: setup.heavy_ms,
        heavy_prep_grace: Duration::from_secs(10),
        // A protocol's inputs are judged as the protocol judges them, past the ceiling or not:
        // no validity gate (false kills are reported, not skipped).
        validity_margin: None,
        steps_on_search: false,
        advance_waves: true,
        prefetch: true,
        heavy_first: true,
        reuse_original: !args.rerun_original,
        // The audit reads every column's original tau* at each protocol's tolerance (false
        // kills), so no column's original may wait for a kill.
        defer_original: false,
        cells_need_baseline: true,
    };
    let run_id = compiled.store.begin_run(&format!("audit {label}"), "", &compiled.target)?;
    let reporter = RunProgress::new();
    let outcome = Engine::new(config, &mine, &mut compiled.store, run_id, &reporter, setup.interrupt).run(&order);
    reporter.finish();
    let summary = match outcome {
        Ok(s) => s,
        Err(e) => {
            compiled.store.finish_run(run_id, "failed")?;
            return Err(e.into());
        }
    };
    compiled.store.finish_run(run_id, if summary.interrupted { "interrupted" } else { "done" })?;
    print_summary(&summary);
    Ok(if summary.interrupted {
        ExitStatus::Interrupted
    } else if !summary.failures.is_empty() || !summary.environment_errors.is_empty() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_judge_gets_an_equal_share_of_what_is_left() {
        let now = Instant::now();
        let end = now + Duration::from_mins(2);
        assert_eq!(judge_deadline(Some(end), now, 4), Some(now + Duration::from_secs(30)));
        // The last judge of a pass gets all that is left.
        assert_eq!(judge_deadline(Some(end), now, 1), Some(end));
        assert_eq!(judge_deadline(None, now, 3), None);
        // Past the budget, a share is empty, never negative.
        assert_eq!(judge_deadline(Some(now), now + Duration::from_secs(5), 2), Some(now + Duration::from_secs(5)));
    }
}
