"""A small ONNX executor over tseq values (tseq::onnx in C++; docs/onnx.md)."""

import os
from typing import Any, Mapping

from . import Sequence, Tensor

# A feed: a tensor-like (numpy array, torch tensor, tseq.Tensor) for a tensor input; a
# tseq.Sequence or a list/tuple of tensor-likes for a sequence input; None for an empty
# optional input.
Feed = Any

class SessionOptions:
    max_loop_iterations: int
    max_tensor_elements: int
    max_tensor_bytes: int
    max_run_bytes: int
    max_sequence_length: int
    time_limit: float  # seconds; 0: none
    def __init__(self, **limits: Any) -> None: ...
    @staticmethod
    def untrusted() -> SessionOptions: ...

class LoadOptions:
    max_file_bytes: int
    max_bytes: int
    max_nodes: int
    max_name_bytes: int
    time_limit: float  # seconds; 0: none
    def __init__(self, **limits: Any) -> None: ...
    @staticmethod
    def untrusted() -> LoadOptions: ...

class Session:
    def __init__(self, model: str | os.PathLike[str] | bytes | bytearray | memoryview, options: SessionOptions | None = None, load_options: LoadOptions | None = None) -> None: ...
    @property
    def inputs(self) -> list[tuple[str, str]]: ...
    @property
    def outputs(self) -> list[tuple[str, str]]: ...
    @property
    def opset(self) -> int: ...
    def run(self, feeds: Mapping[str, Feed]) -> dict[str, Tensor | Sequence | None]: ...
    @property
    def stats(self) -> dict[str, int]: ...
