"""tseq from Python: a persistent sequence of numpy arrays and torch tensors, no payload copied.

Run by ctest (example.python_sequences) with PYTHONPATH=<build dir>/python; docs/python.md.
"""
import numpy as np
import torch

import tseq

arrays = [np.full(4, i, dtype=np.float32) for i in range(5)]
s = tseq.Sequence(arrays)                  # adopts each array: no copy
t = s.erase(1).insert(0, torch.ones(4))    # new versions in O(log n); s is unchanged
assert len(s) == 5 and len(t) == 5
assert t[1].data_ptr == arrays[0].ctypes.data   # the same memory, through the sequence
view = np.asarray(t[-1])                   # a read-only view, no copy
assert view.ctypes.data == arrays[4].ctypes.data and not view.flags.writeable
back = torch.from_dlpack(t[0])             # to torch through DLPack, no copy
assert back.data_ptr() == t[0].data_ptr
half = t[:3]                               # an O(log n) slice sharing the tree
stacked = tseq.ops.concat_from_sequence(half, axis=0, new_axis=1)
print(half, np.asarray(stacked).shape)     # tseq.Sequence(float, 3 tensors: ...) (3, 4)
try:
    s.erase(7)
except IndexError as e:                    # tseq.IndexError is also a builtin IndexError
    print(e)   # Sequence.erase: position 7 is out of range [-5, 4] for a sequence of 5 tensors
