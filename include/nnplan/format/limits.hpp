// The limits every reader of src/format enforces on its input, in one place (docs/limits.md lists
// them with where each is checked and the message it gives). They bound what a hostile or broken
// file can make nnplan allocate or compute: each is far above any real model, and each is checked
// while reading, before anything is allocated in proportion to a value the file merely claims.
// The per-format file size limits stay next to their readers (kMaxIrFileBytes in ir_json.hpp,
// kMaxRegistryFileBytes in registry_file.hpp, kMaxPlanFileBytes in plan_artifact.hpp,
// kMaxOnnxFileBytes in onnx_import.hpp, kMaxPayloadIndexBytes in payload_file.hpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace nnplan::format {

// Nodes in one torchlean.ir.v1 graph or one ONNX graph (2^26, about 67 million). The largest
// real graphs have a few hundred thousand nodes.
inline constexpr std::size_t kMaxGraphNodes = std::size_t{1} << 26;

// Parents of one node (65536). Only concat and sum take more than two.
inline constexpr std::size_t kMaxNodeParents = std::size_t{1} << 16;

// Entries of one shape or permutation: the rank of a tensor (64). ONNX and the common frameworks
// stop at 8 to 64.
inline constexpr std::size_t kMaxRank = 64;

// One dimension of a declared shape, and the elements of one tensor (2^48, about 2.8e14). A limit
// on the element count keeps every byte count derived from it (elements times an element size of
// at most 2^8 bytes) inside 64 bits, so downstream arithmetic cannot overflow; a single dimension
// above it can only be meant for an empty tensor and is refused too. Tensor *data* a file claims
// (ONNX initializers, payload files) is further bounded by the bytes actually present in the
// file: nothing is allocated for a claimed size before the data has been checked against it.
inline constexpr std::uint64_t kMaxDim = std::uint64_t{1} << 48;
inline constexpr std::uint64_t kMaxTensorElements = std::uint64_t{1} << 48;

// Nesting of JSON arrays and objects (64 levels). The deepest valid document (a registry file)
// nests 7 levels. Checked while parsing, before the container is stored, so that neither parsing
// nor the recursive copy, dump and destruction of a nlohmann tree can run out of stack.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Bytes of one JSON string (a name, a key, a field value): 64 KiB.
inline constexpr std::size_t kMaxStringBytes = std::size_t{64} << 10;

// Entries of one repeated field of one ONNX message (2^20, about a million): a node's inputs,
// outputs and attributes, an attribute's ints, floats, strings, tensors or graphs, a graph's
// initializers, inputs and outputs, a shape's dims, the model's metadata entries. Counted on the
// wire before the message is parsed, so that no list is built past it. Not applied to a graph's
// nodes (kMaxGraphNodes) or to a tensor's data fields (held to the tensor's dims instead).
inline constexpr std::size_t kMaxOnnxFieldEntries = std::size_t{1} << 20;

// Initializers of one ONNX graph (2^18 = 262,144). Every initializer is decoded and checked when
// the model is read, used or not, at about 600 bytes of memory each; real models have at most a
// few tens of thousands.
inline constexpr std::size_t kMaxOnnxInitializers = std::size_t{1} << 18;

// Elements (values of any type: objects, arrays, strings, numbers, booleans, nulls; keys are not
// counted) in one registry file, payload index or plan artifact: 2^24, about 16.8 million.
// Checked while parsing, before the element is stored, so no document can grow its tree past
// about 1 GB (some 56 bytes per empty array), whatever it holds in fields the reader would
// refuse. The largest legitimate documents: a plan artifact of a 1,000,000-node graph holds 12.0
// million elements (11 per lowered group), a registry of 65,536 capsules 3.0 to 4.2 million.
inline constexpr std::size_t kMaxJsonElements = std::size_t{1} << 24;

// Elements of one registry file: 2^23, about 8.4 million, twice the 4.2 million of the largest
// 65,536-capsule registry with every field (which is already past the 64 MiB file limit), so
// that a registry's tree stays under about 500 MB whatever it holds.
inline constexpr std::size_t kMaxRegistryJsonElements = std::size_t{1} << 23;

// Modules in one nnplan.capsules.v1 registry file (4096), and capsules in all its modules
// together (65536); the capsule limit holds for all the registry files one command reads together
// too (read_registry_files).
inline constexpr std::size_t kMaxRegistryModules = 4096;
inline constexpr std::size_t kMaxRegistryCapsules = std::size_t{1} << 16;

}  // namespace nnplan::format
