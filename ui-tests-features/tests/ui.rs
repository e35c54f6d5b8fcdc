//! The derives' errors for a type toolschema supports behind a feature that is off: the error
//! names the feature (`ui-tests` has every feature on, so these cases live in their own package).
//!
//! Regenerate the `.stderr` files with `TRYBUILD=overwrite cargo test -p
//! toolschema-ui-tests-features` and read the diff like code.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("fail/*.rs");
}
