//! The depth analysis's rows (migration 7): layouts per column, step rows per evaluation.

use kmut_model::{Family, Mutant, MutantKind, Outcome, SubstrateDescription};
use kmut_store::{Evaluation, Keep, StepError, StepLayout, Store};

fn desc() -> SubstrateDescription {
    SubstrateDescription {
        name: "L3p1_x".into(),
        level: 3,
        path: "x.py".into(),
        cuda: String::new(),
        cuda_line: 0,
        kernels: vec!["a_conv_kernel".into(), "b_relu_kernel".into()],
        steps: Vec::new(),
        cdiv_calls: Vec::new(),
        launch_line: 0,
        suites: Vec::new(),
        generated: Vec::new(),
    }
}

fn mutant(id: &str) -> Mutant {
    Mutant {
        id: id.into(),
        substrate: "L3p1_x".into(),
        rule: "r".into(),
        family: Family::Arithmetic,
        kernel: "a_conv_kernel".into(),
        layers: vec![0],
        layer: Some(0),
        depth: 0.0,
        line: 1,
        col: 1,
        span: [0, 0],
        original: String::new(),
        replacement: String::new(),
        mutation: MutantKind::Source { edits: Vec::new() },
        diff: String::new(),
    }
}

fn evaluation(mutant: &str, outcome: Outcome) -> Evaluation {
    Evaluation {
        mutant: mutant.into(),
        target: "cpu".into(),
        suite: "T1".into(),
        seed: 1,
        image: "i".into(),
        backend: "cpu:test".into(),
        outcome,
        crash: None,
        detail: None,
        tau: Some(0.0),
        max_abs: None,
        max_rel: None,
        nonfinite: false,
        shape_ok: true,
        canary: false,
        inputs_restored: false,
        kernel_ms: None,
        wall_ms: 1.0,
        orders: Vec::new(),
    }
}

fn step(mutant: &str, step: usize, tau: f64) -> StepError {
    StepError { mutant: mutant.into(), target: "cpu".into(), suite: "T1".into(), seed: 1, step, tau: Some(tau), rel_l2: Some(tau), frac_off: Some(0.5) }
}

#[test]
fn step_rows_round_trip_and_go_with_their_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let run = store.begin_run("test", "13.0", "").unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.put_mutants("L3p1_x", &[mutant("m")]).unwrap();
    let layout = StepLayout {
        substrate: "L3p1_x".into(),
        target: "cpu".into(),
        suite: "T1".into(),
        seed: 1,
        kernels: vec!["a_conv_kernel".into(), "b_relu_kernel".into()],
        kinds: vec![Some("conv".into()), None],
        reads: vec![vec![], vec![0]],
        keep: Keep::Host,
    };
    store.put_step_layout(&layout, run).unwrap();
    assert_eq!(store.step_layouts("L3p1_x", "cpu").unwrap(), [layout]);

    store.put_evaluations(&[evaluation("m", Outcome::Completed)], run).unwrap();
    store.put_step_errors(&[step("m", 0, 0.0), step("m", 1, f64::INFINITY)]).unwrap();
    let rows = store.step_errors("L3p1_x", "cpu").unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[1].tau, Some(f64::INFINITY), "an infinite tau* is stored as infinite, not lost");

    // The cell evaluated again (a crash this time): its old step rows are not left behind.
    store.put_evaluations(&[evaluation("m", Outcome::Crash)], run).unwrap();
    assert!(store.step_errors("L3p1_x", "cpu").unwrap().is_empty());

    // Pruning the mutant takes its rows with it.
    store.put_evaluations(&[evaluation("m", Outcome::Completed)], run).unwrap();
    store.put_step_errors(&[step("m", 0, 0.0)]).unwrap();
    store.put_mutants("L3p1_x", &[]).unwrap();
    store.prune(&[], false).unwrap();
    assert!(store.step_errors("L3p1_x", "cpu").unwrap().is_empty());
}

#[test]
fn a_step_row_without_its_evaluation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    store.put_substrate(&desc(), "h").unwrap();
    store.put_mutants("L3p1_x", &[mutant("m")]).unwrap();
    assert!(store.put_step_errors(&[step("m", 0, 0.0)]).is_err());
}
