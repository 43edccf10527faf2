//! `kmut ceiling`: each generator's legitimate-variance ceiling per substrate (kmut-witness).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use kmut_model::{Backend, Inputs, Protocol};
use kmut_plan::Sampling;
use kmut_store::{CeilingPoint, CeilingRecord};
use kmut_witness::driver::Probe;
use kmut_witness::{probe_ceilings, Bracket, CeilingJob, DriverConfig, JobOutcome, SCALED_GENERATORS};
use serde_json::json;

use crate::args::{CeilingArgs, Selection};
use crate::commands::compile::{compile_substrates, interrupt_flag};
use crate::{Environment, ExitStatus};

#[allow(clippy::too_many_lines)] // one pass: compile, plan, probe, store, print
pub fn run(args: &CeilingArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    if args.no_run {
        return stored(args);
    }
    let protocol = Protocol::named(&args.protocol).map_err(anyhow::Error::msg)?;
    let backend = Backend::parse(&args.backend).map_err(anyhow::Error::msg)?;
    let generators = generators(&args.generator)?;
    let sizes = args.sizes.clone().unwrap_or_else(|| if backend == Backend::Cpu { "small".into() } else { "official".into() });
    anyhow::ensure!(backend == Backend::Gpu || sizes != "official", "the CPU backend runs small sizes only; use --sizes small (or dim=value,...)");
    anyhow::ensure!(args.lowest > 0.0 && args.highest > args.lowest, "--lowest must be positive and below --highest");
    anyhow::ensure!(!args.seeds.is_empty(), "--seeds needs at least one seed");
    let (devices, gxx) = match backend {
        Backend::Gpu => (if args.gpus.is_empty() { super::run::visible_gpus()? } else { args.gpus.clone() }, None),
        Backend::Cpu => (vec![0], Some(kmut_cpu::Compiler::find().context("the CPU backend builds kernels with g++")?)),
    };
    let interrupt = interrupt_flag();
    // Only the originals are needed: no mutant is compiled.
    let none = Selection { max_per_rule: Some(0), ..Selection::default() };
    let compiled = compile_substrates(&args.substrates, &none, &args.compile, args.store.as_deref(), env, &interrupt, "ceiling")?;
    if compiled.interrupted {
        eprintln!("interrupted while compiling the originals; run the same command again");
        return Ok(ExitStatus::Interrupted);
    }
    let planned = super::run::plan(&compiled, gxx.as_ref(), &protocol, Inputs::Protocol, Sampling { seed: 0, sample: Some(0) }, None, false, &interrupt)?;
    let store = &compiled.store;
    let target = backend.evaluation_target(&compiled.target);
    let backend_name = match backend {
        Backend::Gpu => "cuda".to_owned(),
        Backend::Cpu => "cpu".to_owned(),
    };
    let mut jobs = Vec::new();
    for plan in &planned.plans {
        let known: HashMap<_, _> = store
            .ceiling_points(&plan.name, &target, &plan.original_id)?
            .into_iter()
            .map(|p| {
                let probe = Probe {
                    generator: p.generator,
                    sizes: p.sizes,
                    scale: p.scale,
                    seed: p.seed,
                    valid: p.valid,
                    tau64_ref: p.tau64_ref,
                    tau64_orig: p.tau64_orig,
                };
                (probe.key(), probe)
            })
            .collect();
        jobs.push(CeilingJob { plan: plan.clone(), generators: generators.clone(), sizes: sizes.clone(), known });
    }
    let log = PathBuf::from(format!("{}.workers.log", store.path().display()));
    // A probe runs only the original: no mutant's prefix will be replayed from its step outputs,
    // so the worker keeps none.
    let mut worker_command = if args.worker.is_empty() {
        vec![env.python.display().to_string(), "-m".into(), "kmut._run_worker".into(), "--no-skip-prefix".into()]
    } else {
        args.worker.clone()
    };
    let workers = match backend {
        Backend::Gpu => args.workers.max(1),
        Backend::Cpu => {
            worker_command.extend(["--backend".into(), "cpu".into()]);
            args.workers.max(1)
        }
    };
    let config = DriverConfig {
        worker_command,
        devices,
        workers_per_device: workers,
        scratch: None,
        log: log.clone(),
        margin: args.margin * protocol.tolerance(),
        seeds: args.seeds.clone(),
        lowest: args.lowest,
        highest: args.highest,
        steps: args.steps,
        start_timeout: Duration::from_mins(2),
        prep_timeout: Duration::from_secs_f64(args.prep_timeout),
    };
    eprintln!(
        "ceiling: {} substrates x {} generators at {sizes} sizes, scales {}..{} in {} bisections, seeds {:?}, valid within {} x {:.0e} of fp64; worker log {}",
        jobs.len(),
        generators.len(),
        args.lowest,
        args.highest,
        args.steps,
        args.seeds,
        args.margin,
        protocol.tolerance(),
        log.display()
    );
    let run_id = store.begin_run(&format!("ceiling --sizes {sizes}"), "", &compiled.target)?;
    let started = Instant::now();
    let mut results: Vec<Vec<(String, Result<Bracket, String>)>> = vec![Vec::new(); jobs.len()];
    let mut new_probes = 0usize;
    let mut finished = 0usize;
    let mut store_error = None;
    probe_ceilings(&config, &jobs, &interrupt, |outcome| match outcome {
        JobOutcome::Probed(i, p) => {
            new_probes += 1;
            let plan = &jobs[i].plan;
            let point = CeilingPoint {
                substrate: plan.name.clone(),
                target: target.clone(),
                generator: p.generator,
                sizes: p.sizes,
                scale: p.scale,
                seed: p.seed,
                image: plan.original_id.clone(),
                backend: backend_name.clone(),
                valid: p.valid,
                tau64_ref: p.tau64_ref,
                tau64_orig: p.tau64_orig,
            };
            if let Err(e) = store.put_ceiling_point(&point, run_id) {
                store_error.get_or_insert(e);
            }
        }
        JobOutcome::Searched { job, generator, result } => {
            if let Ok(b) = &result {
                let plan = &jobs[job].plan;
                let record = CeilingRecord {
                    substrate: plan.name.clone(),
                    target: target.clone(),
                    generator: generator.clone(),
                    sizes: sizes.clone(),
                    image: plan.original_id.clone(),
                    backend: backend_name.clone(),
                    lowest: args.lowest,
                    highest: args.highest,
                    ceiling: b.ceiling,
                    first_invalid: b.first_invalid,
                };
                if let Err(e) = store.put_ceiling(&record, run_id) {
                    store_error.get_or_insert(e);
                }
            }
            results[job].push((generator, result));
        }
        JobOutcome::Finished(i) => {
            finished += 1;
            let failed = results[i].iter().filter(|(_, r)| r.is_err()).count();
            eprintln!(
                "ceiling: [{finished}/{}] {} ({} generators{}; {:.0} s in all)",
                jobs.len(),
                jobs[i].plan.name,
                results[i].len(),
                if failed > 0 { format!(", {failed} could not be probed") } else { String::new() },
                started.elapsed().as_secs_f64()
            );
        }
    });
    let interrupted = interrupt.load(std::sync::atomic::Ordering::SeqCst);
    store.finish_run(run_id, if interrupted { "interrupted" } else { "done" })?;
    if let Some(e) = store_error {
        return Err(e.into());
    }
    let failures: usize = results.iter().flatten().filter(|(_, r)| r.is_err()).count();
    if args.json {
        print_json(&jobs, &results, store, &target)?;
    } else {
        print_tables(&jobs, &results, store, &target, &sizes, protocol.tolerance() * args.margin)?;
    }
    eprintln!("ceiling: {new_probes} new probes stored, {} s", started.elapsed().as_secs());
    if interrupted {
        eprintln!("interrupted: every probe so far is stored; run the same command again to resume");
        return Ok(ExitStatus::Interrupted);
    }
    Ok(if failures > 0 { ExitStatus::Failure } else { ExitStatus::Success })
}

/// `--no-run`: the ceilings the store holds, without compiling or probing anything.
#[allow(clippy::print_stdout)] // the command's output
fn stored(args: &CeilingArgs) -> anyhow::Result<ExitStatus> {
    let path = super::compile::store_path(args.store.as_deref());
    anyhow::ensure!(path.is_file(), "no store at `{}` (pass --store)", path.display());
    let store = kmut_store::Store::open(&path)?;
    let wanted: Vec<String> =
        args.substrates.iter().map(|p| p.file_stem().map_or_else(|| p.display().to_string(), |s| s.to_string_lossy().into_owned())).collect();
    let generators = if args.generator.is_empty() { Vec::new() } else { generators(&args.generator)? };
    let records: Vec<CeilingRecord> = store
        .all_ceilings()?
        .into_iter()
        .filter(|r| wanted.is_empty() || wanted.contains(&r.substrate))
        .filter(|r| generators.is_empty() || generators.contains(&r.generator))
        .filter(|r| args.sizes.as_ref().is_none_or(|s| s == &r.sizes))
        .collect();
    let missing: Vec<&String> = wanted.iter().filter(|w| !records.iter().any(|r| &r.substrate == *w)).collect();
    let mut json_rows = Vec::new();
    let mut last: Option<(String, String, String)> = None;
    // One read of a substrate's probes serves all its generators.
    let mut probes: HashMap<(String, String, String), Vec<CeilingPoint>> = HashMap::new();
    for r in &records {
        let key = (r.substrate.clone(), r.target.clone(), r.image.clone());
        if !probes.contains_key(&key) {
            probes.insert(key.clone(), store.ceiling_points(&r.substrate, &r.target, &r.image)?);
        }
        let points: Vec<&CeilingPoint> = probes[&key].iter().filter(|p| p.generator == r.generator && p.sizes == r.sizes).collect();
        if args.json {
            json_rows.push(json!({"substrate": r.substrate, "target": r.target, "backend": r.backend, "generator": r.generator, "sizes": r.sizes,
                "lowest": r.lowest, "highest": r.highest, "ceiling": r.ceiling, "first_invalid": r.first_invalid, "points": curve(&points)}));
            continue;
        }
        let head = (r.substrate.clone(), r.target.clone(), r.sizes.clone());
        if last.as_ref() != Some(&head) {
            println!(
                "{} ({} sizes, {} on {}; scales {}..{})",
                r.substrate,
                r.sizes,
                r.target,
                r.backend,
                show_scale(Some(r.lowest)),
                show_scale(Some(r.highest))
            );
            println!("{}", table_header());
            last = Some(head);
        }
        println!("{}", table_row(&r.generator, r.ceiling, r.first_invalid, &points));
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json_rows)?);
    }
    let substrates: std::collections::BTreeSet<&str> = records.iter().map(|r| r.substrate.as_str()).collect();
    eprintln!("ceiling: {} ceilings of {} substrates stored in `{}` (nothing run)", records.len(), substrates.len(), path.display());
    if !missing.is_empty() {
        eprintln!(
            "ceiling: no ceiling stored for {}; run `kmut ceiling` on them (a GPU, or --backend cpu --sizes small)",
            missing.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        );
        return Ok(ExitStatus::Failure);
    }
    Ok(ExitStatus::Success)
}

fn generators(given: &[String]) -> anyhow::Result<Vec<String>> {
    if given.is_empty() {
        return Ok(SCALED_GENERATORS.iter().map(|g| (*g).to_owned()).collect());
    }
    for g in given {
        anyhow::ensure!(SCALED_GENERATORS.contains(&g.as_str()), "unknown or unscaled generator `{g}`; the scaled ones: {}", SCALED_GENERATORS.join(", "));
    }
    Ok(given.to_vec())
}

fn table_header() -> String {
    format!("  {:<10} {:>9} {:>14} {:>16} {:>16} {:>7}", "generator", "ceiling", "first invalid", "ref tau64 there", "orig tau64 there", "probes")
}

/// One generator's line: its bracket, both distances to fp64 at the ceiling (the largest over
/// the seeds there: how close a correct kernel came to failing) and how many probes were made.
fn table_row(generator: &str, ceiling: Option<f64>, first_invalid: Option<f64>, points: &[&CeilingPoint]) -> String {
    let at = |pick: fn(&CeilingPoint) -> Option<f64>| {
        ceiling.and_then(|c| points.iter().filter(|p| p.scale.to_bits() == c.to_bits()).filter_map(|p| pick(p)).reduce(f64::max))
    };
    let shown = match (ceiling, first_invalid) {
        (Some(c), None) => format!(">= {}", show_scale(Some(c))),
        (c, _) => show_scale(c),
    };
    let fmt = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.2e}"));
    format!(
        "  {:<10} {:>9} {:>14} {:>16} {:>16} {:>7}",
        generator,
        shown,
        show_scale(first_invalid),
        fmt(at(|p| p.tau64_ref)),
        fmt(at(|p| p.tau64_orig)),
        points.len()
    )
}

/// A generator's probes as JSON (the tau* curve).
fn curve(points: &[&CeilingPoint]) -> Vec<serde_json::Value> {
    points.iter().map(|p| json!({"scale": p.scale, "seed": p.seed, "valid": p.valid, "tau64_ref": p.tau64_ref, "tau64_orig": p.tau64_orig})).collect()
}

fn show_scale(x: Option<f64>) -> String {
    x.map_or_else(|| "-".into(), kmut_witness::ceiling::scale_text)
}

/// Per substrate: each generator's bracket and the distances to fp64 at the ceiling (the
/// largest of its seeds: how close a correct kernel came to failing there).
#[allow(clippy::print_stdout)] // the command's output
fn print_tables(
    jobs: &[CeilingJob],
    results: &[Vec<(String, Result<Bracket, String>)>],
    store: &kmut_store::Store,
    target: &str,
    sizes: &str,
    margin: f64,
) -> anyhow::Result<()> {
    for (job, rows) in jobs.iter().zip(results) {
        if rows.is_empty() {
            continue;
        }
        let points = store.ceiling_points(&job.plan.name, target, &job.plan.original_id)?;
        println!("{} ({sizes} sizes; valid: within {margin:.1e} of fp64 on every seed)", job.plan.name);
        println!("{}", table_header());
        for (generator, result) in rows {
            let mine: Vec<&CeilingPoint> = points.iter().filter(|p| &p.generator == generator && p.sizes == job.sizes).collect();
            match result {
                Ok(b) => println!("{}", table_row(generator, b.ceiling, b.first_invalid, &mine)),
                Err(e) => println!("  {generator:<10} not probed: {e}"),
            }
        }
    }
    Ok(())
}

#[allow(clippy::print_stdout)] // the command's output
fn print_json(jobs: &[CeilingJob], results: &[Vec<(String, Result<Bracket, String>)>], store: &kmut_store::Store, target: &str) -> anyhow::Result<()> {
    let mut out = Vec::new();
    for (job, rows) in jobs.iter().zip(results) {
        let points = store.ceiling_points(&job.plan.name, target, &job.plan.original_id)?;
        for (generator, result) in rows {
            let mine: Vec<&CeilingPoint> = points.iter().filter(|p| &p.generator == generator && p.sizes == job.sizes).collect();
            let curve = curve(&mine);
            out.push(match result {
                Ok(b) => json!({"substrate": job.plan.name, "generator": generator, "sizes": job.sizes, "ceiling": b.ceiling, "first_invalid": b.first_invalid, "points": curve}),
                Err(e) => json!({"substrate": job.plan.name, "generator": generator, "sizes": job.sizes, "error": e, "points": curve}),
            });
        }
    }
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}
