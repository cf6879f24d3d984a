#!/usr/bin/env bash
# The Python package's install and configure rules (ctest python.install_and_configure):
#  1. `cmake --install BUILD --component python --prefix SCRATCH` installs tseq, which imports
#     from SCRATCH/lib/python3/dist-packages in a directory away from the build tree (and
#     tseq.torch with SCRATCH/lib/libtseq_torch, when built).
#  2. Configuring with TSEQ_PYTHON=ON for an interpreter without numpy (a venv without the
#     system's packages) fails, and says the interpreter has no numpy.
# usage: install_check.sh BUILD_DIR SOURCE_DIR SCRATCH PYTHON
set -euo pipefail
build=$1 src=$2 scratch=$3 python=$4
rm -rf "$scratch"
mkdir -p "$scratch/elsewhere"
cmake --install "$build" --component python --prefix "$scratch/prefix" >"$scratch/install.log"
site="$scratch/prefix/lib/python3/dist-packages"
(cd "$scratch/elsewhere" && PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1 "$python" - "$site" <<'PY'
import sys
import numpy as np
import tseq
assert tseq.__file__.startswith(sys.argv[1]), tseq.__file__
s = tseq.Sequence([np.arange(3, dtype=np.float32)]).append(np.ones(3, np.float32))
assert len(s) == 2 and np.asarray(s[1]).tolist() == [1.0, 1.0, 1.0]
for f in ("py.typed", "__init__.pyi", "ops.pyi", "onnx.pyi"):
    import os
    assert os.path.exists(os.path.join(sys.argv[1], "tseq", f)), f
print("installed package imports from", tseq.__file__)
if os.path.exists(os.path.join(sys.argv[1], "tseq", "torch.py")):
    # tseq.torch installed beside it: its module finds the installed libtseq_torch (RPATH).
    import torch
    import tseq.torch as tt
    seq = tt.sequence_insert(tt.sequence_empty(), torch.ones(3))
    assert tt.sequence_length(seq) == 1 and tt.from_script(seq)[0].shape == (3,)
    print("installed tseq.torch works:", tt.__file__)
PY
)
# An interpreter without numpy: a venv that does not see the system's site-packages.
if "$python" -m venv --without-pip "$scratch/venv" 2>"$scratch/venv.log"; then
  if cmake -S "$src" -B "$scratch/configure" -G Ninja -DTSEQ_PYTHON=ON -DTSEQ_BUILD_TESTS=OFF \
       -DTSEQ_BUILD_BENCHMARKS=OFF -DTSEQ_BUILD_EXAMPLES=OFF -DTSEQ_BUILD_FUZZERS=OFF \
       -DPython3_EXECUTABLE="$scratch/venv/bin/python3" >"$scratch/configure.log" 2>&1; then
    echo "configure with an interpreter without numpy succeeded; it must fail" >&2
    exit 1
  fi
  grep -q "has no numpy" "$scratch/configure.log" || { cat "$scratch/configure.log" >&2; exit 1; }
  grep -m1 "has no numpy" "$scratch/configure.log"
else
  echo "no venv module here ($(head -1 "$scratch/venv.log")): the configure message is not checked"
fi
rm -rf "$scratch"
