// The schema-driven walk behind `check_wire` (see the header for what it checks and why).
#include "wire_check.hpp"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "../message_text.hpp"
#include "nnplan/format/limits.hpp"
#include "wire_format.hpp"

namespace nnplan::format::onnx_import {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using namespace wire;

// The wire type the schema gives a field (a packed repeated scalar may also come
// length-delimited).
WireType schema_wire_type(const FieldDescriptor& field) {
  switch (field.type()) {
    case FieldDescriptor::TYPE_DOUBLE:
    case FieldDescriptor::TYPE_FIXED64:
    case FieldDescriptor::TYPE_SFIXED64:
      return kFixed64;
    case FieldDescriptor::TYPE_FLOAT:
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_SFIXED32:
      return kFixed32;
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_BOOL:
    case FieldDescriptor::TYPE_ENUM:
    case FieldDescriptor::TYPE_SINT32:
    case FieldDescriptor::TYPE_SINT64:
      return kVarint;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_BYTES:
    case FieldDescriptor::TYPE_MESSAGE:
      return kLengthDelimited;
    case FieldDescriptor::TYPE_GROUP:
      return kStartGroup;
  }
  return kLengthDelimited;
}

// The entries a repeated field may hold in one message: the graph's nodes have the node limit,
// its initializers kMaxOnnxInitializers;
// a tensor's data fields none of their own (they must match the tensor's dims, checked when it
// is decoded, and a packed float takes no more memory parsed than on the wire); every other list
// kMaxOnnxFieldEntries.
std::size_t entry_limit(const FieldDescriptor& field) {
  const Descriptor* holder = field.containing_type();
  if (holder == onnx::GraphProto::descriptor() &&
      field.number() == onnx::GraphProto::kNodeFieldNumber) {
    return kMaxGraphNodes;
  }
  if (holder == onnx::GraphProto::descriptor() &&
      field.number() == onnx::GraphProto::kInitializerFieldNumber) {
    return kMaxOnnxInitializers;
  }
  if (holder == onnx::TensorProto::descriptor()) {
    switch (field.number()) {
      case onnx::TensorProto::kFloatDataFieldNumber:
      case onnx::TensorProto::kInt32DataFieldNumber:
      case onnx::TensorProto::kStringDataFieldNumber:
      case onnx::TensorProto::kInt64DataFieldNumber:
      case onnx::TensorProto::kDoubleDataFieldNumber:
      case onnx::TensorProto::kUint64DataFieldNumber:
        return SIZE_MAX;
      default:
        break;
    }
  }
  return kMaxOnnxFieldEntries;
}

// Whether a string field holds an identifier (a name a message may echo), held to
// kMaxStringBytes.
bool is_identifier(const FieldDescriptor& field) {
  if (field.type() != FieldDescriptor::TYPE_STRING) return false;
  const std::string& n = field.name();
  return n == "name" || n == "op_type" || n == "domain" || n == "input" || n == "output" ||
         n == "dim_param";
}

// The number of values in the payload of a packed field of `field`'s type; nullopt when the
// payload is not a whole number of them (protobuf's parser rejects it).
std::optional<std::size_t> packed_count(const FieldDescriptor& field, const std::uint8_t* data,
                                        int size) {
  switch (schema_wire_type(field)) {
    case kFixed32:
      if (size % 4 != 0) return std::nullopt;
      return static_cast<std::size_t>(size / 4);
    case kFixed64:
      if (size % 8 != 0) return std::nullopt;
      return static_cast<std::size_t>(size / 8);
    case kVarint: {
      // Every varint ends with the one byte whose high bit is clear.
      if (size > 0 && (data[size - 1] & 0x80U) != 0) return std::nullopt;
      return static_cast<std::size_t>(
          std::count_if(data, data + size, [](std::uint8_t b) { return (b & 0x80U) == 0; }));
    }
    default:
      return std::nullopt;
  }
}

enum class Outcome { ok, unreadable, problem };

// Paths past this many fields show their first and last few.
constexpr std::size_t kShownPathFields = 8;

// What the walk has counted in one message: the entries of its repeated fields so far, and the
// same for each singular message field. A singular field may occur several times, and protobuf
// merges the occurrences into one message (a graph split over two `graph` fields has the
// initializers of both), so the counts of those occurrences add up.
struct Counts {
  std::vector<std::pair<int, std::size_t>> entries;               // field number -> entries so far
  std::vector<std::pair<int, std::unique_ptr<Counts>>> singular;  // field number -> its counts

  Counts& of_singular(int number) {
    for (auto& [n, c] : singular)
      if (n == number) return *c;
    return *singular.emplace_back(number, std::make_unique<Counts>()).second;
  }
};

class Walker {
 public:
  explicit Walker(std::span<const int> deferred) : deferred_(deferred) {}

  // Walks the message of `type` in `data[0, size)`; `on_path`: the message was reached by the
  // first path_.size() fields of the deferred path.
  Outcome walk(const std::uint8_t* data, int size, const Descriptor& type, int budget, bool on_path,
               Counts& counted) {
    CodedInputStream in(data, size);
    in.SetRecursionLimit(budget);  // spent by unknown groups skipped below
    const int deferred = on_path && path_.size() + 1 == deferred_.size() ? deferred_.back() : 0;
    std::vector<std::pair<int, std::size_t>>& counts = counted.entries;
    while (true) {
      if (in.CurrentPosition() == size) return Outcome::ok;
      const std::uint32_t tag = in.ReadTag();
      if (tag == 0) return Outcome::unreadable;
      const int number = tag_field_number(tag);
      const std::uint32_t wire = tag_wire_type(tag);
      const FieldDescriptor* field = type.FindFieldByNumber(number);
      if (field == nullptr) {  // an unknown field: protobuf keeps it as bytes
        if (!skip_field(in, tag)) return Outcome::unreadable;
        continue;
      }
      const WireType expected = schema_wire_type(*field);
      const bool packed = field->is_packable() && wire == kLengthDelimited;
      if (wire != expected && !packed) {
        if (wire > kFixed32 || wire == kEndGroup) return Outcome::unreadable;
        return fail(field->name() + " (number " + std::to_string(number) + ") has wire type " +
                    wire_type_name(wire) + "; the ONNX schema gives it " +
                    wire_type_name(expected));
      }
      if (wire != kLengthDelimited) {
        if (!skip_field(in, tag)) return Outcome::unreadable;
        if (field->is_repeated() && !count(counts, *field, 1)) return Outcome::problem;
        continue;
      }
      std::uint32_t length = 0;
      if (!in.ReadVarint32(&length)) return Outcome::unreadable;
      const int begin = in.CurrentPosition();
      if (length > static_cast<std::uint32_t>(size - begin)) return Outcome::unreadable;
      const std::uint8_t* payload = data + begin;
      const int payload_size = static_cast<int>(length);
      in.Skip(payload_size);
      if (packed) {
        const auto n = packed_count(*field, payload, payload_size);
        if (!n) return Outcome::unreadable;
        if (!count(counts, *field, *n)) return Outcome::problem;
        continue;
      }
      const std::size_t index = field->is_repeated() ? entries(counts, number) : 0;
      if (field->is_repeated() && number != deferred && !count(counts, *field, 1)) {
        return Outcome::problem;
      }
      if (is_identifier(*field) && length > kMaxStringBytes) {
        return fail_at(*field, index,
                       "is " + std::to_string(length) + " bytes; the limit is " +
                           std::to_string(kMaxStringBytes) + " bytes (64 KiB) per name");
      }
      if (field->type() != FieldDescriptor::TYPE_MESSAGE || number == deferred) continue;
      path_.push_back(segment(*field, index));
      if (budget == 0) {
        return fail_here("nests messages more than " +
                         std::to_string(CodedInputStream::GetDefaultRecursionLimit()) +
                         " levels deep; the limit is " +
                         std::to_string(CodedInputStream::GetDefaultRecursionLimit()) +
                         " levels (protobuf's recursion limit)");
      }
      const bool child_on_path =
          on_path && path_.size() <= deferred_.size() && deferred_[path_.size() - 1] == number;
      Counts fresh;
      const Outcome child =
          walk(payload, payload_size, *field->message_type(), budget - 1, child_on_path,
               field->is_repeated() ? fresh : counted.of_singular(number));
      if (child == Outcome::problem) {
        if (context_.empty()) context_ = entry_name(*field, payload, payload_size);
        return child;
      }
      if (child == Outcome::unreadable) return child;
      path_.pop_back();
    }
  }

  // The problem found: "field PATH ..." (without the context).
  [[nodiscard]] const std::string& problem() const { return problem_; }

 private:
  static std::size_t entries(const std::vector<std::pair<int, std::size_t>>& counts, int number) {
    for (const auto& [n, c] : counts)
      if (n == number) return c;
    return 0;
  }

  // Adds `n` entries of repeated `field`; false (with the problem) past its limit.
  bool count(std::vector<std::pair<int, std::size_t>>& counts, const FieldDescriptor& field,
             std::size_t n) {
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& c) { return c.first == field.number(); });
    if (it == counts.end()) it = counts.insert(counts.end(), {field.number(), 0});
    it->second += n;
    const std::size_t limit = entry_limit(field);
    if (it->second <= limit) return true;
    fail(field.name() + " holds more than " + std::to_string(limit) + " entries; the limit is " +
         std::to_string(limit) + " entries per list");
    return false;
  }

  static std::string segment(const FieldDescriptor& field, std::size_t index) {
    return field.is_repeated() ? field.name() + "[" + std::to_string(index) + "]" : field.name();
  }

  // The path so far, shortened past kShownPathFields fields.
  std::string path_text() const {
    std::string out;
    for (std::size_t i = 0; i < path_.size(); ++i) {
      if (path_.size() > kShownPathFields && i >= kShownPathFields / 2 &&
          i + kShownPathFields / 2 < path_.size()) {
        if (i == kShownPathFields / 2)
          out += ".(" + std::to_string(path_.size() - kShownPathFields) + " more)";
        continue;
      }
      out += (out.empty() ? "" : ".") + path_[i];
    }
    return out;
  }

  // Fails at field `rest` (its name and what is wrong) of the current message.
  Outcome fail(const std::string& rest) {
    const std::string prefix = path_text();
    problem_ = "field " + (prefix.empty() ? std::string() : prefix + ".") + rest;
    return Outcome::problem;
  }
  Outcome fail_at(const FieldDescriptor& field, std::size_t index, const std::string& what) {
    return fail(segment(field, index) + " " + what);
  }
  // Fails at the message the path ends in.
  Outcome fail_here(const std::string& what) {
    problem_ = "field " + path_text() + " " + what;
    return Outcome::problem;
  }

  // " (in <field> 'name')" for a message of `field` that has a name field set, else empty.
  static std::string entry_name(const FieldDescriptor& field, const std::uint8_t* data, int size) {
    const FieldDescriptor* name = field.message_type()->FindFieldByName("name");
    if (name == nullptr || name->type() != FieldDescriptor::TYPE_STRING) return {};
    CodedInputStream in(data, size);
    std::string_view found;  // the last one wins, as in protobuf
    while (in.CurrentPosition() < size) {
      const std::uint32_t tag = in.ReadTag();
      if (tag == 0) break;
      if (tag != make_tag(name->number(), kLengthDelimited)) {
        if (!skip_field(in, tag)) break;
        continue;
      }
      std::uint32_t length = 0;
      if (!in.ReadVarint32(&length)) break;
      const int at = in.CurrentPosition();
      if (length > static_cast<std::uint32_t>(size - at)) break;
      found = std::string_view(reinterpret_cast<const char*>(data + at), length);
      in.Skip(static_cast<int>(length));
    }
    if (found.empty()) return {};
    return " (in " + field.name() + " " + detail::quoted_name(found) + ")";
  }

  std::span<const int> deferred_;
  std::vector<std::string> path_;
  std::string problem_;
  std::string context_;  // the nearest named message around the problem, if any

 public:
  [[nodiscard]] const std::string& context() const { return context_; }
};

}  // namespace

std::optional<std::string> check_wire(std::span<const std::byte> bytes, const Descriptor& type,
                                      int budget, std::span<const int> deferred) {
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    return std::nullopt;  // past protobuf's INT_MAX bytes: its parser refuses the message
  }
  Walker walker(deferred);
  Counts counts;
  if (walker.walk(as_u8(bytes.data()), static_cast<int>(bytes.size()), type, budget, true,
                  counts) != Outcome::problem) {
    return std::nullopt;
  }
  return walker.problem() + walker.context();
}

}  // namespace nnplan::format::onnx_import
