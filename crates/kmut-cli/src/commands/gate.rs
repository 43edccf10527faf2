//! `kmut gate`: run every candidate through its worker, print the verdict table, accept.

use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;
use kmut_gate::{accept, render_table, run_worker, Verdict, WorkerOptions};

use crate::args::GateArgs;
use crate::{Environment, ExitStatus};

pub fn run(args: &GateArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    for path in &args.paths {
        anyhow::ensure!(path.is_file(), "`{}` is not a file", path.display());
    }
    let options = WorkerOptions { python: env.python.clone(), arch: args.arch.clone(), timeout: Duration::from_secs(args.timeout) };
    let mut reports = Vec::new();
    for (i, path) in args.paths.iter().enumerate() {
        eprintln!("[{}/{}] gate {}", i + 1, args.paths.len(), path.display());
        let report = run_worker(path, &options);
        eprintln!("[{}/{}] {} in {:.1} s", i + 1, args.paths.len(), report.verdict.label(), report.elapsed.as_secs_f64());
        reports.push(report);
    }
    print!("{}", render_table(&reports));
    if let Some(path) = &args.json {
        std::fs::write(path, serde_json_report(&reports)).with_context(|| format!("could not write `{}`", path.display()))?;
    }
    if args.accept {
        for r in &reports {
            if r.verdict != Verdict::Pass {
                continue;
            }
            let name = r.name.as_deref().context("a passing candidate always has a name")?;
            let dir = accepted_dir(&r.path);
            let target = accept(&r.path, name, &dir)?;
            if target != r.path {
                eprintln!("accepted {} -> {}", r.path.display(), target.display());
            }
        }
        let owed = reports.iter().filter(|r| r.verdict == Verdict::PrecheckPass).count();
        if owed > 0 {
            eprintln!("{owed} candidate(s) passed the checks that need no GPU; --accept needs a GPU for the rest");
        }
    }
    let failed = reports.iter().any(|r| r.verdict.is_failure());
    Ok(if failed { ExitStatus::Failure } else { ExitStatus::Success })
}

/// `substrates/accepted/` for `substrates/candidate_x.py`; the folder itself for a file already in it.
fn accepted_dir(path: &Path) -> std::path::PathBuf {
    let parent = path.parent().unwrap_or(Path::new("."));
    if parent.file_name().is_some_and(|n| n == "accepted") {
        parent.to_path_buf()
    } else {
        parent.join("accepted")
    }
}

fn serde_json_report(reports: &[kmut_gate::CandidateReport]) -> String {
    let items: Vec<serde_json::Value> = reports
        .iter()
        .map(|r| {
            serde_json::json!({
                "path": r.path.display().to_string(),
                "name": r.name,
                "verdict": r.verdict.label(),
                "elapsed_s": r.elapsed.as_secs_f64(),
                "checks": r.results,
            })
        })
        .collect();
    serde_json::to_string_pretty(&items).unwrap_or_default()
}
