// What the command line says when CLI11 refuses the arguments: one `nnplan: error:` line (exit 2)
// that names the unknown subcommand or option, lists the valid subcommands, suggests the closest
// spelling ("did you mean plan?") and points at the subcommand's --help. CLI11 finds the problem;
// this file only words it, from the arguments themselves, so the words do not depend on the
// wording of CLI11's exceptions.
#include <fmt/core.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli.hpp"
#include "nnplan/spelling_hint.hpp"
#include "nnplan/text_escape.hpp"

namespace nnplan::cli {

namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

// Every spelling of every option of `command` (`--node`, `-o`, `--output`, `--help`).
std::vector<std::string> option_spellings(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* option : command.get_options()) {
    for (const std::string& name : option->get_lnames())
      names.push_back("--" + name);
    for (const std::string& name : option->get_snames())
      names.push_back("-" + name);
  }
  return names;
}

std::string suggestion(std::string_view word, const std::vector<std::string>& candidates) {
  const auto best = closest_spelling(word, candidates, SpellingTolerance::command_word);
  return best ? "; did you mean " + *best + "?" : "";
}

// Where to read more, before the suggestion so that a message ends with its question.
std::string help_hint(const std::string& where) {
  return " (see " + where + " --help)";
}

// The message for an argument CLI11 did not expect: the first one that looks like an option is
// an unknown option, else the first is a surplus positional argument.
std::string unexpected_message(const CLI::App& command, std::string_view where,
                               const std::vector<std::string>& extras) {
  for (const std::string& extra : extras) {
    if (extra.size() < 2 || extra[0] != '-') continue;
    const std::string_view option = std::string_view(extra).substr(0, extra.find('='));
    return "unknown option " + shown_argument(option) + " for " + std::string(where) +
           help_hint(std::string(where)) + suggestion(option, option_spellings(command));
  }
  return "unexpected argument '" + shown_argument(extras.front()) + "' for " + std::string(where) +
         help_hint(std::string(where));
}

// CLI11's own wording for the other refusals (a required option, two options that exclude each
// other), starting lowercase as every nnplan message does ("GRAPH is required" stays as it is);
// a missing value is said in nnplan's words.
std::string parser_message(const CLI::ParseError& error) {
  std::string text = error.what();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr && text.starts_with("-")) {
    // "--op: 1 required TEXT missing"
    if (const auto colon = text.find(':');
        colon != std::string::npos && text.ends_with("missing")) {
      return escape_controls(text.substr(0, colon)) + " needs a value";
    }
  }
  if (text.size() > 1 && text[0] >= 'A' && text[0] <= 'Z' && text[1] >= 'a' && text[1] <= 'z') {
    text[0] = static_cast<char>(text[0] - 'A' + 'a');
  }
  return escape_controls(text);
}

}  // namespace

int report_parse_error(const CLI::App& app, const CLI::ParseError& error,
                       const std::vector<std::string>& args) {
  const std::vector<std::string> subcommands = subcommand_names(app);
  const std::string valid = "valid subcommands: " + joined(subcommands);
  // The top level takes only --help and --version, which take no value, so the first word that
  // is not an option names the subcommand.
  const auto word = std::find_if(args.begin(), args.end(),
                                 [](const std::string& a) { return !a.starts_with('-'); });
  std::string message;
  if (word == args.end()) {
    const auto option =
        std::find_if(args.begin(), args.end(), [](const std::string& a) { return a.size() > 1; });
    message = option == args.end()
                  ? "no subcommand given" + help_hint("nnplan") + "; " + valid
                  : "unknown option " + shown_argument(*option) +
                        " before the subcommand (nnplan takes only --help and --version there)"
                        "; " +
                        valid;
  } else if (std::find(subcommands.begin(), subcommands.end(), *word) == subcommands.end()) {
    message = "unknown subcommand '" + shown_argument(*word) + "'; " + valid +
              suggestion(*word, subcommands);
  } else {
    const CLI::App* command = app.get_subcommand(*word);
    const std::string where = "nnplan " + *word;
    const std::vector<std::string> extras = command->remaining();
    if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr && !extras.empty()) {
      message = unexpected_message(*command, where, extras);
    } else {
      message = where + ": " + parser_message(error) + help_hint(where);
    }
  }
  fmt::print(stderr, "nnplan: error: {}\n", message);
  return kExitUsage;
}

}  // namespace nnplan::cli
