#!/bin/bash -eu
# Builds every libFuzzer target of Sources/FuzzTargets into $OUT, each with its seed corpus
# (Corpus/<format>/ as <target>_seed_corpus.zip), the way ClusterFuzzLite / OSS-Fuzz expect.
# Swift's runtime is linked statically: the runner image has no Swift toolchain.
# Locally (docs/fuzzing.md says how it was checked):
#   OUT=$(mktemp -d) SRC=$(mktemp -d) WORK=$(mktemp -d) .clusterfuzzlite/build.sh
# In the image the Dockerfile copies this script to $SRC/build.sh and the sources to
# $SRC/meshconform; run from the repository it finds the repository beside itself.
here=$(cd "$(dirname "$0")" && pwd)
if [ -f "$here/../Package.swift" ]; then cd "$here/.."; else cd "$SRC/meshconform"; fi
scratch="${WORK:-/tmp}/meshconform-build"
flags=(-c release --scratch-path "$scratch" --static-swift-stdlib
       -Xswiftc "-sanitize=fuzzer,${SANITIZER:-address}" -Xswiftc -DFUZZING)
targets=$(cd Sources/FuzzTargets && ls -d fuzz-*)
for target in $targets; do
  swift build "${flags[@]}" --product "$target"
done
bin=$(swift build "${flags[@]}" --show-bin-path)
for target in $targets; do
  cp "$bin/$target" "$OUT/"
  format=$(sed -n 's/.*FuzzEntry.testOneInput(format: "\([^"]*\)".*/\1/p' "Sources/FuzzTargets/$target/main.swift")
  if [ -d "Corpus/$format" ]; then
    rm -f "$OUT/${target}_seed_corpus.zip"
    (cd "Corpus/$format" && find . -maxdepth 1 -type f ! -name '.*' | zip -q -@ "$OUT/${target}_seed_corpus.zip")
  fi
done
echo "build.sh: $(echo "$targets" | wc -w) fuzz targets in $OUT"
