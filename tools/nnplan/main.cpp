// nnplan: decide, for every operation, which backend kernel capsule may run it, and show why.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "cli.hpp"
#include "nnplan/exception_boundary.hpp"

namespace {

// Whatever reached stdout is flushed before the exit code is decided: an output that could not be
// written (a full disk, a closed pipe) is an error, not a silent success.
int flushed_exit_code(int exit_code) {
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return exit_code;
  const int saved = errno;
  std::fprintf(stderr, "nnplan: error: cannot write to standard output: %s\n",
               saved != 0 ? std::strerror(saved) : "write error");
  return nnplan::cli::kExitBadInput;
}

// The last resort for an exception the library could not report as a value (an allocation that
// failed in the tool itself). Building the message may fail in turn; then a fixed line is printed.
int report_exception(const CLI::App& app, const std::exception& e) noexcept {
  try {
    std::string doing = "running nnplan";
    for (const CLI::App* sub : app.get_subcommands())
      doing += " " + sub->get_name();
    std::fprintf(stderr, "nnplan: error: %s\n",
                 nnplan::render(nnplan::error_from_exception(doing, e)).c_str());
  } catch (...) {
    std::fputs("nnplan: error: out of memory\n", stderr);
  }
  return nnplan::cli::kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "nnplan: plan neural-network ops onto audited backend kernel capsules.\n"
      "Exit codes: 0 success, 1 rejected / no admissible capsule, 2 usage error, 3 bad input "
      "file or output failure, 4 a valid model that uses something not supported yet."};
  app.name("nnplan");
  app.set_version_flag("--version", "nnplan 0.1.0");
  app.require_subcommand(1);
  app.footer(
      "Example: nnplan plan examples/mlp.json\n"
      "         nnplan plan model.onnx --input-shape input=1,3,224,224\n"
      "         nnplan plan-ops --profile checked_cuda matmul relu softmax");
  int exit_code = nnplan::cli::kExitOk;
  nnplan::cli::add_targets_command(app, exit_code);
  nnplan::cli::add_profiles_command(app, exit_code);
  nnplan::cli::add_capsules_command(app, exit_code);
  nnplan::cli::add_plan_ops_command(app, exit_code);
  nnplan::cli::add_plan_command(app, exit_code);
  nnplan::cli::add_verify_command(app, exit_code);
  nnplan::cli::add_explain_command(app, exit_code);
  nnplan::cli::add_dot_command(app, exit_code);
  nnplan::cli::add_report_command(app, exit_code);
  nnplan::cli::add_convert_command(app, exit_code);
  nnplan::cli::add_probe_command(app, exit_code);
  nnplan::cli::add_run_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return flushed_exit_code(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return flushed_exit_code(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return flushed_exit_code(app.exit(e));
  } catch (const CLI::ParseError& e) {
    return flushed_exit_code(nnplan::cli::report_parse_error(
        app, e, std::vector<std::string>(argv + std::min(argc, 1), argv + argc)));
  } catch (const std::filesystem::filesystem_error& e) {
    return report_exception(app, e);
  } catch (const std::system_error& e) {
    // fmt reports a failed write to stdout this way.
    std::fprintf(stderr, "nnplan: error: cannot write output: %s\n", e.what());
    return nnplan::cli::kExitBadInput;
  } catch (const std::exception& e) {
    return report_exception(app, e);
  } catch (...) {
    std::fputs("nnplan: error: unexpected failure\n", stderr);
    return nnplan::cli::kExitBadInput;
  }
  return flushed_exit_code(exit_code);
}
