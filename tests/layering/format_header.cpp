// Compiled by the layering tests (tests/CMakeLists.txt) against one layer's include root: format's
// root compiles it; neither backend's nor the runtime's root holds the header.
#include "nnplan/format/ir_json.hpp"

int main() { return 0; }
