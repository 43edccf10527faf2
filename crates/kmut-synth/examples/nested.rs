//! Nested validation of greedy's tie rule (issue 15), on the dev half only.
//!
//! Loads the kill matrix as `kmut synth` does (protocol `official` at its own tolerance, the
//! store's default backend), drops every mutant of the test half (`Half::of`) before anything
//! else reads the matrix, and splits each problem's dev half again, by a second, differently
//! salted hash of the mutant id, into dev-A (chosen on) and dev-B (scored on). Each rule chooses
//! on dev-A, with the padding prior learned on dev-A only, and is scored on dev-B at b = 1..6:
//! known kills pooled over problems, and per problem how often a rule wins or loses against R0.
//!
//! Rules: R0 the crate's (greedy, ties to the earliest candidate, then `pad`); R1 greedy whose
//! ties after the first pick go to the heavier kind (`Prior`), then the earliest; R2 greedy whose
//! ties at every pick go to the candidate `pad` would add first; R3 greedy's first pick, then
//! only picks that add two kills or more on the choosing half (one resting on a single mutant
//! leaves its place to `pad`'s prior); R4 R0's choice padded by the prior pooled over every
//! level, the crate's before 2026-12-06 (R0's prior is learned per level since, decided here:
//! `docs/synth.md`); S0.5, S1.5 and S3 smoothed greedy, each pick's new kills plus alpha times its
//! kind's prior weight over the problem's heaviest (`Rule::Smoothed`; 2026-12-07, not kept); N, N5
//! and A5 near-miss greedy, which reads how close each surviving cell's tau came to the tolerance
//! from the store (`Near`; 2026-12-07, fifteenth session, not kept).
//!
//! ```sh
//! cargo run --release -p kmut-synth --example nested -- STORE [--mirror]
//! ```
//! `--mirror` also chooses on dev-B and scores on dev-A (a second fold, still inside dev).
#![allow(clippy::print_stdout)]

mod common;

use kmut_synth::{detect, greedy, pad, Bits, Detection, Half, Prior, Problem};
use sha2::{Digest, Sha256};
use std::cmp::Reverse;

const BUDGETS: [usize; 6] = [1, 2, 3, 4, 5, 6];

/// The nested split's salt: a different hash input than `Half::of`'s (the bare id), and the
/// high bit rather than the low one.
const SALT: &str = "kmut-nested-dev-split-v1:";

/// Whether dev mutant `id` falls in dev-A (else dev-B).
fn in_dev_a(id: &str) -> bool {
    Sha256::digest(format!("{SALT}{id}").as_bytes())[0] & 0x80 == 0
}

/// `p` cut down to its dev half; dev-A relabelled `Dev` (chosen on), dev-B `Test` (scored on),
/// or the other way round for the mirror fold. The only place the first split is read: the test
/// half's mutants leave here and no later code sees them.
fn dev_only(p: &Problem, mirror: bool) -> Problem {
    let keep: Vec<usize> = (0..p.mutants.len()).filter(|&m| p.halves[m] == Half::Dev).collect();
    p.restrict(&keep, |id| if in_dev_a(id) == mirror { Half::Test } else { Half::Dev })
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Rule {
    R0,
    R1,
    R2,
    R3,
    R4,
    /// Smoothed greedy: a candidate's new kills plus `alpha` x its kind's prior weight over the
    /// heaviest kind's among the problem's candidates, so a kind that caught the protocol's
    /// misses across the level can outrank a pick resting on one more choosing-half mutant
    /// (`alpha` above 1) or only break ties (`alpha` 1 or less). Tried 2026-12-07 (fourteenth
    /// session) against the outvoted misses.
    Smoothed(u32),
    /// Near misses break ties: among candidates with the most new kills, the one whose cells
    /// on the choosing half's uncovered mutants come closest to the tolerance (`Near::credit`).
    NearTie,
    /// Near misses weigh in: new kills plus `alpha` (tenths) x the mean closeness over the
    /// uncovered choosing-half mutants it does not kill, so an input that almost kills the rest
    /// can outrank one resting on one more kill (alpha above 1).
    Near(u32),
    /// `Near` from the second pick on; the first is greedy's (earliest among ties).
    NearAfter(u32),
}

/// How close each surviving cell came to the tolerance, read from the store's taus
/// (2026-12-07, fifteenth session): `1 + log10(tau / tol) / 3` clamped to [0, 1], so a tau a
/// thousandth of the tolerance or less scores 0 and one at the tolerance 1; kills and missing
/// cells score 0.
struct Near {
    tau: std::collections::HashMap<(String, String, i64), f64>,
    tol: f64,
}

impl Near {
    fn load(path: &str, tol: f64) -> Result<Near, Box<dyn std::error::Error>> {
        let db = rusqlite::Connection::open(path)?;
        let mut q = db.prepare("SELECT mutant, suite, seed, tau FROM evaluations WHERE outcome = 'completed' AND shape_ok = 1 AND tau IS NOT NULL")?;
        let tau =
            q.query_map([], |r| Ok(((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, i64>(2)?), r.get::<_, f64>(3)?)))?.collect::<Result<_, _>>()?;
        Ok(Near { tau, tol })
    }

    fn closeness(&self, p: &Problem, c: usize, m: usize) -> f64 {
        let col = &p.candidates[c].column;
        let key = (p.mutants[m].clone(), col.suite.clone(), i64::try_from(col.seed).unwrap_or(i64::MAX));
        match self.tau.get(&key) {
            Some(&t) if t <= self.tol && t > 0.0 => (1.0 + (t / self.tol).log10() / 3.0).clamp(0.0, 1.0),
            _ => 0.0,
        }
    }

    /// Mean closeness of `c`'s cells over the mutants of `mask` neither covered nor killed by it.
    fn credit(&self, p: &Problem, c: usize, mask: &Bits, covered: &Bits) -> f64 {
        let rest: Vec<usize> = mask.ones().filter(|&m| !covered.get(m) && !p.kills[c].get(m)).collect();
        rest.iter().map(|&m| self.closeness(p, c, m)).sum::<f64>() / rest.len().max(1) as f64
    }
}

/// Greedy over new kills plus `bonus(candidate, covered)`, after the picks in `start`; only
/// candidates that add a kill are picked (`pad` fills the rest); ties (same score) to the earliest.
fn scored_greedy(p: &Problem, mask: &Bits, max: usize, start: Vec<usize>, bonus: impl Fn(usize, &Bits) -> f64) -> Vec<usize> {
    let mut covered = Bits::new(p.mutants.len());
    for &c in &start {
        covered.union_with(&p.kills[c]);
    }
    let mut picks = start;
    while picks.len() < max {
        let mut best: Option<(f64, usize)> = None;
        for c in (0..p.candidates.len()).filter(|c| !picks.contains(c)) {
            let gain = p.kills[c].count_new(mask, &covered);
            if gain == 0 {
                continue;
            }
            let score = gain as f64 + bonus(c, &covered);
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, c));
            }
        }
        let Some((_, c)) = best else { break };
        covered.union_with(&p.kills[c]);
        picks.push(c);
    }
    picks
}

/// `scored_greedy` with `alpha` x `Near::credit`, after greedy's first `from` picks.
fn near(p: &Problem, mask: &Bits, n: &Near, max: usize, alpha: f64, from: usize) -> Vec<usize> {
    scored_greedy(p, mask, max, greedy(p, mask, &[], from.min(max)), |c, covered| alpha * n.credit(p, c, mask, covered))
}

/// Greedy maximum coverage on `mask` whose ties go to the smallest `rank(step, candidate)`.
fn greedy_ranked<K: Ord>(p: &Problem, mask: &Bits, max: usize, rank: impl Fn(usize, usize) -> K) -> Vec<usize> {
    let mut covered = Bits::new(p.mutants.len());
    let mut picks: Vec<usize> = Vec::new();
    while picks.len() < max {
        let best = (0..p.candidates.len())
            .filter(|c| !picks.contains(c))
            .map(|c| (p.kills[c].count_new(mask, &covered), c))
            .filter(|&(g, _)| g > 0)
            .min_by_key(|&(g, c)| (Reverse(g), rank(picks.len(), c)));
        let Some((_, c)) = best else { break };
        covered.union_with(&p.kills[c]);
        picks.push(c);
    }
    picks
}

/// `scored_greedy` with `alpha` x the kind's prior weight over the heaviest (`Rule::Smoothed`).
fn smoothed(p: &Problem, mask: &Bits, prior: &Prior, max: usize, alpha: f64) -> Vec<usize> {
    let heaviest = (0..p.candidates.len()).map(|c| prior.weight(p, c)).max().unwrap_or(0).max(1) as f64;
    scored_greedy(p, mask, max, Vec::new(), |c, _| alpha * prior.weight(p, c) as f64 / heaviest)
}

/// The greedy order of `rule` on `mask` (up to `max` inputs).
fn order(rule: Rule, p: &Problem, mask: &Bits, prior: &Prior, n: &Near, max: usize) -> Vec<usize> {
    match rule {
        // Credit is below 1, so alpha 0.99 only reorders candidates of equal new kills.
        Rule::NearTie => near(p, mask, n, max, 0.99, 0),
        Rule::Near(alpha_tenths) => near(p, mask, n, max, f64::from(alpha_tenths) / 10.0, 0),
        Rule::NearAfter(alpha_tenths) => near(p, mask, n, max, f64::from(alpha_tenths) / 10.0, 1),
        Rule::R1 => greedy_ranked(p, mask, max, |step, c| (Reverse(if step == 0 { 0 } else { prior.weight(p, c) }), c)),
        Rule::R2 => {
            let pad_order = pad(p, mask, &[], &[], p.candidates.len(), prior);
            greedy_ranked(p, mask, max, |_, c| pad_order.iter().position(|&x| x == c))
        }
        // R4 differs from R0 only in its padding prior (`fold`).
        Rule::R0 | Rule::R4 => greedy(p, mask, &[], max),
        Rule::Smoothed(alpha_tenths) => smoothed(p, mask, prior, max, f64::from(alpha_tenths) / 10.0),
        Rule::R3 => {
            // Greedy's first pick, then only picks that add two kills or more: a pick resting on
            // one mutant of the choosing half leaves its place to `pad`'s prior.
            let mut covered = Bits::new(p.mutants.len());
            let mut kept = Vec::new();
            for c in greedy(p, mask, &[], max) {
                if !kept.is_empty() && p.kills[c].count_new(mask, &covered) < 2 {
                    break;
                }
                covered.union_with(&p.kills[c]);
                kept.push(c);
            }
            kept
        }
    }
}

fn pct(d: Detection) -> String {
    if d.total == 0 {
        return "-".into();
    }
    let k = 100.0 * d.known as f64 / d.total as f64;
    let q = 100.0 * d.possible as f64 / d.total as f64;
    if d.known == d.possible {
        format!("{k:.1}% ({}/{})", d.known, d.total)
    } else {
        format!("{k:.1} to {q:.1}% ({}-{}/{})", d.known, d.possible, d.total)
    }
}

/// One rule at one budget: pooled detection on the scored half, and per problem its known
/// kills there and the inputs chosen.
struct Point {
    pooled: Detection,
    known: Vec<usize>,
    picks: Vec<Vec<usize>>,
}

/// Per rule, per budget.
fn fold(problems: &[Problem], rules: &[Rule], n: &Near) -> Vec<Vec<Point>> {
    let prior = Prior::learn(problems, Some(Half::Dev));
    // R4's prior pools every level, as the crate's did before 2026-12-06: the problems are seen
    // at one level (0) for it, so its weights sum over all of them.
    let flat: Vec<Problem> = problems.iter().map(|p| Problem { level: 0, ..p.clone() }).collect();
    let pooled_prior = Prior::learn(&flat, Some(Half::Dev));
    let max = BUDGETS[BUDGETS.len() - 1];
    let mut out = Vec::new();
    for &rule in rules {
        let orders: Vec<Vec<usize>> = problems.iter().map(|p| order(rule, p, &p.mask(Some(Half::Dev)), &prior, n, max)).collect();
        let mut per_b = Vec::new();
        for &b in &BUDGETS {
            let mut pooled = Detection::default();
            let (mut known, mut picks_b) = (Vec::new(), Vec::new());
            for ((p, o), flat) in problems.iter().zip(&orders).zip(&flat) {
                let picks = if rule == Rule::R4 {
                    pad(flat, &p.mask(Some(Half::Dev)), &[], &o[..b.min(o.len())], b, &pooled_prior)
                } else {
                    pad(p, &p.mask(Some(Half::Dev)), &[], &o[..b.min(o.len())], b, &prior)
                };
                let d = detect(p, &picks, &p.mask(Some(Half::Test)));
                pooled += d;
                known.push(d.known);
                picks_b.push(picks);
            }
            per_b.push(Point { pooled, known, picks: picks_b });
        }
        out.push(per_b);
    }
    out
}

/// The problems where a rule's known kills at `b` differ from R0's, with both choices.
fn losses(problems: &[Problem], res: &[Vec<Point>], rules: &[(Rule, &str)], b: usize) {
    let i = BUDGETS.iter().position(|&x| x == b).unwrap_or(0);
    let label = |p: &Problem, picks: &[usize]| picks.iter().map(|&c| p.candidates[c].source.label()).collect::<Vec<_>>().join(", ");
    for (r, (_, name)) in res.iter().zip(rules).skip(1) {
        for (k, p) in problems.iter().enumerate() {
            let (a, z) = (r[i].known[k], res[0][i].known[k]);
            if a != z {
                println!(
                    "  b={b} {name}: {} {a} vs R0 {z} of {}: [{}] vs [{}]",
                    p.substrate,
                    p.mask(Some(Half::Test)).count(),
                    label(p, &r[i].picks[k]),
                    label(p, &res[0][i].picks[k])
                );
            }
        }
    }
}

fn table(title: &str, problems: &[Problem], rules: &[(Rule, &str)], n: &Near) {
    let chosen: usize = problems.iter().map(|p| p.mask(Some(Half::Dev)).count()).sum();
    let scored: usize = problems.iter().map(|p| p.mask(Some(Half::Test)).count()).sum();
    println!("\n{title}: {} problems, {chosen} mutants chosen on, {scored} scored on", problems.len());
    let r: Vec<Rule> = rules.iter().map(|x| x.0).collect();
    let res = fold(problems, &r, n);
    print!("{:>3}", "b");
    for (_, name) in rules {
        print!("  {name:>26}");
    }
    for (_, name) in &rules[1..] {
        print!("  {:>24}", format!("{name} vs R0 (+/-, differ)"));
    }
    println!();
    for (i, b) in BUDGETS.iter().enumerate() {
        print!("{b:>3}");
        for per_rule in &res {
            print!("  {:>26}", pct(per_rule[i].pooled));
        }
        for per_rule in &res[1..] {
            let base = &res[0][i];
            let wins = per_rule[i].known.iter().zip(&base.known).filter(|(a, z)| a > z).count();
            let losses = per_rule[i].known.iter().zip(&base.known).filter(|(a, z)| a < z).count();
            let differ = per_rule[i].picks.iter().zip(&base.picks).filter(|(a, z)| a != z).count();
            print!("  {:>24}", format!("+{wins}/-{losses}, {differ}"));
        }
        println!();
    }
    losses(problems, &res, rules, 2);
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: nested STORE [--mirror]")?;
    let (loaded, read) = common::official_matrix(path)?;
    println!("{read}; nested salt `{SALT}`");
    let rules = [
        (Rule::R0, "R0 earliest"),
        (Rule::R1, "R1 prior after 1st"),
        (Rule::R2, "R2 pad's order"),
        (Rule::R3, "R3 two kills or prior"),
        (Rule::R4, "R4 pooled prior"),
        (Rule::Smoothed(5), "S0.5 smoothed"),
        (Rule::Smoothed(15), "S1.5 smoothed"),
        (Rule::Smoothed(30), "S3 smoothed"),
        (Rule::NearTie, "N near-miss ties"),
        (Rule::Near(50), "N5 near-miss"),
        (Rule::NearAfter(50), "A5 near after 1st"),
    ];
    let n = Near::load(path, kmut_model::Protocol::named("official")?.tolerance())?;
    let folds: &[bool] = if args.iter().any(|a| a == "--mirror") { &[false, true] } else { &[false] };
    for &mirror in folds {
        let problems: Vec<Problem> = loaded.iter().map(|p| dev_only(p, mirror)).collect();
        // R0 is the crate's own greedy: the ranked greedy with the earliest rank must agree.
        for p in &problems {
            let m = p.mask(Some(Half::Dev));
            assert_eq!(greedy(p, &m, &[], 6), greedy_ranked(p, &m, 6, |_, c| c), "{}", p.substrate);
        }
        table(if mirror { "mirror: chosen on dev-B, scored on dev-A" } else { "chosen on dev-A, scored on dev-B" }, &problems, &rules, &n);
    }
    Ok(())
}
