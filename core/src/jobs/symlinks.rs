//! Link jobs ([`Job::Link`](super::Job::Link)): a symbolic link in one folder to each of
//! several items, as the window's "Create link" (and Ctrl+Shift+drop) makes them.
//!
//! Each link is named like its target and its text is the target's absolute path as given:
//! made absolute against the current folder, never resolved (`..` and links on the way are
//! kept), as Dolphin's "Link Here" writes it. It names what the user saw, and still works
//! wherever the link is moved. A target that does not exist is refused (a file manager links
//! what the user sees); one that is itself a link, even a dangling one, is linked to as it is.
//!
//! Every link is one `symlinkat` relative to the destination folder's descriptor, which
//! follows nothing and replaces nothing (`EEXIST`). A taken name is a conflict decided by the
//! job's policy as for a copy: Skip (and Merge) skips the target, Keep both names its link
//! `name (link).ext`, `name (link 2).ext`, ..., Ask reports it ([`Event::Conflicts`]) and
//! waits for the answer while the other links are made; Replace (Replace if newer: when the
//! target is newer than what is there) first moves the item there to the staging folder, as
//! any Replace, so that undo puts it back. A folder is never replaced by a link
//! ([`Error::KindConflict`]), nor a target by a link to itself ([`Error::SameFile`]). Two
//! targets of one name conflict with each other ([`ConflictKind::DuplicateSource`]): only
//! Keep both, or an answer, links the second.
//!
//! Each link is one item of the progress and of the summary, recorded for undo with its
//! identity (created, or replacing an item staged at a recorded place). Undo trashes the
//! links that are still the very ones made, then puts back what they replaced; redo makes
//! them again; an interrupted job is resumed or rolled back by finding its links by name and
//! text (`recovery/link_jobs.rs`). Like rename and create folder, a link job never waits in
//! the device queue.

use std::collections::{HashMap, HashSet};
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use rustix::io::Errno;

use super::conflict::{Conflict, ConflictKind, EntryInfo, keep_both_link_name};
use super::control::JobCtx;
use super::dest::Dest;
use super::plan::{Action, Plan};
use super::progress::TICK;
use super::staging::Staging;
use super::start::not_started;
use super::summary::{self, Operation};
use super::{ConflictPolicy, Event, Phase, Resolution, SkipReason, Summary, Totals};
use crate::entry::Kind;
use crate::error::Error;
use crate::fs::{self, Meta};

/// The text of a link to `target`: its absolute path, not resolved.
pub(crate) fn link_text(target: &Path) -> std::io::Result<PathBuf> {
    std::path::absolute(target)
}

/// The names a link to an item named `name` may get in a folder, in the order the job tries
/// them, for as long as `go_on` says (it is given each one): `name`, `name (link)`, ...
pub(crate) fn names_tried(name: &OsStr, name_max: usize, mut go_on: impl FnMut(&OsStr) -> bool) {
    if go_on(name) {
        keep_both_link_name(name, name_max, go_on);
    }
}

/// What to do with one target.
enum Step {
    /// Make its link under `name`, moving what is there aside first if `replace`.
    Link {
        name: OsString,
        replace: bool,
    },
    /// Ask about its conflict with what is at `name` (for a duplicate, with the earlier
    /// target of that name).
    Ask {
        kind: ConflictKind,
        name: OsString,
        existing: Option<Meta>,
    },
    Skip(SkipReason),
    Fail(Error),
    /// Nothing now (the job is being cancelled): not done.
    Leave,
}

/// A link job's state: its plan (one root per target), what was done, and its questions.
struct Linker<'a> {
    ctx: &'a JobCtx,
    dest: Dest,
    policy: ConflictPolicy,
    plan: Plan,
    /// Per item: the target's metadata (`None`: refused) and the link's text.
    targets: Vec<Option<(Meta, PathBuf)>>,
    /// Per item: the inode of its link once made.
    done: Vec<AtomicU64>,
    /// Names this job gave or is to give, so that two links never pick one.
    claimed: HashSet<OsString>,
    /// The first target of each name, for duplicates.
    first_of: HashMap<OsString, u32>,
    /// The name each item waiting for an answer asks about.
    asking_about: HashMap<u32, OsString>,
    staging: Option<Result<Staging, Arc<Error>>>,
    last_report: Instant,
    totals: Totals,
}

/// Runs a link job from start to end.
pub(crate) fn run_job(
    ctx: &JobCtx,
    targets: &[PathBuf],
    dest_dir: &Path,
    policy: ConflictPolicy,
) -> Summary {
    let dest = match Dest::open(ctx, dest_dir) {
        Ok(dest) => dest,
        Err(e) => return not_started(ctx, targets, e),
    };
    let mut plan = Plan::default();
    plan.dest = Some(dest.path.clone());
    let mut linker = Linker {
        ctx,
        policy,
        plan,
        dest,
        targets: Vec::new(),
        done: Vec::new(),
        claimed: HashSet::new(),
        first_of: HashMap::new(),
        asking_about: HashMap::new(),
        staging: None,
        last_report: Instant::now(),
        totals: Totals::default(),
    };
    let mut steps = Vec::new();
    for target in targets {
        match linker.plan_target(target) {
            Ok(step) => steps.push(step),
            Err(e) => return not_started(ctx, targets, e),
        }
    }
    linker.totals.items = steps
        .iter()
        .filter(|s| matches!(s, Step::Link { .. } | Step::Ask { .. }))
        .count() as u64;
    ctx.emit(Event::Planned {
        job: ctx.id,
        totals: linker.totals,
    });
    // Every conflict found now is reported at once, before anything is written.
    let mut conflicts = Vec::new();
    let mut to_link = Vec::new();
    for (i, step) in (0u32..).zip(steps) {
        match step {
            Step::Ask {
                kind,
                name,
                existing,
            } => conflicts.extend(linker.ask(i, kind, &name, existing)),
            Step::Link { name, replace } => {
                // Not done until made: a cancel leaves it among the items not done.
                linker.plan.set_action(i, Action::Create);
                to_link.push((i, name, replace));
            }
            step => linker.carry_out(i, step),
        }
    }
    if !conflicts.is_empty() {
        ctx.emit(Event::Conflicts {
            job: ctx.id,
            conflicts,
        });
    }
    linker.report(true); // a paused job says so before it waits
    ctx.counters.set_phase(Phase::Copying);
    for (i, name, replace) in to_link {
        if !ctx.control.checkpoint() {
            break;
        }
        linker.link(i, name, replace);
    }
    linker.answers();
    linker.report(true);
    let Linker {
        plan, done, dest, ..
    } = linker;
    summary::build(ctx, Operation::Link, plan, done, dest.meta.id.dev)
}

/// The answer a policy gives to every conflict; `None` for Ask.
fn policy_answer(policy: ConflictPolicy) -> Option<Resolution> {
    match policy {
        ConflictPolicy::Ask => None,
        ConflictPolicy::Skip | ConflictPolicy::Merge => Some(Resolution::Skip),
        ConflictPolicy::Replace => Some(Resolution::Replace),
        ConflictPolicy::ReplaceIfNewer => Some(Resolution::ReplaceIfNewer),
        ConflictPolicy::KeepBoth => Some(Resolution::KeepBoth),
    }
}

impl Linker<'_> {
    fn dest_path(&self, name: &OsStr) -> PathBuf {
        self.dest.path.join(name)
    }

    /// Adds `target` to the plan and decides what to do with it. Fails only when the plan
    /// outgrows its indexes.
    fn plan_target(&mut self, target: &Path) -> Result<Step, Error> {
        let i = self
            .plan
            .push_single(target.to_path_buf(), None, Action::Skip, None)?;
        self.done.push(AtomicU64::new(0));
        self.targets.push(None);
        let Some(name) = target.file_name() else {
            let path = target.to_path_buf();
            return Ok(Step::Fail(Error::Refused {
                op: "link to",
                path,
            }));
        };
        let found = fs::stat_at(rustix::fs::CWD, target)
            .map_err(|e| Error::io("link to", target, e))
            .and_then(|meta| {
                let text = link_text(target).map_err(|e| Error::io("link to", target, e))?;
                Ok((meta, text))
            });
        let (meta, text) = match found {
            Ok(found) => found,
            Err(e) => return Ok(Step::Fail(e)),
        };
        self.plan.set_meta(i, &meta);
        if self.targets.iter().flatten().any(|(_, t)| *t == text) {
            return Ok(Step::Skip(SkipReason::Duplicate));
        }
        self.targets[i as usize] = Some((meta, text));
        let name = name.to_owned();
        if self.first_of.contains_key(&name) {
            let kind = ConflictKind::DuplicateSource;
            return Ok(match policy_answer(self.policy) {
                None => Step::Ask {
                    kind,
                    name,
                    existing: None,
                },
                Some(Resolution::KeepBoth) => Step::Link {
                    name: self.free_name(&name),
                    replace: false,
                },
                Some(_) => Step::Fail(Error::DuplicateName {
                    path: target.to_path_buf(),
                }),
            });
        }
        self.first_of.insert(name.clone(), i);
        Ok(self.decide(i, name, None))
    }

    /// What to do with item `i` given what is at `name` now: the answer `force` if given,
    /// else the job's policy.
    fn decide(&mut self, i: u32, name: OsString, force: Option<Resolution>) -> Step {
        let existing = match fs::stat_at(&*self.dest.fd, &name) {
            Ok(meta) => meta,
            Err(Errno::NOENT) if !self.claimed.contains(&name) => {
                self.claimed.insert(name.clone());
                return Step::Link {
                    name,
                    replace: false,
                };
            }
            Err(Errno::NOENT) => {
                // Given to an earlier target of this job: a duplicate.
                let kind = ConflictKind::DuplicateSource;
                return match force.or_else(|| policy_answer(self.policy)) {
                    None => Step::Ask {
                        kind,
                        name,
                        existing: None,
                    },
                    Some(answer) => self.apply(i, name, kind, None, answer),
                };
            }
            Err(e) => return Step::Fail(Error::io("stat", self.dest_path(&name), e)),
        };
        let kind = match existing.kind {
            Kind::Dir => ConflictKind::FileVsFolder,
            _ => ConflictKind::FileExists,
        };
        match force.or_else(|| policy_answer(self.policy)) {
            None => Step::Ask {
                kind,
                name,
                existing: Some(existing),
            },
            Some(answer) => self.apply(i, name, kind, Some(existing), answer),
        }
    }

    /// What `answer` to a conflict of `kind` at `name` means for item `i`.
    fn apply(
        &mut self,
        i: u32,
        name: OsString,
        kind: ConflictKind,
        existing: Option<Meta>,
        answer: Resolution,
    ) -> Step {
        match answer {
            Resolution::Skip | Resolution::Merge => Step::Skip(SkipReason::Exists),
            Resolution::Replace => self.replace(i, name, kind, existing, false),
            Resolution::ReplaceIfNewer => self.replace(i, name, kind, existing, true),
            Resolution::KeepBoth => Step::Link {
                name: self.free_name(&name),
                replace: false,
            },
            Resolution::RenameTo(other) => self.decide(i, other, None),
            Resolution::Cancel => Step::Leave,
        }
    }

    /// Replace (if `newer_only`, only by a target newer than what is there) in a conflict of
    /// `kind` at `name`: never a folder, never the link of another target of the job.
    fn replace(
        &self,
        i: u32,
        name: OsString,
        kind: ConflictKind,
        existing: Option<Meta>,
        newer_only: bool,
    ) -> Step {
        let target = self.targets[i as usize].as_ref().map(|(m, _)| *m);
        match (kind, existing) {
            // The target itself (linked into its own folder), or another name of it: moving
            // it aside would leave the link pointing at nothing.
            (_, Some(there)) if target.is_some_and(|t| t.id == there.id) => {
                Step::Fail(Error::SameFile {
                    path: self.plan.source_path(i),
                    dest: self.dest_path(&name),
                })
            }
            (ConflictKind::FileExists, Some(there)) => {
                if newer_only && target.is_none_or(|t| !t.mtime.newer_than_held(there.mtime)) {
                    Step::Skip(SkipReason::Exists)
                } else {
                    Step::Link {
                        name,
                        replace: true,
                    }
                }
            }
            (ConflictKind::FileVsFolder, _) => Step::Fail(Error::KindConflict {
                path: self.dest_path(&name),
                existing: "folder",
            }),
            _ => Step::Fail(Error::DuplicateName {
                path: self.plan.source_path(i),
            }),
        }
    }

    /// The first `name (link).ext`, `name (link 2).ext`, ... neither in the folder nor given
    /// to another link of the job; it is then given to this one.
    fn free_name(&mut self, name: &OsStr) -> OsString {
        let fd = &*self.dest.fd;
        let claimed = &self.claimed;
        let free = keep_both_link_name(name, self.dest.name_max, |c| {
            claimed.contains(c) || !matches!(fs::stat_at(fd, c), Err(Errno::NOENT))
        });
        self.claimed.insert(free.clone());
        free
    }

    /// Carries out `step` for item `i`.
    fn carry_out(&mut self, i: u32, step: Step) {
        match step {
            Step::Link { name, replace } => self.link(i, name, replace),
            Step::Ask {
                kind,
                name,
                existing,
            } => {
                if let Some(conflict) = self.ask(i, kind, &name, existing) {
                    let conflicts = vec![conflict];
                    let job = self.ctx.id;
                    self.ctx.emit(Event::Conflicts { job, conflicts });
                }
            }
            Step::Skip(reason) => {
                self.plan.set_action(i, Action::Skip);
                self.ctx.skip(i, self.plan.source_path(i), reason);
            }
            Step::Fail(error) => {
                self.plan.set_action(i, Action::Skip);
                self.ctx.fail(i, self.plan.source_path(i), error);
            }
            Step::Leave => self.plan.set_action(i, Action::Ask),
        }
    }

    /// Registers the conflict of item `i` with what is at `name`; the conflict to report,
    /// unless an answer given for all of its kind already covers it.
    fn ask(
        &mut self,
        i: u32,
        kind: ConflictKind,
        name: &OsStr,
        existing: Option<Meta>,
    ) -> Option<Conflict> {
        self.plan.set_action(i, Action::Ask);
        self.asking_about.insert(i, name.to_owned());
        let id = self.ctx.control.asks.add(i, kind)?;
        let info = EntryInfo::of;
        let target = self.targets[i as usize].as_ref().map(|(m, _)| m);
        let dest = match (kind, self.first_of.get(name)) {
            (ConflictKind::DuplicateSource, Some(&first)) => {
                let first_meta = self.targets[first as usize].as_ref().map(|(m, _)| m);
                info(self.plan.source_path(first), first_meta)
            }
            _ => info(self.dest_path(name), existing.as_ref()),
        };
        Some(Conflict {
            id,
            kind,
            source: info(self.plan.source_path(i), target),
            dest,
            likely_identical: false,
        })
    }

    /// Carries out the answers to the job's conflicts as they come, until none waits or the
    /// job stops.
    fn answers(&mut self) {
        let ctx = self.ctx;
        let asks = &ctx.control.asks;
        loop {
            if !ctx.control.checkpoint() {
                return;
            }
            let (answers, waiting) = asks.take();
            if answers.is_empty() {
                if !waiting {
                    return;
                }
                asks.wait(|| ctx.control.stopped());
                continue;
            }
            for (waiting, answer) in answers {
                let i = waiting.item;
                let name = match self.asking_about.remove(&i) {
                    Some(name) => name,
                    None => self.plan.name(i).to_owned(),
                };
                let step = if waiting.kind == ConflictKind::DuplicateSource {
                    self.apply(i, name, waiting.kind, None, answer)
                } else {
                    self.decide(i, name, Some(answer))
                };
                self.carry_out(i, step);
            }
        }
    }

    /// Makes the link of item `i` as `name` (trying again, asking or skipping when the name
    /// was taken since it was decided).
    fn link(&mut self, i: u32, name: OsString, replace: bool) {
        // Failures are the target's, as a copy's are its source's; the error names the link.
        let target = self.plan.source_path(i);
        loop {
            match self.make(i, &name, replace) {
                Ok(true) => break,
                Ok(false) => {
                    // Taken since it was decided: decide again, never over it.
                    self.claimed.remove(&name);
                    let step = self.decide(i, name, None);
                    return self.carry_out(i, step);
                }
                Err(e) => {
                    if !self.ctx.fail_or_retry(i, target.clone(), e) {
                        self.plan.set_action(i, Action::Skip);
                        break;
                    }
                }
            }
        }
        self.report(false);
    }

    /// Makes the link of item `i` as `name`; false when the name is taken.
    fn make(&mut self, i: u32, name: &OsStr, replace: bool) -> Result<bool, Error> {
        let Some(text) = self.targets[i as usize].as_ref().map(|(_, t)| t.clone()) else {
            return Ok(true);
        };
        let path = self.dest_path(name);
        let staged = if replace {
            self.stash(name, &path)?
        } else {
            None
        };
        let fd = &*self.dest.fd;
        if let Err(e) = rustix::fs::symlinkat(&text, fd, name) {
            if let (Some(staged), Some(Ok(staging))) = (&staged, &self.staging) {
                let dir = &*self.dest.fd;
                staging
                    .unstash(staged, dir, name)
                    .map_err(|e| Error::io("put back", staged, e))?;
            }
            return match e {
                Errno::EXIST => Ok(false),
                e => Err(Error::io("create the link", path, e)),
            };
        }
        crate::fault::point("symlinked");
        let meta = fs::stat_at(fd, name).map_err(|e| Error::io("stat", &path, e))?;
        self.plan.set_meta(i, &meta);
        let action = if staged.is_some() {
            Action::Replace
        } else {
            Action::Create
        };
        self.plan.set_action(i, action);
        if let Some(staged) = staged {
            self.plan.staged.insert(i, staged);
        }
        if name != self.plan.name(i) {
            self.plan.roots[i as usize].dest_name = Some(name.to_owned());
        }
        self.done[i as usize].store(meta.id.ino, Relaxed);
        self.ctx.counters.add_item();
        Ok(true)
    }

    /// Moves what is at `name` (path `path`) into the staging folder; where it went, or
    /// `None` if nothing is there any more.
    fn stash(&mut self, name: &OsStr, path: &Path) -> Result<Option<PathBuf>, Error> {
        let dest = &self.dest;
        let staging = self.staging.get_or_insert_with(|| {
            let mount = dest.mount.as_ref().map(|m| m.mount_point.as_path());
            let (job, record) = (self.ctx.id.0, self.ctx.journal_seq);
            Staging::open(job, record, &self.ctx.staging, mount, &dest.path, &dest.fd)
                .map_err(Arc::new)
        });
        let staging = staging.as_ref().map_err(|e| Error::Staging {
            path: path.to_path_buf(),
            error: Arc::clone(e),
        })?;
        match staging.stash(&*self.dest.fd, name, path) {
            Ok(staged) => {
                crate::fault::point("replace-staged");
                Ok(Some(staged))
            }
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(Error::io("move aside", path, e)),
        }
    }

    /// Reports progress: always when `now`, else at most once a tick.
    fn report(&mut self, now: bool) {
        if !now && self.last_report.elapsed() < TICK {
            return;
        }
        self.last_report = Instant::now();
        let c = &self.ctx.counters;
        let items = (c.items.load(Relaxed), self.totals.items);
        super::progress::report_counted(self.ctx, c.phase(), items, 0, None);
    }
}
