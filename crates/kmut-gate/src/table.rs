//! The verdict table: one row per candidate, one column per check, then the details of every
//! check that did not pass, so the table alone says what to fix.

use std::fmt::Write as _;

use crate::check::{Check, Status};
use crate::worker::CandidateReport;

/// Render the table and the notes under it.
pub fn render_table(reports: &[CandidateReport]) -> String {
    let mut header: Vec<String> = vec!["candidate".into()];
    header.extend(Check::ALL.iter().map(|c| c.label().to_owned()));
    header.extend(["fwd ms".into(), "verdict".into()]);
    let mut rows = vec![header];
    for r in reports {
        let mut row = vec![r.name.clone().unwrap_or_else(|| r.path.display().to_string())];
        row.extend(Check::ALL.iter().map(|&c| r.result(c).map_or("LOST", |x| x.status.label()).to_owned()));
        let forward = r
            .result(Check::Suites)
            .and_then(|x| x.data.get("forward_ms"))
            .and_then(serde_json::Value::as_f64)
            .map_or_else(|| "-".to_owned(), |ms| format!("{ms:.2}"));
        row.push(forward);
        row.push(r.verdict.label().to_owned());
        rows.push(row);
    }
    let widths: Vec<usize> = (0..rows[0].len()).map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        let line: Vec<String> = row.iter().zip(&widths).map(|(cell, w)| format!("{cell:<w$}")).collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
        if n == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            let _ = writeln!(out, "{}", rule.join("  "));
        }
    }
    let mut notes = String::new();
    for r in reports {
        let label = r.name.clone().unwrap_or_else(|| r.path.display().to_string());
        for x in &r.results {
            let worth = match x.status {
                Status::Fail | Status::Lost | Status::Unrefereeable => true,
                Status::Pass => matches!(x.check, Check::Suites | Check::Fp64),
                Status::Skip | Status::NoGpu => false,
            };
            if worth && !x.detail.is_empty() {
                let _ = writeln!(notes, "{label} {} [{}]: {}", x.check.label(), x.status.label(), x.detail.replace('\n', "\n    "));
            }
        }
    }
    if reports.iter().any(|r| r.results.iter().any(|x| x.status == Status::NoGpu)) {
        let gpu: Vec<&str> = Check::ALL.iter().filter(|c| c.needs_gpu()).map(|c| c.label()).collect();
        let _ = writeln!(notes, "not checked (no GPU visible): {}; acceptance needs them", gpu.join(", "));
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes);
    }
    out
}
