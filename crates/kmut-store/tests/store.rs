//! The real `SQLite` store: migrations, round trips, replacement of a substrate's mutants.

use kmut_model::{Family, Mutant, MutantKind, SubstrateDescription};
use kmut_store::{ClassRecord, CompileRecord, Store, SCHEMA_VERSION};

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
