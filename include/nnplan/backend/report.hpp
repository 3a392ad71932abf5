// Report lines for people (SPEC §9): the kernel line, its detail lines, the profile summary, the
// trusted-external boundary line, and the op-list plan report built from them. The spellings are
// part of nnplan's contract; golden tests pin them. Names that come from inputs (capsule, profile
// and evidence names, claim specs, ONNX node names, gate notes) are written through
// nnplan/text_escape.hpp, so none can add a line or a terminal escape sequence to a report.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/audit.hpp"
#include "nnplan/backend/capsule.hpp"
#include "nnplan/backend/planner.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::backend {

// `  <op>: <capsule> provider=<provider> trust=<trust> vjp=<vjp> numeric=[<numeric>]`
[[nodiscard]] std::string kernel_line(const KernelCapsule& capsule);
// `    <field>: <claim label>; <evidence label>` for shape, layout, value, vjp, then
// `    numerical: <numeric>`; each line ends with a newline.
[[nodiscard]] std::string detail_lines(const KernelCapsule& capsule);
// `profile=<name> device=<device> assurance=<policy label> vjp=<vjp>`
[[nodiscard]] std::string profile_summary(const BackendProfile& profile);
// `trusted external boundary: none`, or the distinct ops of trusted-external kernels in plan
// order, separated by ", ".
[[nodiscard]] std::string boundary_line(const ExecutionPlan& plan);
[[nodiscard]] std::string boundary_line(const ExecutionAudit& audit);
// Summary, boundary line, then each kernel line followed by its detail lines.
[[nodiscard]] std::string plan_report(const BackendProfile& profile, const ExecutionPlan& plan);

// `  group <i>: nodes <id,id,...> [<kind,kind,...>] op=<op> capsule=<capsule> grouping=<kind>`,
// then ` onnx=<name,name,...>` when `onnx_graph` is given and some node of the group has a source
// name: the distinct names in node order. Pass `onnx_graph` (the planned graph) only when it was
// imported from ONNX; names a torchlean.ir.v1 file gives its nodes are labels, not provenance.
[[nodiscard]] std::string group_line(const GraphLoweringPlan& plan, std::size_t group_index,
                                     const ir::Graph* onnx_graph = nullptr);

// The graph plan report of `nnplan plan`: summary, boundary line, one line per lowered group,
// the detailed audit (kernel and detail lines once per distinct capsule), coverage per provider
// and per trust level (groups and nodes), and the gate verdict with every failing obligation.
// `onnx_graph` as for group_line.
[[nodiscard]] std::string graph_report(const BackendProfile& profile,
                                       const GraphEvaluation& evaluation,
                                       const ir::Graph* onnx_graph = nullptr);

// graph_report's text handed to `sink` piece by piece, in order, each piece at most about
// kReportChunkBytes: for a caller writing a report of millions of lines to a file or a pipe,
// which then never holds it whole.
inline constexpr std::size_t kReportChunkBytes = std::size_t{64} << 10;
void write_graph_report(const BackendProfile& profile, const GraphEvaluation& evaluation,
                        const ir::Graph* onnx_graph,
                        const std::function<void(std::string_view)>& sink);

}  // namespace nnplan::backend
