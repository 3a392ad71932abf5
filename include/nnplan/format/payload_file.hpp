// Payload files, format `nnplan.payloads.v1`: the parameters a graph's nodes take from outside
// the graph (weights, biases, constants, batch-norm statistics), keyed by node id and a payload
// name. Byte layout (docs/formats.md has every field):
//
//   offset 0   8 bytes  magic 0x89 'N' 'N' 'P' 'A' 'Y' '\r' '\n'
//   offset 8   8 bytes  L, the byte length of the index, unsigned little-endian
//   offset 16  L bytes  the index: UTF-8 JSON {"format": "nnplan.payloads.v1", "data_bytes": D,
//                       "entries": [{"node_id", "name", "dtype", "shape", "offset",
//                       "bytes"}], "attributes": [{"node_id", "name", "value"}]}
//   zero padding up to S = 16 + L rounded up to a multiple of 64
//   offset S   D bytes  the data section: each entry's tensor as little-endian values of its
//                       dtype ("float32": IEEE-754 binary32; "int64": two's complement) in
//                       row-major order, at `offset` (from S, a multiple of 64)
//
// The file ends exactly at S + D. Entries lie inside the data section and do not overlap;
// `bytes` is the dtype's size (4 or 8) times the product of `shape`. Reading is strict and total: a hostile file gives
// an invalid_input error naming the file, the entry (its index, node id and name) and the field,
// never an out-of-bounds read or an unchecked allocation.
//
// Which payloads a node takes (payload_slots, from the op-kind table in ir/op_kinds.def):
//   const                   tensor value [the node's value_shape]
//   linear                  tensor weight [out, in], optional tensor bias [out]; in is the
//                           parent's last dimension, out the node's declared last dimension
//   conv                    tensor weight [outC, inC/groups, kernel...], optional tensor bias
//                           [outC]
//   conv_transpose          tensor weight [inC, outC/groups, kernel...], optional tensor bias
//                           [outC]
//   batch_norm_eval         tensors scale, bias, mean, var [channels]; attribute epsilon
//                           (finite, >= 0)
//   layernorm               optional tensors gamma, beta [the parent's shape from `axis` on];
//                           optional attribute epsilon (default 1e-5)
//   gather                  int64 tensor indices [the declared shape's axes that replace
//                           `axis`]
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"
#include "nnplan/ir/op_table.hpp"
#include "nnplan/ir/weights.hpp"

namespace nnplan::format {

inline constexpr std::string_view kPayloadsFormat = "nnplan.payloads.v1";
// The high byte catches 7-bit transfers and the CR LF catches newline translation, as in PNG.
inline constexpr std::array<unsigned char, 8> kPayloadMagic = {0x89, 'N', 'N',  'P',
                                                               'A',  'Y', '\r', '\n'};
inline constexpr std::uint64_t kPayloadHeaderBytes = 16;
inline constexpr std::uint64_t kPayloadAlignment = 64;
// An index past this size is refused before the reader allocates for it.
inline constexpr std::uint64_t kMaxPayloadIndexBytes = std::uint64_t{1} << 30;

// The store a payload file fills: ir::WeightStore (nnplan/ir/weights.hpp), keyed by node id and
// slot name; read_payload_file maps the file and each tensor views its bytes there.

// One payload a node of some kind takes: the payloads column of the op-kind table.
using PayloadSlot = ir::PayloadSlot;

// The payloads a node of `kind` takes, in canonical order (ir::op_traits(kind).payloads); empty
// for kinds without payloads and for a value outside the enum.
[[nodiscard]] std::span<const PayloadSlot> payload_slots(ir::OpKind kind);

// Decodes a payload file held in memory, copying each tensor out of `bytes`. `source` names it in
// messages.
[[nodiscard]] Expected<ir::WeightStore> parse_payloads(std::span<const std::byte> bytes,
                                                       std::string_view source);

// Reads a payload file by mapping it: each tensor is a view into the mapping, which lives as long
// as any tensor of the store (the data section aligns every tensor to 64 bytes). An
// unreadable path, a directory or anything but a regular file is an invalid_input error naming
// the path.
[[nodiscard]] Expected<ir::WeightStore> read_payload_file(const std::filesystem::path& path);

// The file bytes for `store`: entries in key order (node id, then name), attributes likewise,
// each tensor at the next multiple of 64. Deterministic. Fails (invalid_input) when a tensor's
// data size is not the product of its shape, a tensor is bool (payload files hold float32 and
// int64), a name is empty or an attribute is not finite.
[[nodiscard]] Expected<std::vector<std::byte>> write_payloads(const ir::WeightStore& store);

// write_payloads to a file, replacing it through format::write_file_atomically (never onto one
// of `inputs`; a failed write leaves the old file).
[[nodiscard]] Expected<void> write_payload_file(const std::filesystem::path& path,
                                                const ir::WeightStore& store,
                                                std::span<const std::filesystem::path> inputs = {});

// A store is checked against its graph by ir::check_weights (nnplan/ir/weights.hpp).

}  // namespace nnplan::format
