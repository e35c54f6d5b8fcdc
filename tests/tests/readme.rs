//! The README's quick starts are the programs CI builds: the Rust block after the link to
//! `tests/examples/quickstart.rs` (and to `cli/examples/direct.rs`) is that file, byte for byte.

#[test]
fn the_readme_shows_the_quickstart_program_whole() {
    let readme = include_str!("../../README.md");
    let program = include_str!("../examples/quickstart.rs");
    let after = readme
        .split_once("[`tests/examples/quickstart.rs`](tests/examples/quickstart.rs)")
        .expect("the README links the quick start")
        .1;
    let block = after
        .split_once("```rust,ignore\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .expect("a Rust block follows the link")
        .0;
    assert_eq!(
        block, program,
        "README.md's quick start differs from tests/examples/quickstart.rs: copy the file into it"
    );
}

#[test]
fn the_readme_shows_the_direct_quickstart_program_whole() {
    let readme = include_str!("../../README.md");
    let program = include_str!("../../cli/examples/direct.rs");
    let after = readme
        .split_once("[`cli/examples/direct.rs`](cli/examples/direct.rs)")
        .expect("the README links the direct quick start")
        .1;
    let block = after
        .split_once("```rust,ignore\n")
        .and_then(|(_, rest)| rest.split_once("```\n"))
        .expect("a Rust block follows the link")
        .0;
    assert_eq!(
        block, program,
        "README.md's direct quick start differs from cli/examples/direct.rs: copy the file into it"
    );
}
