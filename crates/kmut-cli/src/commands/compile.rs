//! `kmut compile`: mutate, store, compile and classify; a table per substrate and per family.

use std::collections::{BTreeMap, HashSet};
use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use anyhow::Context as _;
use kmut_compile::{Compile, CompileStage, ImageCache, ProcessPool, Reporter, SubstrateSummary};
use kmut_model::{ClassCounts, Family, Mutant, SubstrateDescription};
use kmut_nvrtc::{Compiler, NvrtcSearch, Options};
use kmut_rules::select::select;
use kmut_store::Store;

use crate::args::{CompileArgs, CompileOptions, Selection};
use crate::{Environment, ExitStatus};

pub fn run(args: &CompileArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let interrupt = interrupt_flag();
    let compiled = compile_substrates(&args.substrates, &args.select, &args.compile, args.store.as_deref(), env, &interrupt, "compile")?;
    print_tables(&compiled.summaries);
    let fresh: usize = compiled.summaries.iter().map(|s| s.compiled).sum();
    let cached: usize = compiled.summaries.iter().map(|s| s.cached).sum();
    let resumed: usize = compiled.summaries.iter().map(|s| s.resumed).sum();
    let cache_note = compiled.cache.as_ref().map_or_else(|| "no cache".to_owned(), |c| format!("cache {}", c.dir().display()));
    eprintln!(
        "{}; {fresh} compiled now, {cached} from the cache, {resumed} already in the store `{}`; {cache_note}",
        compiled.target,
        compiled.store.path().display()
    );
    if compiled.interrupted {
        eprintln!("interrupted: the results so far are stored; run the same command again to resume");
        return Ok(ExitStatus::Interrupted);
    }
    Ok(ExitStatus::Success)
}

/// What the compile stage leaves for later stages.
pub struct Compiled {
    pub store: Store,
    pub compiler: Compiler,
    /// NVRTC worker processes, when more than one thread compiles (NVRTC serialises inside
    /// one process).
    pub pool: Option<ProcessPool>,
    pub cache: Option<ImageCache>,
    pub options: Options,
    pub target: String,
    /// Each substrate and its selected mutants (every current one without a selection).
    pub substrates: Vec<(SubstrateDescription, Vec<Mutant>)>,
    pub summaries: Vec<SubstrateSummary>,
    pub interrupted: bool,
}

/// The store path: `--store`, else `$KMUT_STORE`, else `kmut.sqlite` in the working folder.
pub fn store_path(given: Option<&Path>) -> PathBuf {
    given.map(Path::to_path_buf).or_else(|| std::env::var_os("KMUT_STORE").map(PathBuf::from)).unwrap_or_else(|| PathBuf::from("kmut.sqlite"))
}

/// Mutate, store, compile and classify `paths` (every accepted substrate when empty), as
/// `kmut compile` does; `command` names the run in the store. Every mutant is generated and
/// stored; only `select`'s are compiled.
pub fn compile_substrates(
    paths: &[PathBuf],
    select_: &Selection,
    opts: &CompileOptions,
    store: Option<&Path>,
    env: &Environment,
    interrupt: &AtomicBool,
    command: &str,
) -> anyhow::Result<Compiled> {
    let substrates = substrate_paths(paths)?;
    let every_rule = select(&[], &[])?;
    let chosen_rules: HashSet<&str> = select(&select_.rules, &select_.family)?.iter().map(|r| r.id).collect();
    let named = named_mutants(select_)?;
    let compiler = open_compiler(opts, env)?;
    let cache = cache(opts);
    let threads = opts.threads.unwrap_or_else(crate::commands::cores);
    let options = Options { arch: opts.arch.clone(), extra: Vec::new() };
    let pool = compile_pool(&compiler, threads, env);
    let service: &dyn Compile = match &pool {
        Some(p) => p,
        None => &compiler,
    };
    let stage = CompileStage::with_service(&compiler, service, threads, cache.clone(), options.clone())?;
    let store_path = store_path(store);
    let mut store = Store::open(&store_path)?;
    let target = stage.target.key();
    let run = store.begin_run(command, &format!("{}.{}", stage.target.nvrtc.0, stage.target.nvrtc.1), &target)?;
    let reporter = Progress::new();

    // First every substrate is read, mutated and stored (cheap); then the selection is made,
    // which may need every substrate's mutants (--sample-per-rule); then the compiling.
    let mut generated = Vec::new();
    let mut outcome = Ok(());
    for path in &substrates {
        if interrupt.load(Ordering::Relaxed) {
            break;
        }
        let step = (|| -> anyhow::Result<(SubstrateDescription, Vec<Mutant>)> {
            let desc = (env.describe)(path).with_context(|| format!("could not read the substrate `{}`", path.display()))?;
            let out = kmut_rules::mutate(&desc, &every_rule)?;
            store.put_substrate(&desc, &kmut_compile::sha256_hex(desc.cuda.as_bytes()))?;
            let gone = store.put_mutants(&desc.name, &out.mutants)?;
            if gone > 0 {
                eprintln!(
                    "{}: {gone} stored mutants are no longer generated from its source (an edit moved or removed their sites); they keep their results, are left out of every run and score, and `kmut store prune` removes them",
                    desc.name
                );
            }
            Ok((desc, out.mutants))
        })();
        match step {
            Ok(g) => generated.push(g),
            Err(e) => {
                outcome = Err(e);
                break;
            }
        }
    }
    if !named.is_empty() && outcome.is_ok() {
        let generated_ids: HashSet<&str> =
            generated.iter().flat_map(|(_, ms): &(SubstrateDescription, Vec<Mutant>)| ms.iter().map(|m| m.id.as_str())).collect();
        let unmatched = named.iter().filter(|id| !generated_ids.contains(id.as_str())).count();
        if unmatched > 0 {
            eprintln!("{command}: {unmatched} of the {} named mutant ids match no mutant of the substrates read; they are skipped", named.len());
        }
    }
    let generated = chosen_mutants(generated, &chosen_rules, select_, &named);
    let mut summaries = Vec::new();
    let mut described = Vec::new();
    for (desc, chosen) in generated {
        if outcome.is_err() || interrupt.load(Ordering::Relaxed) {
            break;
        }
        let summary = stage.run(&mut store, run, &desc, &chosen, interrupt, &reporter);
        reporter.finish();
        match summary {
            Ok(s) => {
                described.push((desc, chosen));
                summaries.push(s);
            }
            Err(e) => outcome = Err(e.into()),
        }
    }
    let interrupted = interrupt.load(Ordering::Relaxed) || summaries.iter().any(|s| s.interrupted);
    store.finish_run(
        run,
        if outcome.is_err() {
            "failed"
        } else if interrupted {
            "interrupted"
        } else {
            "done"
        },
    )?;
    outcome?;
    drop(stage);
    Ok(Compiled { store, compiler, pool, cache, options, target, substrates: described, summaries, interrupted })
}

/// Each substrate's mutants of the `chosen` rules, at most `--max-per-rule` of each rule per
/// substrate and `--sample-per-rule` of each rule over all of them: those with the smallest hash
/// of their id, so the same options always choose the same mutants, spread over the substrates.
fn chosen_mutants(
    generated: Vec<(SubstrateDescription, Vec<Mutant>)>,
    chosen: &HashSet<&str>,
    select_: &Selection,
    named: &HashSet<String>,
) -> Vec<(SubstrateDescription, Vec<Mutant>)> {
    let rank = |m: &Mutant| kmut_compile::sha256_hex(m.id.as_bytes());
    let mut picked: Vec<(SubstrateDescription, Vec<Mutant>)> = generated
        .into_iter()
        .map(|(d, ms)| {
            let mut ms: Vec<Mutant> =
                ms.into_iter().filter(|m| chosen.contains(m.rule.as_str()) && (named.is_empty() || named.contains(m.id.as_str()))).collect();
            if let Some(k) = select_.max_per_rule {
                ms.sort_by_cached_key(|m| (m.rule.clone(), rank(m)));
                let mut per_rule: BTreeMap<String, usize> = BTreeMap::new();
                ms.retain(|m| {
                    let n = per_rule.entry(m.rule.clone()).or_default();
                    *n += 1;
                    *n <= k
                });
            }
            (d, ms)
        })
        .collect();
    if let Some(k) = select_.sample_per_rule {
        let mut ranked: Vec<(String, String, String)> =
            picked.iter().flat_map(|(d, ms)| ms.iter().map(|m| (m.rule.clone(), rank(m), format!("{}/{}", d.name, m.id)))).collect();
        ranked.sort();
        let mut per_rule: BTreeMap<String, usize> = BTreeMap::new();
        let keep: HashSet<String> = ranked
            .into_iter()
            .filter(|(rule, _, _)| {
                let n = per_rule.entry(rule.clone()).or_default();
                *n += 1;
                *n <= k
            })
            .map(|(_, _, key)| key)
            .collect();
        for (d, ms) in &mut picked {
            ms.retain(|m| keep.contains(&format!("{}/{}", d.name, m.id)));
        }
    }
    for (_, ms) in &mut picked {
        ms.sort_by(|a, b| a.id.cmp(&b.id));
    }
    picked
}

/// The mutant ids a selection names (`--mutant` and the lines of `--mutants-from`), as a set:
/// `kmut audit` names every evaluated mutant (thousands) against 160,000 generated.
fn named_mutants(select_: &Selection) -> anyhow::Result<HashSet<String>> {
    let mut named: HashSet<String> = select_.mutants.iter().cloned().collect();
    if let Some(file) = &select_.mutants_from {
        let text = std::fs::read_to_string(file).with_context(|| format!("reading the mutant list `{}`", file.display()))?;
        let before = named.len();
        named.extend(text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_owned));
        anyhow::ensure!(named.len() > before || !select_.mutants.is_empty(), "the mutant list `{}` names no mutant (one id per line)", file.display());
    }
    Ok(named)
}

/// The given paths, or every accepted substrate under the working folder.
pub fn substrate_paths(given: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    if !given.is_empty() {
        for p in given {
            anyhow::ensure!(p.is_file(), "`{}` is not a file", p.display());
        }
        return Ok(given.to_vec());
    }
    let dir = Path::new("substrates/accepted");
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("no substrate given and `{}` cannot be read", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    found.sort();
    anyhow::ensure!(!found.is_empty(), "no substrate given and `{}` holds none", dir.display());
    Ok(found)
}

/// `kmut compile-worker`: serve the pool's protocol until stdin closes.
pub fn worker(args: &crate::args::CompileWorkerArgs, env: &Environment) -> anyhow::Result<ExitStatus> {
    let search = NvrtcSearch { explicit: args.nvrtc.clone(), site_dirs: env.site_dirs.clone() };
    let compiler = Compiler::open(&search)?;
    kmut_compile::pool::serve(&compiler)?;
    Ok(ExitStatus::Success)
}

/// `threads` NVRTC worker processes (`kmut compile-worker`, loading the NVRTC this process
/// found), or none for one thread.
pub fn compile_pool(compiler: &Compiler, threads: usize, env: &Environment) -> Option<ProcessPool> {
    (threads > 1).then(|| {
        let command = vec![
            env.python.display().to_string(),
            "-m".into(),
            "kmut".into(),
            "compile-worker".into(),
            "--nvrtc".into(),
            compiler.location().library.display().to_string(),
        ];
        ProcessPool::new(command, threads)
    })
}

pub fn open_compiler(opts: &CompileOptions, env: &Environment) -> anyhow::Result<Compiler> {
    let search = NvrtcSearch { explicit: opts.nvrtc.clone(), site_dirs: env.site_dirs.clone() };
    Ok(Compiler::open(&search)?)
}

pub fn cache(opts: &CompileOptions) -> Option<ImageCache> {
    (!opts.no_cache).then(|| ImageCache::new(opts.cache.clone().unwrap_or_else(ImageCache::default_dir)))
}

/// Ctrl-C sets the flag (the stage stops taking work and keeps what it has); a second Ctrl-C
/// exits at once.
pub fn interrupt_flag() -> Arc<AtomicBool> {
    let flag = Arc::new(AtomicBool::new(false));
    let f = Arc::clone(&flag);
    let _ = ctrlc::set_handler(move || {
        if f.swap(true, Ordering::SeqCst) {
            std::process::exit(130);
        }
        eprintln!("\ninterrupt: finishing the compilations in flight (Ctrl-C again to quit at once)");
    });
    flag
}

/// A progress line on stderr: redrawn in place on a terminal, every 10% otherwise; hidden
/// when `KMUT_NO_PROGRESS` is set.
struct Progress {
    tty: bool,
    hidden: bool,
    /// (substrate, when its first progress arrived, last decile printed)
    state: Mutex<(String, Instant, usize)>,
}

impl Progress {
    fn new() -> Progress {
        Progress {
            tty: std::io::stderr().is_terminal(),
            hidden: std::env::var_os("KMUT_NO_PROGRESS").is_some(),
            state: Mutex::new((String::new(), Instant::now(), 0)),
        }
    }

    fn finish(&self) {
        if self.tty && !self.hidden {
            eprintln!();
        }
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner).0.clear();
    }
}

impl Reporter for Progress {
    fn progress(&self, substrate: &str, done: usize, total: usize) {
        if self.hidden {
            return;
        }
        let mut state = self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if state.0 != substrate {
            *state = (substrate.to_owned(), Instant::now(), 0);
        }
        let (start, last_decile) = (state.1, state.2);
        let secs = start.elapsed().as_secs_f64().max(1e-3);
        let rate = done as f64 / secs;
        let eta = if rate > 0.0 { (total - done) as f64 / rate } else { 0.0 };
        let line = format!("compile {substrate}: {done}/{total} mutants, {rate:.1}/s, ETA {eta:.0} s");
        if self.tty {
            eprint!("\r{line:<100}");
            let _ = std::io::stderr().flush();
        } else {
            let decile = (done * 10).checked_div(total).unwrap_or(10);
            if decile > last_decile || done == 0 && last_decile == 0 {
                eprintln!("{line}");
                state.2 = decile.max(1);
            }
        }
    }
}

fn print_tables(summaries: &[SubstrateSummary]) {
    let row = |name: &str, counts: &ClassCounts| std::iter::once(name.to_owned()).chain(counts.values().iter().map(ToString::to_string)).collect::<Vec<_>>();
    let mut total = ClassCounts::default();
    let mut families: BTreeMap<Family, ClassCounts> = BTreeMap::new();
    let mut rows = Vec::new();
    for s in summaries {
        rows.push(row(&s.substrate, &s.counts));
        total.merge(&s.counts);
        for (f, c) in &s.by_family {
            families.entry(*f).or_default().merge(c);
        }
    }
    if summaries.len() > 1 {
        rows.push(row("total", &total));
    }
    let header = |first| std::iter::once(first).chain(ClassCounts::HEADERS).collect::<Vec<&str>>();
    print!("{}", crate::table::render(&header("substrate"), &rows));
    let family_rows: Vec<Vec<String>> = Family::ALL.iter().filter_map(|f| families.get(f).map(|c| row(f.name(), c))).collect();
    print!("\n{}", crate::table::render(&header("family"), &family_rows));
}
