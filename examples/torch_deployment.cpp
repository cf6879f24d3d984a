// The C++ deployment path: a TorchScript module saved in Python (examples/torch_save_model.py)
// that holds a tseq sequence and calls torch.ops.tseq.*, loaded with torch::jit::load and run
// in a program linking libtorch and tseq::torch (docs/torch.md).
//
//   tseq_torch_deployment window.pt

// First: clang 14 in C++20 rejects torch 1.13's ATen/core/List.h (std::vector of an incomplete
// c10::IValue) unless ivalue.h, which tseq/torch.hpp includes, comes before it.
#include "tseq/torch.hpp"
// (the rest)
#include <torch/script.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODULE.pt (saved by examples/torch_save_model.py)\n", argv[0]);
    return 2;
  }
  tseq::torch::register_library();  // the class and operators the saved module names
  try {
    torch::jit::Module module = torch::jit::load(argv[1]);
    // The saved state: one input (zeros) in the window.
    const tseq::TensorSequence saved = tseq::torch::from_ivalue(module.attr("window"));
    std::printf("loaded %s: window holds %zu tensor(s)\n", argv[1], saved.size());
    if (saved.size() != 1) return 1;

    at::Tensor mean;
    for (int step = 1; step <= 4; ++step) {
      mean = module.forward({torch::full({4}, static_cast<double>(step))}).toTensor();
      const tseq::TensorSequence window = tseq::torch::from_ivalue(module.attr("window"));
      std::printf("step %d: window %zu, mean %.3f\n", step, window.size(), mean[0].item<double>());
    }
    // The last three inputs are 2, 3, 4: mean 3, and the window never grows past 3.
    const tseq::TensorSequence window = tseq::torch::from_ivalue(module.attr("window"));
    if (window.size() != 3 || mean[0].item<double>() != 3.0) return 1;
    // The tensors in it are the at::Tensors passed in (no copy on the way in or out).
    std::printf("window[2] is a torch tensor held without copy: %s\n",
                tseq::torch::to_torch(window[2]).data_ptr() == window[2].data() ? "yes" : "no");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
