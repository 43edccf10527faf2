//! The real `SQLite` store: migrations, round trips, replacement of a substrate's mutants.

use kmut_model::{Backend, Class, Family, Mutant, MutantKind, Outcome, SubstrateDescription};
use kmut_store::{Baseline, ClassRecord, CompileRecord, Evaluation, Pruned, Store, SCHEMA_VERSION};

fn desc() -> SubstrateDescription {
    SubstrateDescription {
        name: "L1p1_x".into(),
        level: 1,
        path: "x.py".into(),
        cuda: "k".into(),
        cuda_line: 1,
        kernels: vec!["k".into()],
        steps: vec![],
        cdiv_calls: vec![],
        launch_line: 1,
        suites: Vec::new(),
        generated: vec![],
    }
}

fn mutant(id: &str) -> Mutant {
    Mutant {
        id: id.into(),
        substrate: "L1p1_x".into(),
        rule: "arith-plus-to-minus".into(),
        family: Family::Arithmetic,
        kernel: "k".into(),
        layers: vec![0],
        layer: Some(0),
        depth: 0.0,
        line: 3,
        col: 1,
        span: [0, 1],
        original: "+".into(),
        replacement: "-".into(),
        mutation: MutantKind::Source { edits: vec![] },
        diff: String::new(),
    }
}

fn record(id: Option<&str>, image: Option<&str>) -> CompileRecord {
    CompileRecord {
        mutant: id.map(str::to_owned),
        substrate: "L1p1_x".into(),
        target: "t".into(),
        scope: "k".into(),
        source_hash: "s".into(),
        image_hash: image.map(str::to_owned),
        log: String::new(),
        compile_ms: 1.0,
        cached: false,
    }
}

#[test]
fn a_new_store_is_at_the_current_schema_version_and_reopens() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kmut.sqlite");
    drop(Store::open(&path).unwrap());
    let conn = rusqlite::Connection::open(&path).unwrap();
    let v: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0)).unwrap();
    assert_eq!(v, SCHEMA_VERSION);
    drop(conn);
    Store::open(&path).unwrap();
}

#[test]
fn a_store_from_a_newer_kmut_is_refused_with_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("kmut.sqlite");
    drop(Store::open(&path).unwrap());
    rusqlite::Connection::open(&path).unwrap().pragma_update(None, "user_version", 99).unwrap();
    let err = Store::open(&path).err().unwrap().to_string();
    assert!(err.contains("schema version 99, newer than this kmut's"), "{err}");
}

#[test]
fn a_new_generation_marks_the_mutants_gone_stale_and_only_prune_deletes_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", "-arch=sm_90").unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    assert_eq!(store.put_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap(), 0);
    assert_eq!(store.mutants("L1p1_x").unwrap(), vec![mutant("a"), mutant("b")]);
    store.put_compilations(&[record(Some("a"), Some("i")), record(Some("b"), None), record(None, Some("o"))], run).unwrap();
    store.put_classes("t", &[ClassRecord { mutant: "b".into(), class: Class::Stillborn, duplicate_of: None }]).unwrap();
    store.put_evaluations(&[evaluation("b", "t", Some(0.5), vec![])], run).unwrap();
    assert_eq!(store.original("L1p1_x", "t", "k").unwrap().unwrap().image_hash.as_deref(), Some("o"));
    // The source changed: only "a" is generated now. "b" is stale but keeps everything.
    assert_eq!(store.put_mutants("L1p1_x", &[mutant("a")]).unwrap(), 1);
    assert_eq!(store.mutants("L1p1_x").unwrap(), vec![mutant("a")]);
    assert_eq!(store.stale_count("L1p1_x").unwrap(), 1);
    assert_eq!(store.compilations("L1p1_x", "t").unwrap().len(), 2);
    assert_eq!(store.evaluations("L1p1_x", "t").unwrap().len(), 1);
    // A dry run only counts; prune removes the stale mutant with its results.
    let expected = vec![Pruned { substrate: "L1p1_x".into(), mutants: 1, evaluations: 1 }];
    assert_eq!(store.prune(&[], true).unwrap(), expected);
    assert_eq!(store.evaluations("L1p1_x", "t").unwrap().len(), 1);
    assert_eq!(store.prune(&["L2p2_other".into()], false).unwrap(), vec![]);
    assert_eq!(store.prune(&[], false).unwrap(), expected);
    assert_eq!(store.compilations("L1p1_x", "t").unwrap().keys().collect::<Vec<_>>(), ["a"]);
    assert!(store.classes("L1p1_x", "t").unwrap().is_empty());
    assert!(store.evaluations("L1p1_x", "t").unwrap().is_empty());
    assert_eq!(store.prune(&[], false).unwrap(), vec![]);
    // Generated again later, a stale mutant is current again.
    store.put_mutants("L1p1_x", &[mutant("a"), mutant("c")]).unwrap();
    store.put_mutants("L1p1_x", &[mutant("c")]).unwrap();
    store.put_mutants("L1p1_x", &[mutant("a"), mutant("c")]).unwrap();
    assert_eq!(store.stale_count("L1p1_x").unwrap(), 0);
    store.finish_run(run, "done").unwrap();
    assert_eq!(store.runs().unwrap(), [("test".to_owned(), "done".to_owned())]);
}

#[test]
fn compile_records_copy_from_another_store_without_results_and_without_overwriting() {
    let dir = tempfile::tempdir().unwrap();
    let from = dir.path().join("from.sqlite");
    {
        let mut store = Store::open(&from).unwrap();
        let run = store.begin_run("test", "13.0", "-arch=sm_90").unwrap();
        store.put_substrate(&desc(), "h").unwrap();
        store.put_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap();
        store.put_compilations(&[record(Some("a"), Some("i")), record(Some("b"), None), record(None, Some("o"))], run).unwrap();
        store.put_classes("t", &[ClassRecord { mutant: "b".into(), class: Class::Stillborn, duplicate_of: None }]).unwrap();
        store.put_evaluations(&[evaluation("a", "t", Some(0.5), vec![])], run).unwrap();
    }
    let mut store = Store::open(&dir.path().join("to.sqlite")).unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.put_mutants("L1p1_x", &[mutant("a")]).unwrap();
    let run = store.begin_run("mine", "13.0", "-arch=sm_90").unwrap();
    store.put_compilations(&[record(Some("a"), Some("mine"))], run).unwrap();
    assert_eq!(store.copy_compile_records_from(&from).unwrap(), 1, "b's; a's own record is kept");
    let got = store.compilations("L1p1_x", "t").unwrap();
    assert_eq!((got["a"].image_hash.as_deref(), got["b"].image_hash.as_deref()), (Some("mine"), None));
    assert_eq!(store.original("L1p1_x", "t", "k").unwrap().unwrap().image_hash.as_deref(), Some("o"));
    assert_eq!(store.classes("L1p1_x", "t").unwrap()["b"].class, Class::Stillborn);
    assert_eq!(store.mutants("L1p1_x").unwrap(), vec![mutant("a"), mutant("b")]);
    assert!(store.evaluations("L1p1_x", "t").unwrap().is_empty(), "no results come with the records");
    assert_eq!(store.runs().unwrap(), [("mine".to_owned(), "running".to_owned())], "nor the other store's runs");
    // A store from a newer kmut is refused, and nothing is copied from it.
    rusqlite::Connection::open(&from).unwrap().pragma_update(None, "user_version", 99).unwrap();
    let err = store.copy_compile_records_from(&from).err().unwrap().to_string();
    assert!(err.contains("schema version 99, newer than this kmut's"), "{err}");
}

#[test]
fn classes_of_other_mutants_survive_a_partial_classification() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.put_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap();
    let class = |id: &str, class| ClassRecord { mutant: id.into(), class, duplicate_of: None };
    store.put_classes("t", &[class("a", Class::Live), class("b", Class::Stillborn)]).unwrap();
    store.put_classes("t", &[class("a", Class::Equivalent)]).unwrap();
    let classes = store.classes("L1p1_x", "t").unwrap();
    assert_eq!((classes["a"].class, classes["b"].class), (Class::Equivalent, Class::Stillborn));
}

#[test]
fn current_images_name_what_each_backend_runs() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", "-arch=sm_90").unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    let mut launch = mutant("l");
    launch.mutation = MutantKind::Launch { transform: kmut_model::LaunchTransform::SwapGridBlock { step: 0 } };
    store.put_mutants("L1p1_x", &[mutant("a"), mutant("b"), launch]).unwrap();
    let mut a = record(Some("a"), Some("img-a"));
    a.source_hash = "src-a".into();
    let mut original = record(None, Some("img-o"));
    original.source_hash = "src-o".into();
    store.put_compilations(&[a, original], run).unwrap();
    let gpu = store.current_images(&desc(), "t", Backend::Gpu).unwrap();
    assert_eq!(gpu.original.as_deref(), Some("img-o"));
    assert_eq!(gpu.mutants["a"], "img-a");
    assert_eq!(gpu.mutants["l"], "launch:img-o");
    assert!(!gpu.mutants.contains_key("b"), "not compiled: nothing of it is current");
    let cpu = store.current_images(&desc(), "t", Backend::Cpu).unwrap();
    assert_eq!(cpu.original.as_deref(), Some("cpu:src-o"));
    assert_eq!(cpu.mutants["a"], "cpu:src-a");
    assert_eq!(cpu.mutants["l"], "launch:cpu:src-o");
    // A stale mutant has no current image.
    store.put_mutants("L1p1_x", &[mutant("b")]).unwrap();
    assert!(store.current_images(&desc(), "t", Backend::Gpu).unwrap().mutants.is_empty());
}

fn evaluation(mutant: &str, target: &str, tau: Option<f64>, orders: Vec<(u32, Option<f64>)>) -> Evaluation {
    Evaluation {
        mutant: mutant.into(),
        target: target.into(),
        suite: "T1_small".into(),
        seed: 1,
        image: "i".into(),
        backend: if target == "cpu" { "cpu:test".into() } else { "cuda:test".into() },
        outcome: Outcome::Completed,
        crash: None,
        detail: None,
        tau,
        max_abs: tau,
        max_rel: tau,
        nonfinite: false,
        shape_ok: true,
        canary: false,
        inputs_restored: false,
        kernel_ms: Some(1.0),
        wall_ms: 2.0,
        orders,
    }
}

#[test]
fn kernel_seconds_by_substrate_sum_one_runs_timed_evaluations_heaviest_first() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let (first, second) = (store.begin_run("a", "13.0", "t").unwrap(), store.begin_run("b", "13.0", "t").unwrap());
    let other = SubstrateDescription { name: "L2p2_y".into(), ..desc() };
    store.put_substrate(&desc(), "h").unwrap();
    store.put_substrate(&other, "h").unwrap();
    store.put_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap();
    store.put_mutants("L2p2_y", &[Mutant { substrate: "L2p2_y".into(), ..mutant("c") }]).unwrap();
    let timed = |m: &str, seed: u64, ms: Option<f64>| Evaluation { seed, kernel_ms: ms, ..evaluation(m, "t", Some(1e-6), vec![]) };
    store.put_evaluations(&[timed("a", 1, Some(500.0)), timed("b", 1, Some(250.0)), timed("c", 1, Some(1000.0)), timed("c", 2, None)], first).unwrap();
    store.put_evaluations(&[timed("a", 3, Some(9000.0))], second).unwrap();
    assert_eq!(store.kernel_seconds_by_substrate(first).unwrap(), vec![("L2p2_y".to_owned(), 1.0), ("L1p1_x".to_owned(), 0.75)]);
    assert_eq!(store.kernel_seconds_by_substrate(second).unwrap(), vec![("L1p1_x".to_owned(), 9.0)], "another run's cells are its own");
    assert!(store.kernel_seconds_by_substrate(first + 99).unwrap().is_empty());
}

#[test]
fn evaluations_keep_their_thread_orders_and_each_backend_its_own_target() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", "-arch=sm_90").unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.put_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap();
    let racy = evaluation("a", "cpu", Some(0.5), vec![(0, Some(1e-6)), (1, Some(0.5)), (2, None)]);
    let gpu = evaluation("a", "t", Some(1e-6), vec![]);
    store.put_evaluations(&[racy.clone(), gpu.clone(), evaluation("b", "cpu", Some(1e-6), vec![])], run).unwrap();
    let cpu = store.evaluations("L1p1_x", "cpu").unwrap();
    assert_eq!(cpu.len(), 2);
    assert_eq!(cpu[0], racy);
    assert_eq!(cpu[0].killing_orders(1e-2), [1, 2]);
    assert!(cpu[0].order_dependent(1e-2));
    assert!(cpu[0].kills_at(1e-2));
    assert!(!cpu[1].order_dependent(1e-2), "a single run does not depend on the order");
    assert_eq!(store.evaluations("L1p1_x", "t").unwrap(), vec![gpu]);
}

#[test]
fn a_version_2_store_gains_the_orders_column_and_keeps_its_evaluations() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    {
        let mut store = Store::open(&path).unwrap();
        let run = store.begin_run("test", "13.0", "-arch=sm_90").unwrap();
        store.put_substrate(&desc(), "h").unwrap();
        store.put_mutants("L1p1_x", &[mutant("a")]).unwrap();
        store.put_evaluations(&[evaluation("a", "t", Some(0.25), vec![])], run).unwrap();
    }
    // Undo migrations 3 and 4 by hand, as a store written by a kmut of schema 2 would be.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "ALTER TABLE evaluations DROP COLUMN orders; ALTER TABLE mutants DROP COLUMN stale; ALTER TABLE baselines DROP COLUMN image;
         ALTER TABLE baselines DROP COLUMN peak_bytes; ALTER TABLE baselines DROP COLUMN valid; ALTER TABLE baselines DROP COLUMN tau64_ref;
         ALTER TABLE baselines DROP COLUMN tau64_orig; DROP TABLE step_errors; DROP TABLE step_layouts; DROP TABLE ceilings; DROP TABLE ceiling_points; PRAGMA user_version = 2;",
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    let evals = store.evaluations("L1p1_x", "t").unwrap();
    assert_eq!(evals.len(), 1);
    assert_eq!(evals[0].tau, Some(0.25));
    assert!(evals[0].orders.is_empty());
}

#[test]
fn a_version_3_store_gains_stale_flags_and_baseline_images_and_keeps_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    let base = Baseline {
        substrate: "L1p1_x".into(),
        target: "t".into(),
        suite: "T0_original".into(),
        seed: 1,
        backend: "cuda:test".into(),
        sizes: "{}".into(),
        tau: Some(0.0),
        max_abs: Some(0.0),
        kernel_ms: Some(1.0),
        prep_s: Some(0.1),
        image: Some("img-o".into()),
        peak_bytes: Some(1 << 30),
        valid: None,
        tau64_ref: None,
        tau64_orig: None,
    };
    {
        let mut store = Store::open(&path).unwrap();
        let run = store.begin_run("test", "13.0", "-arch=sm_90").unwrap();
        store.put_substrate(&desc(), "h").unwrap();
        store.put_mutants("L1p1_x", &[mutant("a")]).unwrap();
        store.put_baseline(&base, run).unwrap();
        assert_eq!(store.baselines("L1p1_x", "t").unwrap(), vec![base.clone()]);
    }
    // Undo migration 4 by hand, as the previous kmut wrote the store.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "ALTER TABLE mutants DROP COLUMN stale; ALTER TABLE baselines DROP COLUMN image; ALTER TABLE baselines DROP COLUMN peak_bytes;
         ALTER TABLE baselines DROP COLUMN valid; ALTER TABLE baselines DROP COLUMN tau64_ref; ALTER TABLE baselines DROP COLUMN tau64_orig;
         DROP TABLE step_errors; DROP TABLE step_layouts; DROP TABLE ceilings; DROP TABLE ceiling_points; PRAGMA user_version = 3;",
    )
    .unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    assert_eq!(store.mutants("L1p1_x").unwrap(), vec![mutant("a")], "every old mutant is current");
    let old = &store.baselines("L1p1_x", "t").unwrap()[0];
    assert_eq!((old.image.as_deref(), old.peak_bytes), (None, None), "an old baseline matches no current original");
}

#[test]
fn generating_the_same_mutants_again_writes_nothing_and_a_changed_body_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.sqlite");
    let mut store = Store::open(&path).unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.put_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap();
    // Another connection sees `data_version` change only when a commit changed the file.
    let other = rusqlite::Connection::open(&path).unwrap();
    let version = || other.query_row("PRAGMA data_version", [], |r| r.get::<_, i64>(0)).unwrap();
    let before = version();
    assert_eq!(store.put_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap(), 0);
    assert_eq!(version(), before, "an unchanged generation rewrote the mutants");
    // The same ids with a moved line (the file changed around the CUDA): the body is rewritten.
    let mut moved = mutant("b");
    moved.line += 3;
    assert_eq!(store.put_mutants("L1p1_x", &[mutant("a"), moved.clone()]).unwrap(), 0);
    assert_ne!(version(), before);
    assert_eq!(store.mutants("L1p1_x").unwrap(), vec![mutant("a"), moved]);
    // A subset is a change too: "a" alone marks "b" stale.
    assert_eq!(store.put_mutants("L1p1_x", &[mutant("a")]).unwrap(), 1);
}
