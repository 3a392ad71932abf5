// The trace of a run as Chrome Trace Event JSON (SPEC §11 "Trace"), which Perfetto and
// chrome://tracing load: `traceEvents` holds one complete event (`"ph": "X"`, microseconds) per
// command run, whose args name its capsule, handler symbol, provider, device, group, node ids and
// node names; `otherData` names the plan's graph digest and profile, so the trace, the plan
// artifact and the audit refer to the same nodes. docs/formats.md lists every field.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nnplan/format/onnx_import.hpp"
#include "nnplan/runtime/command_buffer.hpp"
#include "nnplan/runtime/executor.hpp"

namespace nnplan::format {

inline constexpr std::string_view kTraceFormat = "nnplan.trace.v1";

struct TraceMetadata {
  std::string graph_path;
  std::optional<std::string> graph_digest;  // "sha256:..." of the graph file
  // The input dimensions the model leaves dynamic, with the sizes this buffer was compiled for.
  std::vector<SymbolicDim> symbolic_dims;
  // A session's cache of compiled buffers, one per set of input shapes, when the run came
  // through one (nnplan.Session): whether this run's shapes were planned and compiled for it,
  // and how many buffers the cache holds after it, of at most `limit`.
  struct ShapeCache {
    bool compiled_for_this_run = false;
    std::size_t entries = 0;
    std::size_t limit = 0;
  };
  std::optional<ShapeCache> shape_cache;
};

[[nodiscard]] std::string chrome_trace_json(const runtime::CommandBuffer& buffer,
                                            const runtime::ExecutionTrace& trace,
                                            const TraceMetadata& metadata);

}  // namespace nnplan::format
