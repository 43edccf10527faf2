//! `kmut report`: the HTML folder, the Stryker JSON and the tables of a store.

use kmut_model::{Backend, Protocol};
use kmut_report::{ReportOptions, Scope};
use kmut_store::Store;

use crate::args::ReportArgs;
use crate::commands::compile::store_path;
use crate::ExitStatus;

pub fn run(args: &ReportArgs) -> anyhow::Result<ExitStatus> {
    // KernelBench's own two by default; the other protocols are `kmut audit`'s to compare.
    let names: Vec<String> = if args.protocols.is_empty() { vec!["official".into(), "head".into()] } else { args.protocols.clone() };
    let protocols = names.iter().map(|n| Protocol::named(n)).collect::<Result<Vec<_>, _>>().map_err(anyhow::Error::msg)?;
    let path = store_path(args.store.as_deref());
    anyhow::ensure!(path.is_file(), "no store at `{}`; run `kmut run` first (or pass --store)", path.display());
    let store = Store::open(&path)?;
    let backend = match args.backend.as_str() {
        "auto" => kmut_score::default_backend(&store)?,
        other => Backend::parse(other).map_err(anyhow::Error::msg)?,
    };
    let names: Vec<&str> = protocols.iter().map(|p| p.name.as_str()).collect();
    eprintln!("report: scoring `{}` under {} on the {} backend's evaluations", path.display(), names.join(", "), backend.name());
    let scope = Scope::parse(&args.scope).map_err(anyhow::Error::msg)?;
    let data = kmut_report::collect(&store, &ReportOptions { protocols, backend, scope })?;
    for s in &data.scores {
        for w in &s.score.warnings {
            eprintln!("warning: {}: {w}", s.name);
        }
    }
    let written = kmut_report::write(&data, &args.out, &mut |step| eprintln!("report: {step}"))?;
    let mutants: usize = data.substrates.iter().map(kmut_report::SubstrateData::total_mutants).sum();
    let listed: usize = data.substrates.iter().map(|s| s.mutants.len()).sum();
    let listed = if listed == mutants { String::new() } else { format!(" ({listed} run and listed; --scope all lists every one)") };
    let first = &data.scores[0];
    let not_measured = if written.not_measured.is_empty() { String::new() } else { format!("; not measured yet: {}", written.not_measured.join(", ")) };
    println!(
        "report: {} substrates, {mutants} mutants{listed}; {} miss rate {}; {} pages, {} JSON reports, {} tables in {}{not_measured}",
        data.substrates.len(),
        first.name,
        kmut_report::sections::overview::rate_text(first.score.overall.miss.as_ref()),
        written.pages.len(),
        written.json.len(),
        written.tables.len(),
        written.dir.display()
    );
    if args.open {
        let index = std::fs::canonicalize(written.dir.join("index.html"))?;
        println!("open file://{}", index.display());
    }
    Ok(ExitStatus::Success)
}
