//! [`DirCache`]: the few most recent folder listings, kept in memory so going back is instant.
//!
//! The cache holds at most [`CAPACITY`] listings. A listing a view still shows is *pinned*
//! (a count of views) and is never evicted from under it; once the last view releases it, it
//! stays for [`EXPIRY`] and is then dropped. Beyond the capacity the least recently used unpinned
//! listing goes first. With more than three folders shown at once (four tabs), every shown
//! listing stays pinned, so the cache temporarily holds more than three; the surplus goes as soon
//! as views release them.
//!
//! The cache is plain data with an injectable [`Clock`], so expiry is tested with a
//! [`ManualClock`] instead of sleeping. It never acts on its own: the owner (the
//! [`DirService`](crate::dirs::DirService) thread) calls [`DirCache::expire`] when
//! [`DirCache::next_expiry`] comes, and collects what left with [`DirCache::take_evicted`] to end
//! those folders' watches.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::entry::Listing;

/// How many listings the cache keeps (more only while more are shown).
pub const CAPACITY: usize = 3;

/// How long a listing no view shows any more is kept after it was last released.
pub const EXPIRY: Duration = Duration::from_secs(3 * 60);

/// A source of the current time, injectable for tests.
pub trait Clock: Send + Sync + 'static {
    /// The current instant.
    fn now(&self) -> Instant;
}

/// The real monotonic clock.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }
}

/// A clock that only moves when told to, for tests.
#[derive(Debug)]
pub struct ManualClock {
    now: Mutex<Instant>,
}

impl Default for ManualClock {
    fn default() -> Self {
        Self::new()
    }
}

impl ManualClock {
    /// A clock standing at the real current instant.
    pub fn new() -> Self {
        ManualClock {
            now: Mutex::new(Instant::now()),
        }
    }

    /// Moves the clock forward by `by`.
    pub fn advance(&self, by: Duration) {
        let mut now = self.now.lock().unwrap_or_else(|e| e.into_inner());
        *now += by;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        *self.now.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// One cached listing.
struct Slot {
    path: PathBuf,
    listing: Arc<Listing>,
    /// How many views show this listing; pinned while above zero.
    pins: usize,
    /// Recency stamp for LRU: larger is more recent.
    used: u64,
    /// When the last view released it (or when it was inserted unpinned).
    released_at: Instant,
}

/// The bounded, expiring cache of folder listings, keyed by folder path.
///
/// All operations are O(number of cached listings), which is three in practice.
pub struct DirCache {
    clock: Arc<dyn Clock>,
    capacity: usize,
    expiry: Duration,
    slots: Vec<Slot>,
    tick: u64,
    evicted: Vec<PathBuf>,
}

impl std::fmt::Debug for DirCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DirCache")
            .field("capacity", &self.capacity)
            .field("expiry", &self.expiry)
            .field(
                "paths",
                &self
                    .slots
                    .iter()
                    .map(|s| (&s.path, s.pins))
                    .collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

impl DirCache {
    /// A cache with the standard limits ([`CAPACITY`] listings, [`EXPIRY`]).
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self::with_limits(clock, CAPACITY, EXPIRY)
    }

    /// A cache with custom limits (benchmarks and tests).
    pub fn with_limits(clock: Arc<dyn Clock>, capacity: usize, expiry: Duration) -> Self {
        DirCache {
            clock,
            capacity,
            expiry,
            slots: Vec::new(),
            tick: 0,
            evicted: Vec::new(),
        }
    }

    /// Number of cached listings (may exceed the capacity while more are pinned).
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// True when `path` is cached (expired listings count as gone).
    pub fn contains(&self, path: &Path) -> bool {
        self.find(path)
            .is_some_and(|i| !self.is_expired(&self.slots[i], self.clock.now()))
    }

    /// The cached paths, most recently used first.
    pub fn paths(&self) -> Vec<PathBuf> {
        let mut slots: Vec<&Slot> = self.slots.iter().collect();
        slots.sort_by_key(|s| std::cmp::Reverse(s.used));
        slots.into_iter().map(|s| s.path.clone()).collect()
    }

    /// Every cached listing with its path, in no particular order (for statistics; not a use).
    pub fn listings(&self) -> impl Iterator<Item = (&Path, &Arc<Listing>)> {
        self.slots.iter().map(|s| (s.path.as_path(), &s.listing))
    }

    /// How many views pin `path` (0 when unpinned or not cached).
    pub fn pins(&self, path: &Path) -> usize {
        self.find(path).map_or(0, |i| self.slots[i].pins)
    }

    /// The cached listing of `path`, marking it as recently used. Expired listings are dropped
    /// first, so this never answers from a listing past its time.
    pub fn get(&mut self, path: &Path) -> Option<Arc<Listing>> {
        self.expire();
        let i = self.find(path)?;
        self.touch(i);
        Some(Arc::clone(&self.slots[i].listing))
    }

    /// Mutable access to the cached listing of `path` (for applying watcher changes with
    /// `Arc::make_mut`, so views holding the old snapshot keep it). Does not count as a use.
    pub fn get_mut(&mut self, path: &Path) -> Option<&mut Arc<Listing>> {
        let i = self.find(path)?;
        Some(&mut self.slots[i].listing)
    }

    /// Stores `listing` for `path` as the most recently used entry, shown by `views` views
    /// (pinned that many times; 0 = cached only). Replacing a listing already cached for `path`
    /// adds `views` to its pins. May evict other, unpinned listings.
    pub fn insert(&mut self, path: PathBuf, listing: Arc<Listing>, views: usize) {
        let now = self.clock.now();
        match self.find(&path) {
            Some(i) => {
                self.slots[i].listing = listing;
                self.slots[i].pins += views;
                self.touch(i);
            }
            None => {
                self.tick += 1;
                let used = self.tick;
                self.slots.push(Slot {
                    path,
                    listing,
                    pins: views,
                    used,
                    released_at: now,
                });
            }
        }
        self.expire();
        self.evict_beyond_capacity();
    }

    /// A view starts showing `path`: pin it. Returns false if it is not cached.
    pub fn pin(&mut self, path: &Path) -> bool {
        let Some(i) = self.find(path) else {
            return false;
        };
        self.slots[i].pins += 1;
        self.touch(i);
        true
    }

    /// A view stops showing `path`: unpin it; when no view shows it any more its expiry starts.
    /// Unpinning a path that is not cached or not pinned does nothing.
    pub fn unpin(&mut self, path: &Path) {
        let now = self.clock.now();
        if let Some(i) = self.find(path)
            && self.slots[i].pins > 0
        {
            let slot = &mut self.slots[i];
            slot.pins -= 1;
            if slot.pins == 0 {
                slot.released_at = now;
            }
            self.touch(i);
            // Views may have pinned more than the capacity; the surplus goes now.
            self.evict_beyond_capacity();
        }
    }

    /// Drops `path` whatever its pins (its folder is gone).
    pub fn remove(&mut self, path: &Path) {
        if let Some(i) = self.find(path) {
            let slot = self.slots.swap_remove(i);
            self.evicted.push(slot.path);
        }
    }

    /// Drops every unpinned listing whose expiry has passed.
    pub fn expire(&mut self) {
        let now = self.clock.now();
        let mut i = 0;
        while i < self.slots.len() {
            if self.is_expired(&self.slots[i], now) {
                let slot = self.slots.swap_remove(i);
                self.evicted.push(slot.path);
            } else {
                i += 1;
            }
        }
    }

    /// When the next unpinned listing expires, if any (the owner's timer deadline).
    pub fn next_expiry(&self) -> Option<Instant> {
        self.slots
            .iter()
            .filter(|s| s.pins == 0)
            .map(|s| s.released_at + self.expiry)
            .min()
    }

    /// The paths that left the cache since the last call (evicted, expired or removed), so the
    /// owner can end their watches.
    pub fn take_evicted(&mut self) -> Vec<PathBuf> {
        std::mem::take(&mut self.evicted)
    }

    fn find(&self, path: &Path) -> Option<usize> {
        self.slots.iter().position(|s| s.path == path)
    }

    fn touch(&mut self, i: usize) {
        self.tick += 1;
        self.slots[i].used = self.tick;
    }

    fn is_expired(&self, slot: &Slot, now: Instant) -> bool {
        slot.pins == 0 && now >= slot.released_at + self.expiry
    }

    /// Evicts least recently used unpinned listings until within capacity (or all are pinned).
    fn evict_beyond_capacity(&mut self) {
        while self.slots.len() > self.capacity {
            let lru = self
                .slots
                .iter()
                .enumerate()
                .filter(|(_, s)| s.pins == 0)
                .min_by_key(|(_, s)| s.used)
                .map(|(i, _)| i);
            let Some(i) = lru else { break };
            let slot = self.slots.swap_remove(i);
            self.evicted.push(slot.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache() -> (DirCache, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new());
        (DirCache::new(clock.clone()), clock)
    }

    fn listing(dir: &str) -> Arc<Listing> {
        Arc::new(Listing::new(PathBuf::from(dir)))
    }

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    fn fill(cache: &mut DirCache, dirs: &[&str]) {
        for d in dirs {
            cache.insert(p(d), listing(d), 0);
        }
    }

    #[test]
    fn holds_at_most_three_and_evicts_the_least_recently_used() {
        let (mut cache, _clock) = cache();
        fill(&mut cache, &["/a", "/b", "/c"]);
        assert_eq!(cache.len(), 3);
        // Using /a makes /b the least recently used.
        assert!(cache.get(&p("/a")).is_some());
        fill(&mut cache, &["/d"]);
        assert_eq!(cache.len(), 3);
        assert!(!cache.contains(&p("/b")));
        assert_eq!(cache.paths(), [p("/d"), p("/a"), p("/c")]);
        assert_eq!(cache.take_evicted(), [p("/b")]);
        assert!(cache.take_evicted().is_empty());
    }

    #[test]
    fn reinserting_replaces_without_growing() {
        let (mut cache, _clock) = cache();
        fill(&mut cache, &["/a", "/b"]);
        assert!(cache.pin(&p("/a")));
        let fresh = listing("/a-new");
        cache.insert(p("/a"), fresh.clone(), 0);
        assert_eq!(cache.len(), 2);
        assert!(Arc::ptr_eq(&cache.get(&p("/a")).unwrap(), &fresh));
        assert_eq!(cache.pins(&p("/a")), 1, "replacing keeps the views' pins");
    }

    #[test]
    fn expires_three_minutes_after_release() {
        let (mut cache, clock) = cache();
        fill(&mut cache, &["/a"]);
        assert!(cache.pin(&p("/a")));
        clock.advance(Duration::from_secs(600));
        cache.expire();
        assert!(cache.contains(&p("/a")), "a shown listing never expires");
        assert_eq!(cache.next_expiry(), None);

        cache.unpin(&p("/a"));
        assert_eq!(cache.next_expiry(), Some(clock.now() + EXPIRY));
        clock.advance(EXPIRY - Duration::from_secs(1));
        cache.expire();
        assert!(
            cache.get(&p("/a")).is_some(),
            "kept until three minutes have passed"
        );
        clock.advance(Duration::from_secs(1));
        assert!(!cache.contains(&p("/a")));
        assert!(
            cache.get(&p("/a")).is_none(),
            "get never answers from an expired listing"
        );
        assert!(cache.is_empty());
        assert_eq!(cache.take_evicted(), [p("/a")]);
        assert_eq!(cache.next_expiry(), None);
    }

    #[test]
    fn expiry_counts_from_the_last_release() {
        let (mut cache, clock) = cache();
        fill(&mut cache, &["/a"]);
        clock.advance(Duration::from_secs(120));
        // Shown again, then released: the three minutes start over.
        assert!(cache.pin(&p("/a")));
        cache.unpin(&p("/a"));
        clock.advance(Duration::from_secs(120));
        cache.expire();
        assert!(cache.contains(&p("/a")));
        clock.advance(Duration::from_secs(60));
        cache.expire();
        assert!(!cache.contains(&p("/a")));
    }

    #[test]
    fn pinned_listings_are_never_evicted_and_the_surplus_goes_on_release() {
        let (mut cache, _clock) = cache();
        for d in ["/a", "/b", "/c", "/d"] {
            cache.insert(p(d), listing(d), 1);
        }
        // Four views show four folders: all stay, above capacity.
        assert_eq!(cache.len(), 4);
        assert!(cache.take_evicted().is_empty());
        // A fifth, unpinned listing is the only candidate and goes at once.
        cache.insert(p("/e"), listing("/e"), 0);
        assert_eq!(cache.take_evicted(), [p("/e")]);
        // Releasing one view brings the cache back to three.
        cache.unpin(&p("/b"));
        assert_eq!(cache.len(), 3);
        assert_eq!(cache.take_evicted(), [p("/b")]);
    }

    #[test]
    fn two_views_pin_one_listing() {
        let (mut cache, clock) = cache();
        fill(&mut cache, &["/a"]);
        assert!(cache.pin(&p("/a")));
        assert!(cache.pin(&p("/a")));
        cache.unpin(&p("/a"));
        clock.advance(EXPIRY * 2);
        cache.expire();
        assert!(cache.contains(&p("/a")), "still shown by the second view");
        cache.unpin(&p("/a"));
        cache.unpin(&p("/a"));
        assert_eq!(cache.pins(&p("/a")), 0, "extra releases are harmless");
        clock.advance(EXPIRY);
        cache.expire();
        assert!(cache.is_empty());
    }

    #[test]
    fn pin_of_an_uncached_path_fails_and_remove_drops_pinned() {
        let (mut cache, _clock) = cache();
        assert!(!cache.pin(&p("/nope")));
        fill(&mut cache, &["/a"]);
        assert!(cache.pin(&p("/a")));
        cache.remove(&p("/a"));
        assert!(cache.is_empty());
        assert_eq!(cache.take_evicted(), [p("/a")]);
    }

    #[test]
    fn get_mut_is_copy_on_write() {
        let (mut cache, _clock) = cache();
        fill(&mut cache, &["/a"]);
        let shown = cache.get(&p("/a")).unwrap();
        let slot = cache.get_mut(&p("/a")).unwrap();
        Arc::make_mut(slot).push(std::ffi::OsStr::new("new"), crate::entry::Meta::default());
        assert!(shown.is_empty(), "the view's snapshot is untouched");
        assert_eq!(cache.get(&p("/a")).unwrap().len(), 1);
    }
}
