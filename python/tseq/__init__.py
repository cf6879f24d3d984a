"""tseq: immutable, structurally shared sequences of tensors, zero copy with numpy and PyTorch.

    import numpy as np, tseq
    s = tseq.Sequence([np.zeros(3, np.float32), np.ones(3, np.float32)])
    t = s.erase(0)          # a new version in O(log n); s is unchanged
    np.asarray(t[0])        # a read-only view of the array put in: no copy

tseq.Tensor and tseq.Sequence share memory with the objects they were made from (the buffer
protocol or DLPack) and keep them alive; tseq.ops holds the ONNX sequence operators and
tseq.onnx a small executor. docs/python.md has the rules.
"""

from ._tseq import (  # noqa: F401
    DeviceError,
    Error,
    IndexError,
    LengthError,
    RunStopped,
    Sequence,
    ShapeError,
    Tensor,
    TypeError,
    from_dlpack,
)
from . import ops, onnx  # noqa: E402,F401

__version__ = "@PROJECT_VERSION@"

# The classes are defined in the extension module; they belong to the package (repr, pickle).
for _cls in (Tensor, Sequence):
    _cls.__module__ = "tseq"
del _cls

# tseq.TypeError and tseq.IndexError are left out: `from tseq import *` must not shadow the
# builtins (they are subclasses of them; name them as tseq.TypeError, tseq.IndexError).
__all__ = [
    "DeviceError",
    "Error",
    "LengthError",
    "RunStopped",
    "Sequence",
    "ShapeError",
    "Tensor",
    "from_dlpack",
    "onnx",
    "ops",
]
