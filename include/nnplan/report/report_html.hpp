// The auditor's report (`nnplan report`): one self-contained HTML page for a graph planned under
// a profile. It shows the profile and the gate's verdict; the trusted-external boundary, loudly;
// coverage per provider and per trust level; every gate failure with the groups and node ids it
// names and its obligations; one expandable entry (<details>) per lowered group, colored by
// provider with a trust badge, holding its nodes (with ONNX node names for an ONNX model), the
// four contracts with their evidence, disposition and provenance, and the numerical policy; and
// the placement picture, an SVG rendered from plan_dot by Graphviz, or why there is none. A model
// with a node that has no admissible capsule gets a page naming that node and every candidate's
// reasons. The page loads nothing (no script, no external stylesheet, font or image: one inline
// <style>) and reads the same without JavaScript. Every name that comes from an input is escaped
// for HTML after its control characters are escaped (nnplan/text_escape.hpp), so no input can add
// markup to the page. The output is deterministic: same inputs, same bytes. Running Graphviz is
// the caller's business (the command line does it); this file only embeds what it rendered.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "nnplan/backend/acceptance.hpp"
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

// The page for `graph` that could not be planned under `profile`: the verdict, the node that has
// no admissible capsule (error.position) and `error` in full, each candidate with its reasons.
// options.picture is not used: there is no plan to draw.
[[nodiscard]] std::string unplanned_report_html(const backend::BackendProfile& profile,
                                                const ir::Graph& graph, const Error& error,
                                                const ReportHtmlOptions& options);

}  // namespace nnplan::report
