#!/usr/bin/env bash
# Installs the build tree into a temporary prefix and compiles every installed public header
# (include/tseq/*.hpp, include/tseq/onnx/*.hpp) alone in its own translation unit, then the
# consumer's sources, with g++ and with clang++ (when present), at -O3 with warnings as errors.
# The installed headers are found with plain -I, so that warnings in them show; the
# dependencies' directories (DEP_INCLUDE_DIR...) are -isystem.
#   headers.sh BUILD_DIR SOURCE_DIR WORK_DIR [DEP_INCLUDE_DIR...]
set -euo pipefail
build=$1
src=$2
work=$3
shift 3
rm -rf "$work"
mkdir -p "$work/tu"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
inc="$work/prefix/include"

flags=(-std=c++20 -O3 -Wall -Wextra -Wpedantic -Werror -I "$inc")
declare -A seen=()
for d in "$@"; do
  # /usr/include is searched anyway; as -isystem it would break libstdc++'s #include_next.
  [ -z "$d" ] || [ "$d" = /usr/include ] || [ -n "${seen[$d]:-}" ] && continue
  seen[$d]=1
  flags+=(-isystem "$d")
done

# One translation unit per header; the consumer's sources as they are.
units=()
shopt -s nullglob
for h in "$inc"/tseq/*.hpp "$inc"/tseq/onnx/*.hpp; do
  rel=${h#"$inc"/}
  tu="$work/tu/${rel//\//_}.cpp"
  printf '#include "%s"\n' "$rel" >"$tu"
  units+=("$tu")
done
[ ${#units[@]} -gt 0 ] || { echo "no headers installed under $inc" >&2; exit 1; }
headers=${#units[@]}
units+=("$src"/tests/package/consumer/*.cpp)
[ -d "$inc/tseq/onnx" ] && flags+=(-DCONSUMER_WITH_ONNX=1)

compilers=(g++)
command -v clang++ >/dev/null 2>&1 && compilers+=(clang++)

# Each job prints nothing on success, the compiler's output and a FAIL line otherwise.
printf '"%s"\n' "${flags[@]}" >"$work/flags.rsp"
compile_one() {  # compile_one CXX RSP TU
  local out
  out=$("$1" @"$2" -c "$3" -o /dev/null 2>&1) || printf '%s\nFAIL %s %s\n' "$out" "$1" "$3"
}
export -f compile_one
for cxx in "${compilers[@]}"; do
  printf '%s\0' "${units[@]}" | xargs -0 -P 2 -I{} bash -c 'compile_one "$@"' _ "$cxx" "$work/flags.rsp" {}
done >"$work/compile.log"

failed=$(grep -c '^FAIL ' "$work/compile.log" || true)
total=$((${#units[@]} * ${#compilers[@]}))
if [ "$failed" -gt 0 ]; then
  cat "$work/compile.log"
  echo "public headers: $failed of $total compilations failed (${compilers[*]})"
  exit 1
fi
# Header weight (docs/design.md, "Header weight"): what including a light public header costs
# every translation unit, as lines after g++'s preprocessor. The budgets hold on Debian's
# libstdc++; a header that starts including <algorithm> or <complex> crosses them.
weight_failed=0
weights=()
for spec in tseq/ops.hpp:80000 tseq/sequence.hpp:80000 tseq/rrb_vector.hpp:48000; do
  h=${spec%%:*} budget=${spec##*:}
  lines=$(printf '#include "%s"\n' "$h" | g++ -std=c++20 -E -I "$inc" -x c++ - | wc -l)
  if [ "$lines" -gt "$budget" ]; then
    echo "header weight: <$h> preprocesses to $lines lines, over its budget of $budget"
    weight_failed=1
  fi
  weights+=("<$h> $lines")
done
[ "$weight_failed" -eq 0 ] || exit 1
echo "header weight (g++ -E lines, budgets 80000/80000/48000): ${weights[*]}"

echo "public headers: $headers headers and $((${#units[@]} - headers)) consumer sources compile cleanly" \
  "with ${compilers[*]} (-O3 -Wall -Wextra -Wpedantic -Werror)"
