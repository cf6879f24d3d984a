// Uses tseq::onnx (built with `pkg-config --cflags --libs tseq-onnx`): session limits, and a
// malformed model rejected by the protobuf parser inside the library.
#include <cstddef>
#include <cstdio>

#include "tseq/error.hpp"
#include "tseq/onnx/executor.hpp"

int main() {
  const tseq::onnx::SessionOptions options = tseq::onnx::SessionOptions::untrusted();
  if (options.max_loop_iterations <= 0) return 1;
  const std::byte junk[] = {std::byte{0xff}, std::byte{0xff}, std::byte{0xff}};
  try {
    (void)tseq::onnx::Model::parse(junk, "junk");
    return 1;
  } catch (const tseq::Error& e) {
    std::printf("onnx consumer ok: %s\n", e.what());
  }
  return 0;
}
