//! The dialog's model: every waiting conflict of a job as a row with its answer (or none
//! yet), the order the table shows them in (filter and sort), the bulk rules, and what Apply
//! takes. Plain data built from the core's conflicts; nothing here reads the disk.

use std::cmp::Ordering;
use std::ffi::OsStr;
use std::path::PathBuf;

use ferry_core::entry::{Kind, Listing, Meta};
use ferry_core::jobs::{Conflict, ConflictId, ConflictKind, EntryInfo, Resolution};

use crate::gui::format::{self, Category};

/// Every kind, in the order the table lists and counts them.
pub const KINDS: [ConflictKind; 5] = [
    ConflictKind::FileExists,
    ConflictKind::FolderExists,
    ConflictKind::FileVsFolder,
    ConflictKind::DuplicateSource,
    ConflictKind::NameNotAllowed,
];

/// Where `kind` is in [`KINDS`].
pub fn kind_rank(kind: ConflictKind) -> usize {
    KINDS.iter().position(|&k| k == kind).unwrap_or(KINDS.len())
}

/// One waiting conflict.
#[derive(Debug, Clone)]
pub struct Row {
    /// What the core sent.
    pub conflict: Conflict,
    /// The answer chosen in the table, not sent yet.
    pub answer: Option<Resolution>,
    /// Icon families of the incoming and the existing item.
    pub icons: (Category, Category),
    /// Where the name sort puts it ([`name_key`]): made once, as the row arrives, not on
    /// every sort (collation keys cost a few hundred nanoseconds a name).
    name_key: Vec<Vec<u8>>,
}

impl Row {
    fn new(conflict: Conflict) -> Self {
        let icons = (category(&conflict.source), category(&conflict.dest));
        let name_key = name_key(conflict.dest.path.as_os_str());
        Row {
            conflict,
            answer: None,
            icons,
            name_key,
        }
    }

    /// Which side is newer: `Greater` when the incoming one is. `None` when one side has no
    /// date (a name the destination refuses has no existing item).
    pub fn newer(&self) -> Option<Ordering> {
        newer(&self.conflict)
    }
}

/// Which side of `c` is newer ([`Row::newer`]).
fn newer(c: &Conflict) -> Option<Ordering> {
    if c.dest.kind == Kind::Unknown && c.kind == ConflictKind::NameNotAllowed {
        return None;
    }
    Some(c.source.mtime.cmp(&c.dest.mtime))
}

/// The icon family of one side, as the folder view would draw it.
pub fn category(info: &EntryInfo) -> Category {
    if info.kind == Kind::Unknown {
        return Category::Other;
    }
    let name = info.name.as_os_str();
    let mut one = Listing::with_capacity(PathBuf::new(), 1, name.len());
    let meta = Meta {
        kind: info.kind,
        size: info.size,
        ..Meta::default()
    };
    one.push(name, meta);
    format::category(one.entry(0))
}

/// What the table offers for one row of `kind`, besides Rename: in the order of its columns.
pub fn offered(kind: ConflictKind) -> &'static [Resolution] {
    use Resolution as R;
    match kind {
        ConflictKind::FileExists | ConflictKind::FileVsFolder => {
            &[R::Replace, R::Skip, R::KeepBoth]
        }
        ConflictKind::FolderExists => &[R::Replace, R::Merge, R::Skip, R::KeepBoth],
        ConflictKind::DuplicateSource => &[R::Skip, R::KeepBoth],
        ConflictKind::NameNotAllowed => &[R::Skip],
    }
}

/// A bulk rule: it answers the undecided rows shown, and never changes a decided one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// Files: replace where the incoming one is newer, skip the others. Folders: merge, so
    /// that their files are compared as they come.
    NewerWins,
    /// Skip what looks identical.
    IdenticalSkip,
    /// Keep both wherever that is possible.
    KeepBothRest,
    /// Replace files (and a file and a folder of one name); merge folders.
    ReplaceAll,
    /// Skip everything.
    SkipAll,
}

/// Every rule, in the order of their buttons.
pub const RULES: [Rule; 5] = [
    Rule::NewerWins,
    Rule::IdenticalSkip,
    Rule::KeepBothRest,
    Rule::ReplaceAll,
    Rule::SkipAll,
];

impl Rule {
    /// The answer this rule gives `row`, if any.
    pub fn answer(self, row: &Row) -> Option<Resolution> {
        self.answer_to(&row.conflict)
    }

    /// The answer this rule gives conflict `c`, if any.
    pub fn answer_to(self, c: &Conflict) -> Option<Resolution> {
        use ConflictKind as K;
        match (self, c.kind) {
            (Rule::NewerWins, K::FileExists) => Some(match newer(c) {
                Some(Ordering::Greater) => Resolution::Replace,
                _ => Resolution::Skip,
            }),
            (Rule::NewerWins | Rule::ReplaceAll, K::FolderExists) => Some(Resolution::Merge),
            (Rule::ReplaceAll, K::FileExists | K::FileVsFolder) => Some(Resolution::Replace),
            (Rule::IdenticalSkip, _) if c.likely_identical => Some(Resolution::Skip),
            (Rule::KeepBothRest, kind) if kind != K::NameNotAllowed => Some(Resolution::KeepBoth),
            (Rule::SkipAll, _) => Some(Resolution::Skip),
            _ => None,
        }
    }
}

/// Which rows the table shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// All of them.
    All,
    /// Those of one kind.
    Kind(ConflictKind),
    /// Those whose files look identical.
    Identical,
    /// Those without an answer.
    Undecided,
}

/// What the table is sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortKey {
    /// The path at the destination.
    Name,
    /// The kind of conflict, then the path.
    Kind,
    /// The existing item's date.
    Existing,
    /// The incoming item's date.
    Incoming,
    /// The answer (undecided first), then the path.
    Answer,
}

/// A sort key and its direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    /// By what.
    pub key: SortKey,
    /// Largest (or last) first.
    pub descending: bool,
}

/// How many rows of each kind, and how many look identical.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Per kind, in the order of [`KINDS`].
    pub kinds: [usize; 5],
    /// Rows whose files look identical.
    pub identical: usize,
}

/// The waiting conflicts of one job.
#[derive(Debug, Clone)]
pub struct Rows {
    rows: Vec<Row>,
    /// Indexes into `rows` of the rows shown, in order.
    order: Vec<u32>,
    filter: Filter,
    sort: Sort,
    decided: usize,
    counts: Counts,
}

impl Rows {
    /// The rows of `conflicts`, sorted by path.
    pub fn new(conflicts: Vec<Conflict>) -> Self {
        let mut rows = Rows {
            rows: Vec::new(),
            order: Vec::new(),
            filter: Filter::All,
            sort: Sort {
                key: SortKey::Name,
                descending: false,
            },
            decided: 0,
            counts: Counts::default(),
        };
        rows.add(conflicts);
        rows
    }

    /// Adds conflicts that arrived later (one already here is not added twice).
    pub fn add(&mut self, conflicts: Vec<Conflict>) -> usize {
        let before = self.rows.len();
        if self.rows.is_empty() {
            self.rows.reserve(conflicts.len());
            self.rows.extend(conflicts.into_iter().map(Row::new));
            self.rows.sort_by_key(|r| r.conflict.id);
            self.rows.dedup_by_key(|r| r.conflict.id);
        } else {
            for conflict in conflicts {
                if self.position(conflict.id).is_none() {
                    self.rows.push(Row::new(conflict));
                }
            }
        }
        self.refresh();
        self.rows.len() - before
    }

    /// How many conflicts wait.
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// Whether none waits.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// How many have an answer in the table.
    pub fn decided(&self) -> usize {
        self.decided
    }

    /// Rows per kind.
    pub fn counts(&self) -> Counts {
        self.counts
    }

    /// The filter in force.
    pub fn filter(&self) -> Filter {
        self.filter
    }

    /// The sort in force.
    pub fn sort(&self) -> Sort {
        self.sort
    }

    /// How many rows are shown.
    pub fn shown(&self) -> usize {
        self.order.len()
    }

    /// The `i`th row shown.
    pub fn shown_row(&self, i: usize) -> &Row {
        &self.rows[self.order[i] as usize]
    }

    /// Where conflict `id` is among the rows shown.
    pub fn shown_position(&self, id: ConflictId) -> Option<usize> {
        self.order
            .iter()
            .position(|&i| self.rows[i as usize].conflict.id == id)
    }

    /// Conflict `id`'s row.
    pub fn get(&self, id: ConflictId) -> Option<&Row> {
        self.position(id).map(|i| &self.rows[i])
    }

    /// The first row (by id) if any.
    pub fn first(&self) -> Option<&Row> {
        self.rows.first()
    }

    /// The first undecided row in the order shown, else in any order.
    pub fn first_undecided(&self) -> Option<ConflictId> {
        let shown = self.order.iter().map(|&i| &self.rows[i as usize]);
        shown
            .chain(self.rows.iter())
            .find(|r| r.answer.is_none())
            .map(|r| r.conflict.id)
    }

    /// Rows of `kind` other than `id` not answered yet: those an answer for all of the kind
    /// takes (the answered ones keep their answers).
    pub fn others_of_kind(&self, kind: ConflictKind, id: ConflictId) -> usize {
        (self.rows.iter())
            .filter(|r| r.conflict.kind == kind && r.conflict.id != id && r.answer.is_none())
            .count()
    }

    fn position(&self, id: ConflictId) -> Option<usize> {
        self.rows.iter().position(|r| r.conflict.id == id)
    }

    /// Sets (or clears) the answer of conflict `id`; false if it is not here or the answer
    /// does not fit it.
    pub fn decide(&mut self, id: ConflictId, answer: Option<Resolution>) -> bool {
        let Some(i) = self.position(id) else {
            return false;
        };
        let row = &mut self.rows[i];
        if answer
            .as_ref()
            .is_some_and(|a| !a.applies_to(row.conflict.kind))
        {
            return false;
        }
        match (row.answer.is_some(), answer.is_some()) {
            (false, true) => self.decided += 1,
            (true, false) => self.decided -= 1,
            _ => {}
        }
        row.answer = answer;
        true
    }

    /// Answers the undecided rows shown by `rule`; how many it answered.
    pub fn apply_rule(&mut self, rule: Rule) -> usize {
        let mut filled = 0;
        for &i in &self.order {
            let row = &mut self.rows[i as usize];
            if row.answer.is_none()
                && let Some(answer) = rule.answer(row)
            {
                row.answer = Some(answer);
                filled += 1;
            }
        }
        self.decided += filled;
        if filled > 0 {
            self.refresh();
        }
        filled
    }

    /// Takes every decided row out, with its answer, in the order the conflicts arrived.
    pub fn take_decided(&mut self) -> Vec<(ConflictId, Resolution)> {
        let mut taken = Vec::with_capacity(self.decided);
        self.rows.retain_mut(|r| match r.answer.take() {
            Some(answer) => {
                taken.push((r.conflict.id, answer));
                false
            }
            None => true,
        });
        self.decided = 0;
        self.refresh();
        taken
    }

    /// Takes conflict `id` out (answered alone).
    pub fn remove(&mut self, id: ConflictId) -> Option<Row> {
        let row = self.rows.remove(self.position(id)?);
        if row.answer.is_some() {
            self.decided -= 1;
        }
        self.refresh();
        Some(row)
    }

    /// Takes every row of `kind` out (answered for the whole kind); how many.
    pub fn remove_kind(&mut self, kind: ConflictKind) -> usize {
        let before = self.rows.len();
        self.rows.retain(|r| r.conflict.kind != kind);
        self.decided = self.rows.iter().filter(|r| r.answer.is_some()).count();
        self.refresh();
        before - self.rows.len()
    }

    /// Shows only the rows `filter` lets through.
    pub fn set_filter(&mut self, filter: Filter) {
        self.filter = filter;
        self.refresh();
    }

    /// Sorts by `key`; the key already in force turns the direction around.
    pub fn sort_by(&mut self, key: SortKey) {
        self.sort = Sort {
            key,
            descending: self.sort.key == key && !self.sort.descending,
        };
        self.refresh();
    }

    /// Recounts and rebuilds the order shown.
    fn refresh(&mut self) {
        let mut counts = Counts::default();
        for row in &self.rows {
            counts.kinds[kind_rank(row.conflict.kind)] += 1;
            counts.identical += usize::from(row.conflict.likely_identical);
        }
        self.counts = counts;
        let filter = self.filter;
        let keep = |r: &Row| match filter {
            Filter::All => true,
            Filter::Kind(kind) => r.conflict.kind == kind,
            Filter::Identical => r.conflict.likely_identical,
            Filter::Undecided => r.answer.is_none(),
        };
        let rows = &self.rows;
        let mut order: Vec<u32> = (0..rows.len())
            .filter(|&i| keep(&rows[i]))
            .map(|i| u32::try_from(i).unwrap_or(u32::MAX))
            .collect();
        let name = |i: u32| &rows[i as usize].name_key;
        match self.sort.key {
            SortKey::Name => order.sort_by_key(|&i| name(i)),
            SortKey::Kind => {
                order.sort_by_key(|&i| (kind_rank(rows[i as usize].conflict.kind), name(i)));
            }
            SortKey::Existing => order.sort_by_key(|&i| rows[i as usize].conflict.dest.mtime),
            SortKey::Incoming => order.sort_by_key(|&i| rows[i as usize].conflict.source.mtime),
            SortKey::Answer => {
                order.sort_by_key(|&i| (answer_rank(rows[i as usize].answer.as_ref()), name(i)));
            }
        }
        if self.sort.descending {
            order.reverse();
        }
        self.order = order;
    }
}

/// A path ordered folder by folder as the file list orders names (natural: "f2" before
/// "f10"; it read "file 1, 10, 100, 1000" where the list shows 1, 2, 3).
fn name_key(path: &OsStr) -> Vec<Vec<u8>> {
    use std::os::unix::ffi::OsStrExt;
    std::path::Path::new(path)
        .iter()
        .map(|part| ferry_core::sort::name_key(part.as_bytes()))
        .collect()
}

fn answer_rank(answer: Option<&Resolution>) -> u8 {
    match answer {
        None => 0,
        Some(Resolution::Replace | Resolution::ReplaceIfNewer) => 1,
        Some(Resolution::Merge) => 2,
        Some(Resolution::Skip) => 3,
        Some(Resolution::KeepBoth) => 4,
        Some(Resolution::RenameTo(_)) => 5,
        Some(Resolution::Cancel) => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gui::modal::conflict::tests::fixture;

    #[test]
    fn rules_fill_only_undecided_rows_and_only_what_fits() {
        let mut rows = Rows::new(vec![
            fixture::file(1, "a.txt", 10, 20), // incoming newer
            fixture::file(2, "b.txt", 30, 20), // existing newer
            fixture::identical(3, "c.txt"),
            fixture::folder(4, "Photos"),
            fixture::not_allowed(5, "x:y.txt"),
        ]);
        assert!(rows.decide(ConflictId(1), Some(Resolution::KeepBoth)));
        assert!(
            !rows.decide(ConflictId(5), Some(Resolution::KeepBoth)),
            "no room"
        );
        assert_eq!(rows.apply_rule(Rule::IdenticalSkip), 1);
        assert_eq!(rows.apply_rule(Rule::NewerWins), 2);
        let answer = |rows: &Rows, id| rows.get(ConflictId(id)).unwrap().answer.clone();
        assert_eq!(answer(&rows, 1), Some(Resolution::KeepBoth), "kept");
        assert_eq!(answer(&rows, 2), Some(Resolution::Skip));
        assert_eq!(answer(&rows, 3), Some(Resolution::Skip));
        assert_eq!(answer(&rows, 4), Some(Resolution::Merge));
        assert_eq!(answer(&rows, 5), None);
        assert_eq!(rows.apply_rule(Rule::KeepBothRest), 0, "not for a bad name");
        assert_eq!(rows.decided(), 4);
        assert_eq!(rows.apply_rule(Rule::SkipAll), 1);
        assert_eq!(rows.decided(), 5);
    }

    #[test]
    fn rules_answer_only_the_rows_shown() {
        let mut rows = Rows::new(vec![
            fixture::file(1, "a.txt", 10, 20),
            fixture::folder(2, "Photos"),
        ]);
        rows.set_filter(Filter::Kind(ConflictKind::FolderExists));
        assert_eq!(rows.shown(), 1);
        assert_eq!(rows.apply_rule(Rule::SkipAll), 1);
        assert_eq!(rows.get(ConflictId(1)).unwrap().answer, None);
        rows.set_filter(Filter::Undecided);
        assert_eq!(rows.shown(), 1);
        assert_eq!(rows.shown_row(0).conflict.id, ConflictId(1));
    }

    #[test]
    fn apply_takes_the_decided_rows_only() {
        let mut rows = Rows::new(
            (1..=4)
                .map(|i| fixture::file(i, &format!("f{i}"), 1, 2))
                .collect(),
        );
        rows.decide(ConflictId(2), Some(Resolution::Replace));
        rows.decide(ConflictId(4), Some(Resolution::Skip));
        rows.decide(ConflictId(3), Some(Resolution::Skip));
        rows.decide(ConflictId(3), None);
        let taken = rows.take_decided();
        assert_eq!(
            taken,
            [
                (ConflictId(2), Resolution::Replace),
                (ConflictId(4), Resolution::Skip)
            ]
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(rows.decided(), 0);
        assert!(rows.take_decided().is_empty());
    }

    #[test]
    fn later_conflicts_join_once_and_sorting_turns_around() {
        let mut rows = Rows::new(vec![
            fixture::file(1, "b", 1, 2),
            fixture::file(2, "A", 1, 2),
        ]);
        let names = shown_names;
        assert_eq!(names(&rows), ["A", "b"]);
        assert_eq!(
            rows.add(vec![
                fixture::file(3, "c", 1, 2),
                fixture::file(1, "b", 1, 2)
            ]),
            1
        );
        assert_eq!(names(&rows), ["A", "b", "c"]);
        rows.sort_by(SortKey::Name);
        assert_eq!(names(&rows), ["c", "b", "A"]);
        rows.add(vec![fixture::folder(4, "d")]);
        rows.sort_by(SortKey::Kind);
        assert_eq!(names(&rows), ["A", "b", "c", "d"]);
        assert_eq!(rows.counts().kinds[0], 3);
        assert_eq!(
            rows.others_of_kind(ConflictKind::FileExists, ConflictId(1)),
            2
        );
        assert_eq!(rows.remove_kind(ConflictKind::FileExists), 3);
        assert_eq!(names(&rows), ["d"]);
    }

    /// The table ordered "file 1, 10, 100, 1000" where the file list shows 1, 2, 3.
    #[test]
    fn names_sort_naturally_as_in_the_file_list() {
        let files = ["f10", "f2", "F1", "f1"];
        let conflicts = (files.iter().enumerate())
            .map(|(i, name)| fixture::file(i as u64 + 1, name, 1, 2))
            .collect();
        let rows = Rows::new(conflicts);
        assert_eq!(shown_names(&rows), ["f1", "F1", "f2", "f10"]);
    }

    /// The names of the rows shown, in order.
    fn shown_names(rows: &Rows) -> Vec<String> {
        (0..rows.shown())
            .map(|i| {
                rows.shown_row(i)
                    .conflict
                    .source
                    .name
                    .to_string_lossy()
                    .into_owned()
            })
            .collect()
    }
}
