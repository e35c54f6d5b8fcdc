//! [`Few`]: a list whose first few items are kept on the stack, and which moves to the heap
//! only past them (a walk's pending nodes, a position's links not found yet: most are a few).

use std::ops::{Deref, DerefMut};

use arrayvec::ArrayVec;

/// Up to `N` items inline; more on the heap.
pub(crate) enum Few<T, const N: usize> {
    Inline(ArrayVec<T, N>),
    Heap(Vec<T>),
}

impl<T, const N: usize> Few<T, N> {
    pub(crate) fn new() -> Self {
        Few::Inline(ArrayVec::new())
    }

    pub(crate) fn push(&mut self, item: T) {
        match self {
            Few::Inline(few) => {
                if let Err(full) = few.try_push(item) {
                    let mut many = Vec::with_capacity(2 * N);
                    many.extend(few.drain(..));
                    many.push(full.element());
                    *self = Few::Heap(many);
                }
            }
            Few::Heap(many) => many.push(item),
        }
    }

    pub(crate) fn pop(&mut self) -> Option<T> {
        match self {
            Few::Inline(few) => few.pop(),
            Few::Heap(many) => many.pop(),
        }
    }
}

impl<T, const N: usize> Deref for Few<T, N> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        match self {
            Few::Inline(few) => few,
            Few::Heap(many) => many,
        }
    }
}

impl<T, const N: usize> DerefMut for Few<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        match self {
            Few::Inline(few) => few,
            Few::Heap(many) => many,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Few;

    /// Past its inline room the list keeps every item, in order, and pops them last first.
    #[test]
    fn items_past_the_inline_room_are_kept_in_order() {
        let mut few: Few<usize, 4> = Few::new();
        for i in 0..10 {
            few.push(i);
            assert_eq!(&*few, (0..=i).collect::<Vec<_>>().as_slice());
        }
        assert!(matches!(few, Few::Heap(_)));
        for i in (0..10).rev() {
            assert_eq!(few.pop(), Some(i));
        }
        assert_eq!(few.pop(), None);
    }
}
