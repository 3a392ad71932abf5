// Compiled by the layering tests (tests/CMakeLists.txt) against one layer's include root: format's
// root compiles it; backend's root does not hold the header.
#include "nnplan/format/ir_json.hpp"

int main() { return 0; }
