// The rules of ONNX's checker (onnx/checker.cc) that the importer enforces on the model and on
// each node before importing it, each refused as invalid input naming what breaks it and what
// would fix it (docs/onnx-support.md lists them with onnx.checker's own behaviour):
// - a value has exactly one producer: no node output repeats an earlier node's output, a graph
//   input or an initializer (onnx.checker: "Graph must be in single static assignment (SSA)
//   form"); otherwise the last producer would silently win while the others were still planned;
// - a node names each attribute once (onnx.checker: "Attribute 'x' appeared multiple times");
// - opset_import names each domain once, "" and "ai.onnx" being the same domain (onnx.checker
//   keeps the last entry and tells "" from "ai.onnx"; the importer would take one version
//   silently);
// - no model-local function is in the default domain, where it would shadow or extend the
//   standard operators (onnx.checker does not look; the importer runs no model-local function and
//   would ignore it).
// The tensor rule (one data field per tensor) lives with the decoding, in tensor_decoding.cpp.
#include <algorithm>
#include <vector>

#include "import_context.hpp"

namespace nnplan::format::onnx_import {

void ImportContext::check_opsets() const {
  const auto& opsets = model_.opset_import();
  // Indices sorted by domain ("" and "ai.onnx" alike): a repeated domain sits next to itself.
  const auto domain_of = [&](int k) {
    const std::string& d = opsets[k].domain();
    return is_default_domain(d) ? std::string_view() : std::string_view(d);
  };
  std::vector<int> order(static_cast<std::size_t>(opsets.size()));
  for (int k = 0; k < opsets.size(); ++k)
    order[static_cast<std::size_t>(k)] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return domain_of(a) < domain_of(b); });
  for (std::size_t j = 1; j < order.size(); ++j) {
    const int first = order[j - 1];
    const int again = order[j];
    if (domain_of(first) != domain_of(again)) continue;
    const auto entry = [&](int k) {
      return quoted_name(opsets[k].domain()) + " version " + str(opsets[k].version()) + " (entry " +
             str(k) + ")";
    };
    const std::string which = domain_of(first).empty() ? std::string("the default ONNX domain")
                                                       : "domain " + quoted_name(domain_of(first));
    fail_model("opset_import lists " + which + " twice: " + entry(first) + " and " + entry(again) +
               ("; list it once" + std::string(domain_of(first).empty() ? " ('' and 'ai.onnx' name "
                                                                          "the same domain)"
                                                                        : "")));
  }
}

void ImportContext::check_functions() const {
  for (int k = 0; k < model_.functions_size(); ++k) {
    const onnx::FunctionProto& f = model_.functions(k);
    if (!is_default_domain(f.domain())) continue;
    fail_model("model-local function " + quoted_name(f.name()) + " (function " + str(k) +
               ") is in the default ONNX domain (" + quoted_name(f.domain()) +
               "), which belongs to the standard operators; nnplan runs no model-local "
               "functions and will not let one shadow or extend them: give it a domain of its "
               "own");
  }
}

void ImportContext::check_node(int index) {
  const auto& attrs = node_->attribute();
  if (attrs.size() > 1) {
    std::vector<std::string_view> names;
    names.reserve(static_cast<std::size_t>(attrs.size()));
    for (const auto& a : attrs)
      names.emplace_back(a.name());
    std::sort(names.begin(), names.end());
    const auto repeated = std::adjacent_find(names.begin(), names.end());
    if (repeated != names.end()) {
      const auto times = std::count(names.begin(), names.end(), *repeated);
      fail("attribute " + quoted_name(*repeated) + " appears " + str(std::int64_t{times}) +
           " times; an attribute may appear once per node: remove the repeats");
    }
  }
  for (const std::string& out : node_->output()) {
    if (out.empty()) continue;  // an absent optional output
    const auto [it, fresh] = producers_.emplace(out, index);
    if (!fresh) {
      const int earlier = it->second;
      const onnx::NodeProto& other = other_node(earlier);
      const std::string other_name =
          other.name().empty() ? other.op_type() + "_" + str(earlier) : other.name();
      fail("output " + quoted_name(out) +
           (earlier == index
                ? " is listed twice among its outputs"
                : " is already the output of graph node " + str(earlier) + " (" +
                      quoted_name(other_name) + ", " + capped_name(other.op_type()) + ")") +
           "; every value has exactly one producer in ONNX (SSA form): rename one of them");
    }
    const char* taken = graph_inputs_.contains(out) ? "a graph input"
                        : consts_.contains(out)     ? "an initializer"
                                                    : nullptr;
    if (taken != nullptr) {
      fail("output " + quoted_name(out) + " has the name of " + taken +
           "; every value has exactly one producer in ONNX (SSA form): rename the output");
    }
  }
}

}  // namespace nnplan::format::onnx_import
