//! Listing workloads (issues 2 and 9): cold and warm listings against `ls -l`, bytes per entry,
//! the peak memory of `ferry ls`, and the memory still held after walking twelve big folders.
//!
//! Ferry's in-process arm lists through [`DirService`], exactly as the window does: the time
//! runs from `open` to the `Loaded` event, which carries the complete listing and its sorted
//! order. Its process arm is `ferry ls DIR` (the core's lister and sort without the service, which
//! a snapshot does not need, then one line per entry, output to `/dev/null` like `ls -l`'s). "Cold" means a fresh service (nothing in Ferry's cache); the
//! kernel's page and inode caches are warm for every tool alike, since dropping them needs root
//! and would measure the disk, not the tools. "Warm" has no process arm: a new process has
//! nothing cached.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use crossbeam_channel::Receiver;
use ferry_core::dirs::{DirEvent, DirService, ViewId};
use ferry_core::entry::Listing;
use ferry_core::sort::SortSpec;
use serde_json::{Value, json};

use super::area::Area;
use super::fixtures;
use super::harness::{self, Comparison, FerryCommand, Goal, Measured, Resident, Tool};

/// Files in the memory probe's big warm-up folder: enough for the lister's helper thread and
/// the two-thread sort.
const WARMUP_FILES: usize = 5_000;
/// The view id the benchmark uses; it is the only view of its service.
const VIEW: ViewId = 1;
/// Longest wait for one listing before the benchmark gives up.
const PATIENCE: Duration = Duration::from_secs(120);

/// The peer of every listing workload.
pub(super) const LS: &str = "ls -l";

/// A finished listing, as the window receives it.
struct Loaded {
    listing: Arc<Listing>,
    order: Arc<[u32]>,
    from_cache: bool,
}

/// Opens `dir` in the benchmark's view and waits for its `Loaded` event (batches are received
/// and dropped, as a view that is not drawing would).
fn open_and_wait(service: &DirService, events: &Receiver<DirEvent>, dir: &Path) -> Result<Loaded> {
    let generation = service.open(VIEW, dir.to_owned(), SortSpec::default());
    loop {
        match events
            .recv_timeout(PATIENCE)
            .context("the listing service did not answer")?
        {
            DirEvent::Loaded {
                generation: g,
                listing,
                order,
                from_cache,
                ..
            } if g == generation => {
                return Ok(Loaded {
                    listing,
                    order,
                    from_cache,
                });
            }
            DirEvent::Failed {
                generation: g,
                error,
                ..
            } if g == generation => {
                bail!("cannot list {}: {error}", dir.display())
            }
            _ => {}
        }
    }
}

/// Fails unless `loaded` holds exactly `files` entries, all in its order.
fn check(loaded: &Loaded, files: usize, dir: &Path) -> Result<()> {
    ensure!(
        loaded.listing.len() == files && loaded.order.len() == files,
        "listing {} gave {} entries ({} ordered), expected {files}",
        dir.display(),
        loaded.listing.len(),
        loaded.order.len()
    );
    Ok(())
}

fn ls(dir: &Path) -> Command {
    let mut cmd = Command::new("ls");
    cmd.arg("-l").arg(dir);
    cmd
}

/// `list-Nk-cold`: a complete, sorted listing by a fresh service, against `ls -l`.
pub(super) struct ListCold {
    dir: PathBuf,
    files: usize,
    ferry: FerryCommand,
}

impl ListCold {
    /// Lists a folder of `files` empty files in `area`.
    pub(super) fn new(area: &Area, files: usize, ferry: &FerryCommand) -> Self {
        ListCold {
            dir: area.path(format!("list-{files}")),
            files,
            ferry: ferry.clone(),
        }
    }
}

impl Comparison for ListCold {
    fn prepare(&mut self, _tools: &[Tool], _rounds: usize) -> Result<()> {
        if !self.dir.exists() {
            fixtures::flat(&self.dir, self.files, 0)?;
        }
        Ok(())
    }

    fn in_process(&mut self, _round: usize) -> Result<Duration> {
        // Starting the service (one thread, one inotify instance) happens once per window, not
        // per folder: left out of the time. So is stopping it.
        let (service, events) = DirService::start();
        let start = Instant::now();
        let loaded = open_and_wait(&service, &events, &self.dir)?;
        let elapsed = start.elapsed();
        check(&loaded, self.files, &self.dir)?;
        ensure!(
            !loaded.from_cache,
            "a fresh service answered from its cache"
        );
        Ok(elapsed)
    }

    fn command(&mut self, tool: Tool, _round: usize) -> Command {
        match tool {
            Tool::Process => {
                let mut cmd = self.ferry.command("ls");
                cmd.arg(&self.dir);
                cmd
            }
            _ => ls(&self.dir),
        }
    }
}

/// `list-Nk-warm`: re-opening a folder the service has cached (the view left it and comes
/// back), against `ls -l`.
pub(super) struct ListWarm {
    cold: ListCold,
    service: Option<(DirService, Receiver<DirEvent>)>,
}

impl ListWarm {
    /// Re-lists the same folder [`ListCold`] uses for `files`.
    pub(super) fn new(area: &Area, files: usize, ferry: &FerryCommand) -> Self {
        ListWarm {
            cold: ListCold::new(area, files, ferry),
            service: None,
        }
    }
}

impl Comparison for ListWarm {
    fn tools(&self) -> Vec<Tool> {
        vec![Tool::InProcess, Tool::Classic]
    }

    fn prepare(&mut self, tools: &[Tool], rounds: usize) -> Result<()> {
        self.cold.prepare(tools, rounds)?;
        self.service = Some(DirService::start());
        Ok(())
    }

    /// The folder is opened and left right before each round, as a user who comes back to
    /// it: warmed once ahead, it outlived the cache's three minutes while the other fixtures
    /// were built, and every re-open missed.
    fn prepare_round(&mut self, _tools: &[Tool], _round: usize) -> Result<()> {
        let (service, events) = self.service.as_ref().context("not prepared")?;
        check(
            &open_and_wait(service, events, &self.cold.dir)?,
            self.cold.files,
            &self.cold.dir,
        )?;
        service.close(VIEW);
        Ok(())
    }

    fn in_process(&mut self, _round: usize) -> Result<Duration> {
        let (service, events) = self.service.as_ref().context("not prepared")?;
        let start = Instant::now();
        let loaded = open_and_wait(service, events, &self.cold.dir)?;
        let elapsed = start.elapsed();
        check(&loaded, self.cold.files, &self.cold.dir)?;
        ensure!(
            loaded.from_cache,
            "re-opening {} missed the cache",
            self.cold.dir.display()
        );
        service.close(VIEW);
        Ok(elapsed)
    }

    fn command(&mut self, _tool: Tool, _round: usize) -> Command {
        ls(&self.cold.dir)
    }
}

/// `ls-peak-rss`: how much more memory `ferry ls` needs at its peak for a folder of `files`
/// entries than for an empty one, per entry: the maximum resident set of each process as
/// `/usr/bin/time -f %M` reports it (`wait4`'s `ru_maxrss`), the median of three runs each.
/// Everything the command holds at once counts: the listing, its sort order and keys, and the
/// output buffer.
pub(super) fn ls_peak_rss(area: &Area, files: usize, ferry: &FerryCommand) -> Result<Measured> {
    let time = Path::new("/usr/bin/time");
    ensure!(
        time.exists(),
        "/usr/bin/time is not installed (Debian package `time`)"
    );
    let (full, empty) = (area.path("ls-peak-rss"), area.path("ls-peak-rss-empty"));
    fixtures::flat(&full, files, 0)?;
    std::fs::create_dir(&empty)?;
    let peak_kb = |dir: &Path| -> Result<f64> {
        let mut runs = Vec::new();
        for _ in 0..3 {
            let output = Command::new(time)
                .args(["-f", "%M"])
                .arg(ferry.exe())
                .arg("ls")
                .arg(dir)
                .env("XDG_STATE_HOME", area.path("state"))
                .stdout(std::process::Stdio::null())
                .output()?;
            ensure!(output.status.success(), "ferry ls {} failed", dir.display());
            // The last line of stderr is time's report.
            let text = String::from_utf8_lossy(&output.stderr);
            let kb: f64 = (text.lines().last())
                .and_then(|l| l.trim().parse().ok())
                .with_context(|| format!("no peak from /usr/bin/time: {text}"))?;
            runs.push(kb);
        }
        Ok(harness::median(&runs))
    };
    let (full_kb, empty_kb) = (peak_kb(&full)?, peak_kb(&empty)?);
    let per_entry = (full_kb - empty_kb) * 1024.0 / files as f64;
    let mut measured = Measured::metric(
        json!({ "files": files }),
        (per_entry, "B/entry"),
        Goal::ValueAtMost(100.0),
    );
    measured.extra.extend([
        ("peak_rss_kb".into(), json!(full_kb)),
        ("peak_rss_empty_kb".into(), json!(empty_kb)),
    ]);
    Ok(measured)
}

/// `bytes-per-entry`: heap bytes of one complete listing of a folder of `files` files, per
/// entry (the names' arena and the fixed-size records; the sort order is reported apart).
pub(super) fn bytes_per_entry(area: &Area, files: usize) -> Result<Measured> {
    let dir = area.path("bytes-per-entry");
    fixtures::flat(&dir, files, 0)?;
    let (service, events) = DirService::start();
    let start = Instant::now();
    let loaded = open_and_wait(&service, &events, &dir)?;
    let list_ms = harness::ms(start.elapsed());
    check(&loaded, files, &dir)?;
    let heap = loaded.listing.heap_bytes();
    let order_bytes = std::mem::size_of_val(&*loaded.order);
    let per_entry = heap as f64 / files as f64;
    let value = (per_entry, "B/entry");
    let mut measured = Measured::metric(json!({ "files": files }), value, Goal::ValueAtMost(100.0));
    measured.extra.extend([
        ("bytes_per_entry".into(), json!(per_entry)),
        ("listing_heap_bytes".into(), json!(heap)),
        ("order_bytes".into(), json!(order_bytes)),
        (
            "bytes_per_entry_with_order".into(),
            json!((heap + order_bytes) as f64 / files as f64),
        ),
        ("list_ms".into(), json!(list_ms)),
    ]);
    Ok(measured)
}

/// `memory-after-12-folders`: builds `folders` folders of `files` files, then has a fresh
/// `ferry` process (this executable, `bench --memory-probe`) walk them through one view and
/// report its memory. A child process, so that the earlier workloads' allocations do not blur
/// the numbers.
pub(super) fn memory_after_walk(area: &Area, folders: usize, files: usize) -> Result<Measured> {
    let root = area.path("walk");
    fixtures::flat_many(&root, folders, files, 0)?;
    fixtures::flat(&root.join("warmup-big"), WARMUP_FILES, 0)?;
    for i in 0..3 {
        fixtures::flat(&root.join(format!("warmup-{i}")), 10, 0)?;
    }
    let exe = std::env::current_exe().context("cannot find this executable")?;
    let output = Command::new(exe)
        .arg("bench")
        .arg("--memory-probe")
        .arg(&root)
        .output()?;
    ensure!(
        output.status.success(),
        "the memory probe failed: {}",
        String::from_utf8_lossy(&output.stderr).trim()
    );
    let probe: Value =
        serde_json::from_slice(&output.stdout).context("the memory probe's report")?;
    let growth = probe["rss_growth_bytes"]
        .as_f64()
        .context("no rss_growth_bytes")?;
    let three = probe["three_listings_bytes"]
        .as_f64()
        .context("no three_listings_bytes")?;
    let mib = |b: f64| b / f64::from(1u32 << 20);
    let params = json!({ "folders": folders, "files_per_folder": files });
    // The goal: the process holds no more than the three listings the cache may keep.
    let goal = Goal::ValueAtMost((mib(three) * 100.0).round() / 100.0);
    let mut measured = Measured::metric(params, (mib(growth), "MiB"), goal);
    if let Value::Object(map) = probe {
        measured.extra.extend(map);
    }
    Ok(measured)
}

/// The child side of [`memory_after_walk`]: walks the numbered folders under `root` one after
/// another in one view (open, wait for the listing, close), as a user leaving each folder for
/// the next, and returns the memory report.
///
/// The resident set is read after a warm-up (a big listing, which loads the collator and starts
/// the watcher and every helper thread, so that their one-time costs are not counted, then three
/// small ones, which push it out of the cache) and again after the walk; the difference is what
/// walking cost. The cache's own
/// account and a re-open of the last four folders (the last three must come from memory, the
/// fourth must not) show what is still held.
pub(super) fn memory_probe(root: &Path) -> Result<Value> {
    let mut folders: Vec<(usize, PathBuf)> = std::fs::read_dir(root)?
        .filter_map(|e| {
            let e = e.ok()?;
            Some((e.file_name().to_str()?.parse().ok()?, e.path()))
        })
        .collect();
    folders.sort();
    ensure!(
        folders.len() >= 4,
        "the memory probe needs at least four folders in {}",
        root.display()
    );
    let (service, events) = DirService::start();
    // The big warm-up starts every thread a big listing uses; the small ones push it out of the
    // cache, so that its memory is not counted as free on the way.
    let warmups = ["warmup-big", "warmup-0", "warmup-1", "warmup-2"];
    for name in warmups {
        open_and_wait(&service, &events, &root.join(name))?;
        service.close(VIEW);
    }
    let mut stats = service.stats();
    let before = Resident::now()?;
    let mut listing_bytes = Vec::with_capacity(folders.len());
    // The resident set after leaving each folder: a plateau is allocator slack, a slope a leak.
    let mut rss_steps = Vec::with_capacity(folders.len());
    for (_, dir) in &folders {
        let loaded = open_and_wait(&service, &events, dir)?;
        listing_bytes.push(loaded.listing.heap_bytes() + std::mem::size_of_val(&*loaded.order));
        drop(loaded);
        service.close(VIEW);
        // `stats` answers once the close was handled: the state a user leaves behind.
        stats = service.stats();
        rss_steps.push(Resident::now()?.total);
    }
    let after = Resident::now()?;
    // Diagnostic: what is left once the allocator is asked to return every free page.
    ferry_core::memory::release_free_memory();
    let anon_after_trim = Resident::now()?.anon;
    let three: usize = listing_bytes.iter().rev().take(3).sum();
    let mut from_cache = Vec::new();
    for (_, dir) in folders.iter().rev().take(4) {
        from_cache.push(open_and_wait(&service, &events, dir)?.from_cache);
        service.close(VIEW);
    }
    Ok(json!({
        "rss_before_bytes": before.total,
        "rss_after_bytes": after.total,
        "rss_growth_bytes": after.total.saturating_sub(before.total),
        "rss_anon_growth_bytes": after.anon.saturating_sub(before.anon),
        "rss_anon_growth_after_trim_bytes": anon_after_trim.saturating_sub(before.anon),
        "three_listings_bytes": three,
        "listing_bytes": listing_bytes,
        "rss_after_each_folder_bytes": rss_steps,
        "cache_entries": stats.entries,
        "cache_heap_bytes": stats.heap_bytes,
        "cached_folders": stats.paths.len(),
        "watched_folders": stats.watched,
        "last_three_from_cache": from_cache[..3].iter().all(|&c| c),
        "fourth_last_from_cache": from_cache[3],
    }))
}
