//! `ferry ls` as a process: output, options, errors and exit codes.

use std::ffi::OsString;
use std::fs::{self, File};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use ferry_tests::TempTree;

use super::{ferry, run_ferry, run_ferry_unprivileged};

/// Exit status of a command refused before doing anything (`ferry_app::cli::EXIT_REFUSED`).
const REFUSED: i32 = 2;

fn stdout_lines(out: &Output) -> Vec<&[u8]> {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
        .strip_suffix(b"\n")
        .unwrap_or(&out.stdout)
        .split(|&b| b == b'\n')
        .collect()
}

/// The name column of the human output (the last field; names here have no spaces).
fn listed_names(out: &Output) -> Vec<Vec<u8>> {
    stdout_lines(out)
        .iter()
        .map(|line| line.rsplit(|&b| b == b' ').next().unwrap().to_vec())
        .collect()
}

fn json(out: &Output) -> Vec<serde_json::Value> {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<serde_json::Value>(&out.stdout)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn assert_refused(out: &Output, path: &Path, reason: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(REFUSED), "stderr: {stderr}");
    assert!(out.stdout.is_empty());
    assert!(
        stderr.contains(&*path.to_string_lossy()),
        "names the path: {stderr}"
    );
    assert!(stderr.contains(reason), "says why ({reason}): {stderr}");
}

fn set_mtime(path: &Path, secs_ago: u64) {
    let when = SystemTime::now() - Duration::from_secs(secs_ago);
    File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(when)
        .unwrap();
}

/// A folder with a subfolder, files of distinct sizes, ages and extensions, and a dotfile.
fn sample() -> TempTree {
    let tree = TempTree::new();
    tree.dir("s/zfolder");
    for (name, size, age) in [("b.txt", 30, 100), ("a.rs", 10, 300), ("c.md", 20, 200)] {
        set_mtime(&tree.file(format!("s/{name}"), vec![b'x'; size]), age);
    }
    tree.file("s/.hidden", "");
    tree
}

fn ls(tree: &TempTree, args: &[&str]) -> Vec<Vec<u8>> {
    let mut all: Vec<OsString> = vec!["ls".into()];
    all.extend(args.iter().map(OsString::from));
    all.push(tree.join("s").into_os_string());
    listed_names(&run_ferry(all))
}

#[test]
fn lists_folders_first_then_natural_name_order_hiding_dotfiles() {
    let tree = sample();
    tree.file("s/file10", "");
    tree.file("s/file9", "");
    let names = ls(&tree, &[]);
    assert_eq!(
        names,
        [
            &b"zfolder"[..],
            b"a.rs",
            b"b.txt",
            b"c.md",
            b"file9",
            b"file10"
        ]
    );
    let out = run_ferry(["ls".as_ref(), tree.join("s").as_os_str()]);
    let first = String::from_utf8_lossy(stdout_lines(&out)[0]).into_owned();
    assert!(first.starts_with("drwx"), "{first}");
    let second = String::from_utf8_lossy(stdout_lines(&out)[1]).into_owned();
    assert!(
        second.starts_with("-rw-") && second.contains(" 10 "),
        "mode and size: {second}"
    );
}

#[test]
fn all_shows_dotfiles() {
    let tree = sample();
    assert!(!ls(&tree, &[]).contains(&b".hidden".to_vec()));
    assert!(ls(&tree, &["-a"]).contains(&b".hidden".to_vec()));
    assert!(ls(&tree, &["--all"]).contains(&b".hidden".to_vec()));
}

#[test]
fn sort_keys_and_reverse() {
    let tree = sample();
    let order = |args: &[&str]| -> Vec<String> {
        ls(&tree, args)
            .into_iter()
            .map(|n| String::from_utf8(n).unwrap())
            .collect()
    };
    assert_eq!(
        order(&["--sort", "size"]),
        ["zfolder", "a.rs", "c.md", "b.txt"]
    );
    assert_eq!(
        order(&["--sort", "size", "--reverse"]),
        ["zfolder", "b.txt", "c.md", "a.rs"]
    );
    assert_eq!(
        order(&["--sort", "mtime"]),
        ["zfolder", "a.rs", "c.md", "b.txt"]
    );
    assert_eq!(
        order(&["--sort", "type"]),
        ["zfolder", "c.md", "a.rs", "b.txt"]
    );
    assert_eq!(order(&["--reverse"]), ["zfolder", "c.md", "b.txt", "a.rs"]);
}

#[test]
fn json_output_parses_and_keeps_non_utf8_names() {
    let tree = sample();
    tree.file_bytes_name("s", b"caf\xe9", b"");
    tree.symlink("s/broken", "nowhere");
    tree.symlink("s/to-b", "b.txt");
    let out = run_ferry([
        "ls".as_ref(),
        "--json".as_ref(),
        "-a".as_ref(),
        tree.join("s").as_os_str(),
    ]);
    let entries = json(&out);
    assert_eq!(entries.len(), 8);
    let by_name = |name: &str| entries.iter().find(|e| e["name"] == name).unwrap();
    let folder = by_name("zfolder");
    assert_eq!(folder["kind"], "dir");
    assert_eq!(folder["mode_string"].as_str().unwrap().as_bytes()[0], b'd');
    let file = by_name("b.txt");
    assert_eq!(
        (file["kind"].as_str(), file["size"].as_u64()),
        (Some("file"), Some(30))
    );
    assert!(file["mtime"].as_i64().unwrap() > 0);
    assert_eq!(file["mode"].as_u64(), Some(0o644));
    assert!(
        file.get("name_bytes").is_none(),
        "only for names that are not UTF-8"
    );
    assert_eq!(by_name(".hidden")["hidden"], true);
    let link = by_name("broken");
    assert_eq!(link["kind"], "symlink");
    assert!(link["target_kind"].is_null());
    assert_eq!(link["followed"], false, "the size is the link's own");
    // A link to a file has the file's size and time, and says so: which it was, a reader
    // of the JSON could not tell.
    let link = by_name("to-b");
    assert_eq!(
        (link["target_kind"].as_str(), link["followed"].as_bool()),
        (Some("file"), Some(true))
    );
    assert_eq!(link["size"], file["size"]);
    assert!(file.get("followed").is_none(), "only for links");
    let odd = entries
        .iter()
        .find(|e| e.get("name_bytes").is_some())
        .unwrap();
    let bytes: Vec<u8> = odd["name_bytes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b.as_u64().unwrap() as u8)
        .collect();
    assert_eq!(bytes, b"caf\xe9");
}

#[test]
fn names_are_written_as_their_bytes() {
    let tree = sample();
    tree.file_bytes_name("s", b"caf\xe9", b"");
    let names = ls(&tree, &[]);
    assert!(names.contains(&b"caf\xe9".to_vec()), "{names:?}");
}

#[test]
fn a_relative_folder_and_a_symlinked_folder_are_listed() {
    let tree = sample();
    let link = tree.symlink("link", "s");
    let out = ferry()
        .current_dir(tree.path())
        .args(["ls", "s"])
        .output()
        .unwrap();
    assert_eq!(listed_names(&out).len(), 4);
    assert_eq!(
        listed_names(&run_ferry(["ls".as_ref(), link.as_os_str()])).len(),
        4
    );
}

#[test]
fn a_missing_path_is_refused() {
    let tree = TempTree::new();
    let missing = tree.join("no-such-folder");
    let out = run_ferry(["ls".as_ref(), missing.as_os_str()]);
    assert_refused(&out, &missing, "No such file or directory");
}

#[test]
fn a_file_is_listed_as_itself_under_the_name_given_and_file_slash_is_refused() {
    let tree = TempTree::new();
    let file = tree.file(".plain.txt", "hello");
    // As `ls -l FILE`: one line, the name as given, hidden or not.
    let out = ferry()
        .current_dir(tree.path())
        .args(["ls", ".plain.txt"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 1);
    assert!(lines[0].starts_with(b"-rw"));
    assert!(
        lines[0].ends_with(b" .plain.txt"),
        "{:?}",
        String::from_utf8_lossy(lines[0])
    );
    let out = run_ferry(["ls".as_ref(), "--json".as_ref(), file.as_os_str()]);
    let items = json(&out);
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["name"], file.to_str().unwrap());
    assert_eq!(
        (items[0]["kind"].as_str(), items[0]["size"].as_u64()),
        (Some("file"), Some(5))
    );
    // A final slash asks for a folder.
    let slash = tree.join(".plain.txt/");
    let out = run_ferry(["ls".as_ref(), slash.as_os_str()]);
    assert_refused(&out, &file, "not a folder");
    // A link that leads nowhere is listed, as `ls -l` lists it; what is not there is not.
    let dangling = tree.symlink("dangling", "/nowhere/at/all");
    let out = run_ferry(["ls".as_ref(), dangling.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let lines = stdout_lines(&out);
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with(b"l"),
        "{:?}",
        String::from_utf8_lossy(lines[0])
    );
    let missing = tree.join("missing");
    let out = run_ferry(["ls".as_ref(), missing.as_os_str()]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// A folder `name` of root's in `tree` (made 0755, so that another user reaches it), holding
/// the empty `files`, with `mode`.
fn root_folder(tree: &TempTree, name: &str, files: &[&str], mode: u32) -> PathBuf {
    fs::set_permissions(tree.path(), fs::Permissions::from_mode(0o755)).unwrap();
    let folder = tree.dir(name);
    for file in files {
        tree.file(format!("{name}/{file}"), "");
    }
    fs::set_permissions(&folder, fs::Permissions::from_mode(mode)).unwrap();
    folder
}

#[test]
fn an_unreadable_folder_is_refused_for_another_user() {
    // Root ignores permissions, so the command runs as user 65534, who can reach the folder
    // (the tree is 0755) but not read it (0700, owned by root).
    let tree = TempTree::new();
    let private = root_folder(&tree, "private", &["secret"], 0o700);
    let out = run_ferry_unprivileged(["ls".as_ref(), private.as_os_str()]);
    assert_refused(&out, &private, "Permission denied");
    // The same user can list the readable parent.
    let parent = run_ferry_unprivileged(["ls".as_ref(), tree.path().as_os_str()]);
    assert_eq!(listed_names(&parent), [b"private".to_vec()]);
}

/// A folder another user may read but not search (0744): its names are listed with `?` for
/// what cannot be read, each such entry named with the reason, and the status is 1, as with
/// `ls -l` (the hidden one only with `--all`).
#[test]
fn entries_whose_details_cannot_be_read_are_named_and_fail_the_listing() {
    let tree = TempTree::new();
    let unsearchable = root_folder(&tree, "unsearchable", &["a", ".h"], 0o744);
    for (all, named) in [(false, 1), (true, 2)] {
        let mut args = vec!["ls".as_ref(), unsearchable.as_os_str()];
        if all {
            args.push("--all".as_ref());
        }
        let out = run_ferry_unprivileged(args);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        assert!(out.stdout.starts_with(b"-?????????"), "{out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let reason = format!(
            "cannot access {}: Permission denied",
            unsearchable.join("a").display()
        );
        assert!(stderr.contains(&reason), "{stderr}");
        assert_eq!(stderr.lines().count(), named, "{stderr}");
    }
}

/// A stat that fails once and would succeed if asked again (a file replaced at that moment)
/// is reported with the error it gave, not left unexplained: the failure is made with
/// `strace`'s fault injection on the stat of `b` alone.
#[test]
fn a_stat_that_failed_once_is_named_with_its_own_error() {
    let tree = TempTree::new();
    for name in ["a", "b", "c"] {
        tree.file(format!("d/{name}"), name);
    }
    let dir = tree.join("d");
    let ls = |strace_args: &[&str]| {
        std::process::Command::new("strace")
            .args(["-f", "-qq", "-e", "trace=statx"])
            .args(strace_args)
            .arg(env!("CARGO_BIN_EXE_ferry-under-test"))
            .arg("ls")
            .arg(&dir)
            .output()
            .expect("strace is installed (.ci/run installs it)")
    };
    // Which of its thread's stats is the one of `b`: strace counts calls per thread.
    let log = tree.join("statx.log");
    let traced = ls(&["-o", log.to_str().unwrap()]);
    assert!(traced.status.success(), "{traced:?}");
    let log = fs::read_to_string(&log).unwrap();
    let of_b = log
        .lines()
        .position(|l| l.contains("statx(") && l.contains(", \"b\","));
    let of_b = of_b.unwrap_or_else(|| panic!("no stat of b in {log}"));
    let tid = log
        .lines()
        .nth(of_b)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap();
    let when = (log.lines().take(of_b + 1))
        .filter(|l| l.split_whitespace().next() == Some(tid) && l.contains("statx("))
        .count();
    let inject = format!("inject=statx:error=EACCES:when={when}");
    let out = ls(&["-o", "/dev/null", "-e", &inject]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("-?????????") && l.ends_with("  b")),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let reason = format!(
        "cannot access {}: Permission denied",
        dir.join("b").display()
    );
    assert!(stderr.contains(&reason), "{stderr}");
}

#[test]
fn bad_usage_is_refused() {
    let out = run_ferry(["ls", "--sort", "colour", "/"]);
    assert_eq!(out.status.code(), Some(REFUSED));
    assert!(String::from_utf8_lossy(&out.stderr).contains("colour"));
    assert_eq!(run_ferry(["ls"]).status.code(), Some(REFUSED));
}

/// As `ls -l`: a link's line ends with where it points, read without following it; JSON says
/// so in `"target"`, with its bytes when they are not UTF-8.
#[test]
fn a_links_line_says_where_it_points() {
    let tree = TempTree::new();
    tree.file("d/file.txt", "12345");
    tree.symlink("d/to-file", "file.txt");
    tree.symlink("d/broken", "../no where");
    let odd = tree.join("d/odd");
    std::os::unix::fs::symlink(std::ffi::OsStr::from_bytes(b"caf\xe9"), &odd).unwrap();
    let out = run_ferry(["ls".as_ref(), tree.join("d").as_os_str()]);
    let lines = stdout_lines(&out);
    let ends = |suffix: &[u8]| lines.iter().any(|line| line.ends_with(suffix));
    assert!(ends(b"  to-file -> file.txt"), "{out:?}");
    assert!(ends(b"  broken -> ../no where"), "{out:?}");
    assert!(ends(b"  odd -> caf\xe9"), "{out:?}");
    assert!(ends(b"  file.txt"), "{out:?}");
    let out = run_ferry(["ls".as_ref(), "--json".as_ref(), tree.join("d").as_os_str()]);
    let entries = json(&out);
    let by_name = |name: &str| entries.iter().find(|e| e["name"] == name).unwrap();
    assert_eq!(by_name("to-file")["target"], "file.txt");
    assert_eq!(by_name("broken")["target"], "../no where");
    assert!(
        by_name("file.txt").get("target").is_none(),
        "only for links"
    );
    assert!(by_name("broken").get("target_bytes").is_none());
    assert_eq!(
        by_name("odd")["target_bytes"],
        serde_json::json!([99, 97, 102, 233])
    );
    // Named as given, relative to where ferry runs.
    let out = ferry()
        .current_dir(tree.join("d"))
        .args(["ls", "to-file"])
        .output()
        .unwrap();
    assert!(
        stdout_lines(&out)[0].ends_with(b"  to-file -> file.txt"),
        "{out:?}"
    );
}

#[test]
fn names_with_spaces_are_written_whole() {
    let tree = TempTree::new();
    tree.file("d/two words", "");
    let out = run_ferry(["ls".as_ref(), tree.join("d").as_os_str()]);
    assert!(
        out.stdout.ends_with(b"  two words\n"),
        "{:?}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// A mistyped command is said to be one, not taken for a folder the window cannot open.
#[test]
fn a_mistyped_command_is_refused_as_neither_command_nor_folder() {
    let t = TempTree::new();
    let out = ferry().current_dir(t.path()).arg("lss").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("'lss' is neither a command nor a folder"),
        "{stderr}"
    );
}

/// On a terminal (here `script`'s), a name's escape sequence is shown escaped: in the listing
/// quoted as `ls` quotes it there, in an error as `\x1b`; into a pipe, as its bytes.
#[test]
fn escape_sequences_in_names_are_shown_escaped_on_a_terminal() {
    let t = TempTree::new();
    t.file("s/a\x1b[2Jb", "");
    let program = env!("CARGO_BIN_EXE_ferry-under-test");
    let dir = t.join("s").display().to_string();
    let missing = t.join("gone\x1b]0;x\x07");
    let shell = format!(
        "'{program}' ls '{dir}'; '{program}' ls '{}'",
        missing.display()
    );
    let mut script = std::process::Command::new("script");
    script.args(["-qec", &shell, "/dev/null"]);
    let Ok(out) = super::isolate(&mut script).output() else {
        eprintln!("note: no `script` (util-linux) to give ferry a terminal; test skipped");
        return;
    };
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(
        !shown.contains('\x1b') && !shown.contains('\x07'),
        "{shown:?}"
    );
    assert!(shown.contains("  'a'$'\\033''[2Jb'\r\n"), "{shown:?}");
    assert!(shown.contains("gone\\x1b]0;x\\x07"), "{shown:?}");
    assert_eq!(
        ls(&t, &[]),
        [b"a\x1b[2Jb".to_vec()],
        "a pipe gets the bytes"
    );
}
