//! The orchestrator against a scripted worker (`tests/scripted_worker.py`, same protocol as
//! `kmut._run_worker`): real processes, a real store, real timeouts and deaths.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use kmut_exec::engine::Progress;
use kmut_exec::{Candidate, Engine, EngineConfig, Reporter, RunSummary, SubstratePlan};
use kmut_model::{Column, Family, Mutant, MutantKind, Outcome, SubstrateDescription};
use kmut_store::Store;

const TARGET: &str = "nvrtc 13.0 -arch=sm_90";

fn python() -> String {
    std::env::var("VIRTUAL_ENV").map_or_else(|_| "python3".to_owned(), |v| format!("{v}/bin/python"))
}

fn script() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripted_worker.py").display().to_string()
}

struct Quiet {
    /// Set the interrupt flag once this many evaluations are made (0: never).
    stop_after: usize,
    interrupt: &'static AtomicBool,
    notes: AtomicUsize,
}

impl Reporter for Quiet {
    fn progress(&self, p: &Progress) {
        if self.stop_after > 0 && p.evaluations >= self.stop_after {
            self.interrupt.store(true, Ordering::SeqCst);
        }
    }
    fn note(&self, _message: &str) {
        self.notes.fetch_add(1, Ordering::Relaxed);
    }
}

fn mutant(substrate: &str, id: &str) -> Mutant {
    Mutant {
        id: id.to_owned(),
        substrate: substrate.to_owned(),
        rule: "arith-plus-to-minus".into(),
        family: Family::Arithmetic,
        kernel: "k".into(),
        layers: vec![0],
        layer: Some(0),
        depth: 0.0,
        line: 1,
        col: 1,
        span: [0, 1],
        original: "+".into(),
        replacement: "-".into(),
        mutation: MutantKind::Source { edits: vec![] },
        diff: String::new(),
    }
}

/// A store holding `ids` of substrate `name`, and its plan with three columns.
fn setup(store: &mut Store, name: &str, ids: &[&str]) -> SubstratePlan {
    let desc = SubstrateDescription {
        name: name.into(),
        level: 1,
        path: format!("{name}.py"),
        cuda: String::new(),
        cuda_line: 0,
        kernels: vec!["k".into()],
        steps: vec![],
        cdiv_calls: vec![],
        launch_line: 0,
        suites: vec![],
        generated: vec![],
    };
    store.put_substrate(&desc, "h").unwrap();
    store.put_mutants(name, &ids.iter().map(|id| mutant(name, id)).collect::<Vec<_>>()).unwrap();
    SubstratePlan {
        name: name.into(),
        level: 1,
        path: desc.path.clone(),
        original_image: PathBuf::from("original.cubin"),
        original_id: "orig".into(),
        symbols: std::collections::BTreeMap::default(),
        original_variant: None,
        columns: (1..=3).map(|seed| Column { suite: "T0_original".into(), seed }).collect(),
        search_from: 3,
        original_bound: None,
        prior_peaks: std::collections::BTreeMap::new(),
        candidates: ids
            .iter()
            .map(|id| Candidate {
                id: (*id).into(),
                family: Family::Arithmetic,
                image: None,
                image_id: "img".into(),
                scope: vec!["k".into()],
                transform: None,
                variant: None,
                orders: if id.starts_with("racy") { vec![0, 1, 2] } else { vec![] },
            })
            .collect(),
    }
}

fn config(dir: &Path, first_kill: bool, workers: usize) -> EngineConfig {
    EngineConfig {
        worker_command: vec![python(), script()],
        devices: vec![0],
        workers_per_device: workers,
        spares_per_device: 1,
        // The pool's growth is tested here, whatever the machine's free memory.
        spare_host_reserve: 0,
        scratch: None,
        log: dir.join("workers.log"),
        first_kill,
        tolerance: 1e-2,
        timeout_factor: 20.0,
        min_timeout: Duration::from_millis(700),
        start_timeout: Duration::from_secs(30),
        prep_timeout: Duration::from_secs(30),
        round: None,
        deadline: None,
        target: TARGET.into(),
        max_original_ms: None,
        heavy_prep_grace: Duration::from_secs(30),
        validity_margin: None,
        steps_on_search: false,
        advance_waves: true,
        prefetch: true,
        heavy_first: true,
        reuse_original: true,
        // Off here so the scripted figures of the other tests stay as they were; the deferral's
        // own tests turn it on.
        defer_original: false,
        cells_need_baseline: false,
    }
}

fn order(plans: &[SubstratePlan]) -> Vec<(usize, usize)> {
    plans.iter().enumerate().flat_map(|(s, p)| (0..p.candidates.len()).map(move |c| (s, c))).collect()
}

fn run(store: &mut Store, plans: &[SubstratePlan], cfg: EngineConfig, stop_after: usize) -> RunSummary {
    let interrupt: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let reporter = Quiet { stop_after, interrupt, notes: AtomicUsize::new(0) };
    let run = store.begin_run("test", "13.0", TARGET).unwrap();
    Engine::new(cfg, plans, store, run, &reporter, interrupt).run(&order(plans)).unwrap()
}

/// The scripted workers' `--holdings` (and `--evals`) lines, split into fields, in the order of
/// their timestamps (the system-wide monotonic clock, so the workers' lines sort together).
fn holdings_log(path: &Path) -> Vec<(f64, Vec<String>)> {
    let mut lines: Vec<(f64, Vec<String>)> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<String> = l.split_whitespace().map(str::to_owned).collect();
            (f[0].parse().unwrap(), f)
        })
        .collect();
    lines.sort_by(|a, b| a.0.total_cmp(&b.0));
    lines
}

fn outcome(store: &Store, substrate: &str, id: &str) -> Vec<(u64, Outcome, Option<String>)> {
    store.evaluations(substrate, TARGET).unwrap().into_iter().filter(|e| e.mutant == id).map(|e| (e.seed, e.outcome, e.crash)).collect()
}

#[test]
fn full_matrix_records_every_cell_and_every_fault_kind() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let ids = ["kill-a", "survive-b", "tight-c", "crash-d", "fatal-e", "hang-f", "die-g", "oob-h"];
    let plans = vec![setup(&mut store, "L1p1_x", &ids)];
    let s = run(&mut store, &plans, config(dir.path(), false, 2), 0);
    assert_eq!(s.evaluations, ids.len() * 3, "{s:?}");
    assert_eq!(s.decided, ids.len());
    assert_eq!(s.timeouts, 3);
    assert_eq!(s.crashes, 3 + 3 + 3, "non-fatal, fatal and died, on each column");
    assert_eq!(s.canaries, 3);
    // Killed workers were replaced: fatal, hang and die, on each of three columns.
    assert!(s.respawns >= 9, "{s:?}");
    let evals = store.evaluations("L1p1_x", TARGET).unwrap();
    assert_eq!(evals.len(), ids.len() * 3);
    assert!(outcome(&store, "L1p1_x", "hang-f").iter().all(|(_, o, _)| *o == Outcome::Timeout));
    assert!(outcome(&store, "L1p1_x", "fatal-e").iter().all(|(_, o, c)| *o == Outcome::Crash && c.as_deref() == Some("CUDA_ERROR_ILLEGAL_ADDRESS")));
    assert!(outcome(&store, "L1p1_x", "die-g").iter().all(|(_, o, c)| *o == Outcome::Crash && c.as_deref() == Some("worker_died")));
    let tight = evals.iter().find(|e| e.mutant == "tight-c").unwrap();
    assert!(!tight.kills_at(1e-2) && tight.kills_at(1e-4));
    assert!(evals.iter().find(|e| e.mutant == "oob-h").unwrap().canary);
    assert!(!store.baselines("L1p1_x", TARGET).unwrap().is_empty());
    // The slots' time is accounted: at most two slots for the run's length, and the three
    // hangs' 0.7 s each (their watchdog's limit) as evaluating, not as what followed them;
    // preparing columns and starting the replacements appear too.
    let t = s.slot_time;
    let slots = 2.0 * s.elapsed.as_secs_f64();
    assert!(t.total().as_secs_f64() <= slots + 0.05, "{t:?} against {slots} s");
    assert!(t.evaluating >= Duration::from_millis(3 * 700), "{t:?} in {:?}", s.elapsed);
    assert!(!t.preparing.is_zero() && !t.starting.is_zero(), "{t:?}");
    assert!(t.shares().contains("evaluating"), "{}", t.shares());
    // Idle time is the sum of its reasons.
    let why = t.idle_why;
    assert_eq!(why.drain + why.memory + why.chain + why.no_work, t.idle, "{t:?}");
}

#[test]
fn a_segfault_is_a_memory_fault_and_thread_orders_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["segv-a", "racy-b", "survive-c"])];
    let s = run(&mut store, &plans, config(dir.path(), false, 1), 0);
    assert_eq!(s.evaluations, 9, "{s:?}");
    let segv = outcome(&store, "L1p1_x", "segv-a");
    assert!(segv.iter().all(|(_, o, c)| *o == Outcome::Crash && c.as_deref() == Some("memory_fault")), "{segv:?}");
    let racy: Vec<_> = store.evaluations("L1p1_x", TARGET).unwrap().into_iter().filter(|e| e.mutant == "racy-b").collect();
    assert_eq!(racy.len(), 3);
    for e in &racy {
        assert_eq!(e.orders, [(0, Some(1e-6)), (1, Some(0.5)), (2, Some(1e-6))]);
        assert!(e.kills_at(1e-2) && e.order_dependent(1e-2));
        assert_eq!(e.killing_orders(1e-2), [1]);
    }
    assert!(store.evaluations("L1p1_x", TARGET).unwrap().iter().filter(|e| e.mutant == "survive-c").all(|e| e.orders.is_empty()));
}

#[test]
fn a_substrate_whose_original_is_too_slow_is_set_aside_not_failed() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "heavy_sub", &["kill-a", "survive-b"]), setup(&mut store, "L1p2_y", &["kill-c"])];
    let mut cfg = config(dir.path(), true, 1);
    cfg.max_original_ms = Some(1000.0);
    let s = run(&mut store, &plans, cfg, 0);
    assert!(s.failures.is_empty(), "{:?}", s.failures);
    assert_eq!(s.set_aside.len(), 1);
    assert!(s.set_aside[0].starts_with("heavy_sub: set aside: its original takes 5.0 s per input"), "{:?}", s.set_aside);
    assert!(store.evaluations("heavy_sub", TARGET).unwrap().is_empty());
    assert_eq!(store.evaluations("L1p2_y", TARGET).unwrap().len(), 1);
}

#[test]
fn a_preparation_far_past_the_limit_sets_the_substrate_aside_unmeasured() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "slowprep_sub", &["kill-a"]), setup(&mut store, "L1p2_y", &["kill-c"])];
    let mut cfg = config(dir.path(), true, 1);
    cfg.max_original_ms = Some(10.0);
    cfg.heavy_prep_grace = Duration::from_millis(500);
    let s = run(&mut store, &plans, cfg, 0);
    assert!(s.failures.is_empty(), "{:?}", s.failures);
    assert_eq!(s.set_aside.len(), 1, "{:?}", s.set_aside);
    assert!(s.set_aside[0].starts_with("slowprep_sub: set aside: preparing one input took over"), "{:?}", s.set_aside);
    assert_eq!(store.evaluations("L1p2_y", TARGET).unwrap().len(), 1);
}

#[test]
fn first_kill_stops_a_mutant_at_its_first_kill() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["kill-a", "survive-b", "late-c"])];
    let s = run(&mut store, &plans, config(dir.path(), true, 1), 0);
    assert_eq!(outcome(&store, "L1p1_x", "kill-a").len(), 1);
    assert_eq!(outcome(&store, "L1p1_x", "survive-b").len(), 3);
    assert_eq!(outcome(&store, "L1p1_x", "late-c").len(), 2, "survives seed 1, killed on seed 2");
    assert_eq!(s.evaluations, 6);
    assert_eq!((s.decided, s.killed), (3, 2));
}

#[test]
fn an_interrupted_run_resumes_without_losing_or_repeating_an_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let ids: Vec<String> = (0..30).map(|i| format!("{}-{i}", if i % 3 == 0 { "kill" } else { "survive" })).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let plans = vec![setup(&mut store, "L1p1_x", &refs)];
    let mut slow = config(dir.path(), false, 2);
    slow.worker_command.extend(["--delay".into(), "0.02".into()]);
    let first = run(&mut store, &plans, slow, 25);
    assert!(first.interrupted);
    let stored = store.evaluations("L1p1_x", TARGET).unwrap().len();
    assert!((25..90).contains(&stored), "{stored}");
    let log = dir.path().join("sent.log");
    let mut logged = config(dir.path(), false, 2);
    logged.worker_command.extend(["--log".into(), log.display().to_string()]);
    let second = run(&mut store, &plans, logged, 0);
    assert_eq!(second.resumed, stored);
    assert_eq!(second.evaluations, 90 - stored, "only the missing cells run again");
    assert_eq!(store.evaluations("L1p1_x", TARGET).unwrap().len(), 90);
    let sent = std::fs::read_to_string(log).unwrap();
    assert_eq!(sent.lines().filter(|l| l.contains("\"op\":\"eval\"")).count(), 90 - stored);
}

#[test]
fn a_substrate_that_cannot_prepare_fails_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "broken_sub", &["kill-a"]), setup(&mut store, "L1p2_y", &["kill-b", "survive-c"])];
    let s = run(&mut store, &plans, config(dir.path(), true, 1), 0);
    assert_eq!(s.failures.len(), 1);
    assert!(s.failures[0].starts_with("broken_sub: column T0_original seed 1 could not be prepared"), "{:?}", s.failures);
    assert_eq!(store.evaluations("L1p2_y", TARGET).unwrap().len(), 4);
    assert!(store.evaluations("broken_sub", TARGET).unwrap().is_empty());
}

#[test]
fn a_worker_that_cannot_start_is_an_error_naming_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["kill-a"])];
    let mut cfg = config(dir.path(), true, 1);
    cfg.worker_command = vec![python(), "-c".into(), "import sys; sys.exit(2)".into()];
    let interrupt: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let reporter = Quiet { stop_after: 0, interrupt, notes: AtomicUsize::new(0) };
    let err = Engine::new(cfg, &plans, &mut store, 1, &reporter, interrupt).run(&order(&plans)).unwrap_err();
    assert!(err.to_string().contains("workers.log"), "{err}");
}

#[test]
fn a_ready_spare_replaces_a_lost_worker_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["fatal-a", "survive-b", "fatal-c", "survive-d"])];
    // Evaluations slow enough that a spare has started before the first worker is lost.
    let mut cfg = config(dir.path(), true, 1);
    cfg.worker_command.extend(["--delay".into(), "0.3".into()]);
    let with = run(&mut store, &plans, cfg, 0);
    assert_eq!(with.respawns, 2);
    assert!(with.spares_used >= 1, "{with:?}");
    let mut store = Store::open(&dir.path().join("t.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["fatal-a", "survive-b", "fatal-c", "survive-d"])];
    let mut cfg = config(dir.path(), true, 1);
    cfg.spares_per_device = 0;
    let without = run(&mut store, &plans, cfg, 0);
    assert_eq!((without.respawns, without.spares_used), (2, 0));
    assert_eq!(with.evaluations, without.evaluations);
}

#[test]
fn a_budget_runs_whole_rounds_of_the_order_and_stops_between_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let ids: Vec<String> = (0..12).map(|i| format!("{}-{i}", if i % 2 == 0 { "kill" } else { "survive" })).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let plans = vec![setup(&mut store, "L1p1_x", &refs)];
    // Time to spare: every round runs, and every mutant is settled.
    let mut cfg = config(dir.path(), true, 1);
    cfg.round = Some(4);
    cfg.deadline = Some(std::time::Instant::now() + Duration::from_mins(2));
    let s = run(&mut store, &plans, cfg, 0);
    assert_eq!((s.decided, s.budget_spent), (12, false));
    // A budget already spent: the first round still completes whole, then the run stops.
    let mut store = Store::open(&dir.path().join("t.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &refs)];
    let mut cfg = config(dir.path(), true, 1);
    cfg.round = Some(4);
    cfg.deadline = Some(std::time::Instant::now());
    let s = run(&mut store, &plans, cfg, 0);
    assert_eq!((s.decided, s.budget_spent), (4, true));
    let settled: std::collections::BTreeSet<String> = store.evaluations("L1p1_x", TARGET).unwrap().into_iter().map(|e| e.mutant).collect();
    assert_eq!(settled.len(), 4, "only the first round's mutants ran: {settled:?}");
}

#[test]
fn only_the_kernels_are_timed_not_the_comparison_after_them() {
    // min_timeout is 0.7 s; slowcheck's kernels end at once and its comparison takes 2 s.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["slowcheck-a", "hang-b"])];
    let s = run(&mut store, &plans, config(dir.path(), false, 2), 0);
    assert_eq!(s.timeouts, 3, "hang-b times out on each column: {s:?}");
    assert!(outcome(&store, "L1p1_x", "slowcheck-a").iter().all(|(_, o, _)| *o == Outcome::Completed));
    assert!(outcome(&store, "L1p1_x", "hang-b").iter().all(|(_, o, _)| *o == Outcome::Timeout));
}

#[test]
fn out_of_memory_is_retried_alone_and_never_stored_as_a_verdict() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["oomonce-a", "oom-b", "oomkill-c", "kill-d", "survive-e"])];
    let log = dir.path().join("sent.log");
    // Columns taken and dropped and evaluations received, by every worker, in one log.
    let holdings = dir.path().join("holdings.log");
    let mut cfg = config(dir.path(), false, 3);
    cfg.worker_command.extend([
        "--log".into(),
        log.display().to_string(),
        "--state".into(),
        dir.path().display().to_string(),
        "--holdings".into(),
        holdings.display().to_string(),
        "--evals".into(),
        holdings.display().to_string(),
        // The run's first out-of-memory reply waits until another worker holds a column: its
        // retry alone must then have that memory released first. Otherwise, when the other
        // workers start slower than the first one runs out of memory (a loaded machine), they
        // hold nothing and there is nothing to release.
        "--crowded-oom".into(),
    ]);
    let s = run(&mut store, &plans, cfg, 0);
    // oomonce: retried once, then evaluated normally on all three columns.
    assert_eq!(outcome(&store, "L1p1_x", "oomonce-a").len(), 3, "{s:?}");
    assert!(outcome(&store, "L1p1_x", "oomonce-a").iter().all(|(_, o, _)| *o == Outcome::Completed));
    // oom and oomkill: twice the machine's failure on each column, nothing stored, errors of the run.
    assert!(outcome(&store, "L1p1_x", "oom-b").is_empty());
    assert!(outcome(&store, "L1p1_x", "oomkill-c").is_empty());
    assert_eq!(s.environment_errors.len(), 6, "{:?}", s.environment_errors);
    assert!(s.environment_errors.iter().any(|e| e.contains("oom-b") && e.contains("out of GPU memory")), "{:?}", s.environment_errors);
    assert!(s.environment_errors.iter().any(|e| e.contains("oomkill-c") && e.contains("killed from outside")), "{:?}", s.environment_errors);
    assert_eq!(s.crashes, 0, "no machine failure is a crash");
    assert!(s.environment_retried >= 3, "{s:?}");
    // The workers kept from the device for each retry alone were idle for that reason.
    assert!(!s.slot_time.idle_why.drain.is_zero(), "{:?}", s.slot_time);
    assert!(s.slot_time.shares().contains("drain"), "{}", s.slot_time.shares());
    // The other mutants are evaluated as usual.
    assert_eq!(outcome(&store, "L1p1_x", "kill-d").len() + outcome(&store, "L1p1_x", "survive-e").len(), 6);
    // Retried alone: replay the log in time order. Each machine's failure (oomonce-a, oom-b and
    // oomkill-c on each column) is tried exactly twice, and the second try reaches its worker
    // when no other worker holds a column.
    let lines = holdings_log(&holdings);
    let mut held = std::collections::BTreeMap::new();
    let mut tries: std::collections::BTreeMap<(&str, &str), usize> = std::collections::BTreeMap::new();
    for (_, f) in &lines {
        match f[2].as_str() {
            "hold" => drop(held.insert(f[1].as_str(), f[4].as_str())),
            "drop" => drop(held.remove(f[1].as_str())),
            "eval" if f[3].starts_with("oom") => {
                let n = tries.entry((f[3].as_str(), f[4].as_str())).or_insert(0);
                *n += 1;
                let others: Vec<_> = held.iter().filter(|(pid, _)| **pid != f[1]).collect();
                assert!(*n < 2 || others.is_empty(), "{} on {} was retried beside columns other workers held: {others:?}\n{lines:?}", f[3], f[4]);
            }
            _ => {}
        }
    }
    assert_eq!(tries.len(), 9, "{tries:?}");
    assert!(tries.values().all(|&n| n == 2), "{tries:?}");
    // The first out-of-memory reply came while another worker held a column: it was asked to
    // release it before the retry.
    let sent = std::fs::read_to_string(log).unwrap();
    assert!(sent.contains("\"op\":\"release\""), "no release was sent\n{lines:?}");
}

#[test]
fn a_column_that_runs_out_of_memory_preparing_is_retried_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "oomprep_sub", &["kill-a", "survive-b"]), setup(&mut store, "L1p2_y", &["kill-c"])];
    let mut cfg = config(dir.path(), false, 2);
    cfg.worker_command.extend(["--state".into(), dir.path().display().to_string()]);
    let s = run(&mut store, &plans, cfg, 0);
    assert!(s.failures.is_empty() && s.environment_errors.is_empty(), "{s:?}");
    assert_eq!(store.evaluations("oomprep_sub", TARGET).unwrap().len(), 6);
    assert!(s.environment_retried >= 1);
}

#[test]
fn columns_too_large_to_share_a_device_are_never_held_at_once() {
    // Each big column takes 60% of the device: two workers, two big substrates. A first run
    // measures the footprints (stored with the baselines); in the next run the ledger must
    // never let two workers hold one at once. The workers log who held what when.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "big_a", &["survive-a"]), setup(&mut store, "big_b", &["survive-c"])];
    let first = run(&mut store, &plans, config(dir.path(), false, 2), 0);
    assert!(first.failures.is_empty() && first.environment_errors.is_empty(), "{first:?}");
    assert!(store.baselines("big_a", TARGET).unwrap().iter().all(|b| b.peak_bytes == Some((100u64 << 30) * 6 / 10)));
    let plans = vec![setup(&mut store, "big_a", &["survive-a", "survive-b"]), setup(&mut store, "big_b", &["survive-c", "survive-d"])];
    let holdings = dir.path().join("holdings.log");
    let mut cfg = config(dir.path(), false, 2);
    cfg.worker_command.extend(["--delay".into(), "0.05".into(), "--holdings".into(), holdings.display().to_string()]);
    let second = run(&mut store, &plans, cfg, 0);
    assert!(second.failures.is_empty() && second.environment_errors.is_empty(), "{second:?}");
    assert_eq!((second.resumed, second.evaluations), (6, 6));
    assert_big_columns_held_one_at_a_time(&holdings);
}

/// Replay who held a big column when (the scripted workers' holdings log): never two workers at
/// once, and at least two holdings seen.
fn assert_big_columns_held_one_at_a_time(holdings: &Path) {
    let events: Vec<(f64, String, bool)> =
        holdings_log(holdings).into_iter().map(|(t, f)| (t, f[1].clone(), f[2] == "hold" && f.get(3).is_some_and(|n| n.starts_with("big")))).collect();
    let mut holding = std::collections::BTreeMap::new();
    for (_, pid, big) in &events {
        holding.insert(pid.clone(), *big);
        assert!(holding.values().filter(|b| **b).count() <= 1, "two workers held a big column at once: {events:?}");
    }
    assert!(events.iter().filter(|e| e.2).count() >= 2, "{events:?}");
}

#[test]
fn prior_footprints_budget_a_fresh_store_s_first_columns() {
    // The same two big substrates (60% of the device each) in a store that never measured them:
    // with the footprints another store measured (`prior_peaks`), the first run already keeps
    // them apart; a fair share would let both workers prepare one at once (each preparation
    // takes 0.3 s here, so the second starts before the first's footprint is reported).
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let prior = std::collections::BTreeMap::from([("official".to_owned(), (100u64 << 30) * 6 / 10)]);
    let plans: Vec<SubstratePlan> = [("big_a", ["survive-a", "survive-b"]), ("big_b", ["survive-c", "survive-d"])]
        .into_iter()
        .map(|(name, ids)| SubstratePlan { prior_peaks: prior.clone(), ..setup(&mut store, name, &ids) })
        .collect();
    let holdings = dir.path().join("holdings.log");
    let mut cfg = config(dir.path(), false, 2);
    cfg.worker_command.extend(["--delay".into(), "0.05".into(), "--prep-delay".into(), "0.3".into(), "--holdings".into(), holdings.display().to_string()]);
    let s = run(&mut store, &plans, cfg, 0);
    assert!(s.failures.is_empty() && s.environment_errors.is_empty(), "{s:?}");
    assert_eq!(s.evaluations, 12);
    assert_big_columns_held_one_at_a_time(&holdings);
    // The worker kept off the other big column waited for memory, and the report says so.
    assert!(!s.slot_time.idle_why.memory.is_zero(), "{:?}", s.slot_time);
    assert_eq!(s.slot_time.idle_why.drain, Duration::ZERO, "no retry alone: {:?}", s.slot_time);
}

/// The substrates whose columns the workers took, in the order of their first hold.
fn first_holds(holdings: &Path) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for (_, f) in holdings_log(holdings) {
        if f[2] == "hold" && !seen.contains(&f[3]) {
            seen.push(f[3].clone());
        }
    }
    seen
}

#[test]
fn the_heaviest_protocol_columns_are_taken_first_and_only_with_the_lever_on() {
    // Two light substrates with more pending work, listed first, and one big one (60% of the
    // device, more than a fair share with two workers). Heavy first, a worker's first column is
    // the big one's, so its memory-bound columns overlap the light ones instead of being left to
    // the end; off, the most pending work per worker goes first and the big one comes last.
    for heavy_first in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let prior = std::collections::BTreeMap::from([("official".to_owned(), (100u64 << 30) * 6 / 10)]);
        let mut plans: Vec<SubstratePlan> =
            [("light_a", &["survive-a", "survive-b", "survive-c"][..]), ("light_b", &["survive-d", "survive-e", "survive-f"][..])]
                .into_iter()
                .map(|(name, ids)| setup(&mut store, name, ids))
                .collect();
        plans.push(SubstratePlan { prior_peaks: prior, ..setup(&mut store, "big_c", &["survive-g", "survive-h"]) });
        let holdings = dir.path().join("holdings.log");
        let mut cfg = config(dir.path(), false, 2);
        cfg.heavy_first = heavy_first;
        cfg.worker_command.extend(["--delay".into(), "0.02".into(), "--prep-delay".into(), "0.1".into(), "--holdings".into(), holdings.display().to_string()]);
        let s = run(&mut store, &plans, cfg, 0);
        assert!(s.failures.is_empty() && s.environment_errors.is_empty(), "{s:?}");
        assert_eq!(s.evaluations, 24, "every mutant on every column, whatever the order");
        let order = first_holds(&holdings);
        if heavy_first {
            assert_eq!(order.first().map(String::as_str), Some("big_c"), "heavy first: {order:?}");
        } else {
            assert_eq!(order.last().map(String::as_str), Some("big_c"), "the usual order: {order:?}");
        }
    }
}

#[test]
fn a_column_s_preparation_peak_is_budgeted_while_it_prepares_and_what_it_holds_after() {
    // Two substrates whose preparation takes 60% of the device but whose evaluation holds 10%
    // (the scripted `peaky` columns, as a witness column once its float64 validity copies are
    // given back). Two preparations never fit at once, but one column being evaluated beside
    // another's preparation does: with the held footprint the workers overlap; with the
    // preparation's peak held throughout (the `big` substrates above) they never did.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let prior = std::collections::BTreeMap::from([("official".to_owned(), (100u64 << 30) * 6 / 10)]);
    let plans: Vec<SubstratePlan> = [("peaky_a", ["survive-a", "survive-b"]), ("peaky_b", ["survive-c", "survive-d"])]
        .into_iter()
        .map(|(name, ids)| SubstratePlan { prior_peaks: prior.clone(), ..setup(&mut store, name, &ids) })
        .collect();
    let holdings = dir.path().join("holdings.log");
    let mut cfg = config(dir.path(), false, 2);
    cfg.worker_command.extend(["--delay".into(), "0.1".into(), "--prep-delay".into(), "0.3".into(), "--holdings".into(), holdings.display().to_string()]);
    let s = run(&mut store, &plans, cfg, 0);
    assert!(s.failures.is_empty() && s.environment_errors.is_empty(), "{s:?}");
    assert_eq!(s.evaluations, 12);
    let mut holding = std::collections::BTreeMap::new();
    let mut together = 0;
    for (_, f) in holdings_log(&holdings) {
        holding.insert(f[1].clone(), f[2] == "hold");
        if holding.values().filter(|h| **h).count() == 2 {
            together += 1;
        }
    }
    assert!(together > 0, "no worker prepared beside a column another worker was evaluating on");
    // The stored footprint is still the preparation's peak: the next preparation is budgeted at it.
    assert!(store.baselines("peaky_a", TARGET).unwrap().iter().all(|b| b.peak_bytes == Some((100u64 << 30) * 6 / 10)));
}

#[test]
fn a_generated_column_past_the_ceiling_is_skipped_for_every_mutant() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let mut plan = setup(&mut store, "ceiling_sub", &["bigkill-a", "survive-b"]);
    plan.columns.truncate(1);
    plan.columns.push(Column { suite: "W:scaled:10:small".into(), seed: 1 });
    plan.columns.push(Column { suite: "W:scaled:1000:small".into(), seed: 1 });
    let plans = vec![plan];
    let mut cfg = config(dir.path(), true, 1);
    cfg.validity_margin = Some(5e-3);
    let s = run(&mut store, &plans, cfg, 0);
    assert_eq!(s.decided, 2, "both settle: the invalid column does not hold them up ({s:?})");
    let evals = store.evaluations("ceiling_sub", TARGET).unwrap();
    assert!(evals.iter().all(|e| e.suite != "W:scaled:1000:small"), "nothing runs past the ceiling: {evals:?}");
    assert_eq!(evals.len(), 4, "two mutants on the two valid columns");
    let base = store.baselines("ceiling_sub", TARGET).unwrap();
    let valid = |suite: &str| base.iter().find(|b| b.suite == suite).and_then(|b| b.valid);
    assert_eq!((valid("T0_original"), valid("W:scaled:10:small"), valid("W:scaled:1000:small")), (None, Some(true), Some(false)));
    // A second run knows the column is invalid from the store and prepares nothing of it again.
    let log = dir.path().join("sent.log");
    let mut cfg = config(dir.path(), true, 1);
    cfg.validity_margin = Some(5e-3);
    cfg.worker_command.extend(["--log".into(), log.display().to_string()]);
    let again = run(&mut store, &plans, cfg, 0);
    assert_eq!((again.evaluations, again.decided), (0, 2));
    assert!(!std::fs::read_to_string(&log).unwrap_or_default().contains("1000"), "the invalid column was prepared again");
}

/// A plan of `ids` whose first column is the protocol's (`T0_original` seed 1) and the next
/// `n` generated ones: a witness search.
fn search_plan(store: &mut Store, name: &str, ids: &[&str], n: usize) -> SubstratePlan {
    let mut plan = setup(store, name, ids);
    plan.columns.truncate(1);
    for c in [3, 10, 100, 1000].iter().cycle().take(n).enumerate() {
        plan.columns.push(Column { suite: format!("W:scaled:{}:small", c.1), seed: c.0 as u64 + 1 });
    }
    plan.search_from = 1;
    plan
}

/// Every (mutant, suite, seed) evaluated, each at most once.
fn cells(store: &Store, substrate: &str) -> Vec<(String, String, u64)> {
    let mut v: Vec<_> = store.evaluations(substrate, TARGET).unwrap().into_iter().map(|e| (e.mutant, e.suite, e.seed)).collect();
    let n = v.len();
    v.sort();
    v.dedup();
    assert_eq!(v.len(), n, "a cell was evaluated twice: {v:?}");
    v
}

#[test]
fn a_witness_search_prepares_its_columns_side_by_side_and_drops_a_mutant_killed_on_one() {
    // With `advance_waves` (as runs have it) and without: a mutant surviving the protocol's
    // column joins the search before the other mutants' first wave ends, so a worker freed
    // from that wave can add one more evaluation in flight when the kill comes.
    for advance in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let plans = vec![search_plan(&mut store, "L1p1_x", &["late-a", "survive-b", "survive-c", "kill-d"], 4)];
        let holdings = dir.path().join("holdings.log");
        let sent = dir.path().join("sent.log");
        let mut cfg = config(dir.path(), true, 3);
        cfg.advance_waves = advance;
        cfg.validity_margin = Some(5e-3);
        cfg.worker_command.extend([
            "--delay".into(),
            "0.2".into(),
            "--holdings".into(),
            holdings.display().to_string(),
            "--log".into(),
            sent.display().to_string(),
        ]);
        let s = run(&mut store, &plans, cfg, 0);
        assert_eq!(s.decided, 4, "{s:?}");
        // Per-step rows are asked for on the protocol's column only, never on the search's.
        for line in std::fs::read_to_string(&sent).unwrap().lines() {
            let req: serde_json::Value = serde_json::from_str(line).unwrap();
            if req["op"] == "column" {
                let generated = req["suite"].as_str().unwrap().starts_with("W:");
                assert_eq!(req["steps"], serde_json::Value::Bool(!generated), "{line}");
            }
        }
        let cells = cells(&store, "L1p1_x");
        let of = |id: &str| cells.iter().filter(|c| c.0 == id).count();
        // Killed by the protocol's own column: never searched.
        assert_eq!(of("kill-d"), 1);
        // Survivors run on every column; the mutant killed in the search stops there: at most one
        // evaluation per worker was in flight on it when its kill came.
        assert_eq!((of("survive-b"), of("survive-c")), (5, 5));
        // Without advance_waves the three workers are the only ones free once the wave ended:
        // T0, then at most the seed-1 column it survives and three in flight. With it, a
        // worker freed from the protocol's wave later can start one more before the kill.
        let most = if advance { 5 } else { 4 };
        assert!((2..=most).contains(&of("late-a")), "{cells:?} (advance {advance})");
        // Side by side: at some instant two workers held two different search columns (first-kill
        // waves would hold at most one column of a substrate at a time).
        let mut held: std::collections::BTreeMap<String, String> = std::collections::BTreeMap::new();
        let mut apart = false;
        let lines = holdings_log(&holdings);
        for (_, f) in &lines {
            if f[2] == "hold" {
                held.insert(f[1].clone(), f[4].clone());
            } else {
                held.remove(&f[1]);
            }
            let search: std::collections::BTreeSet<&String> = held.values().filter(|c| c.starts_with("W:")).collect();
            apart |= search.len() >= 2;
        }
        assert!(apart, "search columns were prepared one after another: {lines:?}");
    }
}

#[test]
fn overlapping_rounds_evaluate_each_cell_once_and_keep_first_kill_waves() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let ids = ["late-a", "survive-b", "kill-c", "survive-d", "late-e", "kill-f", "survive-g"];
    let plans = vec![setup(&mut store, "L1p1_x", &ids)];
    let mut cfg = config(dir.path(), true, 2);
    cfg.round = Some(1);
    cfg.deadline = Some(std::time::Instant::now() + Duration::from_mins(10));
    cfg.worker_command.extend(["--delay".into(), "0.05".into()]);
    // Each round's images take longer than an evaluation: the next round is made while the
    // last one's evaluations are in flight, and their `end` lines wait in the channel meanwhile
    // (heard late, they must not read as hung kernels: min_timeout is 0.7 s).
    let mut images = Recorder { asked: Vec::new(), rounds: 0, cost: Duration::from_millis(900) };
    let s = run_with_images(&mut store, &plans, cfg, &mut images);
    assert_eq!((s.decided, s.timeouts), (ids.len(), 0), "{s:?}");
    let cells = cells(&store, "L1p1_x");
    let seeds = |id: &str| cells.iter().filter(|c| c.0 == id).map(|c| c.2).collect::<Vec<_>>();
    for id in ids {
        let want: Vec<u64> = match &id[..4] {
            "kill" => vec![1],
            "late" => vec![1, 2],
            _ => vec![1, 2, 3],
        };
        assert_eq!(seeds(id), want, "{id}: a mutant joins column c + 1 only after surviving 0..=c");
    }
}

/// Makes "images" by recording which candidates it was asked for, taking `cost` per round.
struct Recorder {
    asked: Vec<String>,
    rounds: usize,
    cost: Duration,
}

impl kmut_exec::RoundImages for Recorder {
    fn make(&mut self, plans: &[SubstratePlan], round: &[(usize, usize)]) -> Result<usize, String> {
        std::thread::sleep(self.cost);
        self.rounds += 1;
        self.asked.extend(round.iter().map(|&(s, c)| plans[s].candidates[c].id.clone()));
        Ok(round.len())
    }
}

fn run_with_images(store: &mut Store, plans: &[SubstratePlan], cfg: EngineConfig, images: &mut Recorder) -> RunSummary {
    let interrupt: &'static AtomicBool = Box::leak(Box::new(AtomicBool::new(false)));
    let reporter = Quiet { stop_after: 0, interrupt, notes: AtomicUsize::new(0) };
    let run = store.begin_run("test", "13.0", TARGET).unwrap();
    Engine::new(cfg, plans, store, run, &reporter, interrupt).with_round_images(images).run(&order(plans)).unwrap()
}

#[test]
fn a_budget_makes_images_round_by_round_inside_it_and_only_for_mutants_it_evaluates() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let ids: Vec<String> = (0..12).map(|i| format!("{}-{i}", if i % 2 == 0 { "kill" } else { "survive" })).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let plans = vec![setup(&mut store, "L1p1_x", &refs)];
    // Making the first round's images outlasts the budget: that round is evaluated whole (its
    // images are paid for), and no other image is made.
    let mut cfg = config(dir.path(), true, 1);
    cfg.round = Some(4);
    cfg.deadline = Some(std::time::Instant::now() + Duration::from_millis(300));
    let mut images = Recorder { asked: Vec::new(), rounds: 0, cost: Duration::from_millis(600) };
    let s = run_with_images(&mut store, &plans, cfg, &mut images);
    assert!(s.budget_spent, "{s:?}");
    assert_eq!((images.rounds, images.asked.len(), s.images_made), (1, 4, 4));
    assert!(s.image_time >= Duration::from_millis(600) && s.elapsed >= s.image_time, "{s:?}");
    let evaluated: std::collections::BTreeSet<String> = store.evaluations("L1p1_x", TARGET).unwrap().into_iter().map(|e| e.mutant).collect();
    let asked: std::collections::BTreeSet<String> = images.asked.iter().cloned().collect();
    assert_eq!(evaluated, asked, "every image made was evaluated, and only those");
    assert_eq!(s.decided, 4);
    // Resumed without a budget: the settled four are never asked for again, the rest are, once.
    let mut cfg = config(dir.path(), true, 1);
    cfg.round = Some(4);
    let mut again = Recorder { asked: Vec::new(), rounds: 0, cost: Duration::ZERO };
    let s = run_with_images(&mut store, &plans, cfg, &mut again);
    assert_eq!(s.decided, 12);
    let mut asked_again = again.asked.clone();
    asked_again.sort();
    asked_again.dedup();
    assert_eq!(asked_again.len(), 8, "{:?}", again.asked);
    assert_eq!(again.asked.len(), 8);
    assert!(again.asked.iter().all(|id| !asked.contains(id)));
}

#[test]
fn a_lost_device_s_work_is_rerun_on_the_other_and_nothing_is_lost_or_stored_twice() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("state");
    std::fs::create_dir_all(&state).unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let ids = |sub: &str| -> Vec<String> { (0..16).map(|i| format!("{}-{sub}{i}", ["kill", "survive", "late", "crash"][i % 4])).collect() };
    let (x, y) = (ids("x"), ids("y"));
    let (xs, ys): (Vec<&str>, Vec<&str>) = (x.iter().map(String::as_str).collect(), y.iter().map(String::as_str).collect());
    let plans = vec![setup(&mut store, "L1p1_x", &xs), setup(&mut store, "L1p2_y", &ys)];
    let mut cfg = config(dir.path(), false, 1);
    cfg.devices = vec![0, 1];
    cfg.spares_per_device = 0;
    let log = dir.path().join("sent.log");
    cfg.worker_command.extend([
        "--lose-device".into(),
        "1".into(),
        "--state".into(),
        state.display().to_string(),
        "--delay".into(),
        "0.02".into(),
        "--log".into(),
        log.display().to_string(),
    ]);
    let s = run(&mut store, &plans, cfg, 0);
    assert!(state.join("device-lost").exists(), "device 1 took work and was lost");
    // Every cell once, on the healthy device: nothing lost, nothing stored twice, no verdict
    // from the lost device.
    let cells = 2 * x.len() * 3;
    assert_eq!(s.evaluations, cells, "{s:?}");
    assert_eq!((s.decided, s.total), (2 * x.len(), 2 * x.len()));
    for name in ["L1p1_x", "L1p2_y"] {
        let evals = store.evaluations(name, TARGET).unwrap();
        let distinct: std::collections::BTreeSet<(String, u64)> = evals.iter().map(|e| (e.mutant.clone(), e.seed)).collect();
        assert_eq!((evals.len(), distinct.len()), (x.len() * 3, x.len() * 3), "{name}");
    }
    assert!(s.environment_errors.is_empty() && s.failures.is_empty(), "{s:?}");
    assert!(s.environment_retried >= 1, "the lost evaluation was made again: {s:?}");
    let sent = std::fs::read_to_string(log).unwrap();
    assert!(sent.lines().filter(|l| l.contains("\"op\":\"eval\"")).count() >= cells, "every cell was sent to a worker");
}

/// Column preparations of `substrate` the workers were sent.
fn preparations(sent: &Path, substrate: &str) -> usize {
    std::fs::read_to_string(sent)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("\"op\":\"column\"") && l.contains(&format!("\"name\":\"{substrate}\"")))
        .count()
}

/// Each mutant of `substrate` ran exactly first kill's columns (seeds 1, 2, 3) by its id's
/// prefix: `kill` the first, `late` the first two, any other all three.
fn assert_first_kill_cells(store: &Store, substrate: &str, ids: &[&str], case: &str) {
    let cells = cells(store, substrate);
    for id in ids {
        let seeds: Vec<u64> = cells.iter().filter(|c| c.0 == *id).map(|c| c.2).collect();
        let want: Vec<u64> = match &id[..4] {
            "kill" => vec![1],
            "late" => vec![1, 2],
            _ => vec![1, 2, 3],
        };
        assert_eq!(seeds, want, "{id}: first kill's cells, each once ({case})");
    }
}

/// How many evaluations were sent before the first preparation of a column with seed `seed`.
fn evals_before_column(sent: &Path, seed: u64) -> usize {
    let lines: Vec<String> = std::fs::read_to_string(sent).unwrap().lines().map(str::to_owned).collect();
    let at = lines.iter().position(|l| l.contains("\"op\":\"column\"") && l.contains(&format!("\"seed\":{seed}"))).expect("the column was prepared");
    lines[..at].iter().filter(|l| l.contains("\"op\":\"eval\"")).count()
}

#[test]
fn a_worker_joins_a_column_others_hold_only_when_its_preparation_pays() {
    // Three columns of eight mutants, two workers. Each takes a column; the first done takes the
    // third; the other, done next, would join it. With preparations reported at 100 s against
    // evaluations of milliseconds it does not (the holder finishes long before): three
    // preparations, one per column, and every cell evaluated.
    let ids: Vec<String> = (0..8).map(|i| format!("survive-{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    for (name, costly) in [("costlyprep_x", true), ("L1p1_cheap", false)] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let plans = vec![setup(&mut store, name, &refs)];
        let sent = dir.path().join("sent.log");
        let mut cfg = config(dir.path(), false, 2);
        cfg.worker_command.extend(["--delay".into(), "0.05".into(), "--log".into(), sent.display().to_string()]);
        let s = run(&mut store, &plans, cfg, 0);
        assert_eq!(s.evaluations, 24, "{s:?}");
        assert_eq!(store.evaluations(name, TARGET).unwrap().len(), 24);
        let preps = preparations(&sent, name);
        if costly {
            assert_eq!(preps, 3, "no column prepared twice");
        } else {
            assert!(preps >= 3, "{preps}");
        }
    }
}

#[test]
fn an_idle_worker_carries_a_wave_s_survivors_to_the_next_column_with_first_kill_s_cells() {
    // One substrate whose preparations report 100 s: a second worker never joins the column
    // the first holds. With `advance_waves` off it stands idle until all eight mutants are done
    // there; on, it takes the survivors on to the next column meanwhile. Either way the cells
    // are exactly first kill's and each column is prepared once.
    let ids = ["survive-a", "survive-b", "kill-c", "late-d", "survive-e", "survive-f", "late-g", "survive-h"];
    for advance in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let plans = vec![setup(&mut store, "costlyprep_x", &ids)];
        let sent = dir.path().join("sent.log");
        let mut cfg = config(dir.path(), true, 2);
        cfg.advance_waves = advance;
        // The one lever alone: no column prepared ahead of its wave either way.
        cfg.prefetch = false;
        cfg.worker_command.extend(["--delay".into(), "0.15".into(), "--log".into(), sent.display().to_string()]);
        let s = run(&mut store, &plans, cfg, 0);
        assert_eq!((s.decided, s.killed), (ids.len(), 3), "{s:?}");
        assert_first_kill_cells(&store, "costlyprep_x", &ids, &format!("advance {advance}"));
        let evals_before = evals_before_column(&sent, 2);
        if advance {
            assert!(evals_before < ids.len(), "column 2 was prepared after {evals_before} evaluations: it waited for the whole first wave");
        } else {
            assert_eq!(evals_before, ids.len(), "without advance_waves column 2 opens when the first wave ended");
        }
        assert_eq!(preparations(&sent, "costlyprep_x"), 3, "one preparation per column (advance {advance})");
    }
}

#[test]
fn an_idle_worker_prepares_the_next_column_before_any_mutant_survived_into_it() {
    // One substrate whose preparations report 100 s (a second worker never joins the column the
    // first holds), its first three mutants killed on column 1. With `prefetch` the idle second
    // worker prepares column 2 while the first wave is still at its first mutants; without it,
    // column 2 waits for a survivor (the fourth evaluation at the earliest). Either way the cells
    // are exactly first kill's and each column is prepared once; the summary counts the column
    // prepared ahead, and that a mutant then ran on it.
    let ids = ["kill-a", "kill-b", "kill-c", "survive-d", "late-e", "survive-f"];
    for prefetch in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let plans = vec![setup(&mut store, "costlyprep_x", &ids)];
        let sent = dir.path().join("sent.log");
        let mut cfg = config(dir.path(), true, 2);
        cfg.prefetch = prefetch;
        cfg.worker_command.extend(["--delay".into(), "0.15".into(), "--log".into(), sent.display().to_string()]);
        let s = run(&mut store, &plans, cfg, 0);
        assert_eq!((s.decided, s.killed), (ids.len(), 4), "{s:?}");
        assert_first_kill_cells(&store, "costlyprep_x", &ids, &format!("prefetch {prefetch}"));
        let evals_before = evals_before_column(&sent, 2);
        if prefetch {
            assert!(evals_before < 3, "column 2 was prepared after {evals_before} evaluations: it waited for a survivor");
            assert!(s.prefetched >= 1 && s.prefetch_used >= 1, "{s:?}");
        } else {
            assert!(evals_before >= 4, "without prefetch column 2 waits for the first survivor (evaluation 4): {evals_before}");
            assert_eq!((s.prefetched, s.prefetch_used), (0, 0));
        }
        assert_eq!(preparations(&sent, "costlyprep_x"), 3, "one preparation per column (prefetch {prefetch})");
    }
}

#[test]
fn a_worker_left_idle_by_a_long_column_starts_the_next_round() {
    // Round one is a substrate whose preparations report 100 s (a second worker never joins its
    // column) and whose waves do not advance early; round two is another substrate. Before,
    // the next round waited for the first's column to be worked through by its one holder,
    // the other worker idle; now that worker starts round two meanwhile. The cells stay first
    // kill's, each evaluated once.
    let slow = ["survive-a", "survive-b", "kill-c", "survive-d", "survive-e", "survive-f"];
    let quick = ["kill-p", "survive-q", "kill-r", "survive-s"];
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "costlyprep_x", &slow), setup(&mut store, "L1p1_y", &quick)];
    let sent = dir.path().join("sent.log");
    let mut cfg = config(dir.path(), true, 2);
    cfg.advance_waves = false;
    cfg.round = Some(slow.len());
    cfg.deadline = Some(std::time::Instant::now() + Duration::from_mins(10));
    cfg.worker_command.extend(["--delay".into(), "0.15".into(), "--log".into(), sent.display().to_string()]);
    let s = run(&mut store, &plans, cfg, 0);
    assert_eq!((s.decided, s.killed), (slow.len() + quick.len(), 3), "{s:?}");
    for (name, ids) in [("costlyprep_x", &slow[..]), ("L1p1_y", &quick[..])] {
        let cells = cells(&store, name);
        for id in ids {
            let seeds: Vec<u64> = cells.iter().filter(|c| c.0 == *id).map(|c| c.2).collect();
            let want: Vec<u64> = if id.starts_with("kill") { vec![1] } else { vec![1, 2, 3] };
            assert_eq!(seeds, want, "{id}: first kill's cells, each once");
        }
    }
    let lines: Vec<String> = std::fs::read_to_string(&sent).unwrap().lines().map(str::to_owned).collect();
    let quick_column = lines.iter().position(|l| l.contains("\"op\":\"column\"") && l.contains("\"name\":\"L1p1_y\"")).expect("round two prepared");
    let first_wave_before = lines[..quick_column].iter().filter(|l| l.contains("\"op\":\"eval\"")).count();
    assert!(first_wave_before < slow.len(), "round two started after {first_wave_before} evaluations: it waited for the first round's column");
}

#[test]
fn a_column_on_which_the_original_fails_the_run_s_bound_runs_no_mutant() {
    // Three columns, the second one where the original itself is off by 1e-3. Under a bound
    // of 1e-5 absolute (an audit judge's) that column decides nothing: no mutant is evaluated
    // there, and each is settled by the other two. Without a bound every column is run.
    let ids = ["survive-a", "late-b", "kill-c"];
    for bounded in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let mut plan = setup(&mut store, "L1p1_x", &ids);
        plan.columns[1].suite = "T9_origfail".into();
        if bounded {
            plan.original_bound = Some(kmut_model::Bound { atol: 1e-5, rtol: 0.0 });
        }
        let plans = vec![plan];
        let s = run(&mut store, &plans, config(dir.path(), true, 2), 0);
        assert_eq!((s.decided, s.killed, s.false_kill_columns), (3, 2, usize::from(bounded)), "{s:?}");
        let cells = cells(&store, "L1p1_x");
        let on_failing = cells.iter().filter(|c| c.1 == "T9_origfail").count();
        let seeds = |id: &str| {
            let mut v = cells.iter().filter(|c| c.0 == id).map(|c| c.2).collect::<Vec<_>>();
            v.sort_unstable();
            v
        };
        if bounded {
            assert_eq!(on_failing, 0, "no mutant runs where the original fails the bound: {cells:?}");
            assert_eq!((seeds("survive-a"), seeds("late-b"), seeds("kill-c")), (vec![1, 3], vec![1, 3], vec![1]));
        } else {
            assert_eq!(on_failing, 2, "without a bound the survivors run there too: {cells:?}");
            assert_eq!((seeds("survive-a"), seeds("late-b")), (vec![1, 2, 3], vec![1, 2]));
        }
        let baselines = store.baselines("L1p1_x", TARGET).unwrap();
        assert!(
            baselines.iter().any(|b| b.suite == "T9_origfail" && b.max_abs == Some(1e-3)),
            "the original's failing column is stored (a false kill to report)"
        );
    }
}

#[test]
fn a_column_the_machine_cannot_prepare_leaves_its_mutants_undecided_and_the_substrate_going() {
    // The second of three columns runs out of memory preparing every time, alone too. The
    // substrate is not failed: its mutants go on to the third column, a kill there is a kill,
    // and a mutant that survives the others stays undecided (never a verdict).
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let mut plan = setup(&mut store, "L1p1_x", &["survive-a", "late-b", "kill-c"]);
    plan.columns[1].suite = "T9_hugeprep".into();
    let plans = vec![plan, setup(&mut store, "L1p2_y", &["kill-d"])];
    let s = run(&mut store, &plans, config(dir.path(), true, 2), 0);
    assert!(s.failures.is_empty(), "the substrate is not failed: {s:?}");
    assert_eq!(s.environment_errors.len(), 1, "{s:?}");
    assert!(s.environment_errors[0].contains("T9_hugeprep") && s.environment_errors[0].contains("stay undecided"), "{s:?}");
    assert_eq!((s.decided, s.killed), (3, 3), "late-b (on the third column), kill-c and kill-d decided; survive-a undecided: {s:?}");
    let cells = cells(&store, "L1p1_x");
    assert!(cells.iter().all(|c| c.1 != "T9_hugeprep"), "{cells:?}");
    let seeds = |id: &str| {
        let mut v: Vec<u64> = cells.iter().filter(|c| c.0 == id).map(|c| c.2).collect();
        v.sort_unstable();
        v
    };
    assert_eq!((seeds("survive-a"), seeds("late-b"), seeds("kill-c")), (vec![1, 3], vec![1, 3], vec![1]));
}

#[test]
fn a_column_the_worker_knows_is_too_large_is_skipped_without_a_retry_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let mut plan = setup(&mut store, "L1p1_x", &["survive-a", "kill-c"]);
    plan.columns[1].suite = "T9_toolarge".into();
    let sent = dir.path().join("sent.log");
    let mut cfg = config(dir.path(), true, 2);
    cfg.worker_command.extend(["--log".into(), sent.display().to_string()]);
    let s = run(&mut store, &[plan], cfg, 0);
    assert!(s.failures.is_empty() && s.environment_errors.len() == 1, "{s:?}");
    assert!(s.environment_errors[0].contains("not retried: too large for this machine"), "{s:?}");
    let asked = std::fs::read_to_string(&sent).unwrap().lines().filter(|l| l.contains("T9_toolarge")).count();
    assert_eq!(asked, 1, "asked once: the device to itself cannot make it fit");
    assert_eq!((s.decided, s.killed), (1, 1), "kill-c decided; survive-a undecided on the skipped column: {s:?}");
}

#[test]
fn early_rounds_for_an_idle_worker_stay_within_the_budget() {
    // One substrate whose preparations report 100 s (the second worker never joins the column
    // the first holds), every mutant killed on the first column: the second worker stands idle
    // with nothing it may take for the whole run, and every new round only joins the held
    // column. Early rounds for it must still be sized to the budget: a 2 s budget at about ten
    // evaluations a second cannot take all 60 mutants (each taken one runs to its end).
    let ids: Vec<String> = (0..60).map(|i| format!("kill-{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "costlyprep_x", &refs)];
    let mut cfg = config(dir.path(), true, 2);
    cfg.round = Some(2);
    cfg.deadline = Some(std::time::Instant::now() + Duration::from_secs(2));
    cfg.worker_command.extend(["--delay".into(), "0.1".into()]);
    let s = run(&mut store, &plans, cfg, 0);
    assert!(s.budget_spent && s.decided < 45, "rounds were taken past what the budget fits: {s:?}");
    assert_eq!(s.evaluations, s.decided, "each taken mutant killed by one evaluation: {s:?}");
}

#[test]
fn a_worker_that_cannot_join_a_held_column_leaves_it_to_its_holder() {
    // One column that fits the machine once but not twice (a second worker preparing it beside
    // the first's copy runs out of memory, or is refused as too large from the host's memory
    // available then). The second worker's failed join is not the column's: the holder goes on
    // with its queue and every mutant is decided. Before, the join's failure marked the column
    // unpreparable (at once when too large; after the retry alone when out of memory, as the
    // first worker then failed to join the retrier) and dropped the holder's remaining work.
    let ids: Vec<String> = (0..12).map(|i| format!("survive-{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    for suite in ["T9_crowdedbig", "T9_crowdedoom"] {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let mut plan = setup(&mut store, "L1p1_x", &refs);
        plan.columns = vec![Column { suite: suite.into(), seed: 1 }];
        plan.search_from = 1;
        let sent = dir.path().join("sent.log");
        let mut cfg = config(dir.path(), false, 2);
        let holdings = dir.path().join("holdings.log");
        cfg.worker_command.extend([
            "--delay".into(),
            "0.05".into(),
            "--holdings".into(),
            holdings.display().to_string(),
            "--log".into(),
            sent.display().to_string(),
        ]);
        let s = run(&mut store, &[plan], cfg, 0);
        assert!(s.failures.is_empty() && s.environment_errors.is_empty(), "{suite}: {s:?}");
        assert_eq!((s.decided, s.evaluations), (ids.len(), ids.len()), "{suite}: every mutant on the column once: {s:?}");
        let preps = preparations(&sent, "L1p1_x");
        assert_eq!(preps, 2, "{suite}: the second worker tried to join, once ({preps} preparations)");
    }
}

/// The `known` figures of each column request in a scripted worker's `--log`.
fn known_in_requests(log: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"op\":\"column\""))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap()["known"].clone())
        .collect()
}

#[test]
fn a_column_measured_before_is_prepared_from_its_stored_baseline() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["survive-a"])];
    let first = run(&mut store, &plans, config(dir.path(), true, 1), 0);
    assert_eq!((first.columns_prepared, first.original_reused), (3, 0), "nothing stored yet: the original runs on every column");
    // A new mutant on the same columns of the same original image: the store's baselines stand in.
    let plans = vec![setup(&mut store, "L1p1_x", &["survive-a", "survive-b"])];
    let log = dir.path().join("sent.log");
    let mut cfg = config(dir.path(), true, 1);
    cfg.worker_command.extend(["--log".into(), log.display().to_string()]);
    let second = run(&mut store, &plans, cfg, 0);
    assert_eq!(second.evaluations, 3);
    assert_eq!((second.columns_prepared, second.original_reused), (3, 3));
    let peaks: Vec<Option<u64>> = store.baselines("L1p1_x", TARGET).unwrap().iter().map(|b| b.peak_bytes).collect();
    assert_eq!(peaks, [Some(1 << 30); 3], "a preparation without the original's run keeps the full one's peak");
    let known = known_in_requests(&log);
    assert_eq!(known.len(), 3);
    for k in &known {
        assert_eq!((k["tau"].as_f64(), k["kernel_ms"].as_f64(), &k["sizes"]), (Some(0.0), Some(1.0), &serde_json::json!({"n": 4})), "{k}");
    }
    // Another original image: its baselines are the old image's, and the original runs again.
    let mut changed = setup(&mut store, "L1p1_x", &["survive-a", "survive-b", "survive-c"]);
    changed.original_id = "orig-2".into();
    let log = dir.path().join("sent-2.log");
    let mut cfg = config(dir.path(), true, 1);
    cfg.worker_command.extend(["--log".into(), log.display().to_string()]);
    let third = run(&mut store, &[changed], cfg, 0);
    assert_eq!(third.original_reused, 0);
    assert!(known_in_requests(&log).iter().all(serde_json::Value::is_null));
    // Switched off (`--rerun-original`): no request carries figures, though the store has them
    // for this image now (the third run's).
    let mut plan = setup(&mut store, "L1p1_x", &["survive-a", "survive-b", "survive-c", "survive-d"]);
    plan.original_id = "orig-2".into();
    let plans = vec![plan];
    let log = dir.path().join("sent-3.log");
    let mut off = config(dir.path(), true, 1);
    off.reuse_original = false;
    off.worker_command.extend(["--log".into(), log.display().to_string()]);
    let fourth = run(&mut store, &plans, off, 0);
    assert_eq!((fourth.columns_prepared, fourth.original_reused), (3, 0));
    assert!(known_in_requests(&log).iter().all(serde_json::Value::is_null));
}

#[test]
fn lost_workers_are_replaced_by_spares_still_starting_and_the_pool_grows_with_the_loss_rate() {
    // Every mutant kills its worker, and a worker takes 0.4 s to start: replacements come faster
    // than one spare can start, so a slot adopts a spare that is still starting rather than
    // starting its own, and the pool grows to half the workers.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let ids: Vec<String> = (0..16).map(|i| format!("die-{i}")).collect();
    let refs: Vec<&str> = ids.iter().map(String::as_str).collect();
    let plans = vec![setup(&mut store, "L1p1_x", &refs)];
    let mut cfg = config(dir.path(), true, 4);
    cfg.worker_command.extend(["--start-delay".into(), "0.4".into()]);
    let s = run(&mut store, &plans, cfg, 0);
    assert_eq!(s.decided, 16, "{s:?}");
    assert!(s.respawns >= 16, "{s:?}");
    assert_eq!(s.spares_used, s.respawns, "a spare, ready or starting, served every replacement: {s:?}");
    assert_eq!(s.spares_most, 2, "one configured spare, two at the loss rate (half of four workers): {s:?}");
}

/// The `defer` part of each column request in a scripted worker's `--log`, by seed.
fn deferred_in_requests(log: &Path) -> Vec<(u64, serde_json::Value)> {
    std::fs::read_to_string(log)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"op\":\"column\""))
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|v| (v["seed"].as_u64().unwrap(), v["defer"].clone()))
        .collect()
}

/// Every stored cell of `sub` as (mutant, seed, outcome, tau), sorted.
fn cells_of(store: &Store, sub: &str) -> Vec<(String, u64, String, Option<String>)> {
    let mut cells: Vec<_> =
        store.evaluations(sub, TARGET).unwrap().into_iter().map(|e| (e.mutant, e.seed, format!("{:?}", e.outcome), e.tau.map(|t| format!("{t:e}")))).collect();
    cells.sort();
    cells
}

#[test]
fn a_sibling_seed_defers_the_original_to_the_columns_first_failing_evaluation() {
    // Three seeds of one suite, first kill, one worker: seed 1 is measured as before; seeds 2
    // and 3 wait. `late-b` survives seed 1 and fails seed 2, whose original then runs; on seed 3
    // only `survive-a` runs and nothing fails, so the original never runs there.
    let ids = ["survive-a", "late-b"];
    let dir = tempfile::tempdir().unwrap();
    let mut deferring = Store::open(&dir.path().join("d.sqlite")).unwrap();
    let plans = vec![setup(&mut deferring, "L1p1_x", &ids)];
    let log = dir.path().join("sent.log");
    let mut cfg = config(dir.path(), true, 1);
    cfg.defer_original = true;
    cfg.worker_command.extend(["--log".into(), log.display().to_string()]);
    let s = run(&mut deferring, &plans, cfg, 0);
    assert!(s.failures.is_empty(), "{s:?}");
    assert_eq!((s.columns_prepared, s.original_deferred, s.deferred_run), (3, 2, 1), "{s:?}");
    let sent = deferred_in_requests(&log);
    assert_eq!(sent.len(), 3);
    assert!(sent[0].1.is_null(), "nothing measured yet: the first seed's original runs");
    for (seed, d) in &sent[1..] {
        assert_eq!((d["kernel_ms"].as_f64(), d["tolerance"].as_f64(), &d["sizes"]), (Some(1.0), Some(1e-2), &serde_json::json!({"n": 4})), "seed {seed}: {d}");
    }
    let seeds: Vec<u64> = deferring.baselines("L1p1_x", TARGET).unwrap().iter().map(|b| b.seed).collect();
    assert_eq!(seeds, [1, 2], "a baseline where the original ran: the first seed, and the seed a failing evaluation made it run on");
    // The verdicts are a run's that measured every column.
    let mut measuring = Store::open(&dir.path().join("m.sqlite")).unwrap();
    let plans = vec![setup(&mut measuring, "L1p1_x", &ids)];
    let m = run(&mut measuring, &plans, config(dir.path(), true, 1), 0);
    assert_eq!((m.original_deferred, m.decided, m.killed), (0, s.decided, s.killed));
    assert_eq!(cells_of(&deferring, "L1p1_x"), cells_of(&measuring, "L1p1_x"));
    let measured = measuring.baselines("L1p1_x", TARGET).unwrap();
    assert_eq!(measured.len(), 3);
    for b in deferring.baselines("L1p1_x", TARGET).unwrap() {
        let twin = measured.iter().find(|m| m.seed == b.seed).unwrap();
        assert_eq!((b.tau, b.max_abs, b.kernel_ms, &b.sizes), (twin.tau, twin.max_abs, twin.kernel_ms, &twin.sizes), "seed {}", b.seed);
    }
    // A pass that needs every column's original (`kmut audit`) takes no cell from seed 3, whose
    // original never ran: it evaluates `survive-a` there again, measuring the original first.
    let mut audit = config(dir.path(), true, 1);
    audit.cells_need_baseline = true;
    let again = run(&mut deferring, &plans, audit, 0);
    assert_eq!((again.evaluations, again.columns_prepared, again.original_deferred), (1, 1, 0), "{again:?}");
    let seeds: Vec<u64> = deferring.baselines("L1p1_x", TARGET).unwrap().iter().map(|b| b.seed).collect();
    assert_eq!(seeds, [1, 2, 3]);
    assert_eq!(cells_of(&deferring, "L1p1_x"), cells_of(&measuring, "L1p1_x"));
}

#[test]
fn a_deferred_original_that_crashes_sets_its_column_aside_and_the_failing_cell_with_it() {
    // The original passes seed 1 when measured, and crashes on seeds 2 and 3 when a failing
    // evaluation runs it (`origcrash`): those columns decide nothing, so `late-b`'s failures
    // there are not stored, and it is settled on what is left (a survivor of seed 1).
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let mut plan = setup(&mut store, "L1p1_x", &["late-b"]);
    plan.columns = (1..=3).map(|seed| Column { suite: "T0_origcrash".into(), seed }).collect();
    let mut cfg = config(dir.path(), true, 1);
    cfg.defer_original = true;
    let s = run(&mut store, &[plan], cfg, 0);
    assert!(s.failures.is_empty(), "{s:?}");
    assert_eq!((s.original_deferred, s.deferred_run), (2, 2), "{s:?}");
    assert_eq!((s.decided, s.killed, s.evaluations), (1, 0, 1), "{s:?}");
    let cells = cells_of(&store, "L1p1_x");
    assert_eq!(cells.iter().map(|c| c.1).collect::<Vec<_>>(), [1], "{cells:?}");
    assert_eq!(store.baselines("L1p1_x", TARGET).unwrap().len(), 1, "no baseline for a column whose original crashed");
}

#[test]
fn a_failing_evaluation_whose_worker_ended_before_the_deferred_run_has_its_column_measured_next() {
    // `latefatal-b` fails seed 2 and its worker ends with the result, before any deferred run:
    // the replacement prepares seed 2 again for `survive-a` and measures the original there.
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let plans = vec![setup(&mut store, "L1p1_x", &["latefatal-b", "survive-a"])];
    let log = dir.path().join("sent.log");
    let mut cfg = config(dir.path(), true, 1);
    cfg.defer_original = true;
    cfg.worker_command.extend(["--log".into(), log.display().to_string()]);
    let s = run(&mut store, &plans, cfg, 0);
    assert!(s.failures.is_empty(), "{s:?}");
    assert_eq!((s.decided, s.killed), (2, 1), "{s:?}");
    let sent = deferred_in_requests(&log);
    let second_seed: Vec<bool> = sent.iter().filter(|(seed, _)| *seed == 2).map(|(_, d)| d.is_null()).collect();
    assert_eq!(second_seed, [false, true], "seed 2 deferred, then measured: {sent:?}");
    let seeds: Vec<u64> = store.baselines("L1p1_x", TARGET).unwrap().iter().map(|b| b.seed).collect();
    assert!(seeds.contains(&2), "{seeds:?}");
}
