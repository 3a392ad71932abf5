// The protobuf wire format as the ONNX reader walks it by hand: wire types, tags, and skipping one
// field's value, on protobuf's public CodedInputStream. Shared by the model split
// (model_split.cpp) and the limit check that runs before any message is parsed (wire_check.cpp).
#pragma once

#include <google/protobuf/io/coded_stream.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace nnplan::format::onnx_import::wire {

using google::protobuf::io::CodedInputStream;

// Wire types of the protobuf encoding: a tag is (field number << 3) | wire type.
enum WireType : std::uint32_t {
  kVarint = 0,
  kFixed64 = 1,
  kLengthDelimited = 2,
  kStartGroup = 3,
  kEndGroup = 4,
  kFixed32 = 5,
};

constexpr std::uint32_t make_tag(int field_number, WireType wire) {
  return (static_cast<std::uint32_t>(field_number) << 3U) | wire;
}
constexpr std::uint32_t tag_wire_type(std::uint32_t tag) {
  return tag & 7U;
}
constexpr int tag_field_number(std::uint32_t tag) {
  return static_cast<int>(tag >> 3U);
}

// `varint (0)`, `length-delimited (2)`, ... for messages; `wire type 6 (invalid)` past the six.
inline std::string wire_type_name(std::uint32_t wire) {
  static constexpr const char* kNames[] = {"varint",      "fixed64",   "length-delimited",
                                           "start-group", "end-group", "fixed32"};
  if (wire < 6) return std::string(kNames[wire]) + " (" + std::to_string(wire) + ")";
  return "wire type " + std::to_string(wire) + " (invalid)";
}

inline const std::uint8_t* as_u8(const std::byte* p) {
  return reinterpret_cast<const std::uint8_t*>(p);
}

bool skip_field(CodedInputStream& in, std::uint32_t tag);

// Skips the fields of a group up to its end-group tag (or the end of the buffer), which is left
// as the stream's last tag.
inline bool skip_group_fields(CodedInputStream& in) {
  while (true) {
    const std::uint32_t tag = in.ReadTag();
    if (tag == 0 || tag_wire_type(tag) == kEndGroup) return true;
    if (!skip_field(in, tag)) return false;
  }
}

// Skips the value of the field whose tag `in` has just read; false when the tag or the value is
// malformed. A group spends one level of the stream's recursion budget and must end with the
// end-group tag of its own field number.
inline bool skip_field(CodedInputStream& in, std::uint32_t tag) {
  const int number = tag_field_number(tag);
  if (number == 0) return false;
  switch (tag_wire_type(tag)) {
    case kVarint: {
      std::uint64_t value = 0;
      return in.ReadVarint64(&value);
    }
    case kFixed64: {
      std::uint64_t value = 0;
      return in.ReadLittleEndian64(&value);
    }
    case kLengthDelimited: {
      std::uint32_t length = 0;
      return in.ReadVarint32(&length) && in.Skip(static_cast<int>(length));
    }
    case kStartGroup: {
      if (!in.IncrementRecursionDepth()) return false;
      if (!skip_group_fields(in)) return false;
      in.DecrementRecursionDepth();
      return in.LastTagWas(make_tag(number, kEndGroup));
    }
    case kFixed32: {
      std::uint32_t value = 0;
      return in.ReadLittleEndian32(&value);
    }
    default:  // an end-group tag without its start, or wire type 6 or 7
      return false;
  }
}

}  // namespace nnplan::format::onnx_import::wire
