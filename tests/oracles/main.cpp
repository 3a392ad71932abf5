// nnplan_oracles: runs the rows of the conformance table (conformance_table.cpp, oracle.hpp) as
// differential oracles.
//
//   nnplan_oracles --list
//   nnplan_oracles [NAME...] [--cases N] [--seed S] [--verbose] [--reference-only]
//                  [--special-values]
//
// Each named oracle (default: all) runs N cases (default kDefaultCases) with case seeds S, S+1,
// ..., S+N-1 (default S = 1); case seed s alone is `NAME --seed s --cases 1`. Each failing case
// prints its report (seed, shapes and attributes, worst element and both values); each oracle
// prints one summary line with its tolerance, its worst share of the allowed error and its time.
// Exit 0 when every case passed, 1 when any failed, 2 on a usage error, 77 (CTest's skip code)
// when this build has no handler of any oracle's provider. --reference-only runs both sides under
// the reference profile without the plan-choice check: it checks that every drawn case is a valid
// graph that plans and runs, in a build without the provider. --special-values plants NaN, +inf,
// -inf and -0 in each case's inputs and weights and compares as each row's special-value claim
// says (oracle.hpp's SpecialValues): what a new capsule does with them, before its row claims it.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oracle.hpp"

namespace {

using nnplan::oracles::Oracle;

constexpr std::uint64_t kDefaultCases = 128;
constexpr int kSkipped = 77;

int usage(const std::string& problem) {
  std::cerr << "nnplan_oracles: " << problem << "\n"
            << "usage: nnplan_oracles --list\n"
            << "       nnplan_oracles [NAME...] [--cases N] [--seed S] [--verbose] "
               "[--reference-only] [--special-values]\n"
            << "example: nnplan_oracles onednn.conv.oracle --seed 17 --cases 1\n";
  return 2;
}

bool parse_count(std::string_view text, std::uint64_t& out) {
  if (text.empty()) return false;
  std::uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + static_cast<std::uint64_t>(c - '0');
  }
  out = v;
  return true;
}

// The provider of the capsule an oracle tests, from the profile it runs under.
std::optional<nnplan::backend::Provider> provider_of(const Oracle& oracle,
                                                     const nnplan::backend::BackendProfile& p) {
  for (nnplan::backend::CapsuleId id = 0; id < p.registry->size(); ++id) {
    if (p.registry->capsule(id).name == oracle.capsule) return p.registry->capsule(id).provider;
  }
  return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace nnplan::oracles;
  std::vector<const Oracle*> selected;
  std::uint64_t cases = kDefaultCases;
  std::uint64_t seed = 1;
  bool verbose = false;
  RunSetup setup;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--list") {
      for (const Oracle& o : registered_oracles()) {
        std::cout << o.name() << "\t" << o.capsule << "\t" << describe(o.tolerance) << "\t"
                  << o.covers << "\t" << o.reason << "\n";
      }
      return 0;
    }
    if (arg == "--help" || arg == "-h") {
      usage("differential oracles of the fast providers against the reference provider");
      return 0;
    }
    if (arg == "--verbose") {
      verbose = true;
    } else if (arg == "--special-values") {
      setup.special_values = true;
    } else if (arg == "--reference-only") {
      setup.under_test = setup.reference;
      setup.check_choice = false;
    } else if (arg == "--cases" || arg == "--seed") {
      if (i + 1 >= argc) return usage(std::string(arg) + " needs a value");
      std::uint64_t& target = arg == "--cases" ? cases : seed;
      if (!parse_count(argv[++i], target)) {
        return usage(std::string(arg) + " " + argv[i] + " is not a non-negative integer");
      }
    } else if (arg.starts_with("-")) {
      return usage("unknown option " + std::string(arg));
    } else if (const Oracle* o = find_oracle(arg); o != nullptr) {
      selected.push_back(o);
    } else {
      std::string known;
      for (const Oracle& r : registered_oracles())
        known += "\n  " + r.name();
      return usage("no oracle named '" + std::string(arg) + "'; the oracles are:" + known);
    }
  }
  if (selected.empty()) {
    for (const Oracle& o : registered_oracles())
      selected.push_back(&o);
  }

  // Every fuzz-oracle citation of the profile under test must name a row, and every row its
  // capsule: a missing or stray row fails the run, provider or not.
  const std::vector<std::string> problems =
      registration_problems(registered_oracles(), RunSetup{}.under_test);
  for (const std::string& p : problems)
    std::cout << "registration: " << p << "\n";
  if (!problems.empty()) return 1;

  std::uint64_t failed_cases = 0;
  std::uint64_t run_cases = 0;
  std::size_t failed_oracles = 0;
  std::size_t skipped = 0;
  const auto start = std::chrono::steady_clock::now();
  for (const Oracle* oracle : selected) {
    const auto provider = provider_of(*oracle, setup.under_test);
    if (provider && !provider_built(*setup.handlers, *provider)) {
      std::cout << oracle->name() << ": skipped: this build has no " << to_string(*provider)
                << " handlers\n";
      ++skipped;
      continue;
    }
    const auto oracle_start = std::chrono::steady_clock::now();
    std::uint64_t failures = 0;
    double worst = 0;
    for (std::uint64_t c = 0; c < cases; ++c) {
      const CaseResult result = run_case(*oracle, seed + c, setup);
      ++run_cases;
      worst = std::max(worst, result.share);
      if (!result.passed) {
        ++failures;
        std::cout << result.report;
      } else if (verbose) {
        std::cout << result.report;
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - oracle_start).count();
    failed_cases += failures;
    if (failures > 0) ++failed_oracles;
    std::printf(
        "%s: %s %llu of %llu cases (seeds %llu..%llu), worst %.3g of the allowed error "
        "(%s), %.2f s\n",
        std::string(oracle->name()).c_str(), failures == 0 ? "passed" : "FAILED",
        static_cast<unsigned long long>(failures == 0 ? cases : failures),
        static_cast<unsigned long long>(cases), static_cast<unsigned long long>(seed),
        static_cast<unsigned long long>(seed + cases - 1), worst,
        describe(oracle->tolerance).c_str(), seconds);
    std::fflush(stdout);
  }
  const double total =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%zu oracles, %zu skipped, %llu cases, %llu failed (%zu oracles), %.2f s\n",
              selected.size(), skipped, static_cast<unsigned long long>(run_cases),
              static_cast<unsigned long long>(failed_cases), failed_oracles, total);
  if (failed_cases > 0) return 1;
  if (skipped == selected.size()) return kSkipped;
  return 0;
}
