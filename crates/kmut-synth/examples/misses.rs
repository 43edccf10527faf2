//! Why the held-out inputs miss what they miss (issue 15), and what any rule that chooses on the
//! dev half could at best detect.
//!
//! Folds as `kmut synth --splits` reads them (`Half::salted`, each split both ways, pooled), the
//! crate's choice at budget b (greedy on the choosing half, then `pad` with the prior learned on
//! that half). Every mutant of the scored half that the choice does not kill falls in one class:
//!
//! * `unrun`: a chosen input's cell on it was never run (it may be a kill);
//! * `dev-blind`: no candidate that kills it kills any mutant of the choosing half, so nothing
//!   the choosing half holds points to its killers (only a prior over kinds could);
//! * `outvoted`: some killer of it kills a choosing-half mutant, but the choice went elsewhere.
//!
//! Beside the choice, two bounds per fold, both over every set of b candidates of a problem:
//! `dev-optimal best`, the most scored-half kills among the sets that kill as many choosing-half
//! mutants as the best set does (what the best tie rule could reach; a rule choosing on the dev
//! half alone cannot do better without giving up dev kills), and `oracle`, the most scored-half
//! kills of any set (chosen on the scored half itself: not an estimate, a ceiling). Beside them,
//! `dev-optimal mean`, the scored-half kills averaged over those dev-optimal sets (what a tie rule
//! blind to the scored half should expect), and `short on dev`, the problems (one per fold)
//! where the chosen set kills fewer choosing-half mutants than the best set of b.
//!
//! ```sh
//! cargo run --release -p kmut-synth --example misses -- STORE [--splits N] [--budget B]   # B: 1 to 3
//! ```
#![allow(clippy::print_stdout)]

mod common;

use kmut_synth::{detect, greedy, pad, Bits, Half, Prior, Problem};

/// Every set of `b` distinct candidates of `p` (all of them when it has fewer), as index lists.
fn subsets(n: usize, b: usize) -> Vec<Vec<usize>> {
    let b = b.min(n);
    let mut out = Vec::new();
    let mut pick: Vec<usize> = (0..b).collect();
    loop {
        out.push(pick.clone());
        // The next combination in lexicographic order, or done.
        let Some(i) = (0..b).rev().find(|&i| pick[i] < n - b + i) else { break };
        pick[i] += 1;
        for j in i + 1..b {
            pick[j] = pick[j - 1] + 1;
        }
    }
    out
}

/// Known kills of `picks` among `mask`.
fn kills(p: &Problem, picks: &[usize], mask: &Bits) -> usize {
    detect(p, picks, mask).known
}

#[derive(Default)]
struct Tally {
    scored: usize,
    killed: usize,
    unrun: usize,
    dev_blind: usize,
    outvoted: usize,
    dev_optimal_best: usize,
    /// Scored-half kills averaged over the dev-optimal sets (summed over problems): what a tie
    /// rule that picks among them blindly would expect.
    dev_optimal_mean: f64,
    /// Problems (folds counted apart) whose chosen set kills fewer choosing-half mutants than the
    /// best set of b, and all problems.
    short_on_dev: usize,
    problems: usize,
    oracle: usize,
}

fn pct(n: usize, of: usize) -> String {
    format!("{:.1}% ({n})", 100.0 * n as f64 / of.max(1) as f64)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let path = args.first().ok_or("usage: misses STORE [--splits N] [--budget B]")?;
    let splits = common::splits(&args)?;
    let budget: usize = match args.iter().position(|a| a == "--budget") {
        Some(i) => args.get(i + 1).ok_or("--budget takes a number")?.parse()?,
        None => 2,
    };
    // The bounds enumerate every set of b candidates of each problem: C(60, 3) is 34,220 sets,
    // C(60, 6) fifty million, so larger budgets are refused rather than left to run for hours.
    if !(1..=3).contains(&budget) {
        return Err(format!("--budget {budget}: the bounds enumerate every set of b candidates, so b must be 1 to 3").into());
    }
    let (loaded, read) = common::official_matrix(path)?;
    println!("{read}\n{splits} splits read both ways, b = {budget}");
    let mut by_level: Vec<Tally> = (0..4).map(|_| Tally::default()).collect();
    for salt in 0..splits {
        let split: Vec<Problem> = loaded.iter().map(|p| p.resplit(salt)).collect();
        for choose in [Half::Dev, Half::Test] {
            let prior = Prior::learn(&split, Some(choose));
            for p in &split {
                let (on, scored) = (p.mask(Some(choose)), p.mask(Some(choose.other())));
                let order = greedy(p, &on, &[], budget);
                let picks = pad(p, &on, &[], &order, budget, &prior);
                let mut chosen = Bits::new(p.mutants.len());
                let mut maybe = Bits::new(p.mutants.len());
                for &c in &picks {
                    chosen.union_with(&p.kills[c]);
                    maybe.union_with(&p.unknown[c]);
                }
                let sets = subsets(p.candidates.len(), budget);
                let best_dev = sets.iter().map(|s| kills(p, s, &on)).max().unwrap_or(0);
                let tied: Vec<usize> = sets.iter().filter(|s| kills(p, s, &on) == best_dev).map(|s| kills(p, s, &scored)).collect();
                let dev_optimal_best = tied.iter().copied().max().unwrap_or(0);
                let dev_optimal_mean = tied.iter().sum::<usize>() as f64 / tied.len().max(1) as f64;
                let short = kills(p, &picks, &on) < best_dev;
                let oracle = sets.iter().map(|s| kills(p, s, &scored)).max().unwrap_or(0);
                for t in [0, usize::from(p.level.clamp(1, 3))] {
                    let t = &mut by_level[t];
                    t.dev_optimal_best += dev_optimal_best;
                    t.dev_optimal_mean += dev_optimal_mean;
                    t.short_on_dev += usize::from(short);
                    t.problems += 1;
                    t.oracle += oracle;
                }
                for m in scored.ones() {
                    let class = if chosen.get(m) {
                        0
                    } else if maybe.get(m) {
                        1
                    } else if p.kills.iter().any(|k| k.get(m) && k.count_in(&on) > 0) {
                        3
                    } else {
                        2
                    };
                    for t in [0, usize::from(p.level.clamp(1, 3))] {
                        let t = &mut by_level[t];
                        t.scored += 1;
                        match class {
                            0 => t.killed += 1,
                            1 => t.unrun += 1,
                            2 => t.dev_blind += 1,
                            _ => t.outvoted += 1,
                        }
                    }
                }
            }
        }
    }
    println!(
        "{:>8} {:>7} {:>16} {:>14} {:>14} {:>14} {:>18} {:>18} {:>16} {:>14}",
        "", "scored", "chosen kill", "unrun", "dev-blind", "outvoted", "dev-optimal best", "dev-optimal mean", "oracle", "short on dev"
    );
    for (level, t) in by_level.iter().enumerate() {
        let name = if level == 0 { "all".to_string() } else { format!("level {level}") };
        println!(
            "{name:>8} {:>7} {:>16} {:>14} {:>14} {:>14} {:>18} {:>18} {:>16} {:>14}",
            t.scored,
            pct(t.killed, t.scored),
            pct(t.unrun, t.scored),
            pct(t.dev_blind, t.scored),
            pct(t.outvoted, t.scored),
            pct(t.dev_optimal_best, t.scored),
            format!("{:.1}%", 100.0 * t.dev_optimal_mean / t.scored.max(1) as f64),
            pct(t.oracle, t.scored),
            format!("{} of {}", t.short_on_dev, t.problems)
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::subsets;

    #[test]
    fn subsets_are_every_combination_once() {
        assert_eq!(subsets(4, 2), vec![vec![0, 1], vec![0, 2], vec![0, 3], vec![1, 2], vec![1, 3], vec![2, 3]]);
        assert_eq!(subsets(2, 3), vec![vec![0, 1]], "fewer candidates than the budget: all of them");
        assert_eq!(subsets(5, 3).len(), 10);
    }
}
