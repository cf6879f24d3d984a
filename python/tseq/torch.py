"""tseq inside TorchScript: the class torch.classes.tseq.TensorSequence and torch.ops.tseq.*.

    import torch, tseq.torch
    @torch.jit.script
    def f(s: torch.classes.tseq.TensorSequence, t: torch.Tensor):
        return torch.ops.tseq.sequence_insert(torch.ops.tseq.sequence_erase(s, 0), t)

Importing this module imports torch and loads libtseq_torch, which registers the class and the
operators (ONNX semantics and defaults; a bad position or type raises RuntimeError with tseq's
message). to_script / from_script convert between tseq.Sequence and the class, sharing the
tree. A saved module (torch.jit.save) that uses them loads after `import tseq.torch`, or in C++
in a program linking tseq::torch. docs/torch.md has the rules.
"""

import torch

from ._torch import from_script, to_script  # noqa: F401  (loads libtseq_torch)

#: The TorchScript class (an immutable sequence; its operators return new ones).
TensorSequence = torch.classes.tseq.TensorSequence

#: The operators, as torch.ops.tseq.<name>.
sequence_empty = torch.ops.tseq.sequence_empty
sequence_construct = torch.ops.tseq.sequence_construct
sequence_insert = torch.ops.tseq.sequence_insert
sequence_erase = torch.ops.tseq.sequence_erase
sequence_at = torch.ops.tseq.sequence_at
sequence_length = torch.ops.tseq.sequence_length
split_to_sequence = torch.ops.tseq.split_to_sequence
concat_from_sequence = torch.ops.tseq.concat_from_sequence

__all__ = [
    "TensorSequence",
    "concat_from_sequence",
    "from_script",
    "sequence_at",
    "sequence_construct",
    "sequence_empty",
    "sequence_erase",
    "sequence_insert",
    "sequence_length",
    "split_to_sequence",
    "to_script",
]
