// The read-ahead worker behind OnnxNodeReader (see the header for why).
#include "onnx_node_reader.hpp"

#include "name_table.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <system_error>

#ifdef __linux__
#include <pthread.h>
#endif

namespace nnplan::format::detail {
namespace {

// How long a side waits busily before it sleeps. Each side is usually well under a millisecond
// from giving the other what it waits for (a batch filled, or one handed back), and on a virtual
// machine waking a sleeping thread took milliseconds: an interrupt to a halted virtual CPU that
// the host must schedule again. Instrumented on the 100k chain with the previous limit (2^11
// pauses, some 30 to 110 us), in half the runs both sides slept on each other and the importer
// lost 5 to 9 ms waiting. A thread busy-waits only while the other has work in hand, and yields
// its CPU now and then, so a thread sharing that CPU is not starved.
constexpr auto kBusyWaitLimit = std::chrono::milliseconds(20);

// Waits busily until `ready()`, pausing and yielding the CPU every 256 rounds, for at most
// kBusyWaitLimit; returns ready() (false: the caller sleeps instead).
template <class Ready>
bool busy_wait(Ready ready) {
  const auto start = std::chrono::steady_clock::now();
  for (unsigned spin = 1; !ready(); ++spin) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
    if (spin % 256 != 0) continue;
    std::this_thread::yield();
    if (std::chrono::steady_clock::now() - start >= kBusyWaitLimit) return ready();
  }
  return true;
}

// How many output names ahead the worker fetches the name table's slot of.
constexpr std::size_t kPrefetchAhead = 8;

}  // namespace

ReaderThread::ReaderThread() {
  try {
    thread_ = std::thread([this] { wait_for_work(); });
  } catch (const std::system_error&) {
    // No thread to be had (a process or container thread limit): available() is false, and a
    // reader given this one tries a thread of its own, then reads inline (OnnxNodeReader).
  }
}

ReaderThread::~ReaderThread() {
  if (!thread_.joinable()) return;
  if (!given_) {
    state_.store(kCancel, std::memory_order_release);
    state_.notify_one();
  }
  thread_.join();
}

void ReaderThread::start(std::function<void()> work) {
  work_ = std::move(work);
  given_ = true;
  state_.store(kWork, std::memory_order_release);
  state_.notify_one();
}

void ReaderThread::join() {
  if (thread_.joinable()) thread_.join();
}

void ReaderThread::wait_for_work() {
  if (!busy_wait([this] { return state_.load(std::memory_order_acquire) != kIdle; })) {
    while (state_.load(std::memory_order_acquire) == kIdle)
      state_.wait(kIdle, std::memory_order_acquire);
  }
  if (state_.load(std::memory_order_acquire) == kWork) work_();
}

OnnxNodeReader::Batch::Batch(int capacity) : protos(static_cast<std::size_t>(capacity)) {
  views.reserve(static_cast<std::size_t>(capacity));
}

onnx::NodeProto& OnnxNodeReader::Batch::proto(int k) {
  onnx::NodeProto*& p = protos[static_cast<std::size_t>(k)];
  if (p == nullptr) p = google::protobuf::Arena::CreateMessage<onnx::NodeProto>(&arena);
  return *p;
}

OnnxNodeReader::OnnxNodeReader(const OnnxNodes& nodes, bool threaded,
                               std::vector<std::string_view> defined, ReaderThread* thread)
    : nodes_(nodes), defined_(std::move(defined)) {
  if (!threaded || !nodes.serialized() || nodes.size() < kThreadedMinNodes) {
    single_ = std::make_unique<Batch>(1);
    define_initial_values();
    return;
  }
  for (auto& batch : batches_)
    batch = std::make_unique<Batch>(kBatchNodes);
  if (thread == nullptr || !thread->available()) {
    own_thread_ = std::make_unique<ReaderThread>();
    thread = own_thread_.get();
  }
  if (!thread->available()) {
    // No thread to be had (a process or container thread limit): read on this thread instead;
    // the nodes, and so the import, are the same.
    for (auto& batch : batches_)
      batch.reset();
    single_ = std::make_unique<Batch>(1);
    define_initial_values();
    return;
  }
  worker_ = thread;
  worker_->start([this] { work(); });
}

OnnxNodeReader::~OnnxNodeReader() {
  if (worker_ == nullptr || !worker_->running()) return;
  stop_.store(true, std::memory_order_release);
  released_.fetch_add(kBatches, std::memory_order_release);  // wakes a worker waiting for room
  released_.notify_one();
  worker_->join();
}

void OnnxNodeReader::define_initial_values() {
  // Scanned names are views of the model's bytes, which outlive the reader: kept, not copied.
  const std::span<const std::byte> bytes = nodes_.bytes();
  values_.keep_in_place({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
  // About one value per node output besides these: room for them all without a rehash.
  values_.reserve(defined_.size() + static_cast<std::size_t>(nodes_.size()));
  for (const std::string_view name : defined_)
    values_.set(name, next_value_++);
}

void OnnxNodeReader::number_values(Batch& batch, std::size_t j, std::size_t inputs_begin,
                                   std::size_t outputs_begin) {
  // Inputs before outputs: an input sees the latest definition before its node.
  const OnnxNodeView& v = batch.views[j];
  for (std::size_t n = 0; n < v.inputs.size(); ++n) {
    const std::size_t k = inputs_begin + n;
    const ir::NodeId* value =
        v.inputs[n].empty() ? nullptr : values_.find(v.inputs[n], batch.input_hashes[k]);
    batch.input_values[k] = value != nullptr ? *value : kNoValue;
  }
  for (std::size_t n = 0; n < v.outputs.size(); ++n) {
    const std::size_t k = outputs_begin + n;
    if (v.outputs[n].empty()) {
      batch.output_values[k] = kNoValue;
      continue;
    }
    values_.set(v.outputs[n], batch.output_hashes[k], next_value_);
    batch.output_values[k] = next_value_++;
  }
}

void OnnxNodeReader::fill(Batch& batch, int first, int count) {
  // Where each node's inputs and outputs start in the batch's arrays; the spans are made once
  // the batch is complete, when the arrays no longer move.
  struct Starts {
    std::uint32_t inputs, outputs;
  };
  thread_local std::vector<Starts> starts;
  starts.clear();
  batch.views.clear();
  batch.inputs.clear();
  batch.outputs.clear();
  for (int k = 0; k < count; ++k) {
    const int i = first + k;
    Starts& at = starts.emplace_back(Starts{static_cast<std::uint32_t>(batch.inputs.size()),
                                            static_cast<std::uint32_t>(batch.outputs.size())});
    OnnxNodeView& view = batch.views.emplace_back();
    NodeNames names;
    const NodeScan scan = nodes_.scan(i, names, batch.inputs, batch.outputs);
    if (scan != NodeScan::unusual) {
      view.name = names.name;
      view.op_type = names.op_type;
      view.domain = names.domain;
      // A node of names only has no attributes: the empty message stands for its other fields.
      view.proto = scan == NodeScan::names_only ? &onnx::NodeProto::default_instance()
                                                : nodes_.at(i, batch.proto(k));
      continue;
    }
    // The parse decides; the names are views of the message's strings, which live as long as
    // the batch (or the parsed graph) does.
    batch.inputs.resize(at.inputs);
    batch.outputs.resize(at.outputs);
    const onnx::NodeProto* node = nodes_.at(i, batch.proto(k));
    view.proto = node;
    if (node == nullptr) continue;
    view.name = node->name();
    view.op_type = node->op_type();
    view.domain = node->domain();
    for (const std::string& in : node->input())
      batch.inputs.emplace_back(in);
    for (const std::string& out : node->output())
      batch.outputs.emplace_back(out);
  }
  // Hashes first, so that numbering a node can fetch the table slot of the output kPrefetchAhead
  // names on: in a large table nearly every slot a new name lands on is a cache miss, and these
  // then overlap instead of stalling one by one.
  batch.input_hashes.resize(batch.inputs.size());
  for (std::size_t n = 0; n < batch.inputs.size(); ++n)
    batch.input_hashes[n] = hash_name(batch.inputs[n]);
  batch.output_hashes.resize(batch.outputs.size());
  for (std::size_t n = 0; n < batch.outputs.size(); ++n)
    batch.output_hashes[n] = hash_name(batch.outputs[n]);
  for (std::size_t n = 0; n < std::min(kPrefetchAhead, batch.outputs.size()); ++n)
    values_.prefetch(batch.output_hashes[n]);
  batch.input_values.resize(batch.inputs.size());
  batch.output_values.resize(batch.outputs.size());
  const std::span<const std::string_view> inputs(batch.inputs);
  const std::span<const std::string_view> outputs(batch.outputs);
  const std::span<const std::uint32_t> input_values(batch.input_values);
  const std::span<const std::uint32_t> output_values(batch.output_values);
  for (std::size_t j = 0; j < starts.size(); ++j) {
    OnnxNodeView& v = batch.views[j];
    const std::size_t in_end = j + 1 < starts.size() ? starts[j + 1].inputs : inputs.size();
    const std::size_t out_end = j + 1 < starts.size() ? starts[j + 1].outputs : outputs.size();
    v.inputs = inputs.subspan(starts[j].inputs, in_end - starts[j].inputs);
    v.outputs = outputs.subspan(starts[j].outputs, out_end - starts[j].outputs);
    v.input_values = input_values.subspan(starts[j].inputs, v.inputs.size());
    v.output_values = output_values.subspan(starts[j].outputs, v.outputs.size());
    // The output slot kPrefetchAhead names on is fetched while this node is numbered.
    if (const std::size_t ahead = starts[j].outputs + kPrefetchAhead; ahead < outputs.size()) {
      values_.prefetch(batch.output_hashes[ahead]);
    }
    // The names of a corrupt node are never read: the import stops there.
    if (v.proto != nullptr) number_values(batch, j, starts[j].inputs, starts[j].outputs);
  }
}

void OnnxNodeReader::wait_above(const std::atomic<int>& counter, int value,
                                const std::atomic<bool>* stop) {
  const auto ready = [&] {
    return counter.load(std::memory_order_acquire) > value ||
           (stop != nullptr && stop->load(std::memory_order_acquire));
  };
  if (busy_wait(ready)) return;
  for (int seen = counter.load(std::memory_order_acquire); seen <= value;
       seen = counter.load(std::memory_order_acquire)) {
    if (stop != nullptr && stop->load(std::memory_order_acquire)) return;
    counter.wait(seen, std::memory_order_acquire);
  }
}

void OnnxNodeReader::work() {
#ifdef __linux__
  pthread_setname_np(pthread_self(), "nnplan-onnx-rd");  // shown by top and perf; 15 chars max
#endif
  try {
    read_ahead();
  } catch (...) {
    failure_ = std::current_exception();
    filled_.store(std::numeric_limits<int>::max(), std::memory_order_release);
    filled_.notify_one();
  }
}

void OnnxNodeReader::read_ahead() {
  define_initial_values();
  const int count = (nodes_.size() + kBatchNodes - 1) / kBatchNodes;
  for (int b = 0; b < count; ++b) {
    // Room for batch b once the reader has handed back batch b - kBatches. A worker that has run
    // a whole ring ahead waits for half of it to come back, so that it sleeps and is woken once
    // per half ring rather than once per batch.
    if (released_.load(std::memory_order_acquire) <= b - kBatches) {
      wait_above(released_, b - kBatches / 2 - 1, &stop_);
    }
    if (stop_.load(std::memory_order_acquire)) return;
    const int first = b * kBatchNodes;
    fill(*batches_[static_cast<std::size_t>(b % kBatches)], first,
         std::min(kBatchNodes, nodes_.size() - first));
    filled_.store(b + 1, std::memory_order_release);
    filled_.notify_one();
  }
}

std::uint32_t OnnxNodeReader::value_after_last_node(std::string_view name) {
  if (worker_ != nullptr) worker_->join();  // done with the table, or about to be
  if (failure_) std::rethrow_exception(failure_);
  const ir::NodeId* v = name.empty() ? nullptr : values_.find(name);
  return v != nullptr ? *v : kNoValue;
}

const OnnxNodeView* OnnxNodeReader::next(int i) {
  if (single_ != nullptr) {
    fill(*single_, i, 1);
    return single_->views[0].proto != nullptr ? &single_->views[0] : nullptr;
  }
  const int b = i / kBatchNodes;
  if (b != current_) {
    if (current_ >= 0) {
      released_.store(current_ + 1, std::memory_order_release);
      if ((current_ + 1) % (kBatches / 2) == 0) released_.notify_one();  // see read_ahead
    }
    current_ = b;
    wait_above(filled_, b, nullptr);
    if (failure_) std::rethrow_exception(failure_);
  }
  const Batch& batch = *batches_[static_cast<std::size_t>(b % kBatches)];
  const auto j = static_cast<std::size_t>(i - b * kBatchNodes);
  return batch.views[j].proto != nullptr ? &batch.views[j] : nullptr;
}

}  // namespace nnplan::format::detail
