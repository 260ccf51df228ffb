//! The time a job waits for the user's answers, left out of the time it took, and the answers
//! its conflicts got, kept for Retry failed: an item the user chose to replace (or to keep
//! both, or to rename) that then failed (the disk was full) is retried with that answer.
//! Retried as a merge, as everything else is, it was skipped as a file already there, and
//! the old file stayed with nothing said of the answer.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ferry_core::jobs::{
    Conflict, ConflictId, ConflictKind, ConflictPolicy, Job, Resolution, Scope,
};

use super::WindowJob;

/// The conflicts a job asked about, and what the user answered, by source.
#[derive(Debug, Default, Clone)]
pub struct Answers {
    /// Asked and not answered yet: its kind and the source it is about.
    asked: HashMap<ConflictId, (ConflictKind, PathBuf)>,
    /// Answered: the answer each source got.
    given: HashMap<PathBuf, Resolution>,
    /// The table's rule that answers the conflicts found later (see
    /// [`ConflictDialog::standing_rule`](crate::gui::modal::conflict::ConflictDialog::standing_rule)).
    pub rule: Option<crate::gui::modal::conflict::Rule>,
}

impl Answers {
    /// The job asked about `conflicts`.
    pub fn asked(&mut self, conflicts: &[Conflict]) {
        for c in conflicts {
            (self.asked).insert(c.id, (c.kind, c.source.path.clone()));
        }
    }

    /// The user answered: one for all of a kind answers every conflict of it asked so far.
    pub fn answered(&mut self, answers: &[(ConflictId, Resolution, Scope)]) {
        for (id, resolution, scope) in answers {
            let Some((kind, path)) = self.asked.remove(id) else {
                continue;
            };
            if *scope == Scope::AllOfKind {
                let same: Vec<ConflictId> = (self.asked.iter())
                    .filter(|(_, (k, _))| *k == kind)
                    .map(|(id, _)| *id)
                    .collect();
                for id in same {
                    if let Some((_, path)) = self.asked.remove(&id) {
                        self.given.insert(path, resolution.clone());
                    }
                }
            }
            self.given.insert(path, resolution.clone());
        }
    }

    /// The answer the conflict about `source` got, if it changes what a retry does: replace,
    /// replace if newer, keep both or a new name (a skip or a merge is what a retry does
    /// anyway).
    pub fn for_retry(&self, source: &Path) -> Option<&Resolution> {
        self.given.get(source).filter(|r| {
            matches!(
                r,
                Resolution::Replace
                    | Resolution::ReplaceIfNewer
                    | Resolution::KeepBoth
                    | Resolution::RenameTo(_)
            )
        })
    }
}

impl super::Jobs {
    /// Keeps `rule`, if any, to answer `job`'s conflicts found later.
    pub fn keep_rule(
        &mut self,
        job: ferry_core::jobs::JobId,
        rule: Option<crate::gui::modal::conflict::Rule>,
    ) {
        if let (Some(window), Some(rule)) = (self.window.get_mut(&job), rule) {
            window.answers.rule = Some(rule);
        }
    }
}

/// Time a job spent waiting for the user's answers.
#[derive(Debug, Clone, Copy, Default)]
pub struct Asked {
    since: Option<Instant>,
    total: Duration,
}

impl WindowJob {
    /// Its questions changed: the clock of waiting for answers starts or stops at `now`.
    pub(crate) fn asking_changed(&mut self, now: Instant) {
        let asking = self.waiting_answers + self.questions > 0;
        match (asking, self.asked.since) {
            (true, None) => self.asked.since = Some(now),
            (false, Some(since)) => {
                self.asked.total += now.duration_since(since);
                self.asked.since = None;
            }
            _ => {}
        }
    }

    /// The engine speaks of it: it plans or works. One that waited for the jobs before it on
    /// its disks starts its clock now: a copy of two seconds queued behind a long one said
    /// "Finished in 40 s", and its pace counted the wait.
    pub(crate) fn runs(&mut self, now: Instant) {
        if matches!(self.state, super::State::Waiting) {
            self.started = now;
        }
        self.state = super::State::Running;
    }

    /// The time it took by `now`, less the time it waited for answers: "Finished in 29 s"
    /// counted a user's half minute over a dialog for a copy of one second.
    pub fn working_time(&self, now: Instant) -> Duration {
        let waiting = self
            .asked
            .since
            .map_or(Duration::ZERO, |s| now.duration_since(s));
        now.duration_since(self.started)
            .saturating_sub(self.asked.total + waiting)
    }
}

/// The jobs that retry `sources` of a copy or a move (made by `job` from sources, a conflict
/// policy and a new name): one merging into what the first run made, so that what was done
/// is not done twice, and, for the items whose conflict the user answered (replace, keep
/// both, a new name), each answer again: merged, a file to be replaced was skipped as one
/// already there.
pub fn retries(
    sources: &[PathBuf],
    answers: &Answers,
    job: impl Fn(Vec<PathBuf>, ConflictPolicy, Option<OsString>) -> Job,
) -> Vec<Job> {
    by_answers(sources, answers, ConflictPolicy::Merge, job)
}

/// The jobs that do for `sources` what a job whose conflicts got `answers` would do again:
/// each answer again (Skip too, unless `rest` merges), and `rest` for the sources not
/// answered. "Make it a copy"
/// asks about those; a Retry merges them into what its first run made.
pub fn by_answers(
    sources: &[PathBuf],
    answers: &Answers,
    rest: ConflictPolicy,
    job: impl Fn(Vec<PathBuf>, ConflictPolicy, Option<OsString>) -> Job,
) -> Vec<Job> {
    let mut by_policy: Vec<(ConflictPolicy, Vec<PathBuf>)> = Vec::new();
    let mut renamed = Vec::new();
    for source in sources {
        let policy = match answers.for_retry(source) {
            Some(Resolution::Replace) => ConflictPolicy::Replace,
            Some(Resolution::ReplaceIfNewer) => ConflictPolicy::ReplaceIfNewer,
            Some(Resolution::KeepBoth) => ConflictPolicy::KeepBoth,
            Some(Resolution::RenameTo(name)) => {
                renamed.push(job(
                    vec![source.clone()],
                    ConflictPolicy::Merge,
                    Some(name.clone()),
                ));
                continue;
            }
            // Merged, a file skipped is skipped again anyway: one job, not two.
            _ if rest != ConflictPolicy::Merge
                && answers.given.get(source) == Some(&Resolution::Skip) =>
            {
                ConflictPolicy::Skip
            }
            _ => rest,
        };
        match by_policy.iter_mut().find(|(p, _)| *p == policy) {
            Some((_, group)) => group.push(source.clone()),
            None => by_policy.push((policy, vec![source.clone()])),
        }
    }
    (by_policy.into_iter())
        .map(|(policy, sources)| job(sources, policy, None))
        .chain(renamed)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferry_core::entry::Kind;
    use ferry_core::fs::Timestamp;
    use ferry_core::jobs::EntryInfo;

    fn conflict(id: u64, kind: ConflictKind, source: &str) -> Conflict {
        let info = |path: &str| EntryInfo::new(path.into(), 4, Timestamp::default(), Kind::File);
        Conflict {
            id: ConflictId(id),
            kind,
            source: info(source),
            dest: info(&format!("/dest/{source}")),
            likely_identical: false,
        }
    }

    fn copy(
        sources: Vec<PathBuf>,
        on_conflict: ConflictPolicy,
        dest_name: Option<OsString>,
    ) -> Job {
        Job::Copy {
            sources,
            dest_dir: "/dest".into(),
            dest_name,
            on_conflict,
        }
    }

    /// The disk filled as `a.bin` was being replaced: its retry replaces it (merged, it was
    /// skipped as a file already there); a new name is kept, and the rest merges.
    #[test]
    fn a_retry_gives_each_item_the_answer_its_conflict_got() {
        let mut answers = Answers::default();
        answers.asked(&[
            conflict(1, ConflictKind::FileExists, "/src/a.bin"),
            conflict(2, ConflictKind::FileExists, "/src/b.bin"),
            conflict(3, ConflictKind::FileExists, "/src/c.bin"),
        ]);
        answers.answered(&[
            (ConflictId(1), Resolution::Replace, Scope::This),
            (
                ConflictId(2),
                Resolution::RenameTo("b2.bin".into()),
                Scope::This,
            ),
            (ConflictId(3), Resolution::Skip, Scope::This),
        ]);
        let failed: Vec<PathBuf> = ["/src/a.bin", "/src/b.bin", "/src/c.bin", "/src/d"]
            .map(PathBuf::from)
            .into();
        let jobs = retries(&failed, &answers, copy);
        assert_eq!(
            format!("{jobs:?}"),
            format!(
                "{:?}",
                [
                    copy(vec!["/src/a.bin".into()], ConflictPolicy::Replace, None),
                    copy(
                        vec!["/src/c.bin".into(), "/src/d".into()],
                        ConflictPolicy::Merge,
                        None
                    ),
                    copy(
                        vec!["/src/b.bin".into()],
                        ConflictPolicy::Merge,
                        Some("b2.bin".into())
                    ),
                ]
            )
        );
    }

    /// One answer for all of a kind answers every conflict of it asked so far, not those of
    /// another kind.
    #[test]
    fn an_answer_for_all_of_a_kind_answers_those_asked() {
        let mut answers = Answers::default();
        answers.asked(&[
            conflict(1, ConflictKind::FileExists, "/src/a"),
            conflict(2, ConflictKind::FileExists, "/src/b"),
            conflict(3, ConflictKind::FolderExists, "/src/c"),
        ]);
        answers.answered(&[(ConflictId(2), Resolution::KeepBoth, Scope::AllOfKind)]);
        assert_eq!(
            answers.for_retry("/src/a".as_ref()),
            Some(&Resolution::KeepBoth)
        );
        assert_eq!(
            answers.for_retry("/src/b".as_ref()),
            Some(&Resolution::KeepBoth)
        );
        assert_eq!(answers.for_retry("/src/c".as_ref()), None);
    }
}
