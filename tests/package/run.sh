#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and builds a consumer project against it
# with find_package and with add_subdirectory, and one with pkg-config.
#   run.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)

echo "== cmake --install into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
test -f "$work/prefix/lib/cmake/tseq/tseqConfig.cmake"
test -f "$work/prefix/lib/cmake/tseq/tseqConfigVersion.cmake"
test -f "$work/prefix/include/tseq/rrb_vector.hpp"

echo "== find_package(tseq)"
cmake -S "$src/tests/package/consumer" -B "$work/find_package" "${gen[@]}" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DTSEQ_CONSUMER_MODE=find_package >"$work/find_package.log"
cmake --build "$work/find_package" >>"$work/find_package.log"
"$work/find_package/consumer"

echo "== add_subdirectory(tseq)"
cmake -S "$src/tests/package/consumer" -B "$work/subdirectory" "${gen[@]}" -DTSEQ_CONSUMER_MODE=subdirectory \
  -DTSEQ_SOURCE_DIR="$src" >"$work/subdirectory.log"
cmake --build "$work/subdirectory" >>"$work/subdirectory.log"
"$work/subdirectory/consumer"

echo "== pkg-config tseq"
export PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig"
# shellcheck disable=SC2046
c++ "$src/tests/package/consumer/main.cpp" -o "$work/pkg_consumer" $(pkg-config --cflags --libs tseq)
"$work/pkg_consumer"
echo "package test passed"
