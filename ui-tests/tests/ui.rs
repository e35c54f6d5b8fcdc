//! Compile-time behaviour of the derives: every user mistake in `ui-tests/fail` must fail with the
//! recorded error (`.stderr`, made with rustc 1.95), and every case in `ui-tests/pass` must
//! compile and run (each `main` asserts the contract checker finds its published schema clean).
//!
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p toolschema-ui-tests`
//! and read the diff like code.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/*.rs");
    t.pass("pass/*.rs");
}
