//! `kmut score`: miss rates under a protocol from the stored evaluations.

use kmut_model::{Backend, Inputs, Protocol};
use kmut_score::{Denominator, Estimate, Group, Score, ScoreOptions, TimeoutPolicy};
use kmut_store::Store;

use crate::args::ScoreArgs;
use crate::commands::compile::store_path;
use crate::ExitStatus;

/// The store and the scoring options `args` name (`kmut score`, and `kmut depth`, which uses
/// the score's verdicts).
pub(crate) fn open(args: &ScoreArgs) -> anyhow::Result<(Store, ScoreOptions)> {
    let protocol = Protocol::named(&args.protocol).map_err(anyhow::Error::msg)?;
    let tolerance = args.tolerance.unwrap_or_else(|| protocol.tolerance());
    anyhow::ensure!(tolerance.is_finite() && tolerance >= 0.0, "--tolerance must be a non-negative number");
    let path = store_path(args.store.as_deref());
    anyhow::ensure!(path.is_file(), "no store at `{}`; run `kmut run` first (or pass --store)", path.display());
    let store = Store::open(&path)?;
    let backend = match args.backend.as_str() {
        "auto" => kmut_score::default_backend(&store)?,
        other => Backend::parse(other).map_err(anyhow::Error::msg)?,
    };
    let inputs = Inputs::parse(&args.suites).map_err(anyhow::Error::msg)?;
    let timeouts = TimeoutPolicy::parse(&args.timeouts).map_err(anyhow::Error::msg)?;
    let denominator = Denominator::parse(&args.denominator).map_err(anyhow::Error::msg)?;
    Ok((store, ScoreOptions { protocol, tolerance, inputs, backend, timeouts, denominator }))
}

pub fn run(args: &ScoreArgs) -> anyhow::Result<ExitStatus> {
    let (store, options) = open(args)?;
    let scored = kmut_score::score(&store, &args.substrates, &options)?;
    for w in &scored.warnings {
        eprintln!("warning: {w}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&scored)?);
    } else {
        print(&scored);
    }
    Ok(ExitStatus::Success)
}

/// A miss rate as printed: exact, an estimate with its interval, or (with undecided mutants)
/// only the interval, since the point would lean towards kills.
pub(crate) fn rate(e: Option<&Estimate>) -> String {
    match e {
        None => "-".into(),
        Some(e) if e.exact => format!("{:.1}%", 100.0 * e.rate),
        Some(e) if e.undecided > 0 || e.rate.is_nan() => format!("{:.1} to {:.1}%", 100.0 * e.low, 100.0 * e.high),
        Some(e) => interval(e.rate, e.low, e.high),
    }
}

/// `16.9% [14.7, 19.3]`: a rate and its 95% interval, in percent.
fn interval(rate: f64, low: f64, high: f64) -> String {
    format!("{:.1}% [{:.1}, {:.1}]", 100.0 * rate, 100.0 * low, 100.0 * high)
}

fn rows(groups: &[&Group]) -> Vec<Vec<String>> {
    groups
        .iter()
        .map(|g| {
            vec![
                g.name.clone(),
                g.live.to_string(),
                g.evaluated.to_string(),
                g.killed.to_string(),
                g.survived.to_string(),
                rate(g.miss.as_ref()),
                g.sample.map_or_else(|| "-".into(), |r| interval(r.rate, r.low, r.high)),
                g.crashes.to_string(),
                g.timeouts.to_string(),
                g.undecided.to_string(),
                g.not_run.to_string(),
                g.possibly_equivalent.to_string(),
                g.survived_out_of_bounds.to_string(),
            ]
        })
        .collect()
}

const HEADER: [&str; 13] =
    ["", "live", "settled", "killed", "survived", "miss rate", "in the settled", "crash", "timeout", "undecided", "not run", "poss-equiv", "oob-survived"];

/// The score as tables on stdout.
pub fn print(s: &Score) {
    let inputs = match (s.backend, s.inputs) {
        (Backend::Cpu, _) => "the small suites (CPU backend: not the protocol's official sizes)",
        (Backend::Gpu, Inputs::Small) => "the small suites (not the protocol's official sizes)",
        (Backend::Gpu, Inputs::All) => "the protocol's inputs and every targeted suite",
        (Backend::Gpu, Inputs::Protocol) => "the protocol's inputs",
        (Backend::Gpu, Inputs::Witness | Inputs::WitnessSmall) => "the witness search's inputs (every suite and the generated columns)",
    };
    let timeouts = match s.timeouts {
        TimeoutPolicy::Exclude => "timeouts are their own column, outside the miss rate's denominator (--timeouts kill counts them as kills)",
        TimeoutPolicy::Kill => "timeouts count as kills (--timeouts kill)",
    };
    println!(
        "protocol {} ({}): allclose at atol = rtol = {:e} on {inputs}; {timeouts}; backend {}",
        s.protocol,
        s.title,
        s.tolerance,
        if s.backends.is_empty() { "none yet".to_owned() } else { s.backends.join(", ") }
    );
    match s.denominator {
        Denominator::Witnessed => println!(
            "miss rate = survived / settled over witnessed mutants: a survivor counts only when some valid input kills it (kmut witness); poss-equiv: no valid input of a complete search kills it, outside the rate"
        ),
        _ => println!("miss rate = survived / settled over live mutants (no witness search in this store: a mutant no input can expose counts as a miss)"),
    }
    let c = &s.classes;
    println!(
        "{} substrates; {} mutants: {} stillborn, {} equivalent, {} duplicate, {} live",
        s.substrates, c.generated, c.stillborn, c.equivalent, c.duplicate, c.live
    );
    for w in &s.warnings {
        println!("WARNING: {w}");
    }
    if let Some(racy) = &s.racy_on_cpu {
        println!(
            "CPU backend: {} fast-math mutants are equivalent on the CPU (not run); {} synchronisation and warp mutants are racy-on-CPU and reported apart, below the GPU-comparable tables",
            s.equivalent_on_cpu, racy.live
        );
    }
    if s.sampled {
        let o = &s.overall;
        println!(
            "{} of {} live mutants have a settled verdict ({} timed out, {} undecided, {} not run): miss rates are stratified estimates for the corpus with 95% intervals, `in the settled` the unweighted survived / settled of the sample itself (Wilson 95%){}",
            o.evaluated,
            o.live,
            o.timeouts,
            o.undecided,
            o.not_run,
            o.miss.as_ref().filter(|e| e.unsampled > 0.0).map_or_else(String::new, |e| format!(
                "; {:.1}% of the live mutants are in strata with no verdict at all, and the intervals include every rate they could have",
                100.0 * e.unsampled
            ))
        );
    }
    if s.stale_evaluations > 0 {
        println!(
            "{} stored evaluations are of earlier images (a changed substrate or compiler) or of mutants no longer generated, and are not scored",
            s.stale_evaluations
        );
    }
    let table = |first: &str, groups: &[&Group]| {
        let mut header = HEADER;
        header[0] = first;
        print!("\n{}", crate::table::render(&header, &rows(groups)));
    };
    table("overall", &[&s.overall]);
    table("family", &s.by_family.iter().collect::<Vec<_>>());
    table("level", &s.by_level.iter().collect::<Vec<_>>());
    table("substrate", &s.by_substrate.iter().collect::<Vec<_>>());
    if let Some(racy) = &s.racy_on_cpu {
        table("racy-on-CPU", &[racy]);
        println!(
            "run in thread orders {:?}; a kill in any order is a race witness: {} race witnesses, {} of them order-dependent (killed in some orders, not all)",
            kmut_model::RACE_ORDERS,
            s.race_witnesses,
            s.order_dependent
        );
    }
    if !s.original_failures.is_empty() {
        let listed: Vec<String> = s
            .original_failures
            .iter()
            .map(|f| format!("{} {} seed {} (tau* {})", f.substrate, f.suite, f.seed, f.tau.map_or_else(|| "-, it crashed".to_owned(), |t| format!("{t:.3e}"))))
            .collect();
        println!("\nleft out of every verdict, since the original itself fails them at {:e}: {}", s.tolerance, listed.join("; "));
    }
}
