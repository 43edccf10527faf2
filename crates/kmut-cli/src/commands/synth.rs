//! `kmut synth`: per problem, the fewest valid inputs that detect the most witnessed mutants
//! (`kmut_synth`), the budget curve, and the exports.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use anyhow::Context;
use kmut_model::{Backend, Protocol};
use kmut_store::Store;
use kmut_synth::{MatrixOptions, Rate, Split, Status, SynthOptions, Synthesis};

use crate::args::SynthArgs;
use crate::commands::compile::store_path;
use crate::{table, Environment, ExitStatus};

pub fn run(args: &SynthArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let protocol = Protocol::named(&args.protocol).map_err(anyhow::Error::msg)?;
    anyhow::ensure!(args.time_limit.is_finite() && args.time_limit > 0.0, "--time-limit must be a positive number of seconds");
    anyhow::ensure!(args.budget.iter().all(|&b| b > 0), "--budget takes positive numbers of inputs");
    let path = store_path(args.store.as_deref());
    anyhow::ensure!(path.is_file(), "no store at `{}`; run `kmut witness` first (or pass --store)", path.display());
    let store = Store::open(&path)?;
    let backend = match args.backend.as_str() {
        "auto" => kmut_score::default_backend(&store)?,
        other => Backend::parse(other).map_err(anyhow::Error::msg)?,
    };
    let options = SynthOptions {
        matrix: MatrixOptions::of(&protocol, backend),
        budgets: args.budget.clone(),
        split: Split::parse(&args.split).map_err(anyhow::Error::msg)?,
        with_official: args.with_official,
        exact: args.exact.then(|| Duration::from_secs_f64(args.time_limit)),
        optimistic: args.assume_missing_kill,
        splits: args.splits,
    };
    let s = kmut_synth::synthesize(&store, &args.substrates, &options)?;
    anyhow::ensure!(!s.problems.is_empty(), "no substrate of the store `{}` has a kill matrix to choose from", path.display());
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        print(&s);
    }
    let exported = kmut_synth::protocol(&s, &protocol);
    let text = serde_json::to_string_pretty(&exported)? + "\n";
    anyhow::ensure!(
        !s.optimistic || (args.out.is_none() && args.module.is_none() && args.fill_list.is_none()),
        "--assume-missing-kill prints upper bounds only: its choices rest on cells never run, so it writes no protocol, module or fill list"
    );
    if let Some(out) = &args.out {
        std::fs::write(out, &text).with_context(|| format!("writing the protocol file `{}`", out.display()))?;
        eprintln!("wrote the chosen inputs as a protocol: {}", out.display());
    }
    if let Some(svg) = &args.svg {
        let plot = kmut_synth::svg(&s).map_err(|e| anyhow::anyhow!("drawing the budget curve: {e}"))?;
        std::fs::write(svg, plot).with_context(|| format!("writing the plot `{}`", svg.display()))?;
        eprintln!("wrote the budget curve: {}", svg.display());
    }
    if let Some(list) = &args.fill_list {
        let mut text = format!(
            "# kmut synth --fill-list: {} witnessed mutants with {} missing cells that can still add kills ({} at {:e})\n",
            s.fill.mutants.len(),
            s.fill.cells,
            s.protocol,
            s.tolerance
        );
        for id in &s.fill.mutants {
            text.push_str(id);
            text.push('\n');
        }
        std::fs::write(list, text).with_context(|| format!("writing the mutant list `{}`", list.display()))?;
        eprintln!(
            "wrote {} mutant ids to fill: {} (run them with `kmut run --suites witness --full-matrix --mutants-from {}`)",
            s.fill.mutants.len(),
            list.display(),
            list.display()
        );
    }
    if let Some(module) = &args.module {
        write_module(env, &text, args.out.as_deref(), module)?;
        eprintln!("wrote the input module: {}", module.display());
    }
    Ok(ExitStatus::Success)
}

/// The self-contained Python module, rendered by `kmut.export_inputs` from the protocol file
/// (it loads each substrate to resolve the inputs' sizes).
fn write_module(env: &Environment, protocol: &str, written: Option<&Path>, module: &Path) -> anyhow::Result<()> {
    let temp = std::env::temp_dir().join(format!("kmut-synth-{}.json", std::process::id()));
    let source = if let Some(p) = written {
        p.to_path_buf()
    } else {
        std::fs::write(&temp, protocol).with_context(|| format!("writing `{}`", temp.display()))?;
        temp.clone()
    };
    let status = Command::new(&env.python)
        .args(["-m", "kmut.export_inputs"])
        .arg(&source)
        .arg("--out")
        .arg(module)
        .status()
        .with_context(|| format!("starting {}", env.python.display()));
    if written.is_none() {
        let _ = std::fs::remove_file(&temp);
    }
    anyhow::ensure!(status?.success(), "`python -m kmut.export_inputs` could not write `{}` (its error is above)", module.display());
    Ok(())
}

/// A rate as printed: the known kills with the 95% interval, or, where cells are missing, the
/// range from the known kills to what the missing cells could add.
fn rate(r: &Rate) -> String {
    match (r.rate, r.upper, r.interval) {
        (Some(p), Some(_), Some((lo, hi))) if r.complete() => format!("{:.1}% [{:.1}, {:.1}]", 100.0 * p, 100.0 * lo, 100.0 * hi),
        (Some(p), Some(u), Some((lo, hi))) => format!("{:.1} to {:.1}% [{:.1}, {:.1}]", 100.0 * p, 100.0 * u, 100.0 * lo, 100.0 * hi),
        _ => "-".into(),
    }
}

fn print(s: &Synthesis) {
    let t = &s.totals;
    println!(
        "kmut synth: {} at {:e}, {} evaluations; {} problems, {} witnessed mutants of {} live ({} possibly equivalent, {} undecided, {} not run)",
        s.protocol,
        s.tolerance,
        match s.backend {
            Backend::Gpu => "GPU",
            Backend::Cpu => "CPU backend (small inputs)",
        },
        s.problems.len(),
        t.witnessed,
        t.live,
        t.possibly_equivalent,
        t.undecided + t.protocol_undecided,
        t.not_run
    );
    if s.optimistic {
        println!("UPPER BOUNDS: each of {} missing cells counted as a kill (--assume-missing-kill); not detection rates", s.assumed_cells);
    }
    println!("detection of witnessed mutants; held out: chosen on the dev half, read on the test half; [95% interval]");
    let cv = format!("held out, {}x2 cross-validated", s.splits);
    if s.splits > 0 {
        println!("{cv}: {} salted splits, each chosen on one half and read on the other, pooled (no interval: the folds share mutants)", s.splits);
    }
    let mut header = vec![if s.with_official { "official + b" } else { "inputs b" }, "full pool", "held out"];
    if s.splits > 0 {
        header.push(&cv);
    }
    if s.exact {
        header.extend(["exact, full", "exact, held out", "proven optimal"]);
    }
    let mut rows = vec![{
        let mut r = vec!["official trials".to_owned(), rate(&s.official_full), rate(&s.official_held_out)];
        if s.splits > 0 {
            r.push(String::new());
        }
        if s.exact {
            r.extend([String::new(), String::new(), String::new()]);
        }
        r
    }];
    for p in &s.curve {
        let mut r = vec![p.budget.to_string(), rate(&p.full), rate(&p.held_out)];
        if let Some(cv) = s.cross_validated.iter().find(|c| c.budget == p.budget) {
            r.push(cv.to_string());
        }
        if let (Some(ef), Some(eh), Some((k, n))) = (&p.exact_full, &p.exact_held_out, p.exact_proven) {
            r.extend([rate(ef), rate(eh), format!("{k} of {n}")]);
        }
        rows.push(r);
    }
    print!("{}", table::render(&header, &rows));
    let n = &s.needed;
    if let (Some(median), Some(max)) = (n.median, n.max) {
        let hist: Vec<String> = n.histogram.iter().map(|(k, c)| format!("{k}: {c}")).collect();
        println!("greedy inputs to detect every witnessed mutant of a problem: median {median}, max {max} (inputs: problems, {})", hist.join(", "));
    }
    println!();
    println!("per problem (chosen on {}):", serde_json::to_value(s.split).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default());
    let rows: Vec<Vec<String>> = s
        .problems
        .iter()
        .map(|p| {
            let c = &p.counts;
            let official = if c.witnessed == 0 { "-".into() } else { format!("{}/{}", p.official.known, c.witnessed) };
            let detected = match p.status {
                Status::NoWitnessed => "no witnessed mutant".into(),
                Status::Incomplete => format!("{} to {}/{}", p.detection.known, p.detection.possible, p.detection.total),
                Status::Chosen => format!("{}/{}", p.detection.known, p.detection.total),
            };
            let inputs: Vec<String> = p.chosen.iter().map(|x| format!("{}:{} ({}, +{})", x.column.suite, x.column.seed, x.source.label(), x.adds)).collect();
            vec![
                p.substrate.clone(),
                c.witnessed.to_string(),
                official,
                detected,
                p.needed.map_or("-".into(), |k| k.to_string()),
                c.missing_cells.to_string(),
                inputs.join(", "),
            ]
        })
        .collect();
    print!(
        "{}",
        table::render(&["substrate", "witnessed", "official", "chosen detect", "needed", "cells missing", "chosen inputs (source, kills added)"], &rows)
    );
}
