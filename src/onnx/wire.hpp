#pragma once

// What parsing protobuf bytes would cost, found before parsing them (not installed).
// Protobuf materialises every message it meets: an empty NodeProto or TensorProto is 2 bytes
// on disk and about 200 in memory, so a file of small messages costs ~100x its size before
// any check of ours runs. walk() reads the wire format guided by the message's descriptor,
// allocating nothing, and adds up an estimate of the memory the parsed message takes; the
// caller refuses the bytes when it passes a limit.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace google::protobuf {
class Descriptor;
}

namespace tseq::onnx::detail {

struct WireCost {
  std::int64_t bytes = 0;    // estimated memory of the parsed message (objects, repeated fields, strings)
  std::int64_t counted = 0;  // messages of the `count` type met at any depth
};

// Walks `data` as a message of type `type`: its estimated parsed size and how many messages of
// type `count` it holds. Stops with tseq::Error "<where>: ..." when the bytes are malformed (a
// length past the end, a group, an unknown wire type), nest deeper than 100 messages
// (protobuf's own limit), or the estimate passes `max_bytes` ("<what> would take about N bytes
// in memory, over <limit_name> of L"). Linear in the bytes; recursion bounded by the depth.
WireCost walk(std::span<const std::byte> data, const google::protobuf::Descriptor* type,
              const google::protobuf::Descriptor* count, std::int64_t max_bytes, const std::string& where,
              const char* limit_name);

}  // namespace tseq::onnx::detail
