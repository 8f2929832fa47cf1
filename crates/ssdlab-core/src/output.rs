//! Layer: units and errors (a leaf). The check that a file a run will write can be written,
//! made when the run is built, never at its end: a run that cannot save what it computed is
//! refused before it starts, not lost after it ends.

use std::path::Path;

/// Make sure `path` can be written: create its parent directories, refuse a path that is a
/// directory, and create and remove a probe file beside it (so a read-only directory is found
/// now). The file itself is left as it was. `Err` holds the reason, for a config problem.
pub fn check_output_path(path: &Path) -> std::result::Result<(), String> {
    if path.as_os_str().is_empty() {
        return Err("is empty: give a file path".into());
    }
    if path.is_dir() {
        return Err(format!("{} is a directory: give a file path", path.display()));
    }
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create the directory {}: {e}", dir.display()))?;
    let name = path.file_name().map_or("output".into(), |n| n.to_string_lossy().into_owned());
    let probe = dir.join(format!(".{name}.ssdlab-write-check-{}", std::process::id()));
    match std::fs::OpenOptions::new().write(true).create_new(true).open(&probe) {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(format!("cannot write in the directory {}: {e}", dir.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_directories_are_created_and_bad_paths_refused() {
        let root = std::env::temp_dir().join(format!("ssdlab-output-{}", std::process::id()));
        let path = root.join("a/b/q.json");
        assert_eq!(check_output_path(&path), Ok(()));
        assert!(root.join("a/b").is_dir() && !path.exists(), "the directory is made, the file is not");
        let message = check_output_path(&root.join("a")).unwrap_err();
        assert!(message.ends_with("is a directory: give a file path"), "{message}");
        std::fs::write(root.join("file"), b"x").unwrap();
        let message = check_output_path(&root.join("file/q.json")).unwrap_err();
        assert!(message.starts_with("cannot create the directory"), "{message}");
        assert!(std::fs::read_dir(root.join("a/b")).unwrap().next().is_none(), "no probe left behind");
        std::fs::remove_dir_all(&root).unwrap();
    }
}
