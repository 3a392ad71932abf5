// Compiled by the layering tests (tests/CMakeLists.txt) against one layer's include root: a layer
// that may depend on backend compiles it; ir's root does not hold the header.
#include "nnplan/backend/registry.hpp"

int main() { return 0; }
