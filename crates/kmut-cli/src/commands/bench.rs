//! `kmut bench mutate`: how long generating every mutant takes.

use std::time::Instant;

use anyhow::Context as _;
use kmut_rules::RULES;

use crate::args::BenchMutateArgs;
use crate::{Environment, ExitStatus};

pub fn mutate(args: &BenchMutateArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let rules: Vec<_> = RULES.iter().collect();
    let descs = args
        .substrates
        .iter()
        .map(|p| (env.describe)(p).with_context(|| format!("could not read the substrate `{}`", p.display())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut count = 0;
    // One untimed pass warms caches and counts the mutants.
    for d in &descs {
        count += kmut_rules::mutate(d, &rules)?.mutants.len();
    }
    let repeat = args.repeat.max(1);
    let start = Instant::now();
    for _ in 0..repeat {
        for d in &descs {
            std::hint::black_box(kmut_rules::mutate(d, &rules)?);
        }
    }
    let per_pass = start.elapsed().as_secs_f64() / f64::from(repeat);
    println!(
        "generated {count} mutants of {} substrate(s) with {} rules: {:.1} ms per pass ({:.1} us per mutant), mean of {repeat} passes on one thread",
        descs.len(),
        rules.len(),
        per_pass * 1e3,
        per_pass * 1e6 / count.max(1) as f64
    );
    Ok(ExitStatus::Success)
}
