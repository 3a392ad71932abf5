// The auditor's report (`nnplan report`): one self-contained HTML page for a graph planned under
// a profile. It shows the caveats first, then the profile and the gate's verdict; the
// trusted-external boundary, loudly; coverage per provider and per trust level; every gate failure
// with the groups and node ids it names and its obligations; one expandable entry (<details>) per
// lowered group, colored by provider with a trust badge, holding its nodes (with ONNX node names
// for an ONNX model), the four contracts with their evidence, disposition and provenance, the
// layout the group runs in beside the layout its contract claims, and the numerical policy; and
// the placement picture, an SVG rendered from plan_dot by Graphviz, or why there is none. A graph
// with nodes that have no admissible capsule gets a page naming each of them with every
// candidate's reasons, and the capsule each other node would run on; a model the importer does
// not support gets a page listing every unsupported node. The page loads nothing (no script, no
// external stylesheet, font or image: one inline <style>) and reads the same without JavaScript.
// Every name that comes from an input is escaped for HTML after its control characters are
// escaped (nnplan/text_escape.hpp), so no input can add markup to the page. The output is
// deterministic: same inputs, same bytes. Running Graphviz and compiling the plan for its layouts
// are the caller's business (the command line does both); this file only shows what they gave.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nnplan/backend/acceptance.hpp"
#include "nnplan/backend/lowering.hpp"
#include "nnplan/backend/profile.hpp"
#include "nnplan/error.hpp"
#include "nnplan/ir/graph.hpp"

namespace nnplan::report {

// What the page knows about the placement picture.
struct PlacementPicture {
  // The output of `dot -Tsvg` for plan_dot's document; empty when there is none.
  std::string svg;
  // Why there is none, shown in its place ("graphviz (dot) was not found on PATH").
  std::string missing_reason;

  bool operator==(const PlacementPicture&) const = default;
};

// The most nodes a report has Graphviz draw (a 5000-node chain takes dot about 15 s here:
// docs/benchmarks.md); past it the page says why in the picture's place.
inline constexpr std::size_t kPictureNodeLimit = 5000;

// How the runtime lays out one lowered group's values (backend/lowering.hpp).
using backend::GroupLayout;

// The layouts the plan runs in (the command buffer's layout plan): one entry per lowered group,
// in group order, or none and why ("the gate rejects the plan, so it is not compiled").
struct RunLayouts {
  std::vector<GroupLayout> groups;
  std::string missing_reason;

  bool operator==(const RunLayouts&) const = default;
};

struct ReportHtmlOptions {
  // The model file as the user named it, shown in the title.
  std::string model;
  // Whether node names are ONNX node names (set it only for a graph imported from ONNX); they are
  // shown beside node ids as `onnx=<name>`, else as labels.
  bool onnx_names = false;
  PlacementPicture picture;
  // Every group's details open (`nnplan report --expanded`): a page to print or read whole, which
  // needs no click and no JavaScript.
  bool expanded = false;
  // The layouts the plan runs in. Without them (no groups, or a count that is not the plan's) the
  // page says that the layout each group runs in was not computed, and why when a reason is
  // given, beside each layout contract.
  RunLayouts layouts;
  // The model's open input dimensions and the sizes the plan was made for, one per entry as a
  // person reads it (`'batch' (input 'x' axis 0) = 1`): a caveat when there are any.
  std::vector<std::string> open_dims;

  bool operator==(const ReportHtmlOptions&) const = default;
};

// `text` as HTML text or a double- or single-quoted attribute value: escape_controls first, then
// `&`, `<`, `>`, `"` and `'` as character references.
[[nodiscard]] std::string html_escape(std::string_view text);

// The <svg> element of a `dot -Tsvg` document, ready to place inside HTML: what precedes `<svg`
// (XML declaration, doctype, comments) and follows the last `</svg>` dropped, and the root's
// namespace attributes removed (HTML does not need them, and the page names no URL). Nullopt when
// `document` holds no <svg> element, or holds markup Graphviz does not write for plan_dot's
// documents and a page must not carry: a script, a style sheet, a foreign object, an image, a
// `use`, an iframe or a link (`href`).
[[nodiscard]] std::optional<std::string> inline_svg(std::string_view document);

// The page for `graph` planned as `evaluation` under `profile`. When options.picture.svg is not
// accepted by inline_svg, the page says so in the picture's place.
[[nodiscard]] std::string report_html(const backend::BackendProfile& profile,
                                      const ir::Graph& graph,
                                      const backend::GraphEvaluation& evaluation,
                                      const ReportHtmlOptions& options);

// The page for `graph` that could not be planned under `profile` (plan_model's `error`): every
// node whose op has no admissible capsule, with each candidate capsule and all its rejection
// reasons (the planner's explanation, backend::explain_no_admissible, under the profile's declared
// availability), and for every other node the capsule planning chooses for its op, with its
// provider and trust, or that it has no runtime work; the caveats of those capsules first. An
// error that names no such node (a profile without a registry) is shown in full instead.
// options.picture and options.layouts are not used: there is no plan to draw or compile.
[[nodiscard]] std::string unplanned_report_html(const backend::BackendProfile& profile,
                                                const ir::Graph& graph, const Error& error,
                                                const ReportHtmlOptions& options);

// The page for a model the importer does not support (`error`, of kind unsupported, as the ONNX
// importer writes it): every unsupported node it lists (`node 12 'Conv_3' (Conv): <why>`) as a
// row of its index, name, op type and why, its other notes (more nodes, inputs, the supported
// operators) as they are, and that no other node has a placement because the import made no
// graph. options.picture and options.layouts are not used.
[[nodiscard]] std::string unsupported_model_html(const backend::BackendProfile& profile,
                                                 const Error& error,
                                                 const ReportHtmlOptions& options);

}  // namespace nnplan::report
