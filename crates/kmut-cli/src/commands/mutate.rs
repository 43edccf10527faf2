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
    let mut header = vec!["substrate"];
    header.extend(Family::ALL.iter().map(|f| f.name()));
    header.push("total");
    let row = |name: &str, counts: &dyn Fn(Family) -> usize| {
        let mut r = vec![name.to_owned()];
        r.extend(Family::ALL.iter().map(|f| counts(*f).to_string()));
        r.push(Family::ALL.iter().map(|f| counts(*f)).sum::<usize>().to_string());
        r
    };
    let mut rows: Vec<Vec<String>> = summary.iter().map(|(name, c)| row(name, &|f| c.get(&f).copied().unwrap_or(0))).collect();
    if summary.len() > 1 {
        rows.push(row("total", &|f| summary.iter().map(|(_, c)| c.get(&f).copied().unwrap_or(0)).sum()));
    }
    eprint!("\n{}", crate::table::render(&header, &rows));
}
