//! A `begin` line's job: sources and destinations as [`StoredPath`]s, policies by name.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::StoredPath;
use super::trash::StoredTrashedItem;
use crate::jobs::{ConflictPolicy, Job, TrashRoots, TrashedItem, Volumes};

fn paths(list: &[PathBuf]) -> Vec<StoredPath> {
    list.iter().map(|p| StoredPath::path(p)).collect()
}

fn unpaths(list: Vec<StoredPath>) -> Vec<PathBuf> {
    list.into_iter().map(StoredPath::into_path).collect()
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub(in crate::jobs::journal) enum StoredJob {
    Copy {
        sources: Vec<StoredPath>,
        dest_dir: StoredPath,
        /// Absent unless the one source is given a new name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dest_name: Option<StoredPath>,
        on_conflict: String,
    },
    Move {
        sources: Vec<StoredPath>,
        dest_dir: StoredPath,
        /// Absent unless the one source is given a new name.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        dest_name: Option<StoredPath>,
        on_conflict: String,
    },
    Rename {
        path: StoredPath,
        new_name: StoredPath,
    },
    CreateFolder {
        parent: StoredPath,
        name: StoredPath,
    },
    Link {
        targets: Vec<StoredPath>,
        dest_dir: StoredPath,
        on_conflict: String,
    },
    Trash {
        paths: Vec<StoredPath>,
        home: StoredPath,
        /// `None`: every volume.
        volumes: Option<Vec<StoredPath>>,
    },
    /// The items, with where they were and their identities in the trash, so that a crash
    /// leaves enough to tell which the job restored: their info files are gone by then.
    /// Written before this field existed: only `infos` (read again when needed).
    Restore {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        infos: Vec<StoredPath>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        items: Vec<StoredTrashedItem>,
        /// Absent before restores had a policy: read as Skip, as they failed a taken place.
        #[serde(default)]
        on_conflict: String,
    },
}

/// Policies are stored by name; one this version does not know is read as Skip, which never
/// overwrites anything.
fn policy_name(p: ConflictPolicy) -> String {
    format!("{p:?}")
}

fn policy_of(name: &str) -> ConflictPolicy {
    match name {
        "Ask" => ConflictPolicy::Ask,
        "Replace" => ConflictPolicy::Replace,
        "ReplaceIfNewer" => ConflictPolicy::ReplaceIfNewer,
        "KeepBoth" => ConflictPolicy::KeepBoth,
        "Merge" => ConflictPolicy::Merge,
        _ => ConflictPolicy::Skip,
    }
}

impl StoredJob {
    pub(in crate::jobs::journal) fn of(job: &Job) -> Option<StoredJob> {
        Some(match job {
            Job::Copy {
                sources,
                dest_dir,
                dest_name,
                on_conflict,
            } => StoredJob::Copy {
                sources: paths(sources),
                dest_dir: StoredPath::path(dest_dir),
                dest_name: dest_name.as_deref().map(StoredPath::of),
                on_conflict: policy_name(*on_conflict),
            },
            Job::Move {
                sources,
                dest_dir,
                dest_name,
                on_conflict,
            } => StoredJob::Move {
                sources: paths(sources),
                dest_dir: StoredPath::path(dest_dir),
                dest_name: dest_name.as_deref().map(StoredPath::of),
                on_conflict: policy_name(*on_conflict),
            },
            Job::Rename { path, new_name } => StoredJob::Rename {
                path: StoredPath::path(path),
                new_name: StoredPath::of(new_name),
            },
            Job::CreateFolder { parent, name } => StoredJob::CreateFolder {
                parent: StoredPath::path(parent),
                name: StoredPath::of(name),
            },
            Job::Link {
                targets,
                dest_dir,
                on_conflict,
            } => StoredJob::Link {
                targets: paths(targets),
                dest_dir: StoredPath::path(dest_dir),
                on_conflict: policy_name(*on_conflict),
            },
            Job::Trash { paths: p, roots } => StoredJob::Trash {
                paths: paths(p),
                home: StoredPath::path(&roots.home),
                volumes: match &roots.volumes {
                    Volumes::All => None,
                    Volumes::Only(tops) => Some(paths(tops)),
                },
            },
            Job::Restore { items, on_conflict } => StoredJob::Restore {
                infos: Vec::new(),
                items: items.iter().map(StoredTrashedItem::of).collect(),
                on_conflict: policy_name(*on_conflict),
            },
            // Nothing to undo.
            Job::Delete { .. } | Job::EmptyTrash { .. } | Job::Undo { .. } | Job::Resume { .. } => {
                return None;
            }
        })
    }

    pub(in crate::jobs::journal) fn into_job(self) -> Job {
        match self {
            StoredJob::Copy {
                sources,
                dest_dir,
                dest_name,
                on_conflict,
            } => Job::Copy {
                sources: unpaths(sources),
                dest_dir: dest_dir.into_path(),
                dest_name: dest_name.map(StoredPath::into_os),
                on_conflict: policy_of(&on_conflict),
            },
            StoredJob::Move {
                sources,
                dest_dir,
                dest_name,
                on_conflict,
            } => Job::Move {
                sources: unpaths(sources),
                dest_dir: dest_dir.into_path(),
                dest_name: dest_name.map(StoredPath::into_os),
                on_conflict: policy_of(&on_conflict),
            },
            StoredJob::Rename { path, new_name } => Job::Rename {
                path: path.into_path(),
                new_name: new_name.into_os(),
            },
            StoredJob::CreateFolder { parent, name } => Job::CreateFolder {
                parent: parent.into_path(),
                name: name.into_os(),
            },
            StoredJob::Link {
                targets,
                dest_dir,
                on_conflict,
            } => Job::Link {
                targets: unpaths(targets),
                dest_dir: dest_dir.into_path(),
                on_conflict: policy_of(&on_conflict),
            },
            StoredJob::Trash {
                paths,
                home,
                volumes,
            } => Job::Trash {
                paths: unpaths(paths),
                roots: TrashRoots {
                    home: home.into_path(),
                    volumes: volumes.map_or(Volumes::All, |v| Volumes::Only(unpaths(v))),
                },
            },
            // Every item the job was given, restored or not; what a redo restores comes from
            // the undo (see `JournalRecord::redo_job`).
            StoredJob::Restore {
                infos,
                items,
                on_conflict,
            } if infos.is_empty() => Job::Restore {
                items: items
                    .into_iter()
                    .filter_map(StoredTrashedItem::into_item)
                    .collect(),
                on_conflict: policy_of(&on_conflict),
            },
            // An older line: restored items left the trash with their info files.
            StoredJob::Restore {
                infos, on_conflict, ..
            } => Job::Restore {
                items: infos
                    .into_iter()
                    .filter_map(|i| TrashedItem::read(&i.into_path()).ok())
                    .collect(),
                on_conflict: policy_of(&on_conflict),
            },
        }
    }
}
