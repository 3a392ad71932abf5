// Reading an ONNX graph's serialized nodes in order for the importer, a few batches ahead on a
// second thread, with every tensor name already resolved to a number.
//
// The importer takes the nodes of OnnxNodes (onnx_model_split.hpp) one after the other. For each
// node the reader scans its bytes for its names (its own, op type, domain, inputs, outputs) as
// views of the model's bytes (OnnxNodes::scan); only a node with other fields (attributes) is
// also parsed with ONNX's generated NodeProto, for those. A node the scan does not read (unusual
// framing) is parsed, and its names are views of the message's strings.
//
// The reader also numbers the graph's values: each name a node outputs gets a fresh value
// number, and each input name is resolved to the number its latest definition got (the graph's
// initializers and inputs, given up front, come first). The importer then maps numbers to IR
// nodes in a flat array instead of hashing and comparing names, and the name table lives on the
// reader's thread (name_table.hpp). A name defined again later gets a new number, so every
// input sees the definition before it, as in the file's order.
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
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "name_table.hpp"
#include "onnx_model_split.hpp"

namespace nnplan::format::detail {

// The number of a value no definition reached: an empty (absent) input, or a name no initializer,
// graph input or earlier node output defines.
inline constexpr std::uint32_t kNoValue = 0xFFFFFFFFu;

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
  // The value number of each input (kNoValue for an unresolved one) and of each output (fresh;
  // kNoValue for an empty one).
  std::span<const std::uint32_t> input_values;
  std::span<const std::uint32_t> output_values;
};

// A thread for an OnnxNodeReader's worker, started before the reader exists: creating a thread and
// getting it running on the other CPU took 0.1 to 0.7 ms on the development VM (instrumented),
// time the importer spent waiting for its first batch. Started while the model is still being
// split, the thread is ready when the reader hands it its work. Until then it waits (busily for
// up to 20 ms, then asleep); one that is never given work ends when destroyed.
class ReaderThread {
 public:
  ReaderThread();  // no thread when the system refuses one (available() is false then)
  ReaderThread(const ReaderThread&) = delete;
  ReaderThread& operator=(const ReaderThread&) = delete;
  ~ReaderThread();  // ends an idle thread, or waits for the work given to it

  // Whether a thread is waiting for work.
  [[nodiscard]] bool available() const { return thread_.joinable() && !given_; }
  // Runs `work` on the thread; requires available().
  void start(std::function<void()> work);
  // Whether started work may still be running (not yet joined).
  [[nodiscard]] bool running() const { return given_ && thread_.joinable(); }
  // Waits for the work to end.
  void join();

 private:
  enum State : int { kIdle, kWork, kCancel };
  void wait_for_work();
  std::atomic<int> state_{kIdle};
  std::function<void()> work_;
  bool given_ = false;
  std::thread thread_;
};

class OnnxNodeReader {
 public:
  // Nodes per batch, batches in flight, and the fewest serialized nodes worth a thread (see
  // kThreadedMinNodes).
  static constexpr int kBatchNodes = 1024;
  static constexpr int kBatches = 8;  // even: the worker is woken once per half ring
  // Below it the worker costs more than it saves (BM_ImportOnnx/chain, medians of 5, inline
  // against threaded: 2,000 nodes 0.287 / 0.403 ms, 4,000 0.579 / 0.504 ms, 10^4 1.83 / 1.18 ms).
  // It was 32,768 while the worker built a message per node; that figure was not remeasured
  // until the scan replaced the messages.
  static constexpr int kThreadedMinNodes = 4 * kBatchNodes;

  // Reads `nodes`, which must outlive the reader. `defined[k]` (the graph's initializer names,
  // then its input names) is value k before any node; the views must outlive the reader too.
  // A worker runs on `thread` when it is given and available, else on a thread of its own.
  OnnxNodeReader(const OnnxNodes& nodes, bool threaded, std::vector<std::string_view> defined = {},
                 ReaderThread* thread = nullptr);
  OnnxNodeReader(const OnnxNodeReader&) = delete;
  OnnxNodeReader& operator=(const OnnxNodeReader&) = delete;
  // Stops the worker (it may still be batches ahead) and joins it.
  ~OnnxNodeReader();

  // Node i, for i = 0, 1, 2, ... in turn (each asked for once, in order): null when its bytes
  // are not a valid NodeProto. Rethrows what the worker threw (out of memory).
  [[nodiscard]] const OnnxNodeView* next(int i);

  // The value number `name` has after the last node: call once node size() - 1 has been read
  // (or at once for a graph without nodes). Waits for the worker to finish.
  [[nodiscard]] std::uint32_t value_after_last_node(std::string_view name);

  // Whether a worker thread reads ahead.
  [[nodiscard]] bool threaded() const { return worker_ != nullptr; }

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
    // The batch's input and output names, node after node, their hash_name and their value
    // numbers.
    std::vector<std::string_view> inputs;
    std::vector<std::string_view> outputs;
    std::vector<std::uint64_t> input_hashes;
    std::vector<std::uint64_t> output_hashes;
    std::vector<std::uint32_t> input_values;
    std::vector<std::uint32_t> output_values;
  };
  void fill(Batch& batch, int first, int count);
  // Numbers the names of `defined` (once, before the first node).
  void define_initial_values();
  // Resolves the inputs and numbers the outputs of the batch's node j, whose names start at
  // those indices of the batch's arrays.
  void number_values(Batch& batch, std::size_t j, std::size_t inputs_begin,
                     std::size_t outputs_begin);
  void work();
  void read_ahead();
  // Blocks until `counter` holds more than `value` or, when `stop` is given, the reader stops.
  static void wait_above(const std::atomic<int>& counter, int value, const std::atomic<bool>* stop);

  const OnnxNodes& nodes_;
  // Value numbering, owned by the worker while it runs (else by the calling thread).
  std::vector<std::string_view> defined_;
  NameTable values_;
  std::uint32_t next_value_ = 0;
  std::unique_ptr<Batch> single_;  // the one-node batch of a reader without a worker
  std::array<std::unique_ptr<Batch>, kBatches> batches_;
  std::atomic<int> filled_{0};    // batches the worker has filled
  std::atomic<int> released_{0};  // batches the reader has handed back
  std::atomic<bool> stop_{false};
  std::exception_ptr failure_;                // what the worker threw; published through filled_
  int current_ = -1;                          // the batch the reader is in
  std::unique_ptr<ReaderThread> own_thread_;  // when not given one
  ReaderThread* worker_ = nullptr;            // the thread the worker runs on; null: inline
};

}  // namespace nnplan::format::detail
