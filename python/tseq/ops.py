"""The ONNX sequence operators (opset 11+) with ONNX's semantics and defaults, as tseq::ops.

Positions are Python ints or one-element int32/int64 tensor-likes (a 0-d numpy array); None
means ONNX's default (append for sequence_insert, the last tensor for sequence_erase). Errors
name the operator, the bad value and the valid range (docs/ops.md).
"""

from ._tseq.ops import (  # noqa: F401
    concat_from_sequence,
    sequence_at,
    sequence_construct,
    sequence_empty,
    sequence_erase,
    sequence_insert,
    sequence_length,
    split_to_sequence,
)

__all__ = [
    "concat_from_sequence",
    "sequence_at",
    "sequence_construct",
    "sequence_empty",
    "sequence_erase",
    "sequence_insert",
    "sequence_length",
    "split_to_sequence",
]
