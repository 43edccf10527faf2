//! Child processes that cannot outlive the orchestrator (the run's and the gate's workers, the
//! compile pool), and the scratch that runs killed before their cleanup left behind.
//!
//! A worker inside a hung kernel never reads its stdin again, so closing the pipe does not end
//! it; and a `kill -9` of the orchestrator runs no cleanup. The kernel itself must end the
//! child: `PR_SET_PDEATHSIG` asks Linux to send it SIGKILL when the thread that started it
//! exits. Each child also gets its own process group, so a Ctrl-C at the terminal reaches only
//! the orchestrator, which decides what to finish and what to abandon.

use std::process::Command;

/// Put `cmd`'s process in a process group of its own: a Ctrl-C at the terminal reaches only the
/// orchestrator, which decides what to finish and what to abandon.
pub fn own_process_group(cmd: &mut Command) {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        cmd.process_group(0);
    }
}

/// Make `cmd`'s process die (SIGKILL) with the thread that spawns it, and put it in a process
/// group of its own. Spawn from a thread that lives as long as the child should: Linux sends the
/// signal when that *thread* ends, not only when the process does.
pub fn die_with_parent(cmd: &mut Command) {
    own_process_group(cmd);
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt as _;
        {
            let parent = std::process::id();
            // SAFETY: between fork and exec only async-signal-safe calls are allowed; prctl,
            // getppid and _exit are.
            unsafe {
                cmd.pre_exec(move || {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    // The parent may have died before the prctl took effect.
                    if libc::getppid() as u32 != parent {
                        libc::_exit(1);
                    }
                    Ok(())
                });
            }
        }
    }
}

/// A scratch folder of a dead run, removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removed {
    pub path: std::path::PathBuf,
    pub bytes: u64,
}

/// Remove the folders `<prefix><pid>` in `dirs` whose process is gone: the scratch (inputs
/// drawn into RAM, tens of GiB) and temporary caches of runs killed before they could clean up.
/// A folder whose pid is alive is left alone, whoever runs under that pid now.
pub fn remove_dead_scratch(dirs: &[std::path::PathBuf], prefixes: &[&str]) -> Vec<Removed> {
    let mut removed = Vec::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = prefixes.iter().find_map(|p| name.strip_prefix(p)).and_then(|rest| rest.parse::<u32>().ok()) else { continue };
            if alive(pid) {
                continue;
            }
            let path = entry.path();
            let bytes = size(&path);
            if std::fs::remove_dir_all(&path).is_ok() {
                removed.push(Removed { path, bytes });
            }
        }
    }
    removed
}

fn alive(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(target_os = "linux")]
    {
        std::path::Path::new(&format!("/proc/{pid}")).exists()
    }
    #[cfg(not(target_os = "linux"))]
    {
        true // no cheap check: never remove
    }
}

fn size(path: &std::path::Path) -> u64 {
    let Ok(meta) = std::fs::symlink_metadata(path) else { return 0 };
    if !meta.is_dir() {
        return meta.len();
    }
    std::fs::read_dir(path).map_or(0, |rd| rd.flatten().map(|e| size(&e.path())).sum())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scratch_of_a_dead_run_is_removed_and_a_live_one_kept() {
        let dir = tempfile::tempdir().unwrap();
        let mut child = Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let dead_dir = dir.path().join(format!("kmut-run-{dead}"));
        std::fs::create_dir(&dead_dir).unwrap();
        std::fs::write(dead_dir.join("inputs.pt"), vec![0u8; 1000]).unwrap();
        let live_dir = dir.path().join(format!("kmut-run-{}", std::process::id()));
        std::fs::create_dir(&live_dir).unwrap();
        let other = dir.path().join("kmut-run-notapid");
        std::fs::create_dir(&other).unwrap();
        let removed = remove_dead_scratch(&[dir.path().to_path_buf()], &["kmut-run-cache-", "kmut-run-"]);
        assert_eq!(removed, vec![Removed { path: dead_dir.clone(), bytes: 1000 }]);
        assert!(!dead_dir.exists() && live_dir.exists() && other.exists());
    }

    #[test]
    fn a_child_dies_with_the_thread_that_started_it() {
        // A child that would sleep for a minute, started from a thread that then exits.
        let pid = std::thread::spawn(|| {
            let mut cmd = Command::new("sleep");
            cmd.arg("60");
            die_with_parent(&mut cmd);
            let child = cmd.spawn().unwrap();
            let pid = child.id();
            std::mem::forget(child);
            pid
        })
        .join()
        .unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        // Reaped by nobody, the killed child stays a zombie: gone means not running.
        let running = |pid: u32| std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| !s.contains(") Z "));
        while running(pid) && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(!running(pid), "the child outlived the thread that started it");
    }
}
