//! Deep work on a stack sized for it, kept by the thread and used again.
//!
//! serde_json clones, drops and compares values recursively, and so do the walks of the rules: a
//! deeply nested document needs more stack than its caller may have. A stack mapped anew for
//! each document (what [`stacker::grow`] does) costs a page fault for every page the work
//! touches, every time: on a 3,000-level document (≈ 3 MB of stack touched) that was 40-55 % of
//! the adaptation's time on the machine measured. [`grow`] runs the work on the
//! thread's own stack (the pages the last deep document touched are still there), made larger
//! when a document needs more; [`maybe_grow`] is the check the recursive walks make every few
//! levels, which knows that stack's bounds.
//!
//! Where the stack cannot be switched by `corosensei` (an architecture it does not support),
//! both are stacker's.

use std::cell::Cell;

thread_local! {
    /// The bounds (lowest usable address, base) of the kept stack while the thread runs on it;
    /// `(0, 0)` on any other stack.
    static ON_KEPT: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// An approximation of the stack pointer: the address of a local of this frame.
#[inline(always)]
fn stack_pointer() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Runs `f` with `bounds` as the thread's kept-stack bounds, put back as they were after (also
/// when `f` panics).
fn with_bounds<R>(bounds: (usize, usize), f: impl FnOnce() -> R) -> R {
    struct Restore((usize, usize));
    impl Drop for Restore {
        fn drop(&mut self) {
            ON_KEPT.set(self.0);
        }
    }
    let _restore = Restore(ON_KEPT.replace(bounds));
    f()
}

/// Runs `f` on a new stack of `size` bytes from stacker (the kept stack's bounds do not hold
/// there).
fn on_new_stack<R>(size: usize, f: impl FnOnce() -> R) -> R {
    with_bounds((0, 0), || stacker::grow(size, f))
}

/// [`stacker::maybe_grow`]: `f` on this stack when at least `red_zone` bytes of it are left, else
/// on a new one of `size` bytes. On the kept stack, what is left is measured against its own
/// bounds (stacker knows only the thread's own stack and its own).
#[inline(always)]
pub(crate) fn maybe_grow<R>(red_zone: usize, size: usize, f: impl FnOnce() -> R) -> R {
    match ON_KEPT.get() {
        (0, 0) => stacker::maybe_grow(red_zone, size, f),
        (limit, base) => {
            let at = stack_pointer();
            if at <= base && at.checked_sub(limit).is_some_and(|left| left >= red_zone) {
                f()
            } else {
                on_new_stack(size, f)
            }
        }
    }
}

/// Runs `f` on a stack of at least `size` bytes: the thread's kept stack, made anew when it is
/// smaller (or in use), and kept for the next call when it is at most [`KEEP_AT_MOST`].
pub(crate) fn grow<R>(size: usize, f: impl FnOnce() -> R) -> R {
    kept::grow(size, f)
}

/// A stack of this size or less is kept by the thread for its next deep document. Only its
/// address space is reserved; memory is taken by the pages deep work has touched (about 0.5 KB
/// per level of JSON nesting in a release build).
// Read only where the stack is switched (and by the tests).
#[allow(dead_code)]
const KEEP_AT_MOST: usize = 256 << 20;

// The same predicate as the corosensei dependency's in Cargo.toml.
cfg_if::cfg_if! {
    if #[cfg(all(
        any(unix, windows),
        any(
            target_arch = "x86_64",
            target_arch = "aarch64",
            target_arch = "arm",
            target_arch = "riscv64"
        )
    ))] {
        mod kept {
            use corosensei::stack::{DefaultStack, Stack};
            use std::cell::Cell;

            thread_local! {
                static KEPT: Cell<Option<DefaultStack>> = const { Cell::new(None) };
            }

            /// Left unused at the bottom of the kept stack: its guard page and a margin.
            const BOTTOM_MARGIN: usize = 64 * 1024;

            /// Whether the stack is switched (and kept) here.
            #[cfg(test)]
            pub(super) const SWITCHES: bool = true;

            fn bounds(stack: &DefaultStack) -> (usize, usize) {
                (
                    stack.limit().get() + BOTTOM_MARGIN,
                    stack.base().get(),
                )
            }

            fn capacity(stack: &DefaultStack) -> usize {
                stack.base().get() - stack.limit().get()
            }

            pub(super) fn grow<R>(size: usize, f: impl FnOnce() -> R) -> R {
                let size = size.saturating_add(BOTTOM_MARGIN);
                // A kept stack too small for this call stays kept (unless a larger one replaces it).
                let (stack, aside) = match KEPT.take() {
                    Some(stack) if capacity(&stack) >= size => (Some(stack), None),
                    small => (DefaultStack::new(size).ok(), small),
                };
                let Some(mut stack) = stack else {
                    KEPT.set(aside);
                    return super::on_new_stack(size, f);
                };
                let bounds = bounds(&stack);
                let result = corosensei::on_stack(&mut stack, || super::with_bounds(bounds, f));
                // The largest of this one (when small enough to keep), the one set aside and one a
                // nested call kept meanwhile.
                let this = (capacity(&stack) <= super::KEEP_AT_MOST).then_some(stack);
                let kept = [this, aside, KEPT.take()]
                    .into_iter()
                    .flatten()
                    .max_by_key(capacity);
                KEPT.set(kept);
                result
            }
        }
    } else {
        mod kept {
            #[cfg(test)]
            pub(super) const SWITCHES: bool = false;

            pub(super) fn grow<R>(size: usize, f: impl FnOnce() -> R) -> R {
                super::on_new_stack(size, f)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recurses `levels` deep with a frame of about 1 KB, the stack looked at every level.
    fn recurse(levels: usize) -> usize {
        let frame = std::hint::black_box([1u8; 1024]);
        if levels == 0 {
            return usize::from(frame[0]);
        }
        maybe_grow(64 * 1024, 1 << 20, || recurse(levels - 1)) + usize::from(frame[1023])
    }

    /// Deeper than the stack it started on (4 MB against ≈ 1 KB a level): the checks measure the
    /// kept stack by its own bounds and move on to new stacks, instead of overflowing it.
    #[test]
    fn work_deeper_than_the_kept_stack_moves_on() {
        assert_eq!(grow(4 << 20, || recurse(20_000)), 20_001);
        // And on a thread's own stack (stacker's bounds).
        assert_eq!(recurse(20_000), 20_001);
    }

    /// The kept stack's bounds while work runs on it, and nothing after.
    fn bounds_inside(size: usize) -> (usize, usize) {
        let bounds = grow(size, || {
            let bounds = ON_KEPT.get();
            let at = stack_pointer();
            if kept::SWITCHES {
                assert!(bounds.0 < at && at <= bounds.1, "runs on the kept stack");
                // A check with room left stays on it.
                let checked = maybe_grow(64 * 1024, 1 << 20, stack_pointer);
                assert!(
                    bounds.0 < checked && checked <= bounds.1,
                    "stays on the kept stack"
                );
            }
            bounds
        });
        assert_eq!(ON_KEPT.get(), (0, 0));
        bounds
    }

    #[test]
    fn the_stack_is_kept_and_grown_when_too_small() {
        if !kept::SWITCHES {
            return;
        }
        // Each test runs on a thread of its own: nothing is kept before the first call.
        let first = bounds_inside(8 << 20);
        assert_eq!(bounds_inside(8 << 20), first, "used again");
        assert_eq!(bounds_inside(1 << 20), first, "a smaller need uses it too");
        let larger = bounds_inside(32 << 20);
        assert_ne!(larger, first, "too small: a larger one");
        assert!(larger.1 - larger.0 >= 32 << 20);
        assert_eq!(bounds_inside(8 << 20), larger, "the larger one is kept");
        // Past the size kept, a stack for the call alone.
        let huge = bounds_inside(KEEP_AT_MOST + (1 << 20));
        assert_ne!(huge, larger);
        assert_eq!(bounds_inside(8 << 20), larger);
    }

    /// A call inside a call (the kept stack is in use) gets a stack of its own; the outer
    /// bounds hold again after it, and after a panic nothing is left set.
    #[test]
    fn nested_calls_and_panics_leave_the_bounds_as_they_were() {
        grow(4 << 20, || {
            let outer = ON_KEPT.get();
            let inner = bounds_inside_nested();
            assert_eq!(ON_KEPT.get(), outer);
            if outer != (0, 0) {
                assert_ne!(inner, outer);
            }
            // A new stacker stack from a check: the kept bounds do not hold on it.
            on_new_stack(1 << 20, || assert_eq!(ON_KEPT.get(), (0, 0)));
            assert_eq!(ON_KEPT.get(), outer);
        });
        let panicked = std::panic::catch_unwind(|| grow(4 << 20, || panic!("inside")));
        assert!(panicked.is_err());
        assert_eq!(ON_KEPT.get(), (0, 0));
        assert_eq!(
            grow(4 << 20, || recurse(1_000)),
            1_001,
            "usable after a panic"
        );
    }

    fn bounds_inside_nested() -> (usize, usize) {
        grow(2 << 20, || ON_KEPT.get())
    }
}
