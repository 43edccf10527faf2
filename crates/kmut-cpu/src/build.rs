//! Many variants to shared libraries: translated one by one, grouped into a few translation
//! units (one g++ start-up and one prelude parse spread over many mutants), compiled in
//! parallel. A unit that fails to compile is not lost whole: the variants its log names are
//! set aside and the rest compiled again.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::compile::Compiler;
use crate::translate::{translate_variant, unit_text, Translated, Variant};
use crate::CpuError;

#[derive(Debug, Clone)]
pub struct BuildOptions {
    pub cache_dir: PathBuf,
    /// Compiler processes at once.
    pub jobs: usize,
    /// The most variants in one translation unit.
    pub max_per_unit: usize,
}

impl Default for BuildOptions {
    fn default() -> BuildOptions {
        let jobs = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        BuildOptions { cache_dir: crate::compile::default_cache_dir(), jobs, max_per_unit: 64 }
    }
}

/// One translation unit as compiled (its last attempt).
#[derive(Debug, Clone)]
pub struct UnitReport {
    pub variants: Vec<String>,
    pub library: Option<PathBuf>,
    pub cached: bool,
    /// Compile seconds over every attempt.
    pub seconds: f64,
    pub attempts: usize,
}

#[derive(Debug, Clone, Default)]
pub struct BuildOutcome {
    /// Variant name -> the library holding its launchers.
    pub libraries: BTreeMap<String, PathBuf>,
    /// Variant name -> why it has no library (a translation error or its compile log).
    pub failed: BTreeMap<String, String>,
    pub units: Vec<UnitReport>,
}

/// One unit's report and the variants it set aside, with their logs.
type UnitResult = Result<(UnitReport, BTreeMap<String, String>), CpuError>;

/// Translate and compile `variants`.
pub fn build(compiler: &Compiler, variants: &[Variant], options: &BuildOptions) -> Result<BuildOutcome, CpuError> {
    let mut outcome = BuildOutcome::default();
    let mut translated = Vec::with_capacity(variants.len());
    for v in variants {
        if outcome.libraries.contains_key(&v.name) || outcome.failed.contains_key(&v.name) || translated.iter().any(|t: &Translated| t.name == v.name) {
            return Err(CpuError::Translate { variant: v.name.clone(), message: "two variants have this name".to_owned() });
        }
        match translate_variant(v) {
            Ok(t) => translated.push(t),
            Err(CpuError::Translate { variant, message }) => {
                outcome.failed.insert(variant, message);
            }
            Err(e) => return Err(e),
        }
    }
    let units = partition(&translated, options.jobs.max(1), options.max_per_unit.max(1));
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<(usize, UnitResult)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..options.jobs.max(1).min(units.len()) {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(unit) = units.get(i) else { break };
                let r = compile_unit(compiler, unit, options);
                results.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push((i, r));
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
    results.sort_by_key(|(i, _)| *i);
    for (_, r) in results {
        let (report, failed) = r?;
        if let Some(lib) = &report.library {
            for v in &report.variants {
                outcome.libraries.insert(v.clone(), lib.clone());
            }
        }
        outcome.failed.extend(failed);
        outcome.units.push(report);
    }
    Ok(outcome)
}

/// Contiguous groups of about equal source size: at least `jobs` (so every compiler process
/// has work) and at most `max_per_unit` variants each. Contiguous and deterministic, so the
/// same variants in the same order hit the cache again.
fn partition(translated: &[Translated], jobs: usize, max_per_unit: usize) -> Vec<Vec<&Translated>> {
    if translated.is_empty() {
        return Vec::new();
    }
    let count = jobs.max(translated.len().div_ceil(max_per_unit)).min(translated.len());
    let total: usize = translated.iter().map(|t| t.text.len()).sum();
    let mut units: Vec<Vec<&Translated>> = vec![Vec::new()];
    let mut size = 0usize;
    for (i, t) in translated.iter().enumerate() {
        let remaining_units = count - units.len();
        let remaining_items = translated.len() - i;
        let full = units.last().is_some_and(|u| u.len() >= max_per_unit);
        let past_share = size * count >= total * units.len();
        let must_leave_room = remaining_items <= remaining_units;
        if units.last().is_some_and(|u| !u.is_empty()) && remaining_units > 0 && (full || past_share || must_leave_room) {
            units.push(Vec::new());
        }
        size += t.text.len();
        units.last_mut().expect("one unit at least").push(t);
    }
    units
}

/// Compile one unit, dropping the variants its log blames until it compiles or blames none.
fn compile_unit(compiler: &Compiler, unit: &[&Translated], options: &BuildOptions) -> UnitResult {
    let mut parts: Vec<&Translated> = unit.to_vec();
    let mut failed = BTreeMap::new();
    let mut seconds = 0.0;
    let mut attempts = 0;
    loop {
        attempts += 1;
        let names = parts.iter().map(|p| p.name.clone()).collect();
        if parts.is_empty() {
            return Ok((UnitReport { variants: names, library: None, cached: false, seconds, attempts }, failed));
        }
        let c = compiler.compile(&unit_text(&parts), &options.cache_dir)?;
        seconds += c.seconds;
        if c.library.is_some() {
            return Ok((UnitReport { variants: names, library: c.library, cached: c.cached, seconds, attempts }, failed));
        }
        let blamed: Vec<&str> = parts.iter().map(|p| p.name.as_str()).filter(|n| c.log.contains(&format!("variant/{n}."))).collect();
        if blamed.is_empty() || blamed.len() == parts.len() {
            // Nothing to set aside (an error in the prelude, or in every variant): all fail.
            for p in &parts {
                failed.insert(p.name.clone(), excerpt(&c.log, &p.name));
            }
            return Ok((UnitReport { variants: names, library: None, cached: c.cached, seconds, attempts }, failed));
        }
        for n in &blamed {
            failed.insert((*n).to_owned(), excerpt(&c.log, n));
        }
        parts.retain(|p| !blamed.contains(&p.name.as_str()));
    }
}

/// The lines of `log` about `variant` (with the lines that follow each, where g++ shows the
/// code), or the log's start when none names it.
fn excerpt(log: &str, variant: &str) -> String {
    const MAX: usize = 8000;
    let tag = format!("variant/{variant}.");
    let lines: Vec<&str> = log.lines().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < lines.len() && out.len() < MAX {
        if lines[i].contains(&tag) {
            for l in &lines[i..(i + 3).min(lines.len())] {
                out.push_str(l);
                out.push('\n');
            }
            i += 3;
        } else {
            i += 1;
        }
    }
    if out.is_empty() {
        out = log.chars().take(MAX).collect();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(name: &str, len: usize) -> Translated {
        Translated { name: name.to_owned(), text: "x".repeat(len), fibers: std::collections::BTreeSet::default() }
    }

    #[test]
    fn partition_balances_and_respects_both_limits() {
        let ts: Vec<Translated> = (0..10).map(|i| t(&format!("v{i}"), 100)).collect();
        let p = partition(&ts, 2, 64);
        assert_eq!(p.iter().map(Vec::len).collect::<Vec<_>>(), [5, 5]);
        let p = partition(&ts, 1, 3);
        assert_eq!(p.len(), 4);
        assert!(p.iter().all(|u| !u.is_empty() && u.len() <= 3));
        let p = partition(&ts[..1], 4, 64);
        assert_eq!(p.len(), 1);
        let uneven = [t("a", 1000), t("b", 10), t("c", 10), t("d", 10)];
        let p = partition(&uneven, 2, 64);
        assert_eq!(p.iter().map(Vec::len).collect::<Vec<_>>(), [1, 3]);
    }
}
