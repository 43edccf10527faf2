//! The one classifier from a candidate's check results to its verdict.

use crate::check::{Check, CheckResult, Status};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every check passed on a GPU: the candidate may be accepted.
    Pass,
    /// Everything that runs without a GPU passed; the GPU checks are still owed.
    PrecheckPass,
    /// Everything passed but the problem's own reference misses its fp64 evaluation.
    Unrefereeable,
    /// A check failed or was lost.
    Fail,
}

impl Verdict {
    /// Classify a candidate from the results the worker reported. A check with no result (the
    /// worker died first) counts as lost, so a crash can never look like a pass.
    pub fn classify(results: &[CheckResult]) -> Verdict {
        let status = |c: Check| results.iter().find(|r| r.check == c).map_or(Status::Lost, |r| r.status);
        let statuses: Vec<(Check, Status)> = Check::ALL.iter().map(|&c| (c, status(c))).collect();
        if statuses.iter().any(|(_, s)| matches!(s, Status::Fail | Status::Lost | Status::Skip)) {
            return Verdict::Fail;
        }
        if statuses.iter().any(|(_, s)| *s == Status::NoGpu) {
            return Verdict::PrecheckPass;
        }
        if statuses.iter().any(|(_, s)| *s == Status::Unrefereeable) {
            return Verdict::Unrefereeable;
        }
        Verdict::Pass
    }

    pub fn label(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::PrecheckPass => "PRECHECK OK",
            Verdict::Unrefereeable => "UNREFEREEABLE",
            Verdict::Fail => "FAIL",
        }
    }

    /// Whether this verdict makes the gate exit non-zero: a check that ran and failed does;
    /// checks that could not run for lack of a GPU do not.
    pub fn is_failure(self) -> bool {
        matches!(self, Verdict::Fail | Verdict::Unrefereeable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(f: impl Fn(Check) -> Status) -> Vec<CheckResult> {
        Check::ALL.iter().map(|&c| CheckResult { check: c, status: f(c), detail: String::new(), data: serde_json::Value::Null }).collect()
    }

    #[test]
    fn all_pass_is_pass() {
        assert_eq!(Verdict::classify(&results(|_| Status::Pass)), Verdict::Pass);
    }

    #[test]
    fn gpu_checks_missing_for_lack_of_gpu_is_precheck_pass_and_not_a_failure() {
        let v = Verdict::classify(&results(|c| if c.needs_gpu() { Status::NoGpu } else { Status::Pass }));
        assert_eq!(v, Verdict::PrecheckPass);
        assert!(!v.is_failure());
    }

    #[test]
    fn a_missing_result_counts_as_lost_and_fails() {
        let mut r = results(|_| Status::Pass);
        r.pop();
        assert_eq!(Verdict::classify(&r), Verdict::Fail);
    }

    #[test]
    fn unrefereeable_reference_is_its_own_verdict() {
        let v = Verdict::classify(&results(|c| if c == Check::Fp64 { Status::Unrefereeable } else { Status::Pass }));
        assert_eq!(v, Verdict::Unrefereeable);
        assert!(v.is_failure());
    }

    #[test]
    fn any_failure_wins_over_no_gpu() {
        let v = Verdict::classify(&results(|c| match c {
            Check::Compile => Status::Fail,
            c if c.needs_gpu() => Status::NoGpu,
            _ => Status::Pass,
        }));
        assert_eq!(v, Verdict::Fail);
    }
}
