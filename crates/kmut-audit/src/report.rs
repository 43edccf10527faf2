//! The audit as text: what `kmut audit` prints.

use std::fmt::Write as _;

use crate::{Audit, Rate};

/// A rate as printed: exact, or the estimate with its 95% interval.
fn pct(r: &Rate) -> String {
    match (r.rate, r.low, r.high) {
        (Some(x), _, _) if r.exact => format!("{:.1}%", 100.0 * x),
        (Some(x), Some(l), Some(h)) if x.is_finite() => format!("{:.1}% [{:.1}, {:.1}]", 100.0 * x, 100.0 * l, 100.0 * h),
        (_, Some(l), Some(h)) => format!("{:.1} to {:.1}%", 100.0 * l, 100.0 * h),
        _ => "-".into(),
    }
}

fn table(out: &mut String, header: &[impl AsRef<str>], rows: &[Vec<String>]) {
    let header: Vec<String> = header.iter().map(|h| h.as_ref().to_owned()).collect();
    let mut widths: Vec<usize> = header.iter().map(String::len).collect();
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.len());
        }
    }
    let line = |cells: &[String]| cells.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect::<Vec<_>>().join("  ").trim_end().to_owned();
    let _ = writeln!(out, "{}", line(&header));
    for r in rows {
        let _ = writeln!(out, "{}", line(r));
    }
}

/// Detection per group (rows) and protocol (columns).
fn by_group(out: &mut String, a: &Audit, title: &str, pick: impl Fn(&crate::ProtocolRates) -> &[Rate]) {
    let Some(first) = a.rates.first() else { return };
    let _ = writeln!(out, "\n{title}");
    let mut header = vec![String::new(), "mutants".to_owned()];
    header.extend(a.rates.iter().map(|r| r.protocol.clone()));
    let rows: Vec<Vec<String>> = pick(first)
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let mut row = vec![g.group.clone(), g.mutants.to_string()];
            row.extend(a.rates.iter().map(|r| pick(r).get(i).map_or_else(|| "-".into(), pct)));
            row
        })
        .collect();
    table(out, &header, &rows);
}

/// Each protocol's detection on the unified denominator, its false kills, dropped inputs and
/// the problems where it is blind.
fn rates_table(out: &mut String, a: &Audit) {
    let _ = writeln!(out, "\ndetection rate (95% interval; exact when every live mutant is settled); false kills are inputs on which the protocol rejects the original, never detections");
    let header = ["protocol", "comparison", "detected", "rate", "false kills (inputs / problems)", "dropped inputs", "blind (mutants / problems)"];
    let rows: Vec<Vec<String>> = a
        .rates
        .iter()
        .map(|r| {
            vec![
                r.protocol.clone(),
                r.comparison.clone(),
                format!("{}/{}", r.overall.detected, r.overall.mutants),
                pct(&r.overall),
                format!("{} / {}", r.false_kill_columns, r.false_kill_problems),
                r.dropped_columns.to_string(),
                format!("{} / {}", r.blind_mutants, r.blind_problems),
            ]
        })
        .collect();
    table(out, &header, &rows);
    if a.rates.iter().any(|r| r.blind_mutants > 0) {
        let _ = writeln!(
            out,
            "blind: mutants of problems on which the protocol rejects the original (or drops the input) on every input it has; it cannot tell them from the correct kernel, so they count as missed"
        );
    }
}

/// Everything `kmut audit` prints, in order.
pub fn render(a: &Audit) -> String {
    let mut out = String::new();
    let p = &a.population;
    let _ = writeln!(
        out,
        "audit of {} protocols on {} substrates ({} backend): unified denominator {} mutants = witnessed (a valid input kills them at {:e}) and decided under every protocol",
        a.rates.len(),
        p.substrates,
        a.backend.name(),
        p.unified,
        a.witness_tolerance
    );
    let _ = writeln!(
        out,
        "left out of {} live: {} possibly equivalent (complete search, no witness), {} search incomplete, {} timed out under some protocol, {} undecided under some protocol{}",
        p.live,
        p.possibly_equivalent,
        p.search_incomplete,
        p.timed_out,
        p.undecided,
        if p.apart_on_cpu > 0 { format!(", {} set apart on the CPU (racy- or equivalent-on-CPU)", p.apart_on_cpu) } else { String::new() }
    );
    rates_table(&mut out, a);
    by_group(&mut out, a, "by family", |r| &r.by_family);
    by_group(&mut out, a, "by level", |r| &r.by_level);
    if !a.decompositions.is_empty() {
        let _ = writeln!(
            out,
            "\ngain over {} = inputs (the protocol's inputs at {}'s tolerance) + tolerance (the rest); points of detection rate (mutants)",
            a.decompositions[0].from, a.decompositions[0].from
        );
        let header = ["protocol", "total", "inputs", "tolerance"];
        let rows: Vec<Vec<String>> = a
            .decompositions
            .iter()
            .map(|d| {
                vec![
                    d.to.clone(),
                    format!("{:+.1} ({:+})", d.total_points, d.total),
                    format!("{:+.1} ({:+})", d.inputs_points, d.inputs),
                    format!("{:+.1} ({:+})", d.tolerance_points, d.tolerance),
                ]
            })
            .collect();
        table(&mut out, &header, &rows);
    }
    if a.rates.len() > 1 {
        let only: Vec<String> = a.rates.iter().map(|r| format!("{} {}", r.protocol, r.only_detected)).collect();
        let _ = writeln!(out, "\ndetected by one protocol alone (unified mutants no other audited protocol detects): {}", only.join(", "));
    }
    let _ = writeln!(out, "\n{} mutants every protocol misses and a witness exposes", a.missed_by_all);
    for g in &a.missed_by_family {
        let _ = writeln!(out, "  {}: {}", g.family, g.mutants);
        for e in &g.examples {
            let tau = e.tau.map_or_else(|| "a crash".to_owned(), |t| format!("tau* {t:.3e}"));
            let _ = writeln!(out, "    {} {}:{} [{}] witnessed by {} ({tau})", e.mutant, e.substrate, e.line, e.rule, e.witness);
        }
    }
    if !a.false_kills.is_empty() {
        let _ = writeln!(out, "\nfalse kills: inputs on which a protocol rejects the original (kills there are not detections)");
        for f in &a.false_kills {
            let cols: Vec<String> = f
                .columns
                .iter()
                .map(|c| match (c.tau, c.max_abs) {
                    (Some(t), Some(m)) if t.is_finite() => format!("{}:{} (tau* {t:.2e}, max abs {m:.2e})", c.suite, c.seed),
                    _ => format!("{}:{} (not finite)", c.suite, c.seed),
                })
                .collect();
            let _ = writeln!(out, "  {} {}: {}", f.protocol, f.substrate, cols.join(", "));
        }
    }
    let notes: Vec<&crate::ProtocolRates> = a.rates.iter().filter(|r| !r.not_modelled.is_empty()).collect();
    if !notes.is_empty() {
        let _ = writeln!(out, "\nnot modelled (from each protocol's file):");
        for r in notes {
            for n in &r.not_modelled {
                let _ = writeln!(out, "  {}: {n}", r.protocol);
            }
        }
    }
    out
}
