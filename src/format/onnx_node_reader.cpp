// The read-ahead worker behind OnnxNodeReader (see the header for why).
#include "onnx_node_reader.hpp"

#include "name_table.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <system_error>

#ifdef __linux__
#include <pthread.h>
#endif

namespace nnplan::format::detail {
namespace {

// Busy-wait rounds before sleeping: Intel's optimization manual puts a pause at about 40 cycles
// before Skylake and 140 since, so some 30 to 110 µs at 2.6 GHz.
constexpr int kSpins = 1 << 11;

}  // namespace

OnnxNodeReader::Batch::Batch(int capacity) {
  protos.reserve(static_cast<std::size_t>(capacity));
  for (int i = 0; i < capacity; ++i)
    protos.push_back(google::protobuf::Arena::CreateMessage<onnx::NodeProto>(&arena));
  views.reserve(static_cast<std::size_t>(capacity));
}

OnnxNodeReader::OnnxNodeReader(const OnnxNodes& nodes, bool threaded) : nodes_(nodes) {
  if (!threaded || !nodes.serialized() || nodes.size() < kThreadedMinNodes) {
    single_ = std::make_unique<Batch>(1);
    return;
  }
  for (auto& batch : batches_)
    batch = std::make_unique<Batch>(kBatchNodes);
  try {
    worker_ = std::thread([this] { work(); });
  } catch (const std::system_error&) {
    // No thread to be had (a process or container thread limit): read on this thread instead;
    // the nodes, and so the import, are the same.
    for (auto& batch : batches_)
      batch.reset();
    single_ = std::make_unique<Batch>(1);
  }
}

OnnxNodeReader::~OnnxNodeReader() {
  if (!worker_.joinable()) return;
  stop_.store(true, std::memory_order_release);
  released_.fetch_add(kBatches, std::memory_order_release);  // wakes a worker waiting for room
  released_.notify_one();
  worker_.join();
}

void OnnxNodeReader::fill(Batch& batch, int first, int count) const {
  // Names are appended to `chars` as (offset, length) and turned into views once the batch is
  // complete, when `chars` no longer moves.
  struct Slices {
    std::uint32_t name[2], op_type[2], domain[2];
    std::uint32_t inputs_begin, inputs_count, outputs_begin, outputs_count;
  };
  thread_local std::vector<Slices> slices;
  thread_local std::vector<std::uint32_t> name_slices;  // offset, length pairs
  slices.clear();
  name_slices.clear();
  batch.chars.clear();
  batch.views.clear();
  const auto put = [&](const std::string& s, std::uint32_t* out) {
    out[0] = static_cast<std::uint32_t>(batch.chars.size());
    out[1] = static_cast<std::uint32_t>(s.size());
    batch.chars.append(s);
  };
  const auto put_name = [&](const std::string& s) {
    name_slices.push_back(static_cast<std::uint32_t>(batch.chars.size()));
    name_slices.push_back(static_cast<std::uint32_t>(s.size()));
    batch.chars.append(s);
  };
  for (int k = 0; k < count; ++k) {
    const auto j = static_cast<std::size_t>(k);
    const onnx::NodeProto* node = nodes_.at(first + k, *batch.protos[j]);
    Slices s{};
    if (node != nullptr) {
      put(node->name(), s.name);
      put(node->op_type(), s.op_type);
      put(node->domain(), s.domain);
      s.inputs_begin = static_cast<std::uint32_t>(name_slices.size() / 2);
      for (const std::string& in : node->input())
        put_name(in);
      s.outputs_begin = static_cast<std::uint32_t>(name_slices.size() / 2);
      for (const std::string& out : node->output())
        put_name(out);
      s.inputs_count = s.outputs_begin - s.inputs_begin;
      s.outputs_count = static_cast<std::uint32_t>(name_slices.size() / 2) - s.outputs_begin;
    }
    slices.push_back(s);
    batch.views.push_back(OnnxNodeView{.proto = node});
  }
  const char* chars = batch.chars.data();
  batch.names.resize(name_slices.size() / 2);
  batch.hashes.resize(batch.names.size());
  for (std::size_t n = 0; n < batch.names.size(); ++n) {
    batch.names[n] = std::string_view(chars + name_slices[2 * n], name_slices[2 * n + 1]);
    batch.hashes[n] = hash_name(batch.names[n]);
  }
  const std::span<const std::string_view> names(batch.names);
  const std::span<const std::uint64_t> hashes(batch.hashes);
  for (std::size_t j = 0; j < slices.size(); ++j) {
    const Slices& s = slices[j];
    OnnxNodeView& v = batch.views[j];
    v.name = std::string_view(chars + s.name[0], s.name[1]);
    v.op_type = std::string_view(chars + s.op_type[0], s.op_type[1]);
    v.domain = std::string_view(chars + s.domain[0], s.domain[1]);
    v.inputs = names.subspan(s.inputs_begin, s.inputs_count);
    v.outputs = names.subspan(s.outputs_begin, s.outputs_count);
    v.input_hashes = hashes.subspan(s.inputs_begin, s.inputs_count);
    v.output_hashes = hashes.subspan(s.outputs_begin, s.outputs_count);
  }
}

void OnnxNodeReader::wait_above(const std::atomic<int>& counter, int value,
                                const std::atomic<bool>* stop) {
  // Spins first: the other side is usually microseconds away, and a futex sleep and wake-up
  // costs an inter-processor interrupt each, which in a virtual machine is a costly exit.
  for (int spin = 0; spin < kSpins; ++spin) {
    if (counter.load(std::memory_order_acquire) > value) return;
    if (stop != nullptr && stop->load(std::memory_order_acquire)) return;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
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
