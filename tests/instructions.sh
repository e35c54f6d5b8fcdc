#!/usr/bin/env bash
# Issue 13's figures as instruction counts (callgrind), which are the same on every run, next to
# the wall-time figures of `cargo bench -p toolschema --bench adapt -- figures`, which move by
# several per cent on a shared machine. See runtime/benches/instructions.rs for what is counted.
#
#   tests/instructions.sh            # about a minute on 2 cores; needs valgrind
#
# Prints, per target, the instructions per real tool and the median ratio to a clone + drop of the
# same value, then each growth row in instructions.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
command -v valgrind > /dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
bin=$(cargo bench -p toolschema --bench instructions --no-run --message-format=json 2> /dev/null \
  | sed -n 's/.*"executable":"\([^"]*instructions-[^"]*\)".*/\1/p' | tail -1)
[ -x "$bin" ] || { echo "could not build the instructions bench" >&2; exit 1; }
dumps=$(mktemp -d)
trap 'rm -rf "$dumps"' EXIT
targets=$("$bin" targets)
count() {
  valgrind --tool=callgrind --collect-atstart=no --toggle-collect='instructions::measured' \
    --dump-after='instructions::measured' --callgrind-out-file="$dumps/$1-$2.%p" "$bin" "$1" "$2" \
    > /dev/null 2>&1
}
for kind in real grow; do
  for t in clone $targets; do
    count "$kind" "$t" &
    # Two at a time (these machines have two cores).
    [ "$(jobs -r | wc -l)" -lt 2 ] || wait -n
  done
done
wait
"$bin" report "$dumps"
