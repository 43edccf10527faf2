//! The real `SQLite` store: migrations, round trips, replacement of a substrate's mutants.

use kmut_model::{Family, Mutant, MutantKind, SubstrateDescription};
use kmut_store::{ClassRecord, CompileRecord, Evaluation, Store, SCHEMA_VERSION};

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
fn mutants_round_trip_and_replacing_drops_the_ones_gone_with_their_results() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", "-arch=sm_90").unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.replace_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap();
    assert_eq!(store.mutants("L1p1_x").unwrap(), vec![mutant("a"), mutant("b")]);
    store.put_compilations(&[record(Some("a"), Some("i")), record(Some("b"), None), record(None, Some("o"))], run).unwrap();
    store.put_classes("L1p1_x", "t", &[ClassRecord { mutant: "b".into(), class: "stillborn".into(), duplicate_of: None }]).unwrap();
    assert_eq!(store.original("L1p1_x", "t", "k").unwrap().unwrap().image_hash.as_deref(), Some("o"));
    store.replace_mutants("L1p1_x", &[mutant("a")]).unwrap();
    let left = store.compilations("L1p1_x", "t").unwrap();
    assert_eq!(left.keys().collect::<Vec<_>>(), ["a"]);
    assert!(store.classes("L1p1_x", "t").unwrap().is_empty());
    store.finish_run(run, "done").unwrap();
    assert_eq!(store.runs().unwrap(), [("test".to_owned(), "done".to_owned())]);
}

fn evaluation(mutant: &str, target: &str, tau: Option<f64>, orders: Vec<(u32, Option<f64>)>) -> Evaluation {
    Evaluation {
        mutant: mutant.into(),
        target: target.into(),
        suite: "T1_small".into(),
        seed: 1,
        image: "i".into(),
        backend: if target == "cpu" { "cpu:test".into() } else { "cuda:test".into() },
        outcome: "completed".into(),
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
fn evaluations_keep_their_thread_orders_and_each_backend_its_own_target() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", "-arch=sm_90").unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.replace_mutants("L1p1_x", &[mutant("a"), mutant("b")]).unwrap();
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
        store.replace_mutants("L1p1_x", &[mutant("a")]).unwrap();
        store.put_evaluations(&[evaluation("a", "t", Some(0.25), vec![])], run).unwrap();
    }
    // Undo migration 3 by hand, as a store written by the previous kmut would be.
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch("ALTER TABLE evaluations DROP COLUMN orders; PRAGMA user_version = 2;").unwrap();
    drop(conn);
    let store = Store::open(&path).unwrap();
    let evals = store.evaluations("L1p1_x", "t").unwrap();
    assert_eq!(evals.len(), 1);
    assert_eq!(evals[0].tau, Some(0.25));
    assert!(evals[0].orders.is_empty());
}
