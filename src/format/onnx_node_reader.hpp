// Reading an ONNX graph's serialized nodes in order for the importer, a few batches ahead on a
// second thread.
//
// The importer takes the nodes of OnnxNodes (onnx_model_split.hpp) one after the other. For each
// node the reader scans its bytes for its names (its own, op type, domain, inputs, outputs) as
// views of the model's bytes (OnnxNodes::scan), and hashes every input and output name for the
// importer's name table; only a node with other fields (attributes) is also parsed with ONNX's
// generated NodeProto, for those. Building a message per node (its strings, then copying them
// out for the importer) was most of the worker's time and the reason it sometimes fell behind
// the importer. A node the scan does not read (unusual framing) is parsed, and its names are
// views of the message's strings.
//
// A worker thread does this a batch of kBatchNodes at a time, at most kBatches batches ahead;
// the importer's thread hands a batch back when it moves past it. Graphs of fewer than
// kThreadedMinNodes nodes, fully parsed graphs, and readers built with `threaded` false read each
// node on the calling thread, through the same views; so does a reader whose thread the system
// refuses to start.
#pragma once

#include <google/protobuf/arena.h>
#include <onnx/onnx_pb.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "onnx_model_split.hpp"

namespace nnplan::format::detail {

// One node as the importer reads it, valid until the reader is asked for the next node (a
// worker's batch lives longer, but a reader without a worker reuses one slot).
struct OnnxNodeView {
  // For the attributes (the empty message for a node that has none); null: the node is corrupt.
  const onnx::NodeProto* proto = nullptr;
  std::string_view name;
  std::string_view op_type;
  std::string_view domain;
  std::span<const std::string_view> inputs;
  std::span<const std::string_view> outputs;
  // hash_name (name_table.hpp) of each input and output, computed by the worker.
  std::span<const std::uint64_t> input_hashes;
  std::span<const std::uint64_t> output_hashes;
};

class OnnxNodeReader {
 public:
  // Nodes per batch, batches in flight, and the fewest serialized nodes worth a thread (see
  // kThreadedMinNodes).
  static constexpr int kBatchNodes = 1024;
  static constexpr int kBatches = 8;  // even: the worker is woken once per half ring
  // Below it the worker's start and its ring of 8,192 messages cost more than the parse saves:
  // chain of 10^4 nodes, 2.7 ms on one thread, 4.7 ms with the worker.
  static constexpr int kThreadedMinNodes = 32 * kBatchNodes;

  // Reads `nodes`, which must outlive the reader.
  OnnxNodeReader(const OnnxNodes& nodes, bool threaded);
  OnnxNodeReader(const OnnxNodeReader&) = delete;
  OnnxNodeReader& operator=(const OnnxNodeReader&) = delete;
  // Stops the worker (it may still be batches ahead) and joins it.
  ~OnnxNodeReader();

  // Node i, for i = 0, 1, 2, ... in turn (each asked for once, in order): null when its bytes
  // are not a valid NodeProto. Rethrows what the worker threw (out of memory).
  [[nodiscard]] const OnnxNodeView* next(int i);

  // Node i + d's view when it is in the batch of node i (the last one asked for) and valid, else
  // null; always null without a worker. For prefetching what a coming node will touch.
  [[nodiscard]] const OnnxNodeView* peek(int i, int d) const {
    if (single_ != nullptr) return nullptr;
    const int j = i % kBatchNodes + d;
    const Batch& batch = *batches_[static_cast<std::size_t>((i / kBatchNodes) % kBatches)];
    if (j >= static_cast<int>(batch.views.size())) return nullptr;
    const OnnxNodeView& view = batch.views[static_cast<std::size_t>(j)];
    return view.proto != nullptr ? &view : nullptr;
  }

  // Whether a worker thread reads ahead.
  [[nodiscard]] bool threaded() const { return worker_.joinable(); }

 private:
  struct Batch {
    explicit Batch(int capacity);
    // The message node k of the batch is parsed into (for its attributes), made on first use
    // and reused: on one arena, their strings keep their capacity from batch to batch, are
    // allocated by bumping a pointer, and are freed with the arena's few blocks.
    onnx::NodeProto& proto(int k);
    google::protobuf::Arena arena;
    std::vector<onnx::NodeProto*> protos;  // null until first used
    std::vector<OnnxNodeView> views;
    // The batch's input and output names, node after node, and their hash_name.
    std::vector<std::string_view> inputs;
    std::vector<std::string_view> outputs;
    std::vector<std::uint64_t> input_hashes;
    std::vector<std::uint64_t> output_hashes;
  };
  void fill(Batch& batch, int first, int count) const;
  void work();
  void read_ahead();
  // Blocks until `counter` holds more than `value` or, when `stop` is given, the reader stops.
  static void wait_above(const std::atomic<int>& counter, int value, const std::atomic<bool>* stop);

  const OnnxNodes& nodes_;
  std::unique_ptr<Batch> single_;  // the one-node batch of a reader without a worker
  std::array<std::unique_ptr<Batch>, kBatches> batches_;
  std::atomic<int> filled_{0};    // batches the worker has filled
  std::atomic<int> released_{0};  // batches the reader has handed back
  std::atomic<bool> stop_{false};
  std::exception_ptr failure_;  // what the worker threw; published through filled_
  int current_ = -1;            // the batch the reader is in
  std::thread worker_;
};

}  // namespace nnplan::format::detail
