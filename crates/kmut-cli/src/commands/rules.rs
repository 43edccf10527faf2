//! `kmut rules`: the catalogue, as a table, JSON or the Markdown of `docs/rules.md`.

use kmut_model::Family;
use kmut_rules::{select::select, CATALOGUE_VERSION};

use crate::args::RulesArgs;
use crate::ExitStatus;

pub fn run(args: &RulesArgs) -> anyhow::Result<ExitStatus> {
    if args.markdown {
        print!("{}", kmut_rules::docs::markdown());
        return Ok(ExitStatus::Success);
    }
    let rules = select(&args.rules, &args.family)?;
    if args.json {
        let items: Vec<serde_json::Value> = rules
            .iter()
            .map(|r| {
                serde_json::json!({
                    "id": r.id,
                    "family": r.family,
                    "kind": if r.is_launch_rule() { "launch" } else { "source" },
                    "description": r.description,
                    "rationale": r.rationale,
                    "before": r.before,
                    "after": r.after,
                })
            })
            .collect();
        let doc = serde_json::json!({ "version": CATALOGUE_VERSION, "rules": items });
        println!("{}", serde_json::to_string_pretty(&doc)?);
        return Ok(ExitStatus::Success);
    }
    let width = rules.iter().map(|r| r.id.len()).max().unwrap_or(0);
    for r in &rules {
        println!("{:<width$}  {:<15}  {}", r.id, r.family.name(), r.description);
    }
    println!();
    let counts: Vec<String> = Family::ALL.iter().map(|f| format!("{f} {}", rules.iter().filter(|r| r.family == *f).count())).collect();
    println!("{} rules (catalogue version {CATALOGUE_VERSION}): {}", rules.len(), counts.join(", "));
    Ok(ExitStatus::Success)
}
