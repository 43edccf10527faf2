//! Exit codes, one per outcome. Documented in `docs/cli.md`.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ExitStatus {
    /// Everything that ran succeeded (for the gate: no check that ran failed).
    Success = 0,
    /// The command ran and found failures (for the gate: a candidate failed a check).
    Failure = 1,
    /// kmut itself could not do its work (bad files, I/O errors).
    Error = 2,
    /// The command line could not be parsed.
    Usage = 64,
    /// Interrupted (Ctrl-C); what finished is stored and a re-run resumes.
    Interrupted = 130,
}
