// Payload files `nnplan.payloads.v1`: stores round-trip byte for byte, the examples' payloads
// read and match their graphs, every hostile file (truncated, bad magic, out-of-bounds or
// overlapping entries, shape/bytes mismatch, ...) is an invalid_input error naming the file and
// the entry, and ir::check_weights catches missing, misshapen and stray payloads.
#include "nnplan/format/payload_file.hpp"
#include "../ir/graph_fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/format/ir_json.hpp"
#include "nnplan/ir/check.hpp"
#include "nnplan/ir/op_table.hpp"

namespace nnplan::format {
namespace {

using ir::Graph;
using ir::Node;
using ir::OpKind;
using ir::Shape;

const std::filesystem::path kSourceDir = NNPLAN_SOURCE_DIR;

std::vector<std::byte> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> out(chars.size());
  if (!chars.empty()) std::memcpy(out.data(), chars.data(), chars.size());
  return out;
}

using ir::fixtures::shape;

ir::WeightTensor filled(Shape s, float start) {
  std::uint64_t count = 1;
  for (const auto d : s.dims)
    count *= d;
  std::vector<float> values;
  for (std::uint64_t i = 0; i < count; ++i)
    values.push_back(start + 0.25f * static_cast<float>(i));
  return ir::WeightTensor::adopt(std::move(s), std::move(values));
}

ir::WeightStore sample_store() {
  ir::WeightStore store;
  store.tensors[{1, "weight"}] = filled(shape({3, 2}), -1.0f);
  store.tensors[{1, "bias"}] = filled(shape({3}), 0.5f);
  store.tensors[{2, "value"}] = filled(shape({}), 7.0f);
  store.tensors[{4, "empty"}] = filled(shape({0, 5}), 0.0f);
  store.tensors[{9, "odd \"name\""}] = filled(shape({17}), 1e-30f);
  store.attributes[{3, "epsilon"}] = 1e-5;
  store.attributes[{3, "momentum"}] = -0.1;
  return store;
}

// A payload file assembled by hand from an index text and a data section, so tests can state
// exactly what a hostile file says.
std::vector<std::byte> assemble(const std::string& index, std::size_t data_bytes,
                                std::uint64_t index_length_override = ~std::uint64_t{0}) {
  const std::size_t data_start = (16 + index.size() + 63) / 64 * 64;
  std::vector<std::byte> out(data_start + data_bytes, std::byte{0});
  std::memcpy(out.data(), kPayloadMagic.data(), 8);
  std::uint64_t length =
      index_length_override == ~std::uint64_t{0} ? index.size() : index_length_override;
  for (int b = 0; b < 8; ++b) {
    out[8 + b] = static_cast<std::byte>(length & 0xFF);
    length >>= 8;
  }
  std::memcpy(out.data() + 16, index.data(), index.size());
  return out;
}

std::string index_with(const std::string& entries, std::uint64_t data_bytes,
                       const std::string& attributes = "") {
  return R"({"format": "nnplan.payloads.v1", "data_bytes": )" + std::to_string(data_bytes) +
         R"(, "entries": [)" + entries + R"(], "attributes": [)" + attributes + "]}";
}

// ---------------------------------------------------------------------------------------------
// Round trips.

TEST(PayloadFile, RoundTripsByteForByte) {
  const ir::WeightStore store = sample_store();
  const auto bytes = write_payloads(store);
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message;
  const auto back = parse_payloads(*bytes, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, store);
  const auto again = write_payloads(*back);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(*again, *bytes);
  EXPECT_EQ(*write_payloads(store), *bytes) << "writing twice gives identical bytes";

  // Magic, index length, and 64-byte aligned data.
  ASSERT_GE(bytes->size(), 16u);
  EXPECT_EQ(std::memcmp(bytes->data(), kPayloadMagic.data(), 8), 0);
  std::uint64_t index_length = 0;
  for (int b = 7; b >= 0; --b)
    index_length = (index_length << 8) | std::to_integer<std::uint64_t>((*bytes)[8 + b]);
  const std::string index(reinterpret_cast<const char*>(bytes->data()) + 16, index_length);
  EXPECT_TRUE(index.starts_with("{\n  \"format\": \"nnplan.payloads.v1\",\n")) << index;
  EXPECT_NE(index.find(R"({"node_id": 1, "name": "bias", "dtype": "float32", "shape": [3], )"
                       R"("offset": 0, "bytes": 12})"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find(R"({"node_id": 1, "name": "weight", "dtype": "float32", "shape": [3, 2], )"
                       R"("offset": 64, "bytes": 24})"),
            std::string::npos)
      << index;
  EXPECT_NE(index.find(R"({"node_id": 3, "name": "epsilon", "value": 1e-05})"), std::string::npos)
      << index;
  // The first value of 1.weight (-1.0f) sits at data start + 64, little-endian.
  const std::size_t data_start = (16 + index_length + 63) / 64 * 64;
  float first = 0;
  std::memcpy(&first, bytes->data() + data_start + 64, 4);
  EXPECT_EQ(first, -1.0f);
}

TEST(PayloadFile, EmptyStoreRoundTrips) {
  const auto bytes = write_payloads(ir::WeightStore{});
  ASSERT_TRUE(bytes.has_value());
  const auto back = parse_payloads(*bytes, "<memory>");
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, ir::WeightStore{});
}

TEST(PayloadFile, FileRoundTrip) {
  const auto path = std::filesystem::temp_directory_path() / "nnplan_payload_roundtrip.payloads";
  const ir::WeightStore store = sample_store();
  ASSERT_TRUE(write_payload_file(path, store).has_value());
  const auto back = read_payload_file(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, store);
}

TEST(PayloadFile, WriterRefusesInconsistentStores) {
  ir::WeightStore short_data;
  short_data.tensors[{1, "weight"}] = ir::WeightTensor::adopt<float>(shape({2, 2}), {1, 2, 3});
  const auto a = write_payloads(short_data);
  ASSERT_FALSE(a.has_value());
  EXPECT_NE(
      a.error().message.find("payload node 1 'weight': 3 float32 values do not fill shape [2,2]"),
      std::string::npos)
      << a.error().message;

  ir::WeightStore nan_attribute;
  nan_attribute.attributes[{1, "epsilon"}] = std::nan("");
  const auto b = write_payloads(nan_attribute);
  ASSERT_FALSE(b.has_value());
  EXPECT_NE(b.error().message.find("attribute node 1 'epsilon' is not finite"), std::string::npos);

  ir::WeightStore empty_name;
  empty_name.tensors[{1, ""}] = filled(shape({1}), 0);
  EXPECT_FALSE(write_payloads(empty_name).has_value());
}

// ---------------------------------------------------------------------------------------------
// Examples.

class PayloadExample : public ::testing::TestWithParam<const char*> {};

TEST_P(PayloadExample, MatchesItsGraphAndRewritesByteForByte) {
  const auto graph_path = kSourceDir / "examples" / (std::string(GetParam()) + ".json");
  const auto payload_path = kSourceDir / "examples" / (std::string(GetParam()) + ".payloads");
  const auto graph = read_ir_file(graph_path);
  ASSERT_TRUE(graph.has_value()) << graph.error().message;
  ASSERT_TRUE(ir::check(*graph).has_value());
  const auto store = read_payload_file(payload_path);
  ASSERT_TRUE(store.has_value()) << store.error().message;
  const auto ok = ir::check_weights(*graph, *store, payload_path.string());
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
  const auto bytes = write_payloads(*store);
  ASSERT_TRUE(bytes.has_value());
  EXPECT_EQ(*bytes, read_bytes(payload_path)) << "the generator and the writer agree";
  // Every node that takes a required payload has it.
  for (const Node& node : graph->nodes) {
    for (const PayloadSlot& slot : payload_slots(node.kind)) {
      if (slot.required && !slot.attribute) {
        EXPECT_NE(store->find_tensor(node.id, slot.name), nullptr) << node.id << slot.name;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Examples, PayloadExample,
                         ::testing::Values("mlp", "cnn", "transformer_block"),
                         [](const auto& info) { return std::string(info.param); });

// ---------------------------------------------------------------------------------------------
// Hostile files.

struct BadPayloadFile {
  const char* name;
  std::vector<std::byte> bytes;
  const char* fragment;
};

std::vector<std::byte> valid_bytes() {
  return *write_payloads(sample_store());
}

std::vector<std::byte> cut(std::vector<std::byte> bytes, std::size_t size) {
  bytes.resize(size);
  return bytes;
}

std::vector<std::byte> text_bytes(std::string_view text) {
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

constexpr const char* kEntry = R"({"node_id": 1, "name": "weight", "dtype": "float32", )";

// A file whose data section holds two one-value tensors at offsets 0 and 64 and ends at 68 or
// 128 bytes, with the byte `at` of the file (or, when `in_data`, of the data section) set to 0x41.
std::vector<std::byte> with_unused_byte_set(std::size_t at, bool in_data, std::size_t data_bytes) {
  const std::string index =
      index_with(std::string(kEntry) + R"("shape": [1], "offset": 0, "bytes": 4},
                               {"node_id": 2, "name": "weight", "dtype": "float32",
                                "shape": [1], "offset": 64, "bytes": 4})",
                 data_bytes);
  std::vector<std::byte> bytes = assemble(index, data_bytes);
  const std::size_t data_start = (16 + index.size() + 63) / 64 * 64;
  bytes.at(in_data ? data_start + at : 16 + index.size() + at) = std::byte{0x41};
  return bytes;
}

std::vector<BadPayloadFile> bad_payload_files() {
  const std::vector<std::byte> valid = valid_bytes();
  std::vector<std::byte> bad_magic = valid;
  bad_magic[1] = std::byte{'M'};
  std::vector<std::byte> trailing = valid;
  trailing.push_back(std::byte{0});
  return {
      {"empty_file", {}, "<memory>: not an nnplan payload file"},
      {"bad_magic", bad_magic, "not an nnplan payload file: the first 8 bytes are not the magic"},
      {"text_file", text_bytes("{\"format\": \"nnplan.payloads.v1\"}"), "not an nnplan payload"},
      {"cut_in_magic", cut(valid, 5), "truncated: the file is 5 bytes; the header alone is 16"},
      {"cut_in_length", cut(valid, 12), "truncated: the file is 12 bytes"},
      {"cut_in_index", cut(valid, 100), "truncated: the index of"},
      {"cut_in_data", cut(valid, valid.size() - 1), "truncated: the file is"},
      {"trailing_bytes", trailing, "1 bytes past the end of the data section"},
      {"nonzero_padding", with_unused_byte_set(0, false, 68),
       "(the padding after the index) is 0x41; bytes the layout leaves unused must be zero"},
      {"nonzero_gap", with_unused_byte_set(10, true, 68),
       "(a gap between tensors in the data section) is 0x41"},
      {"nonzero_tail", with_unused_byte_set(100, true, 128),
       "(the data section after its last tensor) is 0x41"},
      {"index_length_huge", assemble(index_with("", 0), 0, std::uint64_t{1} << 40),
       "index length 1099511627776 exceeds the limit"},
      {"index_length_past_end", assemble(index_with("", 0), 0, 4096),
       "truncated: the index of 4096 bytes ends past the end of the file"},
      {"index_not_json", assemble("{not json", 0), "index: invalid JSON"},
      {"index_array", assemble("[]", 0), "index: expected a JSON object, found an array"},
      {"wrong_format",
       assemble(R"({"format": "nnplan.payloads.v2", "data_bytes": 0,
                                    "entries": [], "attributes": []})",
                0),
       "index: field format: expected \"nnplan.payloads.v1\", found \"nnplan.payloads.v2\""},
      {"missing_attributes",
       assemble(R"({"format": "nnplan.payloads.v1", "data_bytes": 0,
                                          "entries": []})",
                0),
       "index: field attributes: required field is missing"},
      {"unknown_index_field",
       assemble(R"({"format": "nnplan.payloads.v1", "data_bytes": 0,
                                           "entries": [], "attributes": [], "extra": 1})",
                0),
       "index: field extra: unknown field; valid: format, data_bytes, entries, attributes"},
      {"repeated_key",
       assemble(R"({"format": "nnplan.payloads.v1", "data_bytes": 0,
                                    "data_bytes": 0, "entries": [], "attributes": []})",
                0),
       "index: field data_bytes appears more than once (at line 2, column 37)"},
      {"entry_out_of_bounds",
       assemble(index_with(std::string(kEntry) + R"("shape": [4], "offset": 64, "bytes": 16})", 64),
                64),
       "index: entry 0 (node 1 'weight'): field offset: the entry's 16 bytes at offset 64 end "
       "past the data section of 64 bytes"},
      {"entry_offset_overflow",
       assemble(index_with(std::string(kEntry) +
                               R"("shape": [4], "offset": 18446744073709551552, "bytes": 16})",
                           64),
                64),
       "end past the data section"},
      {"data_past_end_of_file",
       assemble(
           index_with(std::string(kEntry) + R"("shape": [4], "offset": 0, "bytes": 16})", 1 << 20),
           64),
       "truncated: the file is"},
      {"shape_bytes_mismatch",
       assemble(
           index_with(std::string(kEntry) + R"("shape": [2, 3], "offset": 0, "bytes": 20})", 64),
           64),
       "entry 0 (node 1 'weight'): field bytes: 20 does not match shape [2,3] of float32 (24 "
       "bytes)"},
      {"shape_overflow",
       assemble(index_with(std::string(kEntry) +
                               R"("shape": [4294967296, 4294967296], "offset": 0, "bytes": 0})",
                           64),
                64),
       "entry 0 (node 1 'weight'): field shape: the element count of [4294967296,4294967296] "
       "overflows 64 bits"},
      {"unaligned_offset",
       assemble(index_with(std::string(kEntry) + R"("shape": [1], "offset": 4, "bytes": 4})", 64),
                64),
       "entry 0 (node 1 'weight'): field offset: 4 is not a multiple of 64"},
      {"overlapping_entries",
       assemble(index_with(std::string(kEntry) + R"("shape": [32], "offset": 0, "bytes": 128},
                            {"node_id": 2, "name": "weight", "dtype": "float32", "shape": [1],
                             "offset": 64, "bytes": 4})",
                           128),
                128),
       "entry 1: data of node 2 'weight' overlaps data of node 1 'weight'"},
      {"repeated_entry",
       assemble(index_with(std::string(kEntry) + R"("shape": [1], "offset": 0, "bytes": 4}, )" +
                               kEntry + R"("shape": [1], "offset": 64, "bytes": 4})",
                           128),
                128),
       "entry 1: repeated payload node 1 'weight'"},
      {"wrong_dtype",
       assemble(index_with(R"({"node_id": 1, "name": "w", "dtype": "float16", "shape": [1],
                             "offset": 0, "bytes": 2})",
                           64),
                64),
       "entry 0 (node 1 'w'): field dtype: expected \"float32\" or \"int64\", found "
       "\"float16\""},
      {"negative_offset",
       assemble(index_with(std::string(kEntry) + R"("shape": [1], "offset": -64, "bytes": 4})", 64),
                64),
       "field offset: expected a non-negative integer, found -64"},
      {"missing_bytes",
       assemble(index_with(std::string(kEntry) + R"("shape": [1], "offset": 0})", 64), 64),
       "entry 0 (node 1 'weight'): field bytes: required field is missing"},
      {"node_id_too_big",
       assemble(index_with(R"({"node_id": 4294967296, "name": "w", "dtype": "float32",
                             "shape": [1], "offset": 0, "bytes": 4})",
                           64),
                64),
       "field node_id: 4294967296 is out of range; the maximum is 4294967295"},
      {"empty_name",
       assemble(index_with(R"({"node_id": 1, "name": "", "dtype": "float32", "shape": [1],
                             "offset": 0, "bytes": 4})",
                           64),
                64),
       "field name: expected a non-empty string, found \"\""},
      {"entry_not_object", assemble(index_with("3", 0), 0), "entry 0: expected an object, found 3"},
      {"attribute_value_string",
       assemble(index_with("", 0, R"({"node_id": 1, "name": "epsilon", "value": "1e-5"})"), 0),
       "attribute 0: field value: expected a number, found \"1e-5\""},
      {"repeated_attribute",
       assemble(index_with("", 0,
                           R"({"node_id": 1, "name": "epsilon", "value": 1},
                              {"node_id": 1, "name": "epsilon", "value": 2})"),
                0),
       "attribute 1: repeated attribute node 1 'epsilon'"},
  };
}

void PrintTo(const BadPayloadFile& c, std::ostream* os) {
  *os << c.name;
}

class PayloadBadFile : public ::testing::TestWithParam<BadPayloadFile> {};

TEST_P(PayloadBadFile, IsAnInvalidInputErrorNamingTheLocation) {
  const BadPayloadFile& c = GetParam();
  const auto store = parse_payloads(c.bytes, "<memory>");
  ASSERT_FALSE(store.has_value());
  EXPECT_EQ(store.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(store.error().message.find(c.fragment), std::string::npos)
      << "message:  " << store.error().message << "\nexpected: " << c.fragment;
  EXPECT_EQ(store.error().message.find('\n'), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Table, PayloadBadFile, ::testing::ValuesIn(bad_payload_files()),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(PayloadFile, NamesTheOffsetOfAnUnusedByteThatIsNotZero) {
  struct Case {
    std::size_t at;
    bool in_data;
    std::size_t data_bytes;
  };
  for (const Case& c : {Case{0, false, 68}, Case{10, true, 68}, Case{100, true, 128}}) {
    const std::vector<std::byte> bytes = with_unused_byte_set(c.at, c.in_data, c.data_bytes);
    // The next byte set instead moves the first difference to the byte this case set.
    const std::vector<std::byte> next = with_unused_byte_set(c.at + 1, c.in_data, c.data_bytes);
    const auto offset = std::ranges::mismatch(bytes, next).in1 - bytes.begin();
    const auto store = parse_payloads(bytes, "<memory>");
    ASSERT_FALSE(store.has_value());
    EXPECT_EQ(store.error().message.rfind("<memory>: byte " + std::to_string(offset) + " (", 0), 0U)
        << store.error().message;
  }
}

TEST(PayloadFile, UnreadablePathsNameThePath) {
  const auto missing = read_payload_file(kSourceDir / "examples" / "nope.payloads");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("nope.payloads: cannot read payload file: no such file"),
            std::string::npos)
      << missing.error().message;
  const auto directory = read_payload_file(kSourceDir / "examples");
  ASSERT_FALSE(directory.has_value());
  EXPECT_NE(directory.error().message.find("examples: cannot read payload file: is a directory"),
            std::string::npos);
  // A truncated file on disk reads like a truncated span.
  const auto path = std::filesystem::temp_directory_path() / "nnplan_payload_truncated.payloads";
  {
    const auto bytes = valid_bytes();
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size() - 3));
  }
  const auto truncated = read_payload_file(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(truncated.has_value());
  EXPECT_TRUE(truncated.error().message.starts_with(path.string() + ": truncated"))
      << truncated.error().message;
}

// Seeded corruptions of a real payload file: every one decodes or fails with invalid_input.
TEST(PayloadFile, CorruptedFilesNeverCrash) {
  const std::vector<std::byte> base = read_bytes(kSourceDir / "examples" / "cnn.payloads");
  ASSERT_FALSE(base.empty());
  std::mt19937_64 rng(7);
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::byte> bytes = base;
    // Corrupt mostly the header and index, where the structure is.
    const std::size_t window = round % 2 == 0 ? 1200 : bytes.size();
    for (int e = 0, n = 1 + static_cast<int>(rng() % 3); e < n; ++e) {
      const std::size_t at = rng() % window;
      switch (rng() % 3) {
        case 0:
          bytes[at] = static_cast<std::byte>(rng());
          break;
        case 1:
          bytes[at] = static_cast<std::byte>("0123456789,:[]{}\""[rng() % 17]);
          break;
        default:
          bytes.resize(at);
          break;
      }
      if (bytes.empty()) break;
    }
    const auto store = parse_payloads(bytes, "<fuzz>");
    if (!store.has_value()) {
      ASSERT_EQ(store.error().kind, ErrorKind::invalid_input) << store.error().message;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// ir::check_weights.

ir::ConvParams conv_params(std::uint32_t in, std::uint32_t out, std::vector<std::uint32_t> kernel,
                           std::uint32_t stride, std::uint32_t groups, bool transposed) {
  const std::size_t r = kernel.size();
  return ir::ConvParams{.spatial_rank = static_cast<std::uint32_t>(r),
                        .kernel = std::move(kernel),
                        .stride = std::vector<std::uint32_t>(r, stride),
                        .padding = std::vector<std::uint32_t>(r, 0),
                        .dilation = std::vector<std::uint32_t>(r, 1),
                        .padding_after = std::vector<std::uint32_t>(r, 0),
                        .groups = groups,
                        .channel_axis = 1,
                        .in_channels = in,
                        .out_channels = out,
                        .output_padding = transposed ? std::vector<std::uint32_t>(r, 0)
                                                     : std::vector<std::uint32_t>{}};
}

// input [2,4] -> linear [2,3] (fc) -> relu; const [3]; conv on [1,2,5,5]; batch norm; then every
// other kind with payloads: a grouped conv with a 3x1 kernel, a grouped conv_transpose with a 2x3
// kernel, layernorm from axis 1, batch_norm_eval on channel axis 3, and a gather on axis 1 with
// [3,2] indices.
Graph check_graph() {
  Graph g;
  g.output_ids = {2, 11};
  g.nodes = {
      Node{.id = 0, .kind = OpKind::input, .shape = shape({2, 4})},
      Node{.id = 1,
           .kind = OpKind::linear,
           .parents = {0},
           .shape = shape({2, 3}),
           .source_name = "fc"},
      Node{.id = 2, .kind = OpKind::relu, .parents = {1}, .shape = shape({2, 3})},
      Node{.id = 3,
           .kind = OpKind::const_,
           .shape = shape({3}),
           .params = ir::ConstParams{.value_shape = shape({3})}},
      Node{.id = 4, .kind = OpKind::input, .shape = shape({1, 2, 5, 5})},
      Node{.id = 5,
           .kind = OpKind::conv,
           .parents = {4},
           .shape = shape({1, 6, 3, 3}),
           .params = conv_params(2, 6, {3, 3}, 1, 1, false)},
      Node{.id = 6,
           .kind = OpKind::batch_norm_eval,
           .parents = {5},
           .shape = shape({1, 6, 3, 3}),
           .params = ir::ChannelAxisParams{.channel_axis = 1, .channels = 6}},
      Node{.id = 7,
           .kind = OpKind::conv,
           .parents = {4},
           .shape = shape({1, 4, 3, 5}),
           .params = conv_params(2, 4, {3, 1}, 1, 2, false)},
      // (5-1)*2 + (2-1) + 1 = 10 and (5-1)*2 + (3-1) + 1 = 11.
      Node{.id = 8,
           .kind = OpKind::conv_transpose,
           .parents = {4},
           .shape = shape({1, 6, 10, 11}),
           .params = conv_params(2, 6, {2, 3}, 2, 2, true)},
      Node{.id = 9,
           .kind = OpKind::layernorm,
           .parents = {4},
           .shape = shape({1, 2, 5, 5}),
           .params = ir::AxisParams{.axis = 1}},
      Node{.id = 10,
           .kind = OpKind::batch_norm_eval,
           .parents = {7},
           .shape = shape({1, 4, 3, 5}),
           .params = ir::ChannelAxisParams{.channel_axis = 3, .channels = 5}},
      Node{.id = 11,
           .kind = OpKind::gather,
           .parents = {0},
           .shape = shape({2, 3, 2}),
           .params = ir::AxisParams{.axis = 1}},
  };
  return g;
}

// Each tensor slot of check_graph() and the shape SPEC §6 and payload_file.hpp give it.
struct SlotShape {
  ir::NodeId node;
  const char* name;
  Shape shape;
};
const std::vector<SlotShape>& slot_shapes() {
  static const std::vector<SlotShape> slots = {
      {1, "weight", shape({3, 4})},        // linear [out, in]
      {1, "bias", shape({3})},             // [out]
      {3, "value", shape({3})},            // const: value_shape
      {5, "weight", shape({6, 2, 3, 3})},  // conv [out, in/groups, kernel...]
      {5, "bias", shape({6})},             // [out]
      {7, "weight", shape({4, 1, 3, 1})},  // grouped conv: in/groups = 1, kernel in axis order
      {7, "bias", shape({4})},
      {8, "weight", shape({2, 3, 2, 3})},  // conv_transpose [in, out/groups, kernel...]
      {8, "bias", shape({6})},             // [out]
      {9, "gamma", shape({2, 5, 5})},      // layernorm: the parent's shape from axis 1
      {9, "beta", shape({2, 5, 5})},
      {10, "scale", shape({5})},  // batch_norm_eval: [channels] on channel axis 3
      {10, "bias", shape({5})},
      {10, "mean", shape({5})},
      {10, "var", shape({5})},
      {11, "indices", shape({3, 2})},  // gather: the declared axes that replace axis 1
  };
  return slots;
}

// A tensor of `s` for the slot: int64 indices inside the gathered axis (extent 4) for the gather,
// float32 values for every other slot.
ir::WeightTensor for_slot(const SlotShape& slot, Shape s) {
  if (std::string_view(slot.name) != "indices") return filled(std::move(s), 0);
  std::uint64_t count = 1;
  for (const auto d : s.dims)
    count *= d;
  std::vector<std::int64_t> values;
  for (std::uint64_t i = 0; i < count; ++i)
    values.push_back(static_cast<std::int64_t>(i % 4));
  return ir::WeightTensor::adopt(std::move(s), std::move(values));
}

ir::WeightStore check_store() {
  ir::WeightStore s;
  for (const SlotShape& slot : slot_shapes())
    s.tensors[{slot.node, slot.name}] = for_slot(slot, slot.shape);
  for (const char* name : {"scale", "bias", "mean", "var"})
    s.tensors[{6, name}] = filled(shape({6}), 1);
  s.attributes[{6, "epsilon"}] = 1e-5;
  s.attributes[{10, "epsilon"}] = 1e-3;
  s.attributes[{9, "epsilon"}] = 1e-6;
  return s;
}

TEST(CheckPayloads, AcceptsACompleteStore) {
  ASSERT_TRUE(ir::check(check_graph()).has_value());
  const auto ok = ir::check_weights(check_graph(), check_store(), "w.payloads");
  EXPECT_TRUE(ok.has_value()) << ok.error().message;
}

TEST(CheckPayloads, OptionalBiasMayBeAbsent) {
  ir::WeightStore s = check_store();
  s.tensors.erase({1, "bias"});
  EXPECT_TRUE(ir::check_weights(check_graph(), s).has_value());
}

TEST(CheckPayloads, OptionalConvBiasAndLayerNormPayloadsMayBeAbsent) {
  ir::WeightStore s = check_store();
  s.tensors.erase({5, "bias"});
  s.tensors.erase({8, "bias"});
  s.tensors.erase({9, "gamma"});
  s.tensors.erase({9, "beta"});
  s.attributes.erase({9, "epsilon"});
  EXPECT_TRUE(ir::check_weights(check_graph(), s).has_value());
}

// Every tensor slot of every kind with payloads: the expected shape passes, and a tensor one axis
// longer is refused naming that expected shape.
class CheckPayloadsSlotShape : public ::testing::TestWithParam<SlotShape> {};

TEST_P(CheckPayloadsSlotShape, ExpectsTheShapeOfTheSlot) {
  const SlotShape& slot = GetParam();
  const Graph g = check_graph();
  ir::WeightStore s = check_store();
  ASSERT_TRUE(ir::check_weights(g, s).has_value());
  Shape wrong = slot.shape;
  wrong.dims.push_back(1);
  s.tensors[{slot.node, slot.name}] = for_slot(slot, wrong);
  const auto checked = ir::check_weights(g, s, "w.payloads");
  ASSERT_FALSE(checked.has_value());
  EXPECT_EQ(checked.error().message, "w.payloads: " + ir::describe(g.nodes[slot.node]) +
                                         ": payload " + slot.name + ": shape " +
                                         ir::to_string(wrong) + " does not match the expected " +
                                         ir::to_string(slot.shape));
}

INSTANTIATE_TEST_SUITE_P(EverySlot, CheckPayloadsSlotShape, ::testing::ValuesIn(slot_shapes()),
                         [](const auto& info) {
                           return "node" + std::to_string(info.param.node) + "_" + info.param.name;
                         });

// A required slot of each kind left out is named; the gather's indices are required.
TEST(CheckPayloads, MissingRequiredPayloadOfEachKind) {
  const struct {
    ir::NodeId node;
    const char* name;
    bool attribute;
  } required[] = {{5, "weight", false}, {7, "weight", false},  {8, "weight", false},
                  {10, "var", false},   {10, "epsilon", true}, {11, "indices", false}};
  for (const auto& r : required) {
    ir::WeightStore s = check_store();
    if (r.attribute) {
      s.attributes.erase({r.node, r.name});
    } else {
      s.tensors.erase({r.node, r.name});
    }
    const auto checked = ir::check_weights(check_graph(), s);
    ASSERT_FALSE(checked.has_value()) << r.name;
    EXPECT_EQ(checked.error().message, ir::describe(check_graph().nodes[r.node]) + ": " +
                                           (r.attribute ? "attribute " : "payload ") + r.name +
                                           " is missing");
  }
}

struct BadStore {
  const char* name;
  void (*edit)(ir::WeightStore&);
  const char* fragment;
};

const std::vector<BadStore> kBadStores = {
    {"missing_linear_weight",
     [](ir::WeightStore& s) {
       s.tensors.erase({1, "weight"});
     },
     "w.payloads: node 1 (linear 'fc'): payload weight is missing"},
    {"wrong_linear_weight_shape",
     [](ir::WeightStore& s) {
       s.tensors[{1, "weight"}] = filled(shape({4, 3}), 0);
     },
     "w.payloads: node 1 (linear 'fc'): payload weight: shape [4,3] does not match the expected "
     "[3,4]"},
    {"wrong_linear_bias_shape",
     [](ir::WeightStore& s) {
       s.tensors[{1, "bias"}] = filled(shape({4}), 0);
     },
     "node 1 (linear 'fc'): payload bias: shape [4] does not match the expected [3]"},
    {"missing_const_value",
     [](ir::WeightStore& s) {
       s.tensors.erase({3, "value"});
     },
     "node 3 (const): payload value is missing"},
    {"wrong_const_shape",
     [](ir::WeightStore& s) {
       s.tensors[{3, "value"}] = filled(shape({1, 3}), 0);
     },
     "node 3 (const): payload value: shape [1,3] does not match the expected [3]"},
    {"wrong_conv_weight",
     [](ir::WeightStore& s) {
       s.tensors[{5, "weight"}] = filled(shape({6, 3, 3, 3}), 0);
     },
     "node 5 (conv): payload weight: shape [6,3,3,3] does not match the expected [6,2,3,3]"},
    {"missing_bn_var",
     [](ir::WeightStore& s) {
       s.tensors.erase({6, "var"});
     },
     "node 6 (batch_norm_eval): payload var is missing"},
    {"missing_bn_epsilon",
     [](ir::WeightStore& s) {
       s.attributes.erase({6, "epsilon"});
     },
     "node 6 (batch_norm_eval): attribute epsilon is missing"},
    {"negative_epsilon",
     [](ir::WeightStore& s) {
       s.attributes[{6, "epsilon"}] = -1;
     },
     "node 6 (batch_norm_eval): attribute epsilon: -1 is not a finite non-negative "
     "number"},
    {"data_does_not_fill_shape",
     [](ir::WeightStore& s) {
       auto& bias = s.tensors[{1, "bias"}];
       std::vector<float> values = bias.to_vector<float>();
       values.pop_back();
       bias = ir::WeightTensor::adopt(bias.shape(), std::move(values));
     },
     "node 1 (linear 'fc'): payload bias: 2 values do not fill shape [3]"},
    {"payload_for_missing_node",
     [](ir::WeightStore& s) {
       s.tensors[{42, "weight"}] = filled(shape({1}), 0);
     },
     "w.payloads: payload weight names node 42, which does not exist (the graph has 12 nodes)"},
    {"payload_on_relu",
     [](ir::WeightStore& s) {
       s.tensors[{2, "weight"}] = filled(shape({1}), 0);
     },
     "node 2 (relu): payload weight does not belong to this node; relu takes no payloads"},
    {"unknown_payload_name",
     [](ir::WeightStore& s) {
       s.tensors[{1, "gamma"}] = filled(shape({3}), 0);
     },
     "node 1 (linear 'fc'): payload gamma does not belong to this node; linear takes tensor "
     "weight, tensor bias (optional)"},
    {"attribute_as_tensor",
     [](ir::WeightStore& s) {
       s.tensors[{6, "epsilon"}] = filled(shape({}), 0);
     },
     "node 6 (batch_norm_eval): payload epsilon does not belong to this node"},
    {"stray_attribute",
     [](ir::WeightStore& s) {
       s.attributes[{1, "epsilon"}] = 1;
     },
     "node 1 (linear 'fc'): attribute epsilon does not belong to this node"},
};

void PrintTo(const BadStore& c, std::ostream* os) {
  *os << c.name;
}

class CheckPayloadsBad : public ::testing::TestWithParam<BadStore> {};

TEST_P(CheckPayloadsBad, NamesTheNodeAndPayload) {
  ir::WeightStore s = check_store();
  GetParam().edit(s);
  const auto ok = ir::check_weights(check_graph(), s, "w.payloads");
  ASSERT_FALSE(ok.has_value());
  EXPECT_EQ(ok.error().kind, ErrorKind::invalid_input);
  EXPECT_NE(ok.error().message.find(GetParam().fragment), std::string::npos)
      << "message:  " << ok.error().message << "\nexpected: " << GetParam().fragment;
}

INSTANTIATE_TEST_SUITE_P(Table, CheckPayloadsBad, ::testing::ValuesIn(kBadStores),
                         [](const auto& info) { return std::string(info.param.name); });

// An unchecked graph (a linear node whose parent does not exist) is an error, not a crash.
TEST(CheckPayloads, UncheckedGraphIsAnError) {
  Graph g = check_graph();
  g.nodes[1].parents = {99};
  const auto ok = ir::check_weights(g, check_store());
  ASSERT_FALSE(ok.has_value());
  EXPECT_NE(ok.error().message.find("node 1 (linear 'fc'): parent 99 does not exist"),
            std::string::npos)
      << ok.error().message;
}

}  // namespace
}  // namespace nnplan::format

namespace nnplan::format {
namespace {

// payload_slots is the payloads column of the op-kind table, and ir::check_weights follows it for
// every kind: a node with no payloads at all is refused for its first required slot, and a
// payload of each slot's name is owned by the node exactly when the row lists it.
class PayloadSlotsOfKind : public ::testing::TestWithParam<std::size_t> {};

TEST_P(PayloadSlotsOfKind, CheckPayloadsFollowsTheTableRow) {
  const auto kind = static_cast<OpKind>(GetParam());
  const auto slots = payload_slots(kind);
  EXPECT_EQ(slots.data(), ir::op_traits(kind).payloads.data());
  EXPECT_EQ(slots.size(), ir::op_traits(kind).payloads.size());
  Graph g;
  g.nodes.push_back(Node{.id = 0, .kind = OpKind::input, .shape = Shape{{2, 3}}});
  g.nodes.push_back(Node{.id = 1, .kind = kind, .parents = {0}, .shape = Shape{{2, 3}}});
  const std::string node = ir::describe(g.nodes[1]);

  const auto empty = ir::check_weights(g, ir::WeightStore{});
  const auto required =
      std::find_if(slots.begin(), slots.end(), [](const PayloadSlot& s) { return s.required; });
  if (required == slots.end()) {
    EXPECT_TRUE(empty.has_value()) << empty.error().message;
  } else {
    ASSERT_FALSE(empty.has_value()) << node;
    EXPECT_EQ(empty.error().message, node + ": " +
                                         (required->attribute ? "attribute " : "payload ") +
                                         std::string(required->name) + " is missing");
  }

  for (const std::string_view name : {"value", "weight", "bias", "scale", "var", "epsilon"}) {
    const bool listed = std::any_of(slots.begin(), slots.end(), [name](const PayloadSlot& s) {
      return s.name == name && !s.attribute;
    });
    ir::WeightStore store;
    store.tensors[ir::WeightKey{.node_id = 1, .name = std::string(name)}] =
        ir::WeightTensor::adopt<float>(Shape{{1}}, {0.0F});
    const auto checked = ir::check_weights(g, store);
    ASSERT_FALSE(checked.has_value()) << node << " " << name;  // a wrong shape or a stray one
    const std::string& message = checked.error().message;
    if (message.find("is missing") != std::string::npos) continue;  // another required slot
    EXPECT_EQ(message.find("does not belong to this node") != std::string::npos, !listed)
        << checked.error().message;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryKind, PayloadSlotsOfKind,
                         ::testing::Range<std::size_t>(0, ir::kOpKindCount), [](const auto& info) {
                           return std::string(ir::kOpKindNames[info.param]);
                         });

}  // namespace
}  // namespace nnplan::format
