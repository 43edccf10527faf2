//! The verdict table: one row per candidate, one column per check, then the details of every
//! check that did not pass, so the table alone says what to fix.

use std::fmt::Write as _;

use crate::check::{Check, CheckResult, Status};
use crate::worker::CandidateReport;

/// Render the table and the notes under it.
pub fn render_table(reports: &[CandidateReport]) -> String {
    let mut header: Vec<String> = vec!["candidate".into()];
    header.extend(Check::ALL.iter().map(|c| c.label().to_owned()));
    header.extend(["fwd ms".into(), "verdict".into()]);
    let mut rows = vec![header];
    for r in reports {
        let mut row = vec![r.name.clone().unwrap_or_else(|| r.path.display().to_string())];
        row.extend(Check::ALL.iter().map(|&c| r.result(c).map_or_else(|| "LOST".to_owned(), CheckResult::cell)));
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
                Status::Fail | Status::Lost | Status::Unrefereeable | Status::Environment => true,
                Status::Pass => matches!(x.check, Check::Suites | Check::Fp64),
                Status::Skip | Status::NoGpu => false,
            };
            if worth && !x.detail.is_empty() {
                let _ = writeln!(notes, "{label} {} [{}]: {}", x.check.label(), x.status.label(), x.detail.replace('\n', "\n    "));
            }
        }
    }
    let on_cpu = checks_where(reports, |x| x.check.needs_gpu() && x.ran_on_cpu());
    if !on_cpu.is_empty() {
        let _ = writeln!(notes, "ran on the CPU backend (small suites, a pre-check): {}; acceptance needs them on a GPU", on_cpu.join(", "));
    }
    let no_gpu = checks_where(reports, |x| x.status == Status::NoGpu);
    if !no_gpu.is_empty() {
        let _ = writeln!(notes, "not checked (they need a GPU: none visible, or --backend cpu): {}; acceptance needs them", no_gpu.join(", "));
    }
    if !notes.is_empty() {
        out.push('\n');
        out.push_str(&notes);
    }
    out
}

/// The labels of the checks, in table order, that `keep` selects in any report.
fn checks_where(reports: &[CandidateReport], keep: impl Fn(&CheckResult) -> bool) -> Vec<&'static str> {
    Check::ALL.iter().filter(|&&c| reports.iter().any(|r| r.result(c).is_some_and(&keep))).map(|c| c.label()).collect()
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::time::Duration;

    use super::*;
    use crate::check::Backend;
    use crate::verdict::Verdict;

    fn cpu_report(suites: Status) -> CandidateReport {
        let results: Vec<CheckResult> = Check::ALL
            .iter()
            .map(|&c| {
                let on_cpu = c.needs_gpu() && c != Check::Fp64;
                let status = match c {
                    Check::Fp64 => Status::NoGpu,
                    Check::Suites => suites,
                    _ => Status::Pass,
                };
                let data = if on_cpu { serde_json::json!({"backend": "cpu"}) } else { serde_json::Value::Null };
                CheckResult { check: c, status, detail: format!("CPU backend: {}", c.label()), data }
            })
            .collect();
        let verdict = Verdict::classify(&results);
        CandidateReport {
            path: PathBuf::from("candidate_x.py"),
            results,
            verdict,
            name: Some("L1p19_relu".into()),
            elapsed: Duration::ZERO,
            backend: Backend::Cpu,
        }
    }

    #[test]
    fn checks_run_on_the_cpu_are_marked_in_their_cells_and_in_a_note() {
        let table = render_table(&[cpu_report(Status::Pass)]);
        let row = table.lines().find(|l| l.starts_with("L1p19_relu")).expect("a row for the candidate");
        assert_eq!(row.matches("cpu ok").count(), 3, "{table}");
        assert!(row.ends_with("PRECHECK OK"), "{table}");
        assert!(table.contains("ran on the CPU backend (small suites, a pre-check): suites, nan-fill, determ"), "{table}");
        assert!(table.contains("need a GPU: none visible, or --backend cpu): fp64;"), "{table}");
    }

    #[test]
    fn a_failed_cpu_check_shows_as_cpu_fail_with_its_detail() {
        let table = render_table(&[cpu_report(Status::Fail)]);
        assert!(table.contains("cpu FAIL"), "{table}");
        assert!(table.contains("L1p19_relu suites [FAIL]: CPU backend: suites"), "{table}");
        assert!(table.lines().any(|l| l.starts_with("L1p19_relu") && l.ends_with("FAIL")), "{table}");
    }
}
