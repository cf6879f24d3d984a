"""Saves a TorchScript module that keeps a tseq sequence of its inputs (a sliding window).

    PYTHONPATH=<build dir>/python /usr/bin/python3 examples/torch_save_model.py window.pt

The C++ deployment example (examples/torch_deployment.cpp) loads and runs the file with
torch::jit::load, in a program linking libtorch and tseq::torch: no Python there.
"""

import sys

import torch

import tseq.torch  # noqa: F401  (registers torch.classes.tseq and torch.ops.tseq)


class Window(torch.nn.Module):
    """The last `size` inputs, and their mean: each step erases the oldest, appends the newest."""

    def __init__(self, size: int):
        super().__init__()
        self.size = size
        self.window = torch.ops.tseq.sequence_empty(torch.float32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if torch.ops.tseq.sequence_length(self.window) == self.size:
            self.window = torch.ops.tseq.sequence_erase(self.window, 0)
        self.window = torch.ops.tseq.sequence_insert(self.window, x)
        stacked = torch.ops.tseq.concat_from_sequence(self.window, 0, True)
        return stacked.mean(0)


if __name__ == "__main__":
    module = torch.jit.script(Window(3))
    module(torch.zeros(4))  # one step before saving: the sequence attribute is saved with it
    torch.jit.save(module, sys.argv[1])
    print("saved", sys.argv[1])
