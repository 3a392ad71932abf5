#include "nnplan/backend/registry.hpp"

#include <unordered_map>
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

// "r.json: " for a module read from a file, "" for one built in or made in code.
std::string source_prefix(const CapsuleModule& m) {
  return m.source.empty() ? std::string() : m.source + ": ";
}

// `later` repeats the name of `first`.
Error duplicate_module(const CapsuleModule& first, const CapsuleModule& later) {
  std::string message =
      source_prefix(later) + "duplicate backend capsule module '" + later.name + "'";
  if (!first.source.empty() && first.source != later.source) {
    message += "; " + first.source + " has a module of that name too";
  }
  return make_error(ErrorKind::already_exists, std::move(message));
}

// `capsule` of module `later` repeats the identity of a capsule of module `first` (possibly the
// same module). The message is about the module that came from a file when only one did: a
// registry file's capsule that clashes with a built-in one is the file's problem, whichever
// order the modules were validated in.
Error duplicate_identity(const KernelCapsule& capsule, const CapsuleModule& first,
                         const CapsuleModule& later) {
  const bool swap = later.source.empty() && !first.source.empty();
  const CapsuleModule& blamed = swap ? first : later;
  const CapsuleModule& other = swap ? later : first;
  std::string message = source_prefix(blamed) + "duplicate backend capsule identity '" +
                        capsule.name + "' (op " + std::string(to_string(capsule.op)) +
                        ", provider " + std::string(to_string(capsule.provider)) + ", device " +
                        std::string(to_string(capsule.device)) + ")";
  if (&blamed == &other) {
    message += " twice in module '" + blamed.name + "'";
  } else {
    message += " in module '" + blamed.name + "'; ";
    if (other.source.empty()) {
      message += blamed.source.empty() ? "module" : "built-in module";
      message += " '" + other.name + "'";
    } else {
      message += "module '" + other.name + "'";
      if (other.source != blamed.source) message += " of " + other.source;
    }
    message += " holds it too";
  }
  return make_error(ErrorKind::already_exists, std::move(message));
}

// A fused capsule's pattern has two ops or more and starts with the capsule's op (SPEC §7).
Expected<void> check_pattern(const KernelCapsule& c, const CapsuleModule& m) {
  if (c.pattern.empty()) return {};
  const std::string where = source_prefix(m) + "capsule '" + c.name + "' of module '" + m.name + "'";
  if (c.pattern.size() < 2) {
    return std::unexpected(make_error(
        ErrorKind::invalid_input,
        where + ": a fused capsule's pattern needs at least two ops (it lists only " +
            std::string(to_string(c.pattern[0])) +
            "); a capsule of one op leaves `pattern` out"));
  }
  if (c.pattern[0] != c.op) {
    return std::unexpected(make_error(
        ErrorKind::invalid_input,
        where + ": its pattern starts with " + std::string(to_string(c.pattern[0])) +
            " but its op is " + std::string(to_string(c.op)) +
            "; a fused capsule's op is the pattern's first (root) op"));
  }
  return {};
}

}  // namespace

Expected<Registry> Registry::create(std::vector<CapsuleModule> modules) {
  std::unordered_map<std::string, std::uint32_t> module_of_name;
  std::unordered_map<std::string, std::uint32_t> module_of_identity;
  Registry r;
  for (std::size_t m = 0; m < modules.size(); ++m) {
    const auto index = static_cast<std::uint32_t>(m);
    if (const auto [it, fresh] = module_of_name.emplace(modules[m].name, index); !fresh) {
      return std::unexpected(duplicate_module(modules[it->second], modules[m]));
    }
    for (const KernelCapsule& c : modules[m].capsules) {
      if (const auto [it, fresh] = module_of_identity.emplace(identity_key(c), index); !fresh) {
        return std::unexpected(duplicate_identity(c, modules[it->second], modules[m]));
      }
      if (auto ok = check_pattern(c, modules[m]); !ok) return std::unexpected(ok.error());
      r.capsules_.push_back(c);
      r.module_index_.push_back(index);
    }
  }
  // Counting sort by op keeps registry order within each op.
  std::array<std::uint32_t, kBackendOpCount + 1> counts{};
  for (const KernelCapsule& c : r.capsules_) {
    if (!c.is_fused()) ++counts[static_cast<std::size_t>(c.op) + 1];
  }
  for (std::size_t i = 1; i <= kBackendOpCount; ++i)
    counts[i] += counts[i - 1];
  r.op_begin_ = counts;
  r.by_op_.resize(counts[kBackendOpCount]);
  for (std::size_t id = 0; id < r.capsules_.size(); ++id) {
    if (r.capsules_[id].is_fused()) {
      r.fused_.push_back(static_cast<CapsuleId>(id));
      continue;
    }
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
