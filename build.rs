//! Embeds every `providers/*.toml` in the binary: adding a built-in
//! provider is adding its file, nothing else.

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    // Read at run time, not baked in with env!: a build script binary may
    // be shared by checkouts that build into one target directory, and each
    // must embed its own providers/.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join("providers");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("providers/ is readable")
        .map(|e| e.expect("providers/ entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut out = String::from("&[\n");
    for path in files {
        let name = path.file_name().unwrap().to_string_lossy();
        writeln!(out, "    ({name:?}, include_str!({:?})),", path.display()).unwrap();
    }
    out.push(']');
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join("built_ins.rs");
    std::fs::write(dest, out).expect("write built_ins.rs");
}
