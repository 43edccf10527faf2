//! NVRTC's log, parsed into diagnostics and rendered against the source with line numbers.
//!
//! NVRTC writes `name(LINE): error: message` followed by the line and a caret. A substrate's CUDA
//! lives inside a Python file, so rendering can shift line numbers by where the source starts
//! in that file, which is what an author needs to find the line.

use std::fmt::Write as _;

/// One `name(LINE): severity: message` entry of an NVRTC log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line in the compiled source.
    pub line: usize,
    /// `error` or `warning` (or whatever NVRTC printed).
    pub severity: String,
    pub message: String,
}

impl Diagnostic {
    /// Every diagnostic of a log, in order. Lines that are not diagnostics are skipped.
    pub fn parse_log(log: &str) -> Vec<Diagnostic> {
        log.lines().filter_map(Self::parse_line).collect()
    }

    fn parse_line(line: &str) -> Option<Diagnostic> {
        let open = line.find('(')?;
        let close = open + line[open..].find("): ")?;
        let number: usize = line[open + 1..close].parse().ok()?;
        let rest = &line[close + 3..];
        let (severity, message) = rest.split_once(": ")?;
        if severity.contains(' ') {
            return None;
        }
        Some(Diagnostic { line: number, severity: severity.to_owned(), message: message.to_owned() })
    }
}

/// Render a log as `file:LINE: severity: message` with the offending source line under each.
/// `line_offset` is added to NVRTC's line numbers (the line of `file` where the source starts,
/// minus one). A log with no parsable diagnostic is returned as it is.
pub fn render_log(log: &str, source: &str, file: &str, line_offset: usize) -> String {
    let diagnostics = Diagnostic::parse_log(log);
    if diagnostics.is_empty() {
        return log.trim_end().to_owned();
    }
    let lines: Vec<&str> = source.lines().collect();
    let mut out = String::new();
    for d in &diagnostics {
        let shown = d.line + line_offset;
        let _ = writeln!(out, "{file}:{shown}: {}: {}", d.severity, d.message);
        if let Some(text) = d.line.checked_sub(1).and_then(|i| lines.get(i)) {
            let _ = writeln!(out, "{shown:>6} | {text}");
        }
    }
    out.trim_end().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOG: &str = "cand.cu(3): error: identifier \"y\" is undefined\n    x[i] = y;\n           ^\n\n\
                       cand.cu(4): warning: variable \"z\" was declared but never referenced\n\n\
                       1 error detected in the compilation of \"cand.cu\".\n";

    #[test]
    fn parses_every_diagnostic_and_skips_context_lines() {
        let d = Diagnostic::parse_log(LOG);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0], Diagnostic { line: 3, severity: "error".into(), message: "identifier \"y\" is undefined".into() });
        assert_eq!(d[1].severity, "warning");
    }

    #[test]
    fn renders_source_line_shifted_to_the_python_file() {
        let src = "a\nb\n    x[i] = y;\nint z;\n";
        let text = render_log(LOG, src, "substrates/candidate_x.py", 10);
        assert!(text.starts_with("substrates/candidate_x.py:13: error: identifier \"y\" is undefined"), "{text}");
        assert!(text.contains("    13 |     x[i] = y;"), "{text}");
        assert!(text.contains("candidate_x.py:14: warning"), "{text}");
    }

    #[test]
    fn unparsable_log_is_returned_verbatim() {
        assert_eq!(render_log("something odd\n", "", "f", 0), "something odd");
    }
}
