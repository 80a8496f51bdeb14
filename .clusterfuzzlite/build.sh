#!/bin/bash -eu
# Builds every libFuzzer target of Sources/FuzzTargets into $OUT, each with its seed corpus
# (Corpus/<format>/ as <target>_seed_corpus.zip), the way ClusterFuzzLite / OSS-Fuzz expect.
# Locally: OUT=$(mktemp -d) SRC=$(mktemp -d) WORK=$(mktemp -d) .clusterfuzzlite/build.sh
cd "$(dirname "$0")/.."
scratch="${WORK:-/tmp}/meshconform-build"
for dir in Sources/FuzzTargets/fuzz-*; do
  target=$(basename "$dir")
  swift build --scratch-path "$scratch" -c release --product "$target" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING
  cp "$scratch/release/$target" "$OUT/"
  format=$(sed -n 's/.*FuzzEntry.testOneInput(format: "\([^"]*\)".*/\1/p' "$dir/main.swift")
  if [ -d "Corpus/$format" ]; then
    (cd "Corpus/$format" && find . -maxdepth 1 -type f ! -name '.*' | zip -q -@ "$OUT/${target}_seed_corpus.zip")
  fi
done
