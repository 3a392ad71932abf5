// The limits an ONNX message's wire bytes are held to before any of it is parsed.
//
// Parsing a protobuf message builds everything in it: 150 MB of packed ints in one attribute
// become a 1.2 GB array before the importer looks at the attribute, 30 M empty metadata entries
// 30 M messages. `check_wire` walks the bytes instead, by the message's schema (its protobuf
// descriptor), and builds nothing: it counts the entries of every repeated field (packed ones by
// their encoded values), measures identifier strings, follows nested messages with protobuf's own
// recursion budget, and compares each known field's wire type with the schema's. The first
// problem found is returned as text that names the field by its path
// (`graph.input[0].type.tensor_type.shape.dim`) and the nearest named message around it. Framing
// the walk cannot read (a truncated length, a malformed tag) is not its business: it stops and
// leaves the verdict to protobuf's parser, which runs next.
#pragma once

#include <google/protobuf/descriptor.h>

#include <cstddef>
#include <optional>
#include <span>
#include <string>

namespace nnplan::format::onnx_import {

// Checks `bytes`, a serialized message of `type`, read with `budget` levels of nesting left
// (protobuf's default limit minus the depth of the message in the model). `deferred` is a path of
// field numbers to a repeated message field (`{7, 1}`: a model's graph.node) whose entries are
// neither counted nor walked: the model split counts the graph's nodes against the node limit and
// checks each node when the import reaches it. Returns the first problem, e.g. "field
// graph.node has wire type varint (0); the ONNX schema gives it length-delimited (2)", or nullopt.
[[nodiscard]] std::optional<std::string> check_wire(std::span<const std::byte> bytes,
                                                    const google::protobuf::Descriptor& type,
                                                    int budget, std::span<const int> deferred = {});

}  // namespace nnplan::format::onnx_import
