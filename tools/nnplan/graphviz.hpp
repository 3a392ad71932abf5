// Running Graphviz for `nnplan report`: the DOT document goes to `dot -Tsvg` (found on PATH) on
// its standard input, and its standard output comes back. This is the only place the command line
// starts another program. Nothing here fails the caller: a missing, failing or slow `dot` is a
// reason to show instead of the picture.
#pragma once

#include <chrono>
#include <expected>
#include <string>
#include <string_view>

namespace nnplan::cli {

// The SVG `dot -Tsvg` writes for `dot_document`, or why there is none: `dot` is not on PATH, it
// could not be started, it ran past `limit` (then it is killed), it wrote more than
// `max_output_bytes`, or it exited with a failure. Its stderr is discarded.
[[nodiscard]] std::expected<std::string, std::string> render_svg(
    std::string_view dot_document, std::chrono::milliseconds limit = std::chrono::seconds(60),
    std::size_t max_output_bytes = std::size_t{256} << 20);

}  // namespace nnplan::cli
