// Tensor files (tensor_file.hpp): `.npy` and ONNX TensorProto `.pb` round trips for float32 and
// int64 at every rank from 0 to 5 and with empty axes, the exact header numpy.save writes, the
// header forms numpy's versions 1.0 to 3.0 use, tensors from ONNX's conformance corpus, and every
// refusal with its full message.
#include "nnplan/format/tensor_file.hpp"

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace ir = nnplan::ir;
using nnplan::format::npy_bytes;
using nnplan::format::parse_npy;
using nnplan::format::parse_tensor_proto;
using nnplan::format::tensor_proto_bytes;
using nnplan::ir::DType;
using nnplan::ir::WeightTensor;

nnplan::ir::Shape shape_of(std::initializer_list<nnplan::ir::Dim> dims) {
  nnplan::ir::Shape s;
  for (const nnplan::ir::Dim d : dims)
    s.dims.push_back(d);
  return s;
}

ir::WeightTensor floats(nnplan::ir::Shape shape) {
  const std::size_t n = nnplan::ir::element_count(shape).value();
  std::vector<float> values;
  for (std::size_t i = 0; i < n; ++i)
    values.push_back(static_cast<float>(i) * 0.75F - 3.5F);
  return ir::WeightTensor::adopt(std::move(shape), std::move(values));
}
ir::WeightTensor ints(nnplan::ir::Shape shape) {
  const std::size_t n = nnplan::ir::element_count(shape).value();
  std::vector<std::int64_t> values;
  for (std::size_t i = 0; i < n; ++i) {
    values.push_back(static_cast<std::int64_t>(i) * 1000000007LL - 5000000000LL);
  }
  return ir::WeightTensor::adopt(std::move(shape), std::move(values));
}

ir::WeightTensor bools(nnplan::ir::Shape shape) {
  const std::size_t n = nnplan::ir::element_count(shape).value();
  std::vector<std::uint8_t> values;
  for (std::size_t i = 0; i < n; ++i)
    values.push_back(static_cast<std::uint8_t>((i * 7 / 3) % 2));
  return ir::WeightTensor::adopt(std::move(shape), std::move(values));
}

std::span<const std::byte> as_bytes(const std::string& s) {
  return {reinterpret_cast<const std::byte*>(s.data()), s.size()};
}
std::string as_string(const std::vector<std::byte>& b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

std::vector<nnplan::ir::Shape> round_trip_shapes() {
  return {shape_of({}),
          shape_of({1}),
          shape_of({5}),
          shape_of({2, 3}),
          shape_of({2, 1, 3}),
          shape_of({2, 3, 1, 2}),
          shape_of({1, 2, 2, 1, 3}),
          shape_of({0}),
          shape_of({3, 0, 2}),
          shape_of({1234567, 0})};
}

// ---- .npy ------------------------------------------------------------------------------------

// A `.npy` file with `dict` as its header, padded with spaces and '\n' as numpy pads it, the
// header length in 2 bytes (version 1) or 4 (versions 2 and 3), then `data`.
std::string npy_file(const std::string& dict, int version, const std::string& data) {
  const std::size_t length_bytes = version == 1 ? 2 : 4;
  std::string header = dict;
  while ((8 + length_bytes + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(version);
  out += '\0';
  for (std::size_t i = 0; i < length_bytes; ++i) {
    out += static_cast<char>((header.size() >> (8 * i)) & 0xFF);
  }
  return out + header + data;
}
std::string float_data(std::initializer_list<float> values) {
  std::string s(values.size() * 4, '\0');
  std::memcpy(s.data(), values.begin(), s.size());
  return s;
}

std::string npy_error(const std::string& file) {
  auto r = parse_npy(as_bytes(file), "x.npy");
  if (r) return "(parsed)";
  EXPECT_EQ(r.error().kind, nnplan::ErrorKind::invalid_input);
  return r.error().message;
}

TEST(NpyFile, RoundTripsEveryDtypeAtEveryRank) {
  for (const nnplan::ir::Shape& shape : round_trip_shapes()) {
    for (const ir::WeightTensor& t : {floats(shape), ints(shape), bools(shape)}) {
      const std::vector<std::byte> bytes = npy_bytes(t);
      EXPECT_EQ(bytes.size() % 64, (t.size() * ir::size_of(t.dtype())) % 64);
      auto back = parse_npy(bytes, "t.npy");
      ASSERT_TRUE(back.has_value()) << back.error().message;
      EXPECT_EQ(*back, t) << nnplan::ir::to_string(shape);
    }
  }
}

TEST(NpyFile, WritesTheHeaderNumpySaveWrites) {
  // numpy.save(f, numpy.zeros((2, 3), numpy.float32)): the dict, 20 spaces for the first axis
  // to grow to 21 digits, padding to byte 127 and '\n'; the header length is 118 (0x76).
  const std::string bytes = as_string(npy_bytes(floats(shape_of({2, 3}))));
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  ASSERT_EQ(bytes.size(), 128U + 24U);
  EXPECT_EQ(bytes.substr(0, 10), std::string("\x93NUMPY\x01\x00\x76\x00", 10));
  EXPECT_EQ(bytes.substr(10, dict.size()), dict);
  EXPECT_EQ(bytes.substr(10 + dict.size(), 127 - 10 - dict.size()),
            std::string(127 - 10 - dict.size(), ' '));
  EXPECT_EQ(bytes[127], '\n');

  const std::string scalar = as_string(npy_bytes(ints(shape_of({}))));
  const std::string scalar_dict = "{'descr': '<i8', 'fortran_order': False, 'shape': (), }";
  EXPECT_EQ(scalar.substr(10, scalar_dict.size()), scalar_dict);
  EXPECT_EQ(scalar.size(), 128U + 8U);
  const std::string vector = as_string(npy_bytes(floats(shape_of({7}))));
  EXPECT_NE(vector.find("'shape': (7,), }"), std::string::npos);

  // numpy.save(f, numpy.array([True, False, True])): descr '|b1', one byte per element.
  const std::string mask = as_string(
      npy_bytes(ir::WeightTensor::adopt(shape_of({3}), std::vector<std::uint8_t>{1, 0, 1})));
  const std::string mask_dict = "{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }";
  EXPECT_EQ(mask.substr(10, mask_dict.size()), mask_dict);
  ASSERT_EQ(mask.size(), 128U + 3U);
  EXPECT_EQ(mask.substr(128), std::string("\x01\x00\x01", 3));
}

TEST(NpyFile, ReadsBoolAndRefusesAByteThatIsNotABool) {
  const std::string dict = "{'descr': '|b1', 'fortran_order': False, 'shape': (2, 2), }";
  auto t = parse_npy(as_bytes(npy_file(dict, 1, std::string("\x01\x00\x00\x01", 4))), "b.npy");
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(t->dtype(), ir::DType::boolean);
  EXPECT_EQ(t->to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 0, 0, 1}));
  EXPECT_EQ(npy_error(npy_file(dict, 1, std::string("\x01\x00\x02\x01", 4))),
            "x.npy: bool element 2 is the byte 2; a bool element is the byte 0 or 1");
  EXPECT_EQ(npy_error(npy_file(dict, 1, std::string("\x01\x00", 2))),
            "x.npy: data holds 2 bytes; shape (2, 2) bool needs 4");
  // Every byte order spells the same one-byte type; without one it is not a descr numpy writes.
  for (const char* descr : {"<b1", "=b1", ">b1"}) {
    auto same = parse_npy(as_bytes(npy_file(std::string("{'descr': '") + descr +
                                                "', 'fortran_order': False, 'shape': (1,), }",
                                            1, std::string("\x01", 1))),
                          "b.npy");
    ASSERT_TRUE(same.has_value()) << descr << ": " << same.error().message;
    EXPECT_EQ(same->to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1})) << descr;
  }
  EXPECT_EQ(npy_error(npy_file("{'descr': 'b1', 'fortran_order': False, 'shape': (1,), }", 1,
                               std::string("\x01", 1))),
            "x.npy: dtype 'b1' (bool) is not supported; expected float32 ('<f4'), int64 ('<i8') "
            "or bool ('|b1')");
}

TEST(NpyFile, ReadsTheHeaderFormsOfEveryVersion) {
  const std::string data = float_data({1.5F, -2});
  for (const int version : {1, 2, 3}) {
    for (const std::string& dict :
         {std::string("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }"),
          std::string("{\"shape\": (2,), \"descr\": \"=f4\", \"fortran_order\": False}"),
          std::string("{ 'fortran_order' : False , 'shape' : ( 2 , ) , 'descr' : '|f4' , }")}) {
      auto t = parse_npy(as_bytes(npy_file(dict, version, data)), "v.npy");
      ASSERT_TRUE(t.has_value()) << version << " " << dict << ": " << t.error().message;
      EXPECT_EQ(t->dtype(), ir::DType::float32);
      EXPECT_EQ(t->shape(), shape_of({2}));
      EXPECT_EQ(t->to_vector<float>(), (std::vector<float>{1.5F, -2}));
    }
  }
  std::string i8(16, '\0');
  const std::int64_t values[] = {-1, 1LL << 40};
  std::memcpy(i8.data(), values, 16);
  auto t = parse_npy(
      as_bytes(npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 2)}", 1, i8)),
      "i.npy");
  ASSERT_TRUE(t.has_value()) << t.error().message;
  EXPECT_EQ(t->to_vector<std::int64_t>(), (std::vector<std::int64_t>{-1, 1LL << 40}));
  EXPECT_TRUE(t->floats().empty());
}

TEST(NpyFile, RefusesBadFramingWithItsMessage) {
  EXPECT_EQ(npy_error("\x93NUMPY"),
            "x.npy: file of 6 bytes is too short for a .npy header (at least 10)");
  std::string bad =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 1, float_data({1}));
  bad[1] = 'n';
  EXPECT_EQ(npy_error(bad),
            "x.npy: not a .npy file: it does not start with the magic \\x93NUMPY; save the array "
            "with numpy.save");
  std::string v4 =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 1, float_data({1}));
  v4[6] = 4;
  EXPECT_EQ(npy_error(v4), "x.npy: format version 4.0 is not supported; expected 1.0, 2.0 or 3.0");

  // A version 2.0 header length of 1 MiB + 1 is refused before anything is read.
  std::string huge = std::string("\x93NUMPY\x02\x00", 8);
  const std::uint32_t length = (1U << 20) + 1;
  huge.append(reinterpret_cast<const char*>(&length), 4);
  huge += "{'descr'";
  EXPECT_EQ(npy_error(huge), "x.npy: header of 1048577 bytes exceeds the 1 MiB limit");

  const std::string whole =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", 1, float_data({1}));
  EXPECT_EQ(npy_error(whole.substr(0, 40)),
            "x.npy: header of 118 bytes is cut short: the file ends 30 bytes into it");
}

TEST(NpyFile, RefusesUnsupportedDtypesAndLayouts) {
  const std::string d8(8, '\0');
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 1, d8)),
            "x.npy: dtype '<f8' (float64) is not supported; expected float32 ('<f4'), int64 "
            "('<i8') or bool ('|b1'); save it as float32: numpy.save(path, "
            "array.astype(numpy.float32))");
  EXPECT_EQ(npy_error(npy_file("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }", 1,
                               float_data({1}))),
            "x.npy: dtype '>f4' (float32, big-endian) is not supported; expected float32 ('<f4'), "
            "int64 ('<i8') or bool ('|b1'); save it as float32: numpy.save(path, "
            "array.astype(numpy.float32))");
  EXPECT_EQ(npy_error(npy_file("{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 1,
                               float_data({1}))),
            "x.npy: dtype '<i4' (int32) is not supported; expected float32 ('<f4'), int64 "
            "('<i8') or bool ('|b1'); save it as int64: numpy.save(path, "
            "array.astype(numpy.int64))");
  EXPECT_EQ(npy_error(npy_file("{'descr': '<U8', 'fortran_order': False, 'shape': (1,), }", 1,
                               float_data({1}))),
            "x.npy: dtype '<U8' (unknown) is not supported; expected float32 ('<f4'), int64 "
            "('<i8') or bool ('|b1')");
  EXPECT_EQ(npy_error(npy_file("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,), }",
                               1, float_data({1}))),
            "x.npy: descr is a structured dtype; expected float32 ('<f4'), int64 ('<i8') or bool "
            "('|b1')");
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'fortran_order': True, 'shape': (1, 2), }", 1,
                               float_data({1, 2}))),
            "x.npy: fortran_order True is not supported; save the array in C order "
            "(numpy.ascontiguousarray)");
}

TEST(NpyFile, RefusesDataOfTheWrongSize) {
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  EXPECT_EQ(npy_error(npy_file(dict, 1, float_data({1, 2, 3}))),
            "x.npy: data holds 12 bytes; shape (2, 3) float32 needs 24");
  EXPECT_EQ(npy_error(npy_file(dict, 1, float_data({1, 2, 3, 4, 5, 6, 7, 8}))),
            "x.npy: 8 bytes follow the 24 data bytes of shape (2, 3) float32; the file must end "
            "with the data");
  EXPECT_EQ(npy_error(npy_file("{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 1,
                               std::string(16, '\0'))),
            "x.npy: data holds 16 bytes; shape (3,) int64 needs 24");
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': "
                               "(281474976710656, 281474976710656), }",
                               1, "")),
            "x.npy: shape (281474976710656, 281474976710656) has more than 2^48 elements");
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': "
                               "(0, 99999999999999999999999), }",
                               1, "")),
            "x.npy: shape has a dimension above the limit 2^48");
}

TEST(NpyFile, ParsesTheHeaderDictStrictly) {
  const std::string how =
      "; expected the dict numpy.save writes, e.g. {'descr': '<f4', 'fortran_order': False, "
      "'shape': (2, 3), }";
  const std::string one = float_data({1});
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'shape': (1,), }", 1, one)),
            "x.npy: header lacks 'fortran_order'" + how);
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,), "
                               "'extra': 1}",
                               1, one)),
            "x.npy: header has unknown key 'extra'; a .npy header holds exactly 'descr', "
            "'fortran_order' and 'shape'");
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1,)}",
                               1, one)),
            "x.npy: header repeats key 'descr'");
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1)}", 1, one)),
            "x.npy: malformed header at byte 53: shape (1) is not a tuple; a one-axis shape is "
            "written (1,)" +
                how);
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}", 1, one)),
            "x.npy: malformed header at byte 34: expected True or False for 'fortran_order'" + how);
  EXPECT_EQ(
      npy_error(npy_file("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}", 1, one)),
      "x.npy: malformed header at byte 16: expected ',' or '}' after the value of 'descr'" + how);
  EXPECT_EQ(npy_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}", 1, one)),
            "x.npy: malformed header at byte 51: expected a non-negative integer in 'shape'" + how);
  EXPECT_EQ(
      npy_error(npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)} x", 1, one)),
      "x.npy: malformed header at byte 56: expected only spaces and a final '\\n' after "
      "the dict" +
          how);
  // A header that does not end in '\n'.
  std::string no_newline =
      npy_file("{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}", 1, one);
  no_newline[127] = ' ';
  EXPECT_EQ(npy_error(no_newline),
            "x.npy: malformed header at byte 118: expected only spaces and a final '\\n' after "
            "the dict" +
                how);
}

// ---- .pb -------------------------------------------------------------------------------------

std::string serialized(const onnx::TensorProto& t) {
  std::string s;
  EXPECT_TRUE(t.SerializeToString(&s));
  return s;
}

std::string pb_error(const std::string& bytes) {
  auto r = parse_tensor_proto(as_bytes(bytes), "x.pb");
  if (r) return "(parsed)";
  EXPECT_EQ(r.error().kind, nnplan::ErrorKind::invalid_input);
  return r.error().message;
}

onnx::TensorProto float_proto(std::initializer_list<std::int64_t> dims, std::size_t raw_floats) {
  onnx::TensorProto t;
  for (const std::int64_t d : dims)
    t.add_dims(d);
  t.set_data_type(onnx::TensorProto_DataType_FLOAT);
  t.set_raw_data(std::string(raw_floats * 4, '\0'));
  return t;
}

TEST(TensorProtoFile, RoundTripsEveryDtypeAtEveryRank) {
  for (const nnplan::ir::Shape& shape : round_trip_shapes()) {
    for (const ir::WeightTensor& t : {floats(shape), ints(shape), bools(shape)}) {
      const std::vector<std::byte> bytes = tensor_proto_bytes(t);
      auto back = parse_tensor_proto(bytes, "t.pb");
      ASSERT_TRUE(back.has_value()) << back.error().message;
      EXPECT_EQ(*back, t) << nnplan::ir::to_string(shape);
    }
  }
}

TEST(TensorProtoFile, WritesDimsDataTypeAndRawData) {
  const std::vector<std::byte> bytes = tensor_proto_bytes(ints(shape_of({2, 1})));
  onnx::TensorProto t;
  ASSERT_TRUE(t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
  EXPECT_EQ(t.dims_size(), 2);
  EXPECT_EQ(t.dims(0), 2);
  EXPECT_EQ(t.dims(1), 1);
  EXPECT_EQ(t.data_type(), onnx::TensorProto_DataType_INT64);
  EXPECT_EQ(t.raw_data().size(), 16U);
  EXPECT_FALSE(t.has_name());
  EXPECT_EQ(t.int64_data_size(), 0);
}

TEST(TensorProtoFile, ReadsTypedDataFields) {
  onnx::TensorProto f;
  f.add_dims(3);
  f.set_data_type(onnx::TensorProto_DataType_FLOAT);
  for (const float v : {1.0F, -2.5F, 1e-3F})
    f.add_float_data(v);
  auto a = parse_tensor_proto(as_bytes(serialized(f)), "f.pb");
  ASSERT_TRUE(a.has_value()) << a.error().message;
  EXPECT_EQ(a->to_vector<float>(), (std::vector<float>{1.0F, -2.5F, 1e-3F}));

  onnx::TensorProto i;
  i.set_data_type(onnx::TensorProto_DataType_INT64);
  i.add_int64_data(-7);
  auto b = parse_tensor_proto(as_bytes(serialized(i)), "i.pb");
  ASSERT_TRUE(b.has_value()) << b.error().message;
  EXPECT_EQ(b->shape(), shape_of({}));
  EXPECT_EQ(b->to_vector<std::int64_t>(), (std::vector<std::int64_t>{-7}));

  // ONNX keeps bool values in int32_data.
  onnx::TensorProto m;
  m.add_dims(3);
  m.set_data_type(onnx::TensorProto_DataType_BOOL);
  for (const int v : {1, 0, 1})
    m.add_int32_data(v);
  auto c = parse_tensor_proto(as_bytes(serialized(m)), "m.pb");
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->dtype(), ir::DType::boolean);
  EXPECT_EQ(c->to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 0, 1}));
}

TEST(TensorProtoFile, RefusesAValueThatIsNotABool) {
  onnx::TensorProto typed;
  typed.add_dims(2);
  typed.set_data_type(onnx::TensorProto_DataType_BOOL);
  typed.add_int32_data(0);
  typed.add_int32_data(-1);
  EXPECT_EQ(pb_error(serialized(typed)),
            "x.pb: bool element 1 of int32_data is -1; a bool element is 0 or 1");
  onnx::TensorProto raw;
  raw.add_dims(2);
  raw.set_data_type(onnx::TensorProto_DataType_BOOL);
  raw.set_raw_data(std::string("\x00\xff", 2));
  EXPECT_EQ(pb_error(serialized(raw)),
            "x.pb: raw_data: bool element 1 is the byte 255; a bool element is the byte 0 or 1");
  raw.add_float_data(1);
  raw.clear_raw_data();
  EXPECT_EQ(pb_error(serialized(raw)),
            "x.pb: a BOOL tensor holds values in float_data; bool values belong in int32_data or "
            "raw_data");
}

TEST(TensorProtoFile, RefusesWithItsMessage) {
  onnx::TensorProto d = float_proto({2}, 4);
  d.set_data_type(onnx::TensorProto_DataType_DOUBLE);
  EXPECT_EQ(pb_error(serialized(d)),
            "x.pb: data_type DOUBLE (float64) is not supported; expected FLOAT (float32), INT64 "
            "(int64) or BOOL (bool)");
  d.set_data_type(0);
  EXPECT_EQ(pb_error(serialized(d)),
            "x.pb: data_type UNDEFINED (undefined) is not supported; expected FLOAT (float32), "
            "INT64 (int64) or BOOL (bool)");
  EXPECT_EQ(pb_error(serialized(float_proto({2, 3}, 2))),
            "x.pb: raw_data holds 8 bytes; dims [2,3] float32 need 24");
  EXPECT_EQ(pb_error(serialized(float_proto({2, -3}, 0))),
            "x.pb: dims[1] is -3; dimensions must be non-negative");
  onnx::TensorProto both = float_proto({1}, 1);
  both.add_float_data(1);
  EXPECT_EQ(pb_error(serialized(both)),
            "x.pb: the tensor holds values in both raw_data and float_data; keep them in one");
  onnx::TensorProto short_typed;
  short_typed.add_dims(2);
  short_typed.set_data_type(onnx::TensorProto_DataType_INT64);
  short_typed.add_int64_data(1);
  EXPECT_EQ(pb_error(serialized(short_typed)), "x.pb: int64_data holds 1 values; dims [2] need 2");
  onnx::TensorProto foreign;
  foreign.add_dims(1);
  foreign.set_data_type(onnx::TensorProto_DataType_FLOAT);
  foreign.add_int32_data(1);
  EXPECT_EQ(pb_error(serialized(foreign)),
            "x.pb: a FLOAT tensor holds values in int32_data; float32 values belong in float_data "
            "or raw_data");
  onnx::TensorProto external = float_proto({1}, 0);
  external.clear_raw_data();
  external.set_data_location(onnx::TensorProto_DataLocation_EXTERNAL);
  auto* entry = external.add_external_data();
  entry->set_key("location");
  entry->set_value("w.bin");
  EXPECT_EQ(pb_error(serialized(external)),
            "x.pb: the tensor's data is external (in another file); save it with its data in "
            "raw_data (onnx.numpy_helper.from_array)");
  onnx::TensorProto segmented = float_proto({1}, 1);
  segmented.mutable_segment()->set_begin(0);
  segmented.mutable_segment()->set_end(1);
  EXPECT_EQ(pb_error(serialized(segmented)),
            "x.pb: segmented tensors are not supported; save the whole tensor in one TensorProto");
  EXPECT_EQ(pb_error(std::string("\x0a\xff\xff\xff\x0f", 5)),
            "x.pb: not a serialized onnx.TensorProto (protobuf cannot parse it); save it with "
            "onnx.numpy_helper.from_array(array).SerializeToString()");
}

TEST(TensorProtoFile, ReadsTheConformanceCorpusTestData) {
  const fs::path corpus = NNPLAN_ONNX_CONFORMANCE_DIR;
  if (!fs::is_directory(corpus)) GTEST_SKIP() << "no ONNX conformance corpus at " << corpus;
  // Values checked against the files' bytes decoded by hand; test_abs's input is
  // numpy.random.seed(0)'s randn sequence (1.7640524, 0.4001572, 0.978738, ...).
  auto abs = nnplan::format::read_tensor_file(corpus / "test_abs/test_data_set_0/input_0.pb");
  ASSERT_TRUE(abs.has_value()) << abs.error().message;
  EXPECT_EQ(abs->dtype(), ir::DType::float32);
  EXPECT_EQ(abs->shape(), shape_of({3, 4, 5}));
  ASSERT_EQ(abs->size(), 60U);
  EXPECT_EQ(abs->floats()[0], 1.764052391052246F);
  EXPECT_EQ(abs->floats()[7], -0.15135720372200012F);
  EXPECT_EQ(abs->floats()[59], -0.3627411723136902F);

  auto shape = nnplan::format::read_tensor_file(
      corpus / "test_reshape_negative_dim/test_data_set_0/input_1.pb");
  ASSERT_TRUE(shape.has_value()) << shape.error().message;
  EXPECT_EQ(shape->dtype(), ir::DType::int64);
  EXPECT_EQ(shape->to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, -1, 2}));

  auto mean = nnplan::format::read_tensor_file(
      corpus / "test_reduce_mean_do_not_keepdims_example/test_data_set_0/output_0.pb");
  ASSERT_TRUE(mean.has_value()) << mean.error().message;
  EXPECT_EQ(mean->shape(), shape_of({3, 2}));
  EXPECT_EQ(mean->floats()[0], 12.5F);
  EXPECT_EQ(mean->floats()[2], 35.0F);

  // ONNX 1.12's other node tests sit beside the corpus; test_not_2d's input is a BOOL tensor in
  // raw_data (values read with onnx.numpy_helper.to_array).
  const fs::path not_2d = corpus.parent_path() / "onnx-node-more/test_not_2d/test_data_set_0";
  if (fs::is_directory(not_2d)) {
    auto mask = nnplan::format::read_tensor_file(not_2d / "input_0.pb");
    ASSERT_TRUE(mask.has_value()) << mask.error().message;
    EXPECT_EQ(mask->dtype(), ir::DType::boolean);
    EXPECT_EQ(mask->shape(), shape_of({3, 4}));
    EXPECT_EQ(mask->to_vector<std::uint8_t>(),
              (std::vector<std::uint8_t>{1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1}));
    auto negated = nnplan::format::read_tensor_file(not_2d / "output_0.pb");
    ASSERT_TRUE(negated.has_value()) << negated.error().message;
    EXPECT_EQ(negated->to_vector<std::uint8_t>(),
              (std::vector<std::uint8_t>{0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 0, 0}));
  }

  const fs::path f64 = corpus / "test_max_float64/test_data_set_0/input_0.pb";
  auto refused = nnplan::format::read_tensor_file(f64);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().message,
            f64.string() +
                ": data_type DOUBLE (float64) is not supported; expected FLOAT (float32), "
                "INT64 (int64) or BOOL (bool)");
  const fs::path u8 = corpus / "test_add_uint8/test_data_set_0/input_0.pb";
  auto uint8 = nnplan::format::read_tensor_file(u8);
  ASSERT_FALSE(uint8.has_value());
  EXPECT_EQ(uint8.error().message,
            u8.string() +
                ": data_type UINT8 (uint8) is not supported; expected FLOAT (float32), INT64 "
                "(int64) or BOOL (bool)");
}

// ---- by path ---------------------------------------------------------------------------------

class TensorFilePaths : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("nnplan_tensor_file_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(TensorFilePaths, WritesAndReadsBothFormats) {
  for (const char* name : {"a.npy", "a.pb"}) {
    for (const ir::WeightTensor& t :
         {floats(shape_of({2, 3, 4})), ints(shape_of({3})), bools(shape_of({2, 5}))}) {
      const fs::path path = dir_ / name;
      ASSERT_TRUE(nnplan::format::write_tensor_file(path, t).has_value());
      auto back = nnplan::format::read_tensor_file(path);
      ASSERT_TRUE(back.has_value()) << back.error().message;
      EXPECT_EQ(*back, t) << name;
    }
  }
  std::ifstream in(dir_ / "a.npy", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, as_string(npy_bytes(bools(shape_of({2, 5})))));
}

TEST_F(TensorFilePaths, NamesTheFileInEveryError) {
  const fs::path txt = dir_ / "x.txt";
  auto format = nnplan::format::read_tensor_file(txt);
  ASSERT_FALSE(format.has_value());
  EXPECT_EQ(format.error().message,
            txt.string() +
                ": unknown tensor file extension '.txt'; tensor files are .npy "
                "(NumPy) or .pb (ONNX TensorProto)");
  EXPECT_EQ(nnplan::format::tensor_file_format("x").error().message,
            "x: no file extension; tensor files are .npy (NumPy) or .pb (ONNX TensorProto)");
  EXPECT_EQ(nnplan::format::tensor_file_format("t.pb").value(),
            nnplan::format::TensorFileFormat::tensor_proto);

  auto missing = nnplan::format::read_tensor_file(dir_ / "missing.npy");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message.rfind((dir_ / "missing.npy").string() + ": cannot read", 0), 0U)
      << missing.error().message;

  const ir::WeightTensor bad =
      ir::WeightTensor::adopt(shape_of({2, 2}), std::vector<float>{1.0F, 2.0F, 3.0F});
  auto wrote = nnplan::format::write_tensor_file(dir_ / "bad.npy", bad);
  ASSERT_FALSE(wrote.has_value());
  EXPECT_EQ(wrote.error().message,
            (dir_ / "bad.npy").string() +
                ": cannot write a tensor of shape [2,2] holding 3 float32 values; the shape "
                "needs 4");
  EXPECT_FALSE(fs::exists(dir_ / "bad.npy"));
  const ir::WeightTensor not_bool =
      ir::WeightTensor::adopt(shape_of({3}), std::vector<std::uint8_t>{1, 0, 7});
  for (const char* name : {"m.npy", "m.pb"}) {
    auto refused = nnplan::format::write_tensor_file(dir_ / name, not_bool);
    ASSERT_FALSE(refused.has_value()) << name;
    EXPECT_EQ(refused.error().message,
              (dir_ / name).string() +
                  ": cannot write the tensor: bool element 2 is the byte 7; a bool element is "
                  "the byte 0 or 1");
    EXPECT_FALSE(fs::exists(dir_ / name));
  }
  EXPECT_EQ(
      nnplan::format::write_tensor_file(dir_ / "x.csv", floats(shape_of({1}))).error().message,
      (dir_ / "x.csv").string() +
          ": unknown tensor file extension '.csv'; tensor files "
          "are .npy (NumPy) or .pb (ONNX TensorProto)");
}

}  // namespace
