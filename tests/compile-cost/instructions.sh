#!/usr/bin/env bash
# Compile cost of the derives (issue 11), counted in instructions instead of seconds: the same two
# generated crates as `measure.sh`, and rustc's incremental `cargo check` of each after touching
# `lib.rs`, run under `valgrind --tool=callgrind`. The counts repeat to within 0.001% whatever else
# the machine is doing (timings on a shared 2-core machine vary by more than the effect measured),
# so one run of each is enough. Takes about a minute per crate under valgrind.
#
#   tests/compile-cost/instructions.sh [TOOLS=200] [WORKDIR=/tmp/toolschema-compile-cost]
#
# Also writes WORKDIR/cg-derived.out: `callgrind_annotate --inclusive=yes` on it shows what the
# derives' own code costs (`toolschema_macros::` functions) apart from what rustc does with
# their output.
set -euo pipefail
tools=${1:-200}
work=${2:-/tmp/toolschema-compile-cost}
here=$(cd "$(dirname "$0")" && pwd)
command -v valgrind >/dev/null || { echo "needs valgrind (Debian package valgrind)" >&2; exit 2; }
# Generate the crates and build their dependencies (no timing runs).
"$here/measure.sh" "$tools" 0 "$work" >/dev/null
export CARGO_TARGET_DIR=$work/target
count() { # crate -> instructions of rustc checking it
  touch "$work/$1/src/lib.rs"
  local cmd
  cmd=$(cd "$work" && cargo check -v -p "$1" 2>&1 | grep 'Running `' | tail -1 | sed -e 's/^ *Running `//' -e 's/`$//')
  touch "$work/$1/src/lib.rs"
  (cd "$work" && eval "valgrind --tool=callgrind --callgrind-out-file=$work/cg-$1.out $cmd" >"$work/vg-$1.log" 2>&1)
  grep 'I   refs' "$work/vg-$1.log" | awk '{gsub(",", "", $NF); print $NF}'
}
plain=$(count plain)
derived=$(count derived)
echo "instructions: plain $plain, derived $derived, overhead $(echo "scale=1; ($derived - $plain) * 100 / $plain" | bc)%"
