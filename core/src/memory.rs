//! Handing memory the process no longer uses back to the operating system.
//!
//! glibc's `malloc` keeps freed memory for reuse, and three of its habits kept several
//! megabytes after a walk through big folders, more than the three listings the cache may
//! keep:
//! - once a large block (a listing's records) has been freed, it raises its `mmap` threshold
//!   to that size and its trim threshold to twice that, so later listings come from the arenas
//!   and up to twice a listing's size stays at the top of each arena;
//! - each thread that allocates gets an arena of its own (the lister, its helper and the sort
//!   threads build listings), and `malloc_trim` never shrinks the top of those arenas: only
//!   `free` does, past the trim threshold;
//! - free space in the middle of an arena is only returned by `malloc_trim`.
//!
//! [`return_memory_promptly`] turns off the first habit and keeps arena tops small;
//! [`release_free_memory`] undoes the third. The directory service does the former when it
//! starts and the latter after its cache drops a listing.

/// Largest free space glibc keeps at the top of an arena: its own default, fixed, so that it is
/// never raised to a multiple of the largest block freed so far.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: i32 = 128 * 1024;

/// Makes glibc return freed memory to the system promptly, process-wide: a fixed trim
/// threshold ([`TRIM_THRESHOLD`]; this also fixes the `mmap` threshold at its 128 KiB default,
/// so big buffers are mapped and unmapped on their own) and no extra padding when an arena
/// grows. Idempotent; a no-op with other C libraries.
///
/// The cost is an `mmap` and `munmap` per buffer of 128 KiB or more and an arena resize per
/// growth, where glibc would otherwise reuse memory it kept: negligible next to filling such a
/// buffer.
pub fn return_memory_promptly() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc(Call::Tune);
}

/// Returns the free pages in every `malloc` arena to the system (glibc's `malloc_trim(0)`);
/// a no-op with other C libraries.
///
/// Costs a walk over the arenas' free lists and one `madvise` per free run of pages: well under
/// a millisecond for a file manager's heap, so call it after dropping something big, not in a
/// loop.
pub fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc(Call::Trim);
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[derive(Clone, Copy)]
enum Call {
    Tune,
    Trim,
}

/// The calls into glibc's allocator: the only unsafe code in Ferry's core.
///
/// # Why `unsafe` is sound here
/// `mallopt` and `malloc_trim` are `unsafe` only because they are foreign functions. They take
/// plain integers, touch no memory of ours, and are thread-safe: they take the allocator's
/// locks as `malloc` and `free` do. `mallopt` changes tuning parameters, never the validity of
/// an allocation; `malloc_trim` only releases pages that are free. Their results (whether a
/// parameter was accepted, whether anything was released) change nothing for us.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
fn glibc(call: Call) {
    // SAFETY: see above; no pointers are passed and neither call has preconditions.
    unsafe {
        match call {
            Call::Tune => {
                libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
                libc::mallopt(libc::M_TOP_PAD, 0);
            }
            Call::Trim => {
                libc::malloc_trim(0);
            }
        }
    }
}
