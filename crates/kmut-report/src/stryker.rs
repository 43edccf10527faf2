//! The mutation-testing-report JSON (Stryker's schema, vendored in `schema/` with its version),
//! one report per protocol.
//!
//! The schema's words for kmut's facts (`docs/report.md` has the table):
//! * a substrate's CUDA source is a file (`<name>.cu`, language `cpp`); its launch descriptor is
//!   a second file (`<name>.launch`) whose source lists the launch steps and `K.cdiv` calls the
//!   launch mutants change, one per line;
//! * a substrate's input columns are its tests (`<name>.inputs`: id `<name>:<suite>:<seed>`);
//!   `coveredBy` lists the inputs the protocol checks that a mutant ran on, `killedBy` those of
//!   them that kill it at the protocol's tolerance (the witness search's other inputs are in the
//!   extension);
//! * statuses: killed by value `Killed`, by a crash `RuntimeError`, by the watchdog or timed out
//!   `Timeout`, survived `Survived`, undecided `Pending`, not run (or never compiled)
//!   `NoCoverage`, stillborn `CompileError`, equivalent, duplicate, possibly equivalent and
//!   equivalent-on-CPU `Ignored`;
//! * everything else kmut knows (family, layer, depth, the verdict in kmut's words, the witness,
//!   each cell's `tau*`, the score with its intervals) sits in the schema's extension points: a
//!   `kmut` object on each mutant (the schema admits additional properties) and `config.kmut`
//!   (a free-format object).

use kmut_model::{Class, CpuFidelity, LaunchTransform, MutantKind};
use kmut_score::{Kill, Verdict};
use serde_json::{json, Map, Value};

use crate::{MutantData, ReportData, SubstrateData};

/// The schema version the reports declare (the vendored schema admits 1 and 2).
pub const SCHEMA_VERSION: &str = "2";

/// The report of `data` under its `protocol`-th score.
pub fn report(data: &ReportData, protocol: usize) -> Value {
    let p = &data.scores[protocol];
    let mut files = Map::new();
    let mut test_files = Map::new();
    for s in &data.substrates {
        let tests: Vec<Value> =
            s.columns.iter().map(|c| json!({ "id": test_id(&s.name, &c.suite, c.seed), "name": format!("{} seed {}", c.suite, c.seed) })).collect();
        test_files.insert(format!("{}.inputs", s.name), json!({ "tests": tests }));
        let (source, launch): (Vec<&MutantData>, Vec<&MutantData>) = s.mutants.iter().partition(|m| matches!(m.mutant.mutation, MutantKind::Source { .. }));
        files.insert(
            format!("{}.cu", s.name),
            json!({ "language": "cpp", "source": s.cuda, "mutants": source.iter().map(|m| mutant(data, protocol, s, m, None)).collect::<Vec<_>>() }),
        );
        if !launch.is_empty() {
            let lines = launch_lines(s);
            let mutants: Vec<Value> = launch.iter().map(|m| mutant(data, protocol, s, m, Some(&lines))).collect();
            files.insert(format!("{}.launch", s.name), json!({ "language": "python", "source": lines.join("\n") + "\n", "mutants": mutants }));
        }
    }
    let sc = &p.score;
    json!({
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": { "high": 80, "low": 60 },
        "files": files,
        "testFiles": test_files,
        "framework": { "name": "kmut", "version": data.kmut_version },
        "config": { "kmut": {
            "store": data.store,
            "protocol": p.name,
            "title": p.title,
            "tolerance": p.tolerance,
            "backend": data.backend,
            "backends": sc.backends,
            "denominator": sc.denominator,
            "timeouts": sc.timeouts,
            "note": "Stryker's own mutation score counts NoCoverage (not run) as undetected, Timeout as detected and RuntimeError as invalid; kmut's miss rate (score.overall.miss) counts crashes as kills, leaves timeouts and unsampled mutants out and carries a 95% interval: docs/report.md",
            "score": sc,
        } },
    })
}

fn test_id(substrate: &str, suite: &str, seed: u64) -> String {
    format!("{substrate}:{suite}:{seed}")
}

/// The launch descriptor as text, one line per step and per `K.cdiv` call: what launch mutants
/// change, so each has a line to point at.
fn launch_lines(s: &SubstrateData) -> Vec<String> {
    let steps = s.desc.steps.iter().enumerate().map(|(i, st)| format!("step {i}: {} grid {:?} block {:?}", st.kernel, st.grid, st.block));
    let calls =
        s.desc.cdiv_calls.iter().enumerate().map(|(i, c)| format!("cdiv {i}: K.cdiv({}, {}) = {} (line {} of the substrate)", c.a, c.b, c.result, c.line));
    steps.chain(calls).collect()
}

/// 1-based line and character column of byte offset `at` in `text`.
fn position(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn location(s: &SubstrateData, m: &MutantData, launch: Option<&[String]>) -> Value {
    let (start, end) = match (&m.mutant.mutation, launch) {
        (MutantKind::Launch { transform }, Some(lines)) => {
            let index = match transform {
                LaunchTransform::SwapGridBlock { step } | LaunchTransform::GridX { step, .. } | LaunchTransform::BlockX { step, .. } => *step,
                LaunchTransform::CdivFloor { call } => s.desc.steps.len() + call,
            };
            let len = lines.get(index).map_or(0, |l| l.chars().count());
            ((index + 1, 1), (index + 1, len + 1))
        }
        _ => (position(&s.cuda, m.mutant.span[0]), position(&s.cuda, m.mutant.span[1])),
    };
    json!({ "start": { "line": start.0, "column": start.1 }, "end": { "line": end.0, "column": end.1 } })
}

/// The schema's status of a mutant and why.
fn status(m: &MutantData, protocol: usize) -> (&'static str, String) {
    match (m.class, &m.verdicts[protocol]) {
        (None, _) => ("NoCoverage", "not compiled for this store's target, so never run".into()),
        (Some(Class::Stillborn), _) => ("CompileError", "stillborn: NVRTC rejects it".into()),
        (Some(Class::Equivalent), _) => ("Ignored", "equivalent: its compiled image is byte-identical to the original's".into()),
        (Some(Class::Duplicate), _) => ("Ignored", format!("duplicate: its image equals that of {}", m.duplicate_of.as_deref().unwrap_or("an earlier mutant"))),
        (Some(Class::Live), _) if m.fidelity == CpuFidelity::EquivalentOnCpu => {
            ("Ignored", "equivalent on the CPU backend (a fast-math intrinsic computed accurately there): not run".into())
        }
        (Some(Class::Live), None) => ("NoCoverage", "live, but not in this score".into()),
        (Some(Class::Live), Some(v)) => match &v.verdict {
            Verdict::Killed(Kill::Value) => ("Killed", "an input's output fails the comparison".into()),
            Verdict::Killed(Kill::Crash(c)) => ("RuntimeError", format!("a launch crashed: {c} (kmut counts a crash as a kill)")),
            Verdict::Killed(Kill::Timeout) => ("Timeout", "stopped by the watchdog (counted as a kill)".into()),
            Verdict::TimedOut => ("Timeout", "stopped by the watchdog (outside kmut's miss rate)".into()),
            Verdict::Survived => (
                "Survived",
                v.witness.as_ref().map_or_else(
                    || "every input the protocol checks passes".into(),
                    |w| format!("the protocol misses it; witness {} seed {}", w.suite, w.seed),
                ),
            ),
            Verdict::Undecided => ("Pending", "undecided: run on some inputs, killed by none, not run on the others".into()),
            Verdict::NotRun => ("NoCoverage", "not run (outside the sample)".into()),
            Verdict::PossiblyEquivalent => ("Ignored", "possibly equivalent: no valid input of a complete witness search kills it".into()),
        },
    }
}

fn mutant(data: &ReportData, protocol: usize, s: &SubstrateData, m: &MutantData, launch: Option<&[String]>) -> Value {
    let score = &data.scores[protocol];
    let (status, reason) = status(m, protocol);
    // The protocol's tests are the inputs it checks; cells of other inputs (the witness
    // search's) are in the `kmut` extension only.
    let checked = s.checked_columns(score);
    let on_checked: Vec<_> = m.cells.iter().filter(|e| checked.iter().any(|c| c.suite == e.suite && c.seed == e.seed)).collect();
    let covered: Vec<String> = on_checked.iter().map(|e| test_id(&s.name, &e.suite, e.seed)).collect();
    let killed: Vec<String> = on_checked.iter().filter(|e| e.kills_at(score.tolerance)).map(|e| test_id(&s.name, &e.suite, e.seed)).collect();
    let cells: Vec<Value> = m
        .cells
        .iter()
        .map(|e| {
            json!({ "suite": e.suite, "seed": e.seed, "outcome": e.outcome.name(), "crash": e.crash, "tau": finite(e.tau), "canary": e.canary,
                    "kernel_ms": e.kernel_ms, "wall_ms": e.wall_ms })
        })
        .collect();
    let v = m.verdicts[protocol].as_ref();
    let mu = &m.mutant;
    let mut out = json!({
        "id": mu.id,
        "mutatorName": mu.rule,
        "replacement": mu.replacement,
        "description": mu.name(),
        "location": location(s, m, launch),
        "status": status,
        "statusReason": reason,
        "static": false,
        "coveredBy": covered,
        "killedBy": killed,
        "testsCompleted": on_checked.len(),
        "duration": m.cells.iter().map(|e| e.wall_ms).sum::<f64>(),
        "kmut": {
            "substrate": s.name,
            "level": s.level,
            "family": mu.family,
            "kernel": mu.kernel,
            "layer": mu.layer,
            "depth": mu.depth,
            "original": mu.original,
            "kind": match mu.mutation { MutantKind::Source { .. } => "source", MutantKind::Launch { .. } => "launch" },
            "class": m.class,
            "duplicate_of": m.duplicate_of,
            "verdict": v.map(|v| v.word),
            "witness": v.and_then(|v| v.witness.as_ref()).map(|w| json!({ "suite": w.suite, "seed": w.seed })),
            "out_of_bounds": v.is_some_and(|v| v.out_of_bounds),
            "cpu_fidelity": m.fidelity,
            "target": s.target,
            "diff": mu.diff,
            "cells": cells,
        },
    });
    if on_checked.is_empty() {
        // No input ran it: `coveredBy: []` and `killedBy: []` would claim it was looked at.
        let o = out.as_object_mut().expect("an object");
        o.remove("coveredBy");
        o.remove("killedBy");
    }
    out
}

/// JSON has no infinity: tau\* of a NaN output or a wrong shape is infinite, written as the
/// string `"inf"` (as the workers' line protocol does).
fn finite(x: Option<f64>) -> Value {
    match x {
        Some(t) if t.is_finite() => json!(t),
        Some(t) if t.is_nan() => json!("nan"),
        Some(t) if t > 0.0 => json!("inf"),
        Some(_) => json!("-inf"),
        None => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::position;

    #[test]
    fn positions_are_one_based_lines_and_character_columns() {
        let text = "ab\ncé d\n";
        assert_eq!(position(text, 0), (1, 1));
        assert_eq!(position(text, 3), (2, 1));
        // `é` is two bytes: `d` at byte 7 is the fourth character of line 2.
        assert_eq!(position(text, 7), (2, 4));
        assert_eq!(position(text, 99), (3, 1));
    }
}
