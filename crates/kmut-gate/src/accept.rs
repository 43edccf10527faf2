//! Accepting a candidate: moving it to `accepted/<name>.py` beside its folder.

use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    #[error("`{target}` already exists; remove it first to replace the accepted substrate")]
    Exists { target: PathBuf },
    #[error("could not move `{from}` to `{to}`")]
    Move {
        from: PathBuf,
        to: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Move `path` to `<accepted_dir>/<name>.py`. A file already in place is left alone and
/// reported as accepted (re-gating an accepted substrate is a no-op).
pub fn accept(path: &Path, name: &str, accepted_dir: &Path) -> Result<PathBuf, AcceptError> {
    let target = accepted_dir.join(format!("{name}.py"));
    let same = |a: &Path, b: &Path| match (fs_err::canonicalize(a), fs_err::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same(path, &target) {
        return Ok(target);
    }
    if target.exists() {
        return Err(AcceptError::Exists { target });
    }
    let moved = fs_err::create_dir_all(accepted_dir).and_then(|()| fs_err::rename(path, &target));
    moved.map_err(|source| AcceptError::Move { from: path.to_path_buf(), to: target.clone(), source })?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moves_the_candidate_to_its_accepted_name() {
        let dir = tempfile::tempdir().unwrap();
        let cand = dir.path().join("candidate_L1p19_relu.py");
        fs_err::write(&cand, "x = 1\n").unwrap();
        let target = accept(&cand, "L1p19_relu", &dir.path().join("accepted")).unwrap();
        assert_eq!(target, dir.path().join("accepted/L1p19_relu.py"));
        assert!(!cand.exists());
        assert_eq!(fs_err::read_to_string(target).unwrap(), "x = 1\n");
    }

    #[test]
    fn refuses_to_overwrite_a_different_accepted_file() {
        let dir = tempfile::tempdir().unwrap();
        let accepted = dir.path().join("accepted");
        fs_err::create_dir_all(&accepted).unwrap();
        fs_err::write(accepted.join("L1p19_relu.py"), "old\n").unwrap();
        let cand = dir.path().join("candidate_L1p19_relu.py");
        fs_err::write(&cand, "new\n").unwrap();
        let err = accept(&cand, "L1p19_relu", &accepted).unwrap_err();
        assert!(err.to_string().contains("already exists"), "{err}");
        assert!(cand.exists());
    }

    #[test]
    fn regating_an_accepted_file_is_a_no_op() {
        let dir = tempfile::tempdir().unwrap();
        let accepted = dir.path().join("accepted");
        fs_err::create_dir_all(&accepted).unwrap();
        let file = accepted.join("L1p19_relu.py");
        fs_err::write(&file, "x\n").unwrap();
        assert_eq!(accept(&file, "L1p19_relu", &accepted).unwrap(), file);
        assert!(file.exists());
    }
}
