// Compiled by the layering tests (tests/CMakeLists.txt) against one layer's include root: the
// report layer's root compiles it; the backend's and format's roots do not hold the header.
#include "nnplan/report/report_html.hpp"

int main() {
  return 0;
}
