#!/usr/bin/env bash
# Installs the build tree (static libraries) into a temporary prefix and builds a consumer
# project against it with find_package and with add_subdirectory, and programs with
# pkg-config (tseq, tseq-onnx). The consumer project includes a shared library of its own
# that links the static tseq (so tseq must be position-independent). Then builds the library
# again with BUILD_SHARED_LIBS=ON, installs it into a second prefix and repeats find_package
# and pkg-config against that.
#   run.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -euo pipefail
build=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
gen=()
command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
# The build tree's compiler, for everything built here.
cxx=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$build/CMakeCache.txt")
cxx=${cxx:-c++}
with_onnx=$(sed -n 's/^TSEQ_WITH_ONNX:[A-Z]*=//p' "$build/CMakeCache.txt")
consumer="$src/tests/package/consumer"
SECONDS=0

# consume PREFIX NAME: the consumer project with find_package(tseq) against PREFIX, then the
# pkg-config programs; runs all of them.
consume() {
  local prefix=$1 name=$2
  echo "== [$name] find_package(tseq): consumer, and a shared library linking tseq"
  cmake -S "$consumer" -B "$work/$name-find_package" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$prefix" -DTSEQ_CONSUMER_MODE=find_package >"$work/$name-find_package.log"
  cmake --build "$work/$name-find_package" >>"$work/$name-find_package.log"
  "$work/$name-find_package/consumer"
  "$work/$name-find_package/plugin_user"

  echo "== [$name] pkg-config tseq"
  local rpath=("-Wl,-rpath,$prefix/lib")
  # shellcheck disable=SC2046
  PKG_CONFIG_PATH="$prefix/lib/pkgconfig" "$cxx" "$consumer/main.cpp" -o "$work/$name-pkg_consumer" "${rpath[@]}" \
    $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tseq)
  "$work/$name-pkg_consumer"
  if [ "$with_onnx" = ON ]; then
    echo "== [$name] pkg-config tseq-onnx"
    # shellcheck disable=SC2046
    "$cxx" "$consumer/onnx_main.cpp" -o "$work/$name-pkg_onnx_consumer" "${rpath[@]}" \
      $(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags --libs tseq-onnx)
    "$work/$name-pkg_onnx_consumer"
  fi
}

echo "== cmake --install into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
test -f "$work/prefix/lib/cmake/tseq/tseqConfig.cmake"
test -f "$work/prefix/lib/cmake/tseq/tseqConfigVersion.cmake"
test -f "$work/prefix/include/tseq/rrb_vector.hpp"
test -f "$work/prefix/lib/libtseq.a"
test -f "$work/prefix/lib/pkgconfig/tseq.pc"
[ "$with_onnx" != ON ] || test -f "$work/prefix/lib/pkgconfig/tseq-onnx.pc"
consume "$work/prefix" static

echo "== add_subdirectory(tseq) (TSEQ_INSTALL off: installs nothing of tseq)"
cmake -S "$consumer" -B "$work/subdirectory" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" \
  -DTSEQ_CONSUMER_MODE=subdirectory -DTSEQ_SOURCE_DIR="$src" >"$work/subdirectory.log"
cmake --build "$work/subdirectory" >>"$work/subdirectory.log"
"$work/subdirectory/consumer"
"$work/subdirectory/plugin_user"
cmake --install "$work/subdirectory" --prefix "$work/subdirectory-prefix" >>"$work/subdirectory.log"
if [ -e "$work/subdirectory-prefix/include/tseq" ] || [ -e "$work/subdirectory-prefix/lib" ]; then
  echo "add_subdirectory(tseq) installed files: $(find "$work/subdirectory-prefix" -type f | head)" >&2
  exit 1
fi
echo "   (static parts: ${SECONDS}s)"

echo "== BUILD_SHARED_LIBS=ON: configure, build, install into $work/shared-prefix"
start=$SECONDS
# No build type (-O0, no -g): this checks the packaging, and compiles in two thirds of the time.
cmake -S "$src" -B "$work/shared-build" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE= \
  -DBUILD_SHARED_LIBS=ON -DTSEQ_WITH_ONNX="$with_onnx" -DTSEQ_PYTHON=OFF -DTSEQ_WITH_TORCH=OFF -DTSEQ_BUILD_TESTS=OFF -DTSEQ_BUILD_BENCHMARKS=OFF \
  -DTSEQ_BUILD_EXAMPLES=OFF -DTSEQ_BUILD_FUZZERS=OFF >"$work/shared-build.log"
cmake --build "$work/shared-build" -j 2 >>"$work/shared-build.log"
cmake --install "$work/shared-build" --prefix "$work/shared-prefix" >>"$work/shared-build.log"
test -f "$work/shared-prefix/lib/libtseq.so.0"
test ! -e "$work/shared-prefix/lib/libtseq.a"
if [ "$with_onnx" = ON ]; then
  test -f "$work/shared-prefix/lib/libtseq_onnx.so.0"
  # The installed tool finds the installed libraries (its RPATH); 77: no case directory.
  rc=0
  "$work/shared-prefix/bin/tseq-onnx-test" --skip-missing "$work/no-such-dir" >/dev/null || rc=$?
  [ "$rc" = 77 ] || { echo "installed tseq-onnx-test exited $rc, expected 77" >&2; exit 1; }
fi
echo "   (shared build and install: $((SECONDS - start))s)"
consume "$work/shared-prefix" shared
echo "package test passed in ${SECONDS}s"
