#include "nnplan/backend/registry.hpp"

#include <unordered_set>

namespace nnplan::backend {
namespace {

// A printable key that is equal exactly when `same_identity` holds; names cannot contain NUL.
std::string identity_key(const KernelCapsule& c) {
  std::string key = c.name;
  key += '\0';
  key += static_cast<char>(c.op);
  key += static_cast<char>(c.provider);
  key += static_cast<char>(c.device);
  return key;
}

}  // namespace

Expected<Registry> Registry::create(std::vector<CapsuleModule> modules) {
  std::unordered_set<std::string> module_names;
  std::unordered_set<std::string> identities;
  Registry r;
  for (std::size_t m = 0; m < modules.size(); ++m) {
    if (!module_names.insert(modules[m].name).second) {
      return std::unexpected(make_error(
          ErrorKind::already_exists, "duplicate backend capsule module '" + modules[m].name + "'"));
    }
    for (const KernelCapsule& c : modules[m].capsules) {
      if (!identities.insert(identity_key(c)).second) {
        Error e = make_error(ErrorKind::already_exists,
                             "duplicate backend capsule identity '" + c.name + "'");
        return std::unexpected(std::move(e).with_context("in module '" + modules[m].name + "'"));
      }
      r.capsules_.push_back(c);
      r.module_index_.push_back(static_cast<std::uint32_t>(m));
    }
  }
  // Counting sort by op keeps registry order within each op.
  std::array<std::uint32_t, kBackendOpCount + 1> counts{};
  for (const KernelCapsule& c : r.capsules_)
    ++counts[static_cast<std::size_t>(c.op) + 1];
  for (std::size_t i = 1; i <= kBackendOpCount; ++i)
    counts[i] += counts[i - 1];
  r.op_begin_ = counts;
  r.by_op_.resize(r.capsules_.size());
  for (std::size_t id = 0; id < r.capsules_.size(); ++id) {
    r.by_op_[counts[static_cast<std::size_t>(r.capsules_[id].op)]++] = static_cast<CapsuleId>(id);
  }
  r.modules_ = std::move(modules);
  return r;
}

Expected<Registry> Registry::with_modules(std::vector<CapsuleModule> modules) const {
  std::unordered_set<std::string> replaced;
  for (const CapsuleModule& m : modules)
    replaced.insert(m.name);
  for (const CapsuleModule& m : modules_) {
    if (!replaced.contains(m.name)) modules.push_back(m);
  }
  return create(std::move(modules));
}

}  // namespace nnplan::backend
