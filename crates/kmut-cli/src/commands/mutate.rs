//! `kmut mutate`: the mutants of substrates, one name per line or as JSON.

use std::collections::BTreeMap;

use anyhow::Context as _;
use kmut_model::Family;
use kmut_rules::select::select;

use crate::args::MutateArgs;
use crate::{Environment, ExitStatus};

pub fn run(args: &MutateArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let rules = select(&args.rules, &args.family)?;
    let mut all = Vec::new();
    let mut summary: Vec<(String, BTreeMap<Family, usize>)> = Vec::new();
    for path in &args.substrates {
        let desc = (env.describe)(path).with_context(|| format!("could not read the substrate `{}`", path.display()))?;
        let out = kmut_rules::mutate(&desc, &rules).with_context(|| format!("could not parse the CUDA of `{}`", path.display()))?;
        for u in &out.unreadable {
            let within = u.function.as_deref().map_or_else(String::new, |f| format!(" in `{f}`"));
            eprintln!("warning: {}:{}:{}: the parser cannot read `{}`{within}; no mutants there", desc.path, u.line, u.col, u.snippet);
        }
        let mut counts = BTreeMap::new();
        for m in &out.mutants {
            *counts.entry(m.family).or_insert(0) += 1;
        }
        summary.push((desc.name.clone(), counts));
        all.extend(out.mutants);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&all)?);
    } else {
        for m in &all {
            println!("{}  {}", m.id, m.name());
        }
    }
    print_summary(&summary);
    Ok(ExitStatus::Success)
}

fn print_summary(summary: &[(String, BTreeMap<Family, usize>)]) {
    let width = summary.iter().map(|(n, _)| n.len()).max().unwrap_or(9).max(9);
    let mut header = format!("{:<width$}", "substrate");
    for f in Family::ALL {
        header.push_str(&format!("  {:>9}", &f.name()[..f.name().len().min(9)]));
    }
    header.push_str("      total");
    eprintln!("\n{header}");
    let mut totals = [0usize; 6];
    for (name, counts) in summary {
        let mut line = format!("{name:<width$}");
        for (i, f) in Family::ALL.iter().enumerate() {
            let n = counts.get(f).copied().unwrap_or(0);
            totals[i] += n;
            line.push_str(&format!("  {n:>9}"));
        }
        line.push_str(&format!("  {:>9}", counts.values().sum::<usize>()));
        eprintln!("{line}");
    }
    if summary.len() > 1 {
        let mut line = format!("{:<width$}", "total");
        for t in totals {
            line.push_str(&format!("  {t:>9}"));
        }
        line.push_str(&format!("  {:>9}", totals.iter().sum::<usize>()));
        eprintln!("{line}");
    }
}
