#!/usr/bin/env bash
# Compile cost of the derives (issue 11): a crate of N tools (each a unit enum, a nested struct and
# a parameter struct with 7 fields), generated twice — with only `Deserialize + JsonSchema`, and
# with `ProviderSafe` / `ToolParams` added — then `cargo check` after touching `lib.rs`, alternating,
# RUNS times each. Prints every run and the medians.
#
#   tests/compile-cost/measure.sh [TOOLS=200] [RUNS=5] [WORKDIR=/tmp/toolschema-compile-cost]
#
# Measure on a quiet machine: the figure is a ratio of two medians taken in the same run.
set -euo pipefail
tools=${1:-200}
runs=${2:-5}
work=${3:-/tmp/toolschema-compile-cost}
repo=$(cd "$(dirname "$0")/../.." && pwd)

gen() { # name, with-derives (0/1)
  local dir=$work/$1 with=$2 i
  mkdir -p "$dir/src"
  cat > "$dir/Cargo.toml" <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
serde_json = "1"
schemars = "1"
toolschema = { path = "$repo/runtime" }
TOML
  {
    echo "#![allow(dead_code)]"
    echo "use std::collections::HashMap;"
    echo "use schemars::JsonSchema;"
    echo "use serde::Deserialize;"
    [ "$with" = 1 ] && echo "use toolschema::{ProviderSafe, ToolParams};"
    for i in $(seq 1 "$tools"); do
      local safe="" params=""
      if [ "$with" = 1 ]; then safe=", ProviderSafe"; params=", ToolParams"; fi
      cat <<RS
#[derive(Deserialize, JsonSchema$safe)]
#[serde(rename_all = "snake_case")]
pub enum Kind$i { Alpha, Beta, Gamma }

#[derive(Deserialize, JsonSchema$safe)]
pub struct Item$i { pub name: String, pub weight: f64, pub tags: Vec<String> }

#[derive(Deserialize, JsonSchema$params)]
pub struct Params$i {
    pub query: String,
    pub limit: Option<u32>,
    pub item: Item$i,
    pub items: Vec<Item$i>,
    pub kind: Option<Kind$i>,
    #[serde(default)]
    pub verbose: bool,
    pub scores: HashMap<String, f64>,
}
RS
    done
  } > "$dir/src/lib.rs"
}

mkdir -p "$work"
cat > "$work/Cargo.toml" <<TOML
[workspace]
members = ["plain", "derived"]
resolver = "3"
TOML
gen plain 0
gen derived 1
export CARGO_TARGET_DIR=$work/target
(cd "$work" && cargo check -q -p plain -p derived)   # dependencies, once
[ "$runs" = 0 ] && exit 0                             # generate and build only (instructions.sh)

time_check() { # crate
  touch "$work/$1/src/lib.rs"
  local t0 t1
  t0=$(date +%s.%N)
  (cd "$work" && cargo check -q -p "$1")
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}

plain=(); derived=()
for r in $(seq 1 "$runs"); do
  p=$(time_check plain); d=$(time_check derived)
  plain+=("$p"); derived+=("$d")
  echo "run $r: plain ${p}s, derived ${d}s"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
mp=$(median "${plain[@]}"); md=$(median "${derived[@]}")
echo "median: plain ${mp}s, derived ${md}s, overhead $(echo "scale=1; ($md - $mp) * 100 / $mp" | bc)%"
