//! The Docker files, read as Docker would read them (no engine runs here;
//! `scripts/docker-check` builds and runs them on one): the build context
//! is what the Dockerfile copies and nothing else, the image's binary is
//! stripped, and the compose stack works as shipped: every secret required
//! from the environment with no default, the admin token among them, the
//! handler a service of its own, the operators' listener on 127.0.0.1.

use std::path::{Path, PathBuf};
use std::process::Command;

use globset::{GlobBuilder, GlobMatcher};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(name: &str) -> String {
    std::fs::read_to_string(root().join(name)).unwrap()
}

/// `.dockerignore` as Docker applies it: patterns in order, the last that
/// matches a path or one of its parent directories decides, `!` lets back
/// in, `*` stays within one path segment.
struct DockerIgnore(Vec<(bool, GlobMatcher)>);

impl DockerIgnore {
    fn load() -> Self {
        let patterns = read(".dockerignore")
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| {
                let (include, p) = match l.strip_prefix('!') {
                    Some(p) => (true, p),
                    None => (false, l),
                };
                // `*` stays within one segment, as in Go's filepath.Match.
                let glob = GlobBuilder::new(p.trim_matches('/'))
                    .literal_separator(true)
                    .build()
                    .unwrap()
                    .compile_matcher();
                (include, glob)
            })
            .collect();
        DockerIgnore(patterns)
    }

    /// Whether `path` (relative, `/`-separated) is sent to the builder.
    fn sends(&self, path: &str) -> bool {
        let prefixes: Vec<&str> = path
            .match_indices('/')
            .map(|(i, _)| &path[..i])
            .chain([path])
            .collect();
        let mut sent = true;
        for (include, glob) in &self.0 {
            if prefixes.iter().any(|p| glob.is_match(p)) {
                sent = *include;
            }
        }
        sent
    }
}

/// Every file under `dir`, relative to the root, but `skip`ped directories.
fn files(dir: &Path, skip: &[&str], out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let rel = path.strip_prefix(root()).unwrap().to_path_buf();
        if skip.iter().any(|s| rel == Path::new(s)) {
            continue;
        }
        if path.is_dir() {
            files(&path, skip, out);
        } else {
            out.push(rel);
        }
    }
}

/// The sources of the Dockerfile's `COPY` lines (not `COPY --from`).
fn copied() -> Vec<String> {
    read("Dockerfile")
        .lines()
        .filter_map(|l| l.strip_prefix("COPY "))
        .filter(|l| !l.starts_with("--from"))
        .flat_map(|l| {
            let mut parts: Vec<&str> = l.split_whitespace().collect();
            parts.pop(); // the destination
            parts.into_iter().map(str::to_owned).collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn the_build_context_is_what_the_dockerfile_copies() {
    let ignore = DockerIgnore::load();
    let copied = copied();
    assert!(copied.contains(&"src".to_owned()), "{copied:?}");
    for source in &copied {
        let path = root().join(source);
        let mut all = Vec::new();
        if path.is_dir() {
            files(&path, &[], &mut all);
        } else {
            all.push(PathBuf::from(source));
        }
        for f in all {
            let f = f.to_string_lossy().replace('\\', "/");
            assert!(ignore.sends(&f), "{f} is copied but not sent");
        }
    }
    for left_out in [
        "target/debug/hookline",
        "fuzz/target/x",
        "tests/browser/node_modules/playwright-core/package.json",
        "tests/vectors/stripe/vectors.json",
        "tests/captures/stripe/a.json",
        "data/hookline.db",
        ".git/HEAD",
        "docs/http.md",
        "bench/src/lib.rs",
        ".env",
    ] {
        assert!(!ignore.sends(left_out), "{left_out} is sent to the builder");
    }
    // What is sent, measured (target/ and .git/ are left out above).
    let mut all = Vec::new();
    files(root(), &["target", ".git", "fuzz/target"], &mut all);
    let bytes: u64 = all
        .iter()
        .filter(|f| ignore.sends(&f.to_string_lossy()))
        .map(|f| {
            std::fs::metadata(root().join(f))
                .map(|m| m.len())
                .unwrap_or(0)
        })
        .sum();
    assert!(bytes < 4 * 1024 * 1024, "a build context of {bytes} bytes");
}

#[test]
fn the_image_binary_is_stripped_from_the_first_build_on() {
    let dockerfile = read("Dockerfile");
    let strip = dockerfile
        .find("CARGO_PROFILE_RELEASE_STRIP=symbols")
        .expect("the release profile stripped");
    let debug = dockerfile
        .find("CARGO_PROFILE_RELEASE_DEBUG=false")
        .expect("no line tables");
    let first_build = dockerfile.find("cargo build").unwrap();
    assert!(
        strip < first_build && debug < first_build,
        "the dependency layer must be built with the same profile"
    );
}

/// The top-level names under `services:` in the compose file.
fn services(compose: &str) -> Vec<String> {
    let mut in_services = false;
    let mut out = Vec::new();
    for line in compose.lines() {
        if !line.starts_with(' ') && !line.is_empty() && !line.starts_with('#') {
            in_services = line.trim_end() == "services:";
            continue;
        }
        if in_services {
            if let Some(name) = line.strip_prefix("  ").and_then(|l| l.strip_suffix(':')) {
                if !name.starts_with([' ', '#']) {
                    out.push(name.to_owned());
                }
            }
        }
    }
    out
}

#[test]
fn the_compose_stack_requires_its_secrets_and_reaches_its_handler() {
    let compose = read("docker-compose.yml");
    // No secret falls back to a default: `${VAR:?reason}` refuses to start.
    for var in [
        "STRIPE_WEBHOOK_SECRET",
        "HOOKLINE_ADMIN_TOKEN",
        "BILLING_SIGNING_SECRET",
    ] {
        assert!(
            compose.contains(&format!("${{{var}:?")),
            "{var} is not required"
        );
        assert!(
            !compose.contains(&format!("${{{var}:-")) && !compose.contains(&format!("${{{var}-")),
            "{var} has a default"
        );
    }
    assert!(!compose.contains("replace_me"), "a placeholder secret");
    assert!(compose.contains("HOOKLINE__ADMIN__TOKEN: ${HOOKLINE_ADMIN_TOKEN:?"));
    // The operators' listener is published on this host only.
    let ops = compose
        .lines()
        .find(|l| l.contains(":9090\""))
        .expect("the ops port published");
    assert!(ops.contains("\"127.0.0.1:"), "{ops}");

    // Every handler examples/compose.toml delivers to is a service.
    let services = services(&compose);
    assert!(services.contains(&"receiver".to_owned()), "{services:?}");
    let config: toml::Value = toml::from_str(&read("examples/compose.toml")).unwrap();
    assert!(
        config["server"]["ops_listen"].as_str().is_some(),
        "the production layout"
    );
    let handlers = config["handlers"].as_table().expect("handlers");
    for (name, h) in handlers {
        let url = url::Url::parse(h["url"].as_str().unwrap()).unwrap();
        let host = url.host_str().unwrap();
        assert!(
            services.iter().any(|s| s == host),
            "handler {name} delivers to {host}, which is not a compose service ({services:?})"
        );
    }
    // The stand-in handler's script is the one the compose file mounts.
    assert!(compose.contains("./examples/billing.py:/billing.py:ro"));
    assert!(root().join("examples/billing.py").is_file());
}

#[test]
fn the_docker_check_script_parses() {
    let out = Command::new("bash")
        .args(["-n", "scripts/docker-check"])
        .current_dir(root())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
