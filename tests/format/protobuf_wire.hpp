// Test helpers that write protobuf wire bytes by hand-picked field, with protobuf's own
// CodedOutputStream: for models whose fields come in an order or form that serializing a message
// never produces (a graph split over several fields, a node field of the wrong wire type).
#pragma once

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/wire_format_lite.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace nnplan::format::wire {

// Field `number` with `payload` as a length-delimited value: tag, length, payload.
inline std::string delimited_field(int number, const std::string& payload) {
  using google::protobuf::internal::WireFormatLite;
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    coded.WriteVarint32(static_cast<std::uint32_t>(payload.size()));
    coded.WriteString(payload);
  }
  return out;
}

// Field `number` with `value` as a varint.
inline std::string varint_field(int number, std::uint32_t value) {
  using google::protobuf::internal::WireFormatLite;
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag(WireFormatLite::MakeTag(number, WireFormatLite::WIRETYPE_VARINT));
    coded.WriteVarint32(value);
  }
  return out;
}

inline std::vector<std::byte> to_bytes(const std::string& s) {
  std::vector<std::byte> out(s.size());
  if (!s.empty()) std::memcpy(out.data(), s.data(), s.size());
  return out;
}

}  // namespace nnplan::format::wire
