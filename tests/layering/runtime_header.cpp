// Compiled by the layering tests (tests/CMakeLists.txt) against one layer's include root: the
// runtime's and format's roots compile it; backend's root does not hold the header.
#include "nnplan/runtime/command_buffer.hpp"

int main() { return 0; }
