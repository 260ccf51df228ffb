//! Putting items at paths of their own: a restore from the trash, the undo of a move. Each
//! item goes to its own folder under its own name, as a move would take it there, so that a
//! taken place is a conflict handled exactly as for a paste: found when planning, reported
//! with [`Event::Conflicts`](super::Event::Conflicts) under [`ConflictPolicy::Ask`], answered
//! through [`Engine::resolve`](super::Engine::resolve), and Replace keeps what it replaces in
//! the staging folder, so that it can be undone.
//!
//! The items are planned together, in as few move plans as possible: one per device of the
//! destination folders (the staging folder and the final flush are per file system), split
//! further only where two items from different folders share a name (a plan tells two
//! sources of one name apart by name). Each plan is one batch of conflicts; a missing
//! destination folder is created first, as Dolphin does when restoring (each folder made is
//! in the summary's `remade`: for the undo of a move, the folder a merge removed, made anew).
//! A target whose folder the caller opened already (a restore walks it without following
//! links) is planned with the other targets of that very folder, and written through that
//! descriptor, never through its path again.

use std::collections::{HashMap, HashSet};
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustix::fd::OwnedFd;

use super::control::JobCtx;
use super::dest::Dest;
use super::moves::remove_sources;
use super::passes;
use super::plan::{Mode, NO_ITEM, Planner};
use super::start::{not_done, not_started, preflight};
use super::summary::fail;
use super::summary::{self, Operation};
use super::undo::absorb;
use super::{ConflictPolicy, How, RecordEntry, Summary};
use crate::error::Error;
use crate::fs::{self, FileId};

/// One item to put somewhere.
#[derive(Debug, Clone)]
pub(crate) struct Target {
    /// Where it is.
    pub(crate) source: PathBuf,
    /// The path it gets (its folder is created if missing).
    pub(crate) dest: PathBuf,
    /// The folder of `dest`, opened by the caller: used instead of its path.
    pub(crate) dir: Option<Arc<OwnedFd>>,
}

/// The folders of targets, opened by the caller: one descriptor for each folder however many
/// targets go into it. A restore of 25,000 items from one folder held 25,000 descriptors and
/// failed every item past the limit of open files.
#[derive(Default)]
pub(crate) struct OpenFolders(HashMap<FileId, Arc<OwnedFd>>);

impl OpenFolders {
    /// How many folders are open.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// `dir`, or the descriptor already open on the same folder (`dir` is then closed).
    pub(crate) fn shared(&mut self, dir: OwnedFd) -> Arc<OwnedFd> {
        match fs::stat_fd(&dir) {
            Ok(m) => Arc::clone(self.0.entry(m.id).or_insert_with(|| Arc::new(dir))),
            Err(_) => Arc::new(dir),
        }
    }
}

/// Where an item ended up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Landed {
    /// Its path now: the target's, or a free name given by Keep both or Rename to.
    pub(crate) path: PathBuf,
    /// It was merged into a folder that was there (Merge), rather than put in place.
    pub(crate) merged: bool,
}

/// What [`run`] did.
pub(crate) struct PutBack {
    /// Per target, where it is now when it was put in place whole.
    pub(crate) landed: Vec<Option<Landed>>,
    /// Every plan's summary together, their records included; paths are the targets'
    /// sources.
    pub(crate) summary: Summary,
}

/// The modes items copied back are to have, by the path they are at now (below a target's
/// source, or one itself): the undo of a move onto a disk that held none.
pub(crate) type Modes = Arc<HashMap<PathBuf, u16>>;

/// Moves every target's source to its destination path with the conflict `policy`; what is
/// copied gets its mode from `modes` where that names it, from the start (never wider on
/// the way, whatever name an answer gives it).
pub(crate) fn run(
    ctx: &JobCtx,
    targets: &[Target],
    policy: ConflictPolicy,
    modes: &Modes,
) -> PutBack {
    let mut out = PutBack {
        landed: vec![None; targets.len()],
        summary: Summary::default(),
    };
    for batch in batches(ctx, targets, &mut out.summary) {
        if ctx.control.stopped() {
            let rest = batch.members.iter().map(|&k| targets[k].source.clone());
            out.summary.not_done.extend(rest);
            continue;
        }
        let part = run_batch(ctx, targets, &batch, (policy, modes), &mut out.landed);
        absorb(&mut out.summary, part);
    }
    out
}

/// Targets planned together: one destination device, no name from two folders.
struct Batch {
    dev: u64,
    /// The one folder of targets opened by the caller, and its identity.
    opened: Option<(Arc<OwnedFd>, FileId)>,
    /// The destination folder of the first member: the plan's destination.
    dir: PathBuf,
    /// Destination folder of each name in the batch.
    names: HashMap<OsString, PathBuf>,
    members: Vec<usize>,
}

/// Creates missing destination folders (listed in `summary.remade`) and sorts the targets
/// into batches; targets whose folder cannot be made are reported failed.
fn batches(ctx: &JobCtx, targets: &[Target], summary: &mut Summary) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for (k, t) in targets.iter().enumerate() {
        let (Some(dir), Some(name)) = (t.dest.parent(), t.dest.file_name()) else {
            let refused = Error::Refused {
                op: "move to",
                path: t.dest.clone(),
            };
            fail(ctx, summary, &t.source, refused);
            continue;
        };
        let opened = match &t.dir {
            Some(fd) => match fs::stat_fd(&**fd) {
                Ok(m) => Some((Arc::clone(fd), m.id)),
                Err(e) => {
                    fail(ctx, summary, &t.source, Error::io("stat", dir, e));
                    continue;
                }
            },
            None => None,
        };
        let dev = match &opened {
            Some((_, id)) => Ok(id.dev),
            None => make_folders(dir, &mut summary.remade)
                .and_then(|()| std::fs::metadata(dir))
                .map(|m| m.dev()),
        };
        let dev = match dev {
            Ok(dev) => dev,
            Err(e) => {
                fail(ctx, summary, &t.source, Error::io("create folder", dir, e));
                continue;
            }
        };
        let id = opened.as_ref().map(|(_, id)| *id);
        let fits = |b: &Batch| {
            b.dev == dev
                && b.opened.as_ref().map(|(_, i)| *i) == id
                && b.names.get(name).is_none_or(|d| d.as_path() == dir)
        };
        let at = match batches.iter().position(fits) {
            Some(at) => at,
            None => {
                batches.push(Batch {
                    dev,
                    opened,
                    dir: dir.to_path_buf(),
                    names: HashMap::new(),
                    members: Vec::new(),
                });
                batches.len() - 1
            }
        };
        let batch = &mut batches[at];
        batch.names.insert(name.to_owned(), dir.to_path_buf());
        batch.members.push(k);
    }
    batches
}

/// Creates folder `dir` and those missing above it, as `create_dir_all` does (a link to a
/// folder there counts as one); adds each folder it made, with its identity, to `made`.
pub(crate) fn make_folders(dir: &Path, made: &mut Vec<(PathBuf, FileId)>) -> std::io::Result<()> {
    use std::io::ErrorKind;
    let made_here = match std::fs::create_dir(dir) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let Some(parent) = dir.parent() else {
                return Err(e);
            };
            make_folders(parent, made)?;
            std::fs::create_dir(dir)
        }
        other => other,
    };
    match made_here {
        Ok(()) => {
            let m = std::fs::symlink_metadata(dir)?;
            let id = FileId {
                dev: m.dev(),
                ino: m.ino(),
            };
            made.push((dir.to_path_buf(), id));
            Ok(())
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Plans and runs one batch as a move; fills in where its members landed.
fn run_batch(
    ctx: &JobCtx,
    targets: &[Target],
    batch: &Batch,
    (policy, modes): (ConflictPolicy, &Modes),
    landed: &mut [Option<Landed>],
) -> Summary {
    let sources: Vec<PathBuf> = batch
        .members
        .iter()
        .map(|&k| targets[k].source.clone())
        .collect();
    let opened = match &batch.opened {
        Some((fd, _)) => Dest::from_fd(ctx, Arc::clone(fd), &batch.dir),
        None => Dest::open(ctx, &batch.dir),
    };
    let dest = match opened {
        Ok(dest) => dest,
        Err(e) => return not_started(ctx, &sources, e),
    };
    let mut planner = Planner::new(ctx, Mode::Move, policy, Some(&dest));
    for &k in &batch.members {
        let t = &targets[k];
        let (dir, name) = (t.dest.parent(), t.dest.file_name());
        let dir = dir.filter(|d| *d != dest.path).map(Path::to_path_buf);
        let name = name.filter(|n| Some(*n) != t.source.file_name());
        if let Err(e) = planner.add_root(&t.source, dir, name.map(OsString::from), NO_ITEM, None) {
            return not_started(ctx, &sources, e);
        }
    }
    let mut planned = planner.finish();
    planned.plan.source_modes = Arc::clone(modes);
    let done = not_done(&planned);
    let (plan, done) = if preflight(ctx, &planned, &dest, true) {
        let (mut plan, done, totals) = passes::run(ctx, Mode::Move, policy, &dest, planned, done);
        remove_sources(ctx, &mut plan, &done, totals, &dest);
        (plan, done)
    } else {
        (planned.plan, done)
    };
    let summary = summary::build(ctx, Operation::Move, plan, done, dest.meta.id.dev);
    // The first entry of a source is its top item, in place or under a new name.
    let mut first: HashMap<PathBuf, Landed> = HashMap::new();
    for e in summary.record.entries().filter(|e| e.top_level) {
        first.entry(e.source).or_insert(Landed {
            path: e.dest,
            merged: e.how == How::Merged,
        });
    }
    let done: HashSet<&Path> = summary.done.iter().map(PathBuf::as_path).collect();
    for &k in &batch.members {
        let source = targets[k].source.as_path();
        if done.contains(source) {
            landed[k] = first.remove(source);
        }
    }
    summary
}

/// The folder a moved item goes back into, opened: the one it came from, or one made since
/// where it was. Refused when the path now leads through a symbolic link to a folder
/// elsewhere: someone who may write on the way swapped a link in for a folder, and the item
/// would land wherever it points (a link that led there at the time of the move still
/// does). `None` when the record does not say (the put-back goes by path, making a missing
/// folder).
pub(crate) fn folder_of_source(
    e: &RecordEntry,
    open: &mut OpenFolders,
) -> Result<Option<Arc<OwnedFd>>, Error> {
    let (Some(recorded), Some(parent)) = (e.source_parent, e.source.parent()) else {
        return Ok(None);
    };
    let parent = if parent.as_os_str().is_empty() {
        Path::new(".")
    } else {
        parent
    };
    let Ok(dir) = fs::open_dir_path(parent) else {
        return Ok(None);
    };
    // The very folder, or one made again at the real place the folder was.
    let same = fs::stat_fd(&dir).is_ok_and(|m| m.id == recorded)
        || fs::real_path(&dir).is_some_and(|real| {
            Some(real)
                == e.source_parent_real
                    .clone()
                    .or_else(|| fs::absolute(parent))
        });
    let link = (!same)
        .then(|| {
            parent
                .ancestors()
                .find(|a| std::fs::symlink_metadata(a).is_ok_and(|m| m.is_symlink()))
        })
        .flatten();
    match link {
        Some(link) => Err(Error::LinkInPath {
            path: link.to_path_buf(),
            dest: e.source.clone(),
        }),
        None => Ok(Some(open.shared(dir))),
    }
}
