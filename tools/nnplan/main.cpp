// nnplan: decide, for every operation, which backend kernel capsule may run it, and show why.
#include <CLI/CLI.hpp>

#include "cli.hpp"

int main(int argc, char** argv) {
  CLI::App app{
      "nnplan: plan neural-network ops onto audited backend kernel capsules.\n"
      "Exit codes: 0 success, 1 rejected / no admissible capsule, 2 usage error, 3 bad input "
      "file."};
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
  nnplan::cli::add_convert_command(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return nnplan::cli::kExitUsage;
  }
  return exit_code;
}
