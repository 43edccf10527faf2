//! The one classifier from a candidate's check results to its verdict.

use crate::check::{Check, CheckResult, Status};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every check passed on a GPU: the candidate may be accepted.
    Pass,
    /// Everything that ran passed, but the GPU checks are still owed: no GPU was visible, or
    /// they ran on the CPU backend (`--backend cpu`), which is never acceptance evidence.
    PrecheckPass,
    /// Everything passed but the problem's own reference misses its fp64 evaluation.
    Unrefereeable,
    /// A check failed or was lost.
    Fail,
    /// The machine failed (out of memory, ...) even with the GPU to itself: no verdict on the
    /// candidate, which is neither accepted nor failed.
    Error,
}

impl Verdict {
    /// Classify a candidate from the results the worker reported. A check with no result (the
    /// worker died first) counts as lost, so a crash can never look like a pass. `PASS` needs
    /// every GPU check to have passed on a GPU: one that ran on the CPU backend only pre-checks.
    pub fn classify(results: &[CheckResult]) -> Verdict {
        let status = |c: Check| results.iter().find(|r| r.check == c).map_or(Status::Lost, |r| r.status);
        let statuses: Vec<(Check, Status)> = Check::ALL.iter().map(|&c| (c, status(c))).collect();
        // A failure of the machine is never a verdict: the checks after it were skipped for it.
        if statuses.iter().any(|(_, s)| *s == Status::Environment) {
            return Verdict::Error;
        }
        if statuses.iter().any(|(_, s)| matches!(s, Status::Fail | Status::Lost | Status::Skip)) {
            return Verdict::Fail;
        }
        let gpu_owed = results.iter().any(|r| r.check.needs_gpu() && r.ran_on_cpu());
        if gpu_owed || statuses.iter().any(|(_, s)| *s == Status::NoGpu) {
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
            Verdict::Error => "ERROR",
        }
    }

    /// Whether this verdict makes the gate exit non-zero: a check that ran and failed does;
    /// checks that could not run for lack of a GPU do not.
    pub fn is_failure(self) -> bool {
        matches!(self, Verdict::Fail | Verdict::Unrefereeable | Verdict::Error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(f: impl Fn(Check) -> Status) -> Vec<CheckResult> {
        Check::ALL.iter().map(|&c| CheckResult { check: c, status: f(c), detail: String::new(), data: serde_json::Value::Null }).collect()
    }

    /// What `kmut gate --backend cpu` reports: suites, NaN fill and determinism on the CPU
    /// backend with `status`, fp64 owed to the GPU.
    fn cpu_results(status: Status) -> Vec<CheckResult> {
        let mut r = results(|c| match c {
            Check::Fp64 => Status::NoGpu,
            c if c.needs_gpu() => status,
            _ => Status::Pass,
        });
        for x in r.iter_mut().filter(|x| x.check.needs_gpu() && x.check != Check::Fp64) {
            x.data = serde_json::json!({"backend": "cpu"});
        }
        r
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

    #[test]
    fn cpu_backend_checks_that_all_pass_are_a_precheck_pass_and_exit_zero() {
        let v = Verdict::classify(&cpu_results(Status::Pass));
        assert_eq!(v, Verdict::PrecheckPass);
        assert!(!v.is_failure());
    }

    #[test]
    fn cpu_backend_checks_never_make_a_pass_even_with_fp64_reported_passing() {
        // A worker that claimed fp64 too must still not be accepted on CPU evidence.
        let mut r = cpu_results(Status::Pass);
        r.iter_mut().find(|x| x.check == Check::Fp64).expect("fp64 is reported").status = Status::Pass;
        assert_eq!(Verdict::classify(&r), Verdict::PrecheckPass);
    }

    #[test]
    fn a_failed_cpu_backend_check_fails_the_candidate() {
        let mut r = cpu_results(Status::Pass);
        r.iter_mut().find(|x| x.check == Check::Determinism).expect("determinism is reported").status = Status::Fail;
        let v = Verdict::classify(&r);
        assert_eq!(v, Verdict::Fail);
        assert!(v.is_failure());
    }

    #[test]
    fn a_machine_failure_is_an_error_never_a_fail() {
        // Out of memory in the suites check: the later checks were skipped because of it.
        let v = Verdict::classify(&results(|c| match c {
            Check::Suites => Status::Environment,
            c if c.needs_gpu() => Status::Skip,
            _ => Status::Pass,
        }));
        assert_eq!(v, Verdict::Error);
        assert_eq!(v.label(), "ERROR");
    }

    #[test]
    fn only_backend_cpu_in_the_data_marks_a_check_as_run_on_the_cpu() {
        let mut r = results(|_| Status::Pass);
        r[0].data = serde_json::json!({"backend": "gpu"});
        assert!(!r[0].ran_on_cpu());
        assert_eq!(Verdict::classify(&r), Verdict::Pass);
    }
}
