//! Running the compile stage for one substrate.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use kmut_model::{ClassCounts, Family, Mutant, MutantKind, SubstrateDescription};
use kmut_nvrtc::{Compiler, Options};
use kmut_store::{CompileRecord, Store};

use crate::cache::{source_key, CacheEntry, ImageCache};
use crate::classify::{classify, Compiled};
use crate::scope::Scopes;
use crate::{sha256_hex, Compile, CompileError};

/// What an image is compiled for: the NVRTC version and the options. Recorded beside every
/// hash, since the same source gives other images under another NVRTC or other options.
#[derive(Debug, Clone)]
pub struct Target {
    pub nvrtc: (i32, i32),
    pub options: Options,
}

impl Target {
    /// The stored form: `nvrtc 13.0 -arch=sm_90`.
    pub fn key(&self) -> String {
        format!("nvrtc {}.{} {}", self.nvrtc.0, self.nvrtc.1, self.options.argv(None).join(" "))
    }
}

/// Progress events; the CLI draws them, the stage never prints.
pub trait Reporter: Sync {
    fn progress(&self, substrate: &str, done: usize, total: usize);
}

/// No progress drawn (the originals' compiles, which the mutants' progress does not count).
struct Quiet;

impl Reporter for Quiet {
    fn progress(&self, _substrate: &str, _done: usize, _total: usize) {}
}

/// Counts for one substrate: per class, overall and per family.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SubstrateSummary {
    pub substrate: String,
    /// The mutants compiled and classified now (the selected ones, when rules were filtered).
    pub counts: ClassCounts,
    pub by_family: BTreeMap<Family, ClassCounts>,
    /// Compiled now by NVRTC, taken from the image cache, and already in the store.
    pub compiled: usize,
    pub cached: usize,
    pub resumed: usize,
    /// Mean NVRTC time of the compilations made now.
    pub mean_compile_ms: f64,
    pub interrupted: bool,
}

/// Compiles substrates' mutants into the store.
pub struct CompileStage<'a> {
    /// What compiles: NVRTC in this process, or a pool of worker processes (`pool`).
    pub compiler: &'a dyn Compile,
    pub cache: Option<ImageCache>,
    pub threads: usize,
    pub target: Target,
    /// The file name NVRTC sees: the same for every source, so it cannot make images differ.
    pub program_name: &'static str,
    /// Results per store transaction (a transaction is also closed every 250 ms).
    pub batch: usize,
}

impl CompileStage<'_> {
    pub fn new(compiler: &Compiler, cache: Option<ImageCache>, threads: usize, options: Options) -> Result<CompileStage<'_>, CompileError> {
        let target = Target { nvrtc: compiler.version()?, options };
        Ok(CompileStage { compiler, cache, threads: threads.max(1), target, program_name: crate::PROGRAM_NAME, batch: 64 })
    }

    /// Compile through `service` (a process pool), with one thread per worker it can run. The
    /// target is `nvrtc`'s, which the workers load too.
    pub fn with_service<'a>(
        nvrtc: &Compiler,
        service: &'a dyn Compile,
        threads: usize,
        cache: Option<ImageCache>,
        options: Options,
    ) -> Result<CompileStage<'a>, CompileError> {
        let target = Target { nvrtc: nvrtc.version()?, options };
        Ok(CompileStage { compiler: service, cache, threads: threads.max(1), target, program_name: crate::PROGRAM_NAME, batch: 64 })
    }

    /// Compile one source through the cache.
    fn compile_one(&self, substrate: &str, mutant: Option<&str>, scope: &str, source: &str) -> Result<CompileRecord, CompileError> {
        let target = self.target.key();
        let key = source_key(source, &target);
        let hit = self.cache.as_ref().and_then(|c| c.get(&key));
        let (entry, ms, cached) = if let Some(entry) = hit {
            (entry, 0.0, true)
        } else {
            let start = Instant::now();
            let out = self.compiler.compile(source, self.program_name, &self.target.options)?;
            let ms = start.elapsed().as_secs_f64() * 1e3;
            let entry = CacheEntry { image: out.image, log: out.log };
            if let Some(c) = &self.cache {
                c.put(&key, &entry)?;
            }
            (entry, ms, false)
        };
        let record = CompileRecord {
            mutant: mutant.map(str::to_owned),
            substrate: substrate.to_owned(),
            target,
            scope: scope.to_owned(),
            source_hash: crate::sha256_hex(source.as_bytes()),
            image_hash: entry.image.as_deref().map(sha256_hex),
            log: entry.log,
            compile_ms: ms,
            cached,
        };
        Ok(record)
    }

    /// Compile the original and those of `mutants` not yet in the store, then classify every
    /// current mutant of the substrate that has a compile record (so a duplicate's
    /// representative does not depend on which rules were selected); the summary counts
    /// `mutants`. Stops early (and classifies nothing) when `interrupt` is set.
    pub fn run(
        &self,
        store: &mut Store,
        run: i64,
        desc: &SubstrateDescription,
        mutants: &[Mutant],
        interrupt: &AtomicBool,
        reporter: &dyn Reporter,
    ) -> Result<SubstrateSummary, CompileError> {
        let mut summary = SubstrateSummary { substrate: desc.name.clone(), ..SubstrateSummary::default() };
        // A source tree-sitter cannot read is compiled whole (no cuts), never refused here.
        let scopes = Scopes::parse(desc).unwrap_or_else(|_| Scopes::whole(desc));
        let all = scopes.all();
        let existing = store.compilations(&desc.name, &self.target.key())?;
        // Each cut of the source a mutant is compiled in (the whole one first: it is the image
        // every launch starts from), in the order first needed; the selected mutants still to
        // compile; and every current mutant's cut, those an earlier, differently filtered run
        // compiled too (each is classified against its cut's original).
        let mut cuts: Vec<(String, Vec<String>)> = vec![(Scopes::key(&all), all.clone())];
        let mut scope_of: BTreeMap<&str, String> = BTreeMap::new();
        let mut todo: Vec<(Option<&str>, String, String)> = Vec::new();
        let current = store.mutants(&desc.name)?;
        for (i, m) in mutants.iter().chain(&current).enumerate() {
            if scope_of.contains_key(m.id.as_str()) {
                continue;
            }
            let Some((scope, source)) = scopes.mutant_source(&desc.cuda, m) else {
                continue;
            };
            let key = Scopes::key(&scope);
            if !cuts.iter().any(|(k, _)| *k == key) {
                cuts.push((key.clone(), scope));
            }
            scope_of.insert(&m.id, key.clone());
            if i < mutants.len() {
                match existing.get(&m.id) {
                    Some(r) if r.source_hash == sha256_hex(source.as_bytes()) && r.scope == key => summary.resumed += 1,
                    _ => todo.push((Some(&m.id), key, source)),
                }
            }
        }
        let Some(originals) = self.originals(store, run, desc, &scopes, &cuts, interrupt)? else {
            summary.interrupted = true;
            return Ok(summary);
        };
        self.compile_pending(store, run, &desc.name, &todo, interrupt, reporter, &mut summary)?;
        if interrupt.load(Ordering::Relaxed) {
            summary.interrupted = true;
            return Ok(summary);
        }
        let full = originals[&Scopes::key(&all)].clone();
        let original_of = |id: &str| scope_of.get(id).and_then(|k| originals.get(k)).cloned().unwrap_or_else(|| full.clone());
        let counted: std::collections::HashSet<&str> = mutants.iter().map(|m| m.id.as_str()).collect();
        self.classify_into(store, &desc.name, &original_of, &current, &counted, &mut summary)?;
        Ok(summary)
    }

    /// The image hash of the substrate's original source cut to each of `cuts` (by scope key,
    /// the whole source first): taken from the store where its source is unchanged, the rest
    /// compiled side by side as the mutants are (`compile_pending`; they were compiled one at a
    /// time, 1,431 of them for the 147 accepted substrates) and stored. A stillborn original is
    /// an error, the first in `cuts` named; `None` when interrupted.
    fn originals(
        &self,
        store: &mut Store,
        run: i64,
        desc: &SubstrateDescription,
        scopes: &Scopes,
        cuts: &[(String, Vec<String>)],
        interrupt: &AtomicBool,
    ) -> Result<Option<BTreeMap<String, String>>, CompileError> {
        let target = self.target.key();
        let mut todo: Vec<(Option<&str>, String, String)> = Vec::new();
        for (key, scope) in cuts {
            let source = scopes.original_source(&desc.cuda, scope);
            match store.original(&desc.name, &target, key)? {
                Some(r) if r.source_hash == sha256_hex(source.as_bytes()) => {}
                _ => todo.push((None, key.clone(), source)),
            }
        }
        // Neither counted nor drawn: the summary and the progress are the mutants'.
        self.compile_pending(store, run, &desc.name, &todo, interrupt, &Quiet, &mut SubstrateSummary::default())?;
        if interrupt.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let mut out = BTreeMap::new();
        for (key, scope) in cuts {
            let record = store.original(&desc.name, &target, key)?.ok_or_else(|| CompileError::OriginalStillborn(desc.name.clone(), "not compiled".into()))?;
            let scope_note = if scope.len() == scopes.all().len() { String::new() } else { format!(" (cut to kernels {key})") };
            let image = record.image_hash.ok_or_else(|| CompileError::OriginalStillborn(format!("{}{scope_note}", desc.name), record.log))?;
            out.insert(key.clone(), image);
        }
        Ok(Some(out))
    }

    /// Compile `todo` on the thread pool, the longest sources first; this thread is the one store writer, batching
    /// results into short transactions.
    #[allow(clippy::too_many_arguments)]
    fn compile_pending(
        &self,
        store: &mut Store,
        run: i64,
        substrate: &str,
        todo: &[(Option<&str>, String, String)],
        interrupt: &AtomicBool,
        reporter: &dyn Reporter,
        summary: &mut SubstrateSummary,
    ) -> Result<(), CompileError> {
        let total = summary.resumed + todo.len();
        let todo = longest_first(todo.iter().collect(), |(_, _, source)| source.len());
        let next = AtomicUsize::new(0);
        let (tx, rx) = mpsc::channel::<Result<CompileRecord, CompileError>>();
        let mut compile_ms = 0.0;
        let mut failure = None;
        std::thread::scope(|scope| {
            for _ in 0..self.threads.min(todo.len()).max(1) {
                let tx = tx.clone();
                let (next, todo) = (&next, &todo);
                scope.spawn(move || loop {
                    if interrupt.load(Ordering::Relaxed) {
                        break;
                    }
                    let Some((mutant, scope, source)) = todo.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    if tx.send(self.compile_one(substrate, *mutant, scope, source)).is_err() {
                        break;
                    }
                });
            }
            drop(tx);
            let mut batch = Vec::new();
            let mut last = Instant::now();
            let mut done = summary.resumed;
            reporter.progress(substrate, done, total);
            for outcome in rx {
                match outcome {
                    Ok(record) => {
                        if record.cached {
                            summary.cached += 1;
                        } else {
                            summary.compiled += 1;
                            compile_ms += record.compile_ms;
                        }
                        batch.push(record);
                        done += 1;
                    }
                    Err(e) => {
                        // Stop the workers; the error is reported once they are done.
                        interrupt.store(true, Ordering::Relaxed);
                        failure.get_or_insert(e);
                    }
                }
                if batch.len() >= self.batch || last.elapsed() > Duration::from_millis(250) {
                    if let Err(e) = store.put_compilations(&batch, run) {
                        failure.get_or_insert(e.into());
                    }
                    batch.clear();
                    last = Instant::now();
                    reporter.progress(substrate, done, total);
                }
            }
            if let Err(e) = store.put_compilations(&batch, run) {
                failure.get_or_insert(e.into());
            }
            reporter.progress(substrate, done, total);
        });
        if let Some(e) = failure {
            return Err(e);
        }
        summary.mean_compile_ms = if summary.compiled > 0 { compile_ms / summary.compiled as f64 } else { 0.0 };
        Ok(())
    }

    /// Classify `mutants` from the stored outcomes, store their classes and count them. A
    /// source mutant with no compile record for the target (not compiled yet) is left
    /// unclassified, never taken for stillborn.
    fn classify_into(
        &self,
        store: &mut Store,
        substrate: &str,
        original_of: &dyn Fn(&str) -> String,
        mutants: &[Mutant],
        counted: &std::collections::HashSet<&str>,
        summary: &mut SubstrateSummary,
    ) -> Result<(), CompileError> {
        let target = self.target.key();
        let records = store.compilations(substrate, &target)?;
        let inputs: Vec<Compiled> = mutants
            .iter()
            .filter_map(|m| {
                let launch = matches!(m.mutation, MutantKind::Launch { .. });
                let record = records.get(&m.id);
                (launch || record.is_some()).then(|| Compiled {
                    id: m.id.clone(),
                    image: record.and_then(|r| r.image_hash.clone()),
                    original: original_of(&m.id),
                    launch,
                })
            })
            .collect();
        let family: BTreeMap<&str, Family> = mutants.iter().map(|m| (m.id.as_str(), m.family)).collect();
        let rows = classify(&inputs);
        for r in rows.iter().filter(|r| counted.contains(r.mutant.as_str())) {
            summary.counts.add(Some(r.class));
            summary.by_family.entry(family[r.mutant.as_str()]).or_default().add(Some(r.class));
        }
        store.put_classes(&target, &rows)?;
        Ok(())
    }
}

/// `items` in the order to hand to parallel workers: the costliest first (by `cost`, a
/// source's length for a compile), ties in their given order. Longest first bounds a pass's
/// wall time at 4/3 of the best schedule (Graham's LPT bound); in the given order one large
/// network's compile can be left running alone at the end of the pass.
pub fn longest_first<T>(mut items: Vec<T>, cost: impl Fn(&T) -> usize) -> Vec<T> {
    items.sort_by_key(|t| std::cmp::Reverse(cost(t)));
    items
}

#[cfg(test)]
mod order_tests {
    use super::longest_first;

    #[test]
    fn longest_first_sorts_by_cost_descending_and_keeps_ties_in_order() {
        let items = vec![("a", 3), ("b", 9), ("c", 3), ("d", 1), ("e", 9)];
        let names: Vec<&str> = longest_first(items, |t| t.1).into_iter().map(|t| t.0).collect();
        assert_eq!(names, ["b", "e", "a", "c", "d"]);
    }
}
