// The NumPy `.npy` codec of tensor_file.hpp: parse_npy (the magic, version, header dict and data
// section, each checked before it is used) and npy_bytes (version 1.0, as numpy.save writes it).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "message_text.hpp"
#include "nnplan/format/limits.hpp"
#include "nnplan/format/tensor_file.hpp"

namespace nnplan::format {
namespace {

static_assert(std::endian::native == std::endian::little,
              ".npy data is read and written little-endian by copying it as is");

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr std::string_view kExpectedHeader =
    "the dict numpy.save writes, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

Error npy_error(std::string_view source, const std::string& problem) {
  return make_error(ErrorKind::invalid_input,
                    detail::escape_controls(std::string(source) + ": " + problem));
}

// The dtypes a .npy file holds, each with the descr numpy.save writes for it.
struct NpyType {
  ir::DType dtype;
  std::string_view descr;
};
constexpr NpyType kNpyTypes[] = {
    {ir::DType::float32, "<f4"}, {ir::DType::int64, "<i8"}, {ir::DType::boolean, "|b1"}};

// "expected float32 ('<f4'), int64 ('<i8') or bool ('|b1')".
std::string supported_dtypes() {
  std::vector<std::string> choices;
  for (const NpyType& t : kNpyTypes)
    choices.push_back(std::string(ir::to_string(t.dtype)) + " ('" + std::string(t.descr) + "')");
  return "expected " + detail::or_list(choices);
}

// `(2, 3)`, `(3,)`, `()`: a shape as numpy's repr writes it.
std::string shape_repr(const ir::Shape& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.rank(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape.dims[i]);
  }
  if (shape.rank() == 1) s += ",";
  return s + ")";
}

// The numpy name of a descr's type and size ('f8' float64), or nullopt.
std::optional<std::string> dtype_name(std::string_view code) {
  struct Known {
    std::string_view code;
    std::string_view name;
  };
  static constexpr Known known[] = {
      {"f2", "float16"}, {"f4", "float32"},   {"f8", "float64"},     {"f16", "float128"},
      {"i1", "int8"},    {"i2", "int16"},     {"i4", "int32"},       {"i8", "int64"},
      {"u1", "uint8"},   {"u2", "uint16"},    {"u4", "uint32"},      {"u8", "uint64"},
      {"b1", "bool"},    {"c8", "complex64"}, {"c16", "complex128"}, {"?", "bool"}};
  for (const Known& k : known) {
    if (k.code == code) return std::string(k.name);
  }
  return std::nullopt;
}

// The values of a parsed header dict.
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<ir::Shape> shape;
};

// A strict reader of the Python dict literal a `.npy` header holds: string keys in single or
// double quotes, string, True/False and tuple-of-integer values, spaces and tabs between tokens,
// an optional trailing comma, then spaces up to the final '\n'.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, std::string_view source) : text_(text), source_(source) {}

  Expected<Header> parse() {
    Header h;
    skip_spaces();
    if (!take('{')) return fail("expected '{'");
    skip_spaces();
    while (!peek('}')) {
      auto key = string_literal();
      if (!key) return std::unexpected(key.error());
      skip_spaces();
      if (!take(':')) return fail("expected ':' after key '" + *key + "'");
      skip_spaces();
      if (*key == "descr") {
        if (h.descr) return repeated(*key);
        if (peek('[')) {
          return std::unexpected(
              npy_error(source_, "descr is a structured dtype; " + supported_dtypes()));
        }
        auto v = string_literal();
        if (!v) return std::unexpected(v.error());
        h.descr = *v;
      } else if (*key == "fortran_order") {
        if (h.fortran_order) return repeated(*key);
        if (take_word("True")) {
          h.fortran_order = true;
        } else if (take_word("False")) {
          h.fortran_order = false;
        } else {
          return fail("expected True or False for 'fortran_order'");
        }
      } else if (*key == "shape") {
        if (h.shape) return repeated(*key);
        auto v = shape_tuple();
        if (!v) return std::unexpected(v.error());
        h.shape = *v;
      } else {
        return std::unexpected(npy_error(
            source_, "header has unknown key '" + detail::shown(*key) +
                         "'; a .npy header holds exactly 'descr', 'fortran_order' and 'shape'"));
      }
      skip_spaces();
      if (take(',')) {
        skip_spaces();
      } else if (!peek('}')) {
        return fail("expected ',' or '}' after the value of '" + *key + "'");
      }
    }
    ++pos_;  // the '}'
    while (pos_ < text_.size() && text_[pos_] == ' ')
      ++pos_;
    if (pos_ + 1 != text_.size() || text_[pos_] != '\n') {
      return fail("expected only spaces and a final '\\n' after the dict");
    }
    for (const auto& [present, name] : {std::pair{h.descr.has_value(), "descr"},
                                        std::pair{h.fortran_order.has_value(), "fortran_order"},
                                        std::pair{h.shape.has_value(), "shape"}}) {
      if (!present) {
        return std::unexpected(npy_error(
            source_,
            std::string("header lacks '") + name + "'; expected " + std::string(kExpectedHeader)));
      }
    }
    return h;
  }

 private:
  std::unexpected<Error> fail(const std::string& what) const {
    return std::unexpected(npy_error(source_, "malformed header at byte " + std::to_string(pos_) +
                                                  ": " + what + "; expected " +
                                                  std::string(kExpectedHeader)));
  }
  std::unexpected<Error> repeated(const std::string& key) const {
    return std::unexpected(npy_error(source_, "header repeats key '" + key + "'"));
  }
  bool peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool take(char c) {
    if (!peek(c)) return false;
    ++pos_;
    return true;
  }
  bool take_word(std::string_view w) {
    if (text_.substr(pos_, w.size()) != w) return false;
    pos_ += w.size();
    return true;
  }
  void skip_spaces() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t'))
      ++pos_;
  }

  // 'text' or "text", without escapes (no key or descr numpy writes has one).
  Expected<std::string> string_literal() {
    if (!peek('\'') && !peek('"')) return fail("expected a quoted string");
    const char quote = text_[pos_++];
    const std::size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      if (text_[pos_] == '\\' || text_[pos_] == '\n')
        return fail("unexpected character in a string");
      ++pos_;
    }
    if (pos_ == text_.size()) return fail("unterminated string");
    return std::string(text_.substr(start, pos_++ - start));
  }

  // (), (n,), (a, b) or (a, b,): non-negative decimal integers, each at most kMaxDim.
  Expected<ir::Shape> shape_tuple() {
    if (!take('(')) return fail("expected a tuple such as (2, 3) for 'shape'");
    ir::Shape shape;
    skip_spaces();
    bool comma = false;
    while (!take(')')) {
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9') {
        return fail("expected a non-negative integer in 'shape'");
      }
      ir::Dim d = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        d = d * 10 + static_cast<ir::Dim>(text_[pos_++] - '0');
        if (d > kMaxDim) {
          return std::unexpected(npy_error(source_, "shape has a dimension above the limit 2^48"));
        }
      }
      if (shape.rank() == kMaxRank) {
        return std::unexpected(
            npy_error(source_, "shape has more than " + std::to_string(kMaxRank) + " dimensions"));
      }
      shape.dims.push_back(d);
      skip_spaces();
      comma = take(',');
      skip_spaces();
      if (!comma && !peek(')')) return fail("expected ',' or ')' in 'shape'");
    }
    if (shape.rank() == 1 && !comma) {
      return fail("shape (" + std::to_string(shape.dims[0]) +
                  ") is not a tuple; a one-axis shape is written (" +
                  std::to_string(shape.dims[0]) + ",)");
    }
    return shape;
  }

  std::string_view text_;
  std::string_view source_;
  std::size_t pos_ = 0;
};

std::uint32_t little_endian(std::span<const std::byte> b) {
  std::uint32_t v = 0;
  for (std::size_t i = b.size(); i-- > 0;)
    v = (v << 8) | std::to_integer<std::uint32_t>(b[i]);
  return v;
}

}  // namespace

Expected<ir::WeightTensor> parse_npy(std::span<const std::byte> bytes, std::string_view source,
                                     const TensorFileExpectation* expect) {
  const auto fail = [&](const std::string& problem) {
    return std::unexpected(npy_error(source, problem));
  };
  if (bytes.size() < 10) {
    return fail("file of " + std::to_string(bytes.size()) +
                " bytes is too short for a .npy header (at least 10)");
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (text.substr(0, kMagic.size()) != kMagic) {
    return fail(
        "not a .npy file: it does not start with the magic \\x93NUMPY; save the array "
        "with numpy.save");
  }
  const auto major = std::to_integer<unsigned>(bytes[6]);
  const auto minor = std::to_integer<unsigned>(bytes[7]);
  if ((major < 1 || major > 3) || minor != 0) {
    return fail("format version " + std::to_string(major) + "." + std::to_string(minor) +
                " is not supported; expected 1.0, 2.0 or 3.0");
  }
  const std::size_t length_bytes = major == 1 ? 2 : 4;
  if (bytes.size() < 8 + length_bytes) {
    return fail("file of " + std::to_string(bytes.size()) + " bytes ends inside the header length");
  }
  const std::uint64_t header_bytes = little_endian(bytes.subspan(8, length_bytes));
  if (header_bytes > kMaxNpyHeaderBytes) {
    return fail("header of " + std::to_string(header_bytes) + " bytes exceeds the 1 MiB limit");
  }
  const std::size_t data_start = 8 + length_bytes + static_cast<std::size_t>(header_bytes);
  if (bytes.size() < data_start) {
    return fail("header of " + std::to_string(header_bytes) +
                " bytes is cut short: the file ends " +
                std::to_string(bytes.size() - 8 - length_bytes) + " bytes into it");
  }
  auto header = HeaderParser(text.substr(8 + length_bytes, header_bytes), source).parse();
  if (!header) return std::unexpected(std::move(header.error()));

  const std::string& descr = *header->descr;
  const char order = descr.empty() ? '\0' : descr[0];
  const bool little = order == '<' || order == '=' || order == '|';
  const std::string_view code = order == '<' || order == '=' || order == '|' || order == '>'
                                    ? std::string_view(descr).substr(1)
                                    : std::string_view(descr);
  // A one-byte type reads the same in any byte order; wider ones must be little-endian.
  const auto type = std::ranges::find_if(kNpyTypes, [&](const NpyType& t) {
    return t.descr.substr(1) == code && (little || (order == '>' && ir::size_of(t.dtype) == 1));
  });
  if (type == std::end(kNpyTypes)) {
    const std::optional<std::string> name = dtype_name(code);
    std::string what = name ? *name : std::string("unknown");
    if (order == '>' && name) what += ", big-endian";
    // What to convert to: a float array to float32 (a model's values), an integer one to int64
    // (its indices).
    const char kind = code.empty() ? '?' : code.front();
    const std::string hint =
        kind == 'f' ? "; save it as float32: numpy.save(path, array.astype(numpy.float32))"
        : kind == 'i' || kind == 'u'
            ? "; save it as int64: numpy.save(path, array.astype(numpy.int64))"
            : "";
    return fail("dtype '" + detail::shown(descr) + "' (" + what + ") is not supported; " +
                supported_dtypes() + hint);
  }
  const ir::DType dtype = type->dtype;
  const std::size_t item = ir::size_of(dtype);
  if (*header->fortran_order) {
    return fail(
        "fortran_order True is not supported; save the array in C order "
        "(numpy.ascontiguousarray)");
  }
  const ir::Shape shape = *header->shape;
  const std::optional<ir::Dim> count = ir::element_count(shape);
  if (!count || *count > kMaxTensorElements) {
    return fail("shape " + shape_repr(shape) + " has more than 2^48 elements");
  }
  const std::string dtype_text(ir::to_string(dtype));
  if (expect != nullptr && (shape != expect->shape || dtype != expect->dtype)) {
    return fail("its header says shape " + ir::to_string(shape) + " " + dtype_text +
                "; the model expects " + ir::to_string(expect->shape) + " " +
                std::string(ir::to_string(expect->dtype)));
  }
  const std::uint64_t needed = *count * item;
  const std::uint64_t held = bytes.size() - data_start;
  if (held < needed) {
    return fail("data holds " + std::to_string(held) + " bytes; shape " + shape_repr(shape) + " " +
                dtype_text + " needs " + std::to_string(needed));
  }
  if (held > needed) {
    return fail(std::to_string(held - needed) + " bytes follow the " + std::to_string(needed) +
                " data bytes of shape " + shape_repr(shape) + " " + dtype_text +
                "; the file must end with the data");
  }
  const std::byte* data = bytes.data() + data_start;
  if (dtype == ir::DType::boolean) {
    if (std::optional<std::string> problem =
            ir::bool_bytes_problem(std::span(data, static_cast<std::size_t>(*count)))) {
      return fail(*problem);
    }
  }
  // `bytes` belongs to the caller: the tensor copies its data out.
  return ir::WeightTensor::view(shape, dtype, data, static_cast<std::size_t>(*count), nullptr);
}

std::vector<std::byte> npy_bytes(const ir::WeightTensor& tensor) {
  // numpy.save: the keys sorted, each "'key': repr(value), ", then room for the first axis to
  // grow to 21 digits, then spaces and '\n' up to a multiple of 64 bytes from the file's start.
  std::string header =
      std::string("{'descr': '") +
      std::string(std::ranges::find(kNpyTypes, tensor.dtype(), &NpyType::dtype)->descr) +
      "', 'fortran_order': False, 'shape': " + shape_repr(tensor.shape()) + ", }";
  if (tensor.shape().rank() > 0) {
    const std::size_t digits = std::to_string(tensor.shape().dims[0]).size();
    if (digits < 21) header.append(21 - digits, ' ');
  }
  std::size_t length_bytes = 2;
  std::size_t padded = 0;
  for (;;) {
    const std::size_t prefix = 8 + length_bytes;
    const std::size_t pad = 64 - (prefix + header.size() + 1) % 64;
    padded = header.size() + pad + 1;
    if (length_bytes == 4 || padded <= 0xFFFF) break;
    length_bytes = 4;  // numpy.save moves to version 2.0 past 65535 header bytes
  }
  header.append(padded - header.size() - 1, ' ');
  header += '\n';

  const std::size_t item = ir::size_of(tensor.dtype());
  const std::size_t n = tensor.size();
  std::vector<std::byte> out(8 + length_bytes + header.size() + n * item);
  std::memcpy(out.data(), kMagic.data(), kMagic.size());
  out[6] = std::byte{static_cast<unsigned char>(length_bytes == 2 ? 1 : 2)};
  out[7] = std::byte{0};
  for (std::size_t i = 0; i < length_bytes; ++i) {
    out[8 + i] = std::byte{static_cast<unsigned char>((header.size() >> (8 * i)) & 0xFF)};
  }
  std::memcpy(out.data() + 8 + length_bytes, header.data(), header.size());
  std::byte* data = out.data() + 8 + length_bytes + header.size();
  if (n != 0) std::memcpy(data, tensor.contiguous().bytes().data(), n * item);
  return out;
}

}  // namespace nnplan::format
