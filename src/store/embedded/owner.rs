//! One `serve` owns an embedded store's file. SQLite's own locking lets a
//! second process open it and start silently, and then two receivers (or
//! two sets of workers) would share one file that each process believes it
//! owns: its write lane, its hand-off of leased deliveries. So `serve` takes
//! an exclusive lock beside the file for each part it runs, the receiver
//! and the workers (`serve --role receiver` and `--role workers` may split
//! one file between them, as two processes), and a second `serve` that
//! would run a part already running refuses to start, saying which process
//! holds it.
//!
//! The locks are `flock`s on `FILE.receiver.lock` and `FILE.workers.lock`:
//! the kernel releases them when the process ends, however it ends
//! (`kill -9` included), so a crash leaves nothing to clean up. The CLI's
//! other commands (`events`, `dead-letters`, `migrate`) take no lock: they
//! are short, and SQLite serialises their writes with the server's.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The locks held; released when dropped (at the process's end).
#[derive(Debug)]
pub struct Owner {
    _locks: Vec<File>,
}

/// Why the file could not be owned.
#[derive(Debug, thiserror::Error)]
pub enum OwnerError {
    #[error(
        "the embedded store {db} is already served by another process{pid} (it holds {lock}): \
         one process owns the file's {part}. Stop that process first, or use the redis store \
         (kind = \"redis\") to run several receivers"
    )]
    Taken {
        db: String,
        lock: String,
        part: &'static str,
        pid: String,
    },
    #[error("cannot lock {lock}: {source}")]
    Io {
        lock: String,
        #[source]
        source: std::io::Error,
    },
}

fn lock_path(db: &Path, part: &str) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(format!(".{part}.lock"));
    PathBuf::from(name)
}

/// Own `parts` (`"receiver"`, `"workers"`) of the store at `db`.
pub fn claim(db: &Path, parts: &[&'static str]) -> Result<Owner, OwnerError> {
    if let Some(dir) = db.parent().filter(|d| !d.as_os_str().is_empty()) {
        // The store creates its directory too; the locks come first.
        let _ = std::fs::create_dir_all(dir);
    }
    let mut locks = Vec::new();
    for &part in parts {
        let path = lock_path(db, part);
        let io = |source| OwnerError::Io {
            lock: path.display().to_string(),
            source,
        };
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(OwnerError::Taken {
                    db: db.display().to_string(),
                    lock: path.display().to_string(),
                    part,
                    pid: if holder.is_empty() {
                        String::new()
                    } else {
                        format!(" (pid {holder})")
                    },
                });
            }
            Err(TryLockError::Error(e)) => return Err(io(e)),
        }
        // Who holds it, for the message of the next process that tries.
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        write!(file, "{}", std::process::id()).map_err(io)?;
        locks.push(file);
    }
    Ok(Owner { _locks: locks })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_owned_once_and_released_with_its_owner() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("sub/hookline.db");
        let all = claim(&db, &["receiver", "workers"]).unwrap();
        let e = claim(&db, &["receiver"]).unwrap_err().to_string();
        assert!(e.contains("already served by another process"), "{e}");
        assert!(e.contains(&format!("(pid {})", std::process::id())), "{e}");
        assert!(e.contains("hookline.db.receiver.lock"), "{e}");
        drop(all);
        let receiver = claim(&db, &["receiver"]).unwrap();
        let _workers = claim(&db, &["workers"]).expect("the other part, apart");
        drop(receiver);
    }
}
