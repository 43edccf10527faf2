//! The depth analysis's per-step capture as the worker reports it (`python/kmut/steps.py`):
//! a column's step layout in its `column` event, each step's error in a `result` event.

use kmut_store::{Evaluation, Keep, StepError, StepLayout};
use serde_json::Value;

use crate::protocol::number;

/// The step layout of a `column` event's `steps` (`{"kernels", "kinds", "reads", "keep"}`);
/// `None` when it cannot be read (a worker run with `--no-steps` sends none).
pub(crate) fn layout(substrate: &str, target: &str, suite: &str, seed: u64, s: &Value) -> Option<StepLayout> {
    let strings = |k: &str| -> Option<Vec<Option<String>>> { Some(s.get(k)?.as_array()?.iter().map(|x| x.as_str().map(str::to_owned)).collect()) };
    let kernels: Vec<String> = strings("kernels")?.into_iter().collect::<Option<_>>()?;
    let kinds = strings("kinds")?;
    let reads: Vec<Vec<usize>> = s
        .get("reads")?
        .as_array()?
        .iter()
        .map(|r| r.as_array().map(|a| a.iter().filter_map(Value::as_u64).map(|x| x as usize).collect()))
        .collect::<Option<_>>()?;
    let keep = Keep::parse(s.get("keep")?.as_str()?)?;
    (kinds.len() == kernels.len() && reads.len() == kernels.len()).then(|| StepLayout {
        substrate: substrate.to_owned(),
        target: target.to_owned(),
        suite: suite.to_owned(),
        seed,
        kernels,
        kinds,
        reads,
        keep,
    })
}

/// The step rows of a `result` event's `steps` (`[[tau, rel_l2, frac_off], ...]`), one per step,
/// for the evaluation `e` they were captured with; none when they are not a list.
pub(crate) fn rows(e: &Evaluation, steps: &Value) -> Vec<StepError> {
    let Some(steps) = steps.as_array() else { return Vec::new() };
    steps
        .iter()
        .enumerate()
        .map(|(step, row)| {
            let at = |k: usize| number(row.as_array().and_then(|a| a.get(k)));
            StepError {
                mutant: e.mutant.clone(),
                target: e.target.clone(),
                suite: e.suite.clone(),
                seed: e.seed,
                step,
                tau: at(0),
                rel_l2: at(1),
                frac_off: at(2),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kmut_model::Outcome;

    fn eval() -> Evaluation {
        Evaluation {
            mutant: "m".into(),
            target: "cpu".into(),
            suite: "T1".into(),
            seed: 1,
            image: "i".into(),
            backend: "cpu:x".into(),
            outcome: Outcome::Completed,
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

    #[test]
    fn one_row_per_reported_step_with_infinities_kept() {
        let v: Value = serde_json::from_str(r#"[[0.0, 0.0, 0.0], ["inf", "inf", 1.0], [0.5, 0.25, 0.125]]"#).unwrap();
        let r = rows(&eval(), &v);
        assert_eq!(r.len(), 3);
        assert_eq!(r.iter().map(|s| s.step).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(r[1].tau, Some(f64::INFINITY));
        assert_eq!((r[2].tau, r[2].rel_l2, r[2].frac_off), (Some(0.5), Some(0.25), Some(0.125)));
        assert!(rows(&eval(), &serde_json::json!({"tau": 0.0})).is_empty());
    }

    #[test]
    fn a_layout_needs_every_list_the_same_length() {
        let good = serde_json::json!({"kernels": ["a", "b"], "kinds": ["conv", null], "reads": [[], [0]], "keep": "host"});
        let l = layout("s", "cpu", "T1", 1, &good).unwrap();
        assert_eq!((l.kinds[1].clone(), l.reads[1].clone(), l.keep), (None, vec![0], Keep::Host));
        let bad = serde_json::json!({"kernels": ["a", "b"], "kinds": ["conv"], "reads": [[], [0]], "keep": "device"});
        assert!(layout("s", "cpu", "T1", 1, &bad).is_none());
        assert!(layout("s", "cpu", "T1", 1, &serde_json::json!({})).is_none());
    }
}
