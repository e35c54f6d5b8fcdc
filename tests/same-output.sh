#!/usr/bin/env bash
# Whether two builds of the CLI adapt the same way: `adapt --report` of every fuzz regression
# fixture's schema and `convert --report` of every bundled catalog, for every target, compared
# byte for byte. Use it around a refactor of the adapters: build the CLI before and after
# (`cargo build --release -p toolschema-cli`, copy `target/release/toolschema` aside each time).
#
#   tests/same-output.sh OLD_BINARY NEW_BINARY
#
# Prints each difference and a count; exits 1 when there is any.
set -euo pipefail
old=$1
new=$2
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The fuzz fixtures hold `{"target", "finding", "schema"}`: adapt the schema itself.
python3 - "$repo/tests/fixtures/fuzz" "$work" <<'PY'
import json, os, sys
src, out = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    if name.endswith(".json"):
        fixture = json.load(open(os.path.join(src, name)))
        json.dump(fixture["schema"], open(os.path.join(out, name), "w"))
PY
targets=$("$new" adapt --help | sed -n 's/^ *--to <TARGET> *\(.*\)$/\1/p' | tr -d ',')
runs=0
diffs=0
for t in $targets; do
  for f in "$repo"/tests/fixtures/tools/*-*.json; do
    runs=$((runs + 1))
    if ! cmp -s <("$old" convert --to "$t" --report "$f" 2>&1) <("$new" convert --to "$t" --report "$f" 2>&1); then
      echo "differs: convert --to $t $f"
      diffs=$((diffs + 1))
    fi
  done
  for f in "$work"/*.json; do
    runs=$((runs + 1))
    if ! cmp -s <("$old" adapt --to "$t" --report "$f" 2>&1) <("$new" adapt --to "$t" --report "$f" 2>&1); then
      echo "differs: adapt --to $t tests/fixtures/fuzz/$(basename "$f")"
      diffs=$((diffs + 1))
    fi
  done
done
echo "$runs runs, $diffs differences"
[ "$diffs" -eq 0 ]
