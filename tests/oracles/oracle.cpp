#include "oracle.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

namespace nnplan::oracles {
namespace {

// Enough digits to tell two float32 values apart.
std::string number(double v) {
  std::ostringstream out;
  out.precision(9);
  out << v;
  return out.str();
}

std::string short_number(double v) {
  std::ostringstream out;
  out.precision(3);
  out << v;
  return out.str();
}

// `[1,0,3]`: the row-major index of element `flat` of `shape`.
std::string index_of(const ir::Shape& shape, std::size_t flat) {
  std::vector<std::size_t> index(shape.rank());
  for (std::size_t a = shape.rank(); a-- > 0;) {
    const auto extent = static_cast<std::size_t>(shape.dims[a]);
    index[a] = extent == 0 ? 0 : flat % extent;
    flat = extent == 0 ? 0 : flat / extent;
  }
  std::string out = "[";
  for (std::size_t a = 0; a < index.size(); ++a) {
    out += (a == 0 ? "" : ",") + std::to_string(index[a]);
  }
  return out + "]";
}

std::string node_ids_text(std::span<const ir::NodeId> ids) {
  std::string out = "[";
  for (std::size_t i = 0; i < ids.size(); ++i)
    out += (i == 0 ? "" : ",") + std::to_string(ids[i]);
  return out + "]";
}

Expected<std::shared_ptr<const backend::PlannedModel>> plan(const backend::BackendProfile& profile,
                                                            const OracleCase& c) {
  auto model = backend::plan_model(profile, c.graph, c.weights);
  if (!model) {
    Error e = std::move(model.error());
    e.message = "planning under " + profile.name + ": " + e.message;
    return std::unexpected(std::move(e));
  }
  if (!model->accepted()) {
    return std::unexpected(make_error(ErrorKind::rejected_by_policy,
                                      "the gate of " + profile.name + " rejected the plan"));
  }
  return std::make_shared<const backend::PlannedModel>(std::move(*model));
}

Expected<std::vector<runtime::Tensor>> run(std::shared_ptr<const backend::PlannedModel> model,
                                           const runtime::HandlerRegistry& handlers,
                                           const OracleCase& c) {
  const std::string profile = model->profile().name;
  auto buffer = runtime::compile(std::move(model), handlers);
  if (!buffer) {
    Error e = std::move(buffer.error());
    e.message = "compiling under " + profile + ": " + e.message;
    return std::unexpected(std::move(e));
  }
  runtime::Executor exec(std::move(*buffer));
  auto outputs = exec.run(c.inputs);
  if (!outputs) {
    Error e = std::move(outputs.error());
    e.message = "running under " + profile + ": " + e.message;
    return std::unexpected(std::move(e));
  }
  return outputs;
}

}  // namespace

std::string describe(const Tolerance& t) {
  return "abs " + short_number(t.abs) + ", rel " + short_number(t.rel) + ", norm " +
         short_number(t.norm) + " (of max |reference|)";
}

std::uint32_t Draw::between(std::uint32_t lo, std::uint32_t hi) {
  return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng_);
}

bool Draw::chance(double p) {
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p;
}

float Draw::value(const Values& v) {
  if (v.zeros > 0 && chance(v.zeros)) return 0.0F;
  return std::uniform_real_distribution<float>(v.lo, v.hi)(rng_);
}

std::vector<float> Draw::values(std::size_t count, const Values& v) {
  std::vector<float> out(count);
  for (float& x : out)
    x = value(v);
  return out;
}

Values Draw::signed_values() {
  const float m = pick({1.0F, 1.0F, 4.0F, 32.0F});
  return {.lo = -m, .hi = m, .zeros = 0.1};
}

ir::Shape Draw::shape(std::uint32_t min_rank, std::uint32_t max_rank, std::uint32_t max_dim,
                      std::size_t max_elements) {
  const std::uint32_t rank = between(min_rank, max_rank);
  ir::Shape s;
  std::size_t count = 1;
  for (std::uint32_t a = 0; a < rank; ++a) {
    const auto room = static_cast<std::uint32_t>(std::max<std::size_t>(1, max_elements / count));
    const std::uint32_t d = between(1, std::min(max_dim, room));
    s.dims.push_back(d);
    count *= d;
  }
  return s;
}

ir::NodeId CaseBuilder::input(const ir::Shape& shape, const Values& values) {
  const std::string name = "x" + std::to_string(inputs_.size());
  auto id = graph_.add(ir::Node{.kind = ir::OpKind::input, .shape = shape, .source_name = name});
  if (!id) {
    if (!error_) error_ = id.error();
    return 0;
  }
  runtime::Tensor t = runtime::zeros(shape);
  t.floats() = draw_.values(t.floats().size(), values);
  inputs_.push_back({name, std::move(t)});
  note(name + " " + ir::to_string(shape) + " in [" + short_number(values.lo) + "," +
       short_number(values.hi) + ")");
  return *id;
}

ir::NodeId CaseBuilder::add(ir::OpKind kind, std::vector<ir::NodeId> parents, ir::OpParams params,
                            ir::Shape declared) {
  ir::Parents ps;
  for (ir::NodeId p : parents)
    ps.push_back(p);
  auto id = graph_.add(ir::Node{.kind = kind,
                                .parents = std::move(ps),
                                .shape = std::move(declared),
                                .params = std::move(params)});
  if (!id) {
    if (!error_) error_ = id.error();
    return 0;
  }
  return *id;
}

ir::NodeId CaseBuilder::target(ir::OpKind kind, std::vector<ir::NodeId> parents,
                               ir::OpParams params, ir::Shape declared) {
  const ir::NodeId id = add(kind, std::move(parents), std::move(params), std::move(declared));
  targets_.push_back(id);
  return id;
}

ir::NodeId CaseBuilder::constant(const ir::Shape& shape, float value) {
  const ir::NodeId id = add(ir::OpKind::const_, {}, ir::ConstParams{.value_shape = shape});
  weight(id, "value", shape, std::vector<float>(runtime::element_count_of(shape), value));
  return id;
}

void CaseBuilder::weight(ir::NodeId node, std::string_view name, const ir::Shape& shape,
                         const Values& values) {
  weight(node, name, shape, draw_.values(runtime::element_count_of(shape), values));
}

void CaseBuilder::weight(ir::NodeId node, std::string_view name, const ir::Shape& shape,
                         std::vector<float> data) {
  weights_.tensors[{node, std::string(name)}] = ir::WeightTensor::adopt(shape, std::move(data));
}

void CaseBuilder::attribute(ir::NodeId node, std::string_view name, double value) {
  weights_.attributes[{node, std::string(name)}] = value;
}

void CaseBuilder::note(std::string_view text) {
  if (!description_.empty()) description_ += "; ";
  description_ += text;
}

ir::Shape CaseBuilder::shape_of(ir::NodeId node) const {
  return node < graph_.graph().nodes.size() ? graph_.graph().nodes[node].shape : ir::Shape{};
}

std::vector<ir::NodeId> CaseBuilder::parents_of(ir::NodeId node) const {
  if (node >= graph_.graph().nodes.size()) return {};
  const ir::Parents& parents = graph_.graph().nodes[node].parents;
  return {parents.begin(), parents.end()};
}

Expected<OracleCase> CaseBuilder::finish(std::vector<ir::NodeId> outputs) && {
  if (error_) {
    Error e = std::move(*error_);
    e.message = "the oracle drew an invalid graph: " + e.message;
    return std::unexpected(std::move(e));
  }
  const std::size_t count = graph_.graph().nodes.size();
  if (count == 0) return std::unexpected(make_error(ErrorKind::internal, "the case is empty"));
  if (outputs.empty()) outputs.push_back(static_cast<ir::NodeId>(count - 1));
  auto checked = std::move(graph_).finish(0, std::move(outputs));
  if (!checked) {
    Error e = std::move(checked.error());
    e.message = "the oracle drew an invalid graph: " + e.message;
    return std::unexpected(std::move(e));
  }
  return OracleCase{.graph = std::make_shared<const ir::CheckedGraph>(std::move(*checked)),
                    .weights = std::make_shared<const ir::WeightStore>(std::move(weights_)),
                    .inputs = std::move(inputs_),
                    .targets = std::move(targets_),
                    .description = std::move(description_)};
}

const Oracle* find_oracle(std::string_view name) {
  for (const Oracle& o : registered_oracles()) {
    if (o.name() == name) return &o;
  }
  return nullptr;
}

std::vector<std::string> registration_problems(std::span<const Oracle> oracles,
                                               const backend::BackendProfile& profile) {
  std::vector<std::string> problems;
  const backend::Registry& registry = *profile.registry;
  for (const Oracle& o : oracles) {
    const std::string name = o.name();
    const auto capsules = registry.capsules();
    const auto capsule = std::ranges::find(capsules, o.capsule, &backend::KernelCapsule::name);
    if (capsule == capsules.end()) {
      problems.push_back("row " + name + " tests capsule " + std::string(o.capsule) +
                         ", which profile " + profile.name + " does not have");
    } else if (capsule->value.evidence.kind != backend::EvidenceKind::fuzz_oracle ||
               capsule->value.evidence.name != name) {
      problems.push_back("capsule " + capsule->name + " does not cite " + name +
                         " as its value evidence");
    }
    if (std::ranges::count(oracles, o.capsule, &Oracle::capsule) > 1 &&
        &o == &*std::ranges::find(oracles, o.capsule, &Oracle::capsule)) {
      problems.push_back("capsule " + std::string(o.capsule) + " has more than one row");
    }
  }
  for (const backend::KernelCapsule& c : registry.capsules()) {
    const backend::Evidence& e = c.value.evidence;
    if (c.provider == backend::Provider::reference) continue;
    if (e.kind != backend::EvidenceKind::fuzz_oracle) continue;
    if (std::ranges::find(oracles, e.name, &Oracle::name) == oracles.end()) {
      problems.push_back("capsule " + c.name + " cites fuzz oracle " + e.name +
                         ", which no row of the conformance table is");
    }
  }
  return problems;
}

Comparison compare(std::span<const runtime::Tensor> got, std::span<const runtime::Tensor> want,
                   const Tolerance& tolerance, SpecialValues special) {
  Comparison worst;
  if (got.size() != want.size()) {
    worst.passed = false;
    worst.problem =
        std::to_string(got.size()) + " outputs, the reference has " + std::to_string(want.size());
    return worst;
  }
  for (std::size_t k = 0; k < want.size(); ++k) {
    const runtime::Tensor& g = got[k];
    const runtime::Tensor& w = want[k];
    if (g.shape != w.shape || g.floats().size() != w.floats().size()) {
      worst.passed = false;
      worst.output = k;
      worst.problem = "output " + std::to_string(k) + " has shape " + ir::to_string(g.shape) +
                      ", the reference's is " + ir::to_string(w.shape);
      return worst;
    }
    double scale = 0;
    for (float v : w.floats()) {
      if (std::isfinite(v)) scale = std::max(scale, std::fabs(static_cast<double>(v)));
    }
    for (std::size_t i = 0; i < w.floats().size(); ++i) {
      const double a = g.floats()[i];
      const double b = w.floats()[i];
      if ((special == SpecialValues::may_lose_special && !std::isfinite(b)) ||
          (special == SpecialValues::may_make_nan && (std::isnan(a) || std::isnan(b)))) {
        continue;
      }
      double error = 0;
      double allowed = 0;
      double share = 0;
      if (!std::isfinite(a) || !std::isfinite(b)) {
        const bool same = (std::isnan(a) && std::isnan(b)) || a == b;
        error = same ? 0 : std::numeric_limits<double>::infinity();
        share = same ? 0 : std::numeric_limits<double>::infinity();
      } else {
        error = std::fabs(a - b);
        allowed = tolerance.abs + tolerance.rel * std::fabs(b) + tolerance.norm * scale;
        share = error == 0     ? 0
                : allowed == 0 ? std::numeric_limits<double>::infinity()
                               : error / allowed;
      }
      if (share > worst.share || (k == 0 && i == 0)) {
        worst.output = k;
        worst.element = i;
        worst.got = a;
        worst.want = b;
        worst.error = error;
        worst.allowed = allowed;
        worst.share = share;
      }
    }
  }
  worst.passed = worst.share <= 1.0;
  return worst;
}

Expected<void> check_choice(const backend::PlannedModel& model, std::string_view capsule,
                            std::span<const ir::NodeId> targets) {
  const backend::GraphLoweringPlan& lowering = model.lowering();
  const backend::Registry& registry = *lowering.registry;
  const std::string profile = model.profile().name;
  const auto fail = [&](const std::string& what) -> Expected<void> {
    return std::unexpected(make_error(
        ErrorKind::rejected_by_policy,
        "the plan under " + profile + " " + what + "; the oracle would compare other code"));
  };
  std::optional<backend::CapsuleId> wanted;
  for (backend::CapsuleId id = 0; id < registry.size(); ++id) {
    if (registry.capsule(id).name == capsule) wanted = id;
  }
  if (!wanted) return fail("has no capsule " + std::string(capsule) + " in its registry");
  if (targets.empty()) return fail("was given no node to run " + std::string(capsule));
  const auto group_text = [&](const backend::LoweredKernelGroup& g) {
    return "group " + node_ids_text(lowering.group_node_ids(g)) + " (" +
           std::string(to_string(g.grouping)) + ", " + registry.capsule(g.capsule).name + ")";
  };

  if (!registry.capsule(*wanted).pattern.empty()) {
    std::size_t count = 0;
    bool exact = false;
    std::string groups;
    for (const backend::LoweredKernelGroup& g : lowering.groups) {
      groups += (groups.empty() ? "" : ", ") + group_text(g);
      if (g.grouping != backend::GroupingKind::fused) continue;
      if (registry.capsule(g.capsule).name != capsule) continue;
      ++count;
      const std::vector<ir::NodeId> ids = lowering.group_node_ids(g);
      exact = std::ranges::equal(ids, targets);
    }
    if (count == 1 && exact) return {};
    return fail("has " + std::to_string(count) + " fused group(s) naming " + std::string(capsule) +
                ", wanted one over nodes " + node_ids_text(targets) + "; its groups: " + groups);
  }
  for (ir::NodeId t : targets) {
    const ir::Node& node = model.graph().nodes[t];
    bool found = false;
    for (const backend::LoweredKernelGroup& g : lowering.groups) {
      for (const backend::PlannedNodeKernel& k : lowering.group_nodes(g)) {
        if (k.node_id != t) continue;
        found = true;
        if (g.grouping == backend::GroupingKind::fused) {
          return fail("runs " + ir::describe(node) + " inside fused " + group_text(g) +
                      ", not alone under " + std::string(capsule));
        }
        if (registry.capsule(k.capsule).name != capsule) {
          return fail("runs " + ir::describe(node) + " with capsule " +
                      registry.capsule(k.capsule).name + ", not " + std::string(capsule));
        }
      }
    }
    if (!found) return fail("plans no kernel for " + ir::describe(node));
  }
  return {};
}

// About one input and weight element in sixteen becomes NaN, +inf, -inf or -0, drawn from a
// generator of its own so that the rest of the case is what the plain draw makes; noted.
static void plant_special_values(OracleCase& c, std::uint64_t seed, bool in_weights) {
  Draw draw(seed ^ 0x5eed5eed5eed5eedULL);
  constexpr float kSpecial[] = {std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::infinity(),
                                -std::numeric_limits<float>::infinity(), -0.0F};
  std::size_t planted = 0;
  for (runtime::NamedTensor& input : c.inputs) {
    for (float& v : input.tensor.floats()) {
      if (!draw.chance(1.0 / 16)) continue;
      v = kSpecial[draw.between(0, 3)];
      ++planted;
    }
  }
  std::size_t weights_planted = 0;
  if (in_weights && c.weights != nullptr) {
    auto weights = std::make_shared<ir::WeightStore>(*c.weights);
    for (auto& [key, tensor] : weights->tensors) {
      const std::span<const float> values = tensor.floats();
      if (values.empty()) continue;
      std::vector<float> changed(values.begin(), values.end());
      for (float& v : changed) {
        if (!draw.chance(1.0 / 16)) continue;
        v = kSpecial[draw.between(0, 3)];
        ++weights_planted;
      }
      tensor = ir::WeightTensor::adopt(tensor.shape(), std::move(changed));
    }
    c.weights = std::move(weights);
  }
  c.description += "; NaN, +inf, -inf or -0 planted in " + std::to_string(planted) + " input and " +
                   std::to_string(weights_planted) + " weight elements";
}

CaseResult run_case(const Oracle& oracle, std::uint64_t seed, const RunSetup& setup) {
  const std::string head = oracle.name() + " case seed " + std::to_string(seed);
  const std::string reproduce = "  reproduce: nnplan_oracles " + oracle.name() + " --seed " +
                                std::to_string(seed) + " --cases 1\n";
  Draw draw(seed);
  CaseBuilder builder(draw);
  oracle.build(builder);
  auto drawn = std::move(builder).finish();
  if (!drawn) {
    return {.passed = false,
            .report = head + ": FAILED: " + drawn.error().message + "\n" + reproduce};
  }
  OracleCase& c = *drawn;
  if (setup.special_values) plant_special_values(c, seed, oracle.special_weights);
  const std::string context =
      "  case: " + c.description + "\n  tolerance: " + describe(oracle.tolerance) + "\n";
  const auto failed = [&](const std::string& why) {
    return CaseResult{.passed = false,
                      .report = head + ": FAILED: " + why + "\n" + context + reproduce};
  };

  auto fast = plan(setup.under_test, c);
  if (!fast) return failed(fast.error().message);
  if (setup.check_choice) {
    if (auto chosen = check_choice(**fast, oracle.capsule, c.targets); !chosen) {
      return failed(chosen.error().message);
    }
  }
  auto reference = plan(setup.reference, c);
  if (!reference) return failed(reference.error().message);
  auto got = run(*fast, *setup.handlers, c);
  if (!got) return failed(got.error().message);
  auto want = run(*reference, *setup.handlers, c);
  if (!want) return failed(want.error().message);
  if (setup.tamper) setup.tamper(*got);

  const Comparison cmp =
      compare(*got, *want, oracle.tolerance,
              setup.special_values ? oracle.special : SpecialValues::as_reference);
  if (!cmp.problem.empty()) return failed(cmp.problem);
  const ir::Shape& shape = (*want)[cmp.output].shape;
  const std::string worst =
      "output " + std::to_string(cmp.output) + " element " + std::to_string(cmp.element) + " " +
      index_of(shape, cmp.element) + " of " + ir::to_string(shape) + ": " + setup.under_test.name +
      " " + number(cmp.got) + ", " + setup.reference.name + " " + number(cmp.want) + ", error " +
      short_number(cmp.error) + ", allowed " + short_number(cmp.allowed);
  if (!cmp.passed) {
    return {.passed = false,
            .share = cmp.share,
            .report = head + ": FAILED: outside the tolerance\n" + context + "  worst: " + worst +
                      "\n" + reproduce};
  }
  return {.passed = true,
          .share = cmp.share,
          .report = head + ": passed; worst " + worst + "\n" + context};
}

bool provider_built(const runtime::HandlerRegistry& handlers, backend::Provider provider) {
  return std::ranges::any_of(handlers.handlers(),
                             [&](const auto& entry) { return entry.first.provider == provider; });
}

}  // namespace nnplan::oracles
