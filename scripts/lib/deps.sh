# Shared helper for scripts/test and scripts/bench: install missing Debian packages.
# Usage: ensure_debian_packages pkg...   (one apt-get update, then one apt-get install -y)

TSEQ_TEST_PACKAGES=(cmake ninja-build g++ pkg-config libboost-dev libeigen3-dev libgtest-dev libgmock-dev
  libbenchmark-dev libonnx-dev libprotobuf-dev protobuf-compiler libdlpack-dev
  # The Python package (python/) and its tests (tests/python), for Debian's /usr/bin/python3.
  python3-dev python3-pybind11 pybind11-dev python3-numpy python3-pytest python3-hypothesis
  python3-pyrsistent python3-onnx python3-torch
  # tseq::torch (src/torch/, tests/torch, tests/python/test_torch.py): Debian's libtorch 1.13.
  libtorch-dev)
# scripts/test --clang and --sanitize (and package.public_headers, which uses clang++ when present).
TSEQ_CLANG_PACKAGES=(clang)
# scripts/lint: clang-format; clang-tidy (with the sanitize build's compile_commands.json).
TSEQ_LINT_PACKAGES=(git clang-format clang-tidy)

ensure_debian_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "missing packages: ${missing[*]} (no apt-get here: install them by hand)" >&2
    return 1
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "missing Debian packages: ${missing[*]}" >&2
    echo "run as root, or: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    return 1
  fi
  echo "== installing missing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}
