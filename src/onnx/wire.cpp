// The pre-parse walk of protobuf bytes (wire.hpp).

#include "wire.hpp"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/message.h>

#include <limits>
#include <unordered_map>

#include "tseq/error.hpp"

namespace tseq::onnx::detail {

namespace {

namespace pb = google::protobuf;
using FD = pb::FieldDescriptor;

constexpr int kMaxDepth = 100;                                   // protobuf's default recursion limit
constexpr std::int64_t kStringObject = sizeof(std::string);      // a string field's object
constexpr std::int64_t kRepeatedSlot = sizeof(void*);            // a repeated message's or string's pointer
constexpr std::int64_t kUnknownField = 2 * sizeof(std::string);  // an UnknownField and its string

struct Walker {
  const pb::Descriptor* count;
  std::int64_t max_bytes;
  const std::string& where;
  const char* limit_name;
  WireCost cost;
  std::unordered_map<const pb::Descriptor*, std::int64_t> object_bytes;

  [[noreturn]] void malformed(const char* why) const {
    throw Error(where + ": malformed protobuf (" + std::string(why) + ")");
  }

  void add(std::int64_t b) {
    cost.bytes = b > std::numeric_limits<std::int64_t>::max() - cost.bytes ? std::numeric_limits<std::int64_t>::max()
                                                                           : cost.bytes + b;
    if (cost.bytes > max_bytes) {
      throw Error(where + ": parsing it would take about " + std::to_string(cost.bytes) +
                  " bytes or more in memory, over " + limit_name + " of " + std::to_string(max_bytes));
    }
  }

  std::int64_t size_of(const pb::Descriptor* d) {
    auto [it, fresh] = object_bytes.try_emplace(d, 0);
    if (fresh) {
      const pb::Message* proto = pb::MessageFactory::generated_factory()->GetPrototype(d);
      it->second = proto != nullptr ? static_cast<std::int64_t>(proto->SpaceUsedLong()) : 256;
    }
    return it->second;
  }

  // The wire type protobuf expects for field f (packed repeated scalars also come as 2).
  static int wire_type(const FD* f) {
    switch (f->type()) {
      case FD::TYPE_DOUBLE:
      case FD::TYPE_FIXED64:
      case FD::TYPE_SFIXED64:
        return 1;
      case FD::TYPE_FLOAT:
      case FD::TYPE_FIXED32:
      case FD::TYPE_SFIXED32:
        return 5;
      case FD::TYPE_STRING:
      case FD::TYPE_BYTES:
      case FD::TYPE_MESSAGE:
      case FD::TYPE_GROUP:
        return 2;
      default:
        return 0;
    }
  }

  // What a scalar of wire type `wt` costs once parsed: kept in place for a known field of that
  // wire type (a repeated one grows its array by `element` bytes), an UnknownField otherwise.
  // An enum value may lie outside a closed enum's range, which protobuf also keeps as an
  // UnknownField: enums are counted as unknown, whatever their value.
  static std::int64_t scalar_cost(const FD* f, int wt, std::int64_t element) {
    if (f == nullptr || wire_type(f) != wt || f->type() == FD::TYPE_ENUM) return kUnknownField;
    return f->is_repeated() ? element : 0;
  }

  // Values in a packed field of `len` bytes.
  static std::int64_t packed_count(const FD* f, const std::uint8_t* p, int len) {
    switch (f->type()) {
      case FD::TYPE_DOUBLE:
      case FD::TYPE_FIXED64:
      case FD::TYPE_SFIXED64:
        return len / 8;
      case FD::TYPE_FLOAT:
      case FD::TYPE_FIXED32:
      case FD::TYPE_SFIXED32:
        return len / 4;
      default: {  // varints: one value per byte without the continuation bit
        std::int64_t n = 0;
        for (int i = 0; i < len; ++i) n += (p[i] & 0x80) == 0 ? 1 : 0;
        return n;
      }
    }
  }

  void message(const std::uint8_t* data, int size, const pb::Descriptor* d, int depth) {
    if (depth > kMaxDepth) malformed("nested deeper than 100 messages");
    if (d == count) ++cost.counted;
    pb::io::CodedInputStream in(data, size);
    for (;;) {
      const std::uint32_t tag = in.ReadTag();
      if (tag == 0) {
        if (!in.ConsumedEntireMessage()) malformed("a bad tag");
        return;
      }
      const int number = static_cast<int>(tag >> 3);
      if (number == 0) malformed("field number 0");
      const FD* f = d->FindFieldByNumber(number);
      switch (tag & 7) {
        case 0: {  // varint
          std::uint64_t v = 0;
          if (!in.ReadVarint64(&v)) malformed("truncated varint");
          add(scalar_cost(f, 0, 8));
          break;
        }
        case 1: {  // fixed64
          std::uint64_t v = 0;
          if (!in.ReadLittleEndian64(&v)) malformed("truncated fixed64");
          add(scalar_cost(f, 1, 8));
          break;
        }
        case 5: {  // fixed32
          std::uint32_t v = 0;
          if (!in.ReadLittleEndian32(&v)) malformed("truncated fixed32");
          add(scalar_cost(f, 5, 4));
          break;
        }
        case 2: {  // length-delimited
          std::uint32_t len = 0;
          if (!in.ReadVarint32(&len)) malformed("truncated length");
          const int at = in.CurrentPosition();
          if (len > static_cast<std::uint32_t>(size - at)) malformed("a length past the end");
          const auto n = static_cast<int>(len);
          const std::uint8_t* body = data + at;
          if (f != nullptr && f->type() == FD::TYPE_MESSAGE) {
            add(size_of(f->message_type()) + (f->is_repeated() ? kRepeatedSlot : 0));
            message(body, n, f->message_type(), depth + 1);
          } else if (f != nullptr && (f->type() == FD::TYPE_STRING || f->type() == FD::TYPE_BYTES)) {
            add(n + (f->is_repeated() ? kStringObject + kRepeatedSlot : 0));
          } else if (f != nullptr && f->is_repeated()) {  // packed scalars (enums: maybe unknown, above)
            add((f->type() == FD::TYPE_ENUM ? kUnknownField : 8) * packed_count(f, body, n));
          } else {
            add(n + kUnknownField);
          }
          if (!in.Skip(n)) malformed("a length past the end");
          break;
        }
        default:
          malformed("a group or an unknown wire type");
      }
    }
  }
};

}  // namespace

WireCost walk(std::span<const std::byte> data, const pb::Descriptor* type, const pb::Descriptor* count,
              std::int64_t max_bytes, const std::string& where, const char* limit_name) {
  if (data.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Error(where + ": too large to parse (over 2 GiB)");
  }
  Walker w{count, max_bytes, where, limit_name, {}, {}};
  w.add(w.size_of(type));
  w.message(reinterpret_cast<const std::uint8_t*>(data.data()), static_cast<int>(data.size()), type, 0);
  return w.cost;
}

}  // namespace tseq::onnx::detail
