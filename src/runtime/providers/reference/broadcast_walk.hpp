// numpy broadcasting for the reference kernels whose operands broadcast inside the kernel (the IR
// shape rule broadcast_operands: the comparisons, logic ops and where): a walk over the output in
// row-major order that gives, for each output element, the element each operand reads there.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "nnplan/ir/shape.hpp"

namespace nnplan::runtime::reference {

// The stride, in elements, with which an operand of shape `in` is read along each axis of `out`:
// its row-major stride, or 0 along an axis it lacks (the ranks align at the right) or holds once.
[[nodiscard]] inline std::vector<std::size_t> broadcast_strides(const ir::Shape& in,
                                                                const ir::Shape& out) {
  std::vector<std::size_t> strides(out.rank(), 0);
  std::size_t step = 1;
  for (std::size_t a = in.rank(); a-- > 0;) {
    const std::size_t o = a + out.rank() - in.rank();
    if (in.dims[a] != 1) strides[o] = step;
    step *= static_cast<std::size_t>(in.dims[a]);
  }
  return strides;
}

// Calls f(i, at) for each output element i = 0, 1, ... of `out`, in row-major order, where at[k]
// is the index of the element of operand k (of shape *in[k], which broadcasts to `out`) that
// element i reads.
template <std::size_t N, typename F>
void for_each_broadcast(const ir::Shape& out, const std::array<const ir::Shape*, N>& in, F f) {
  std::array<std::vector<std::size_t>, N> strides;
  for (std::size_t k = 0; k < N; ++k)
    strides[k] = broadcast_strides(*in[k], out);
  std::size_t count = 1;
  for (const ir::Dim d : out.dims)
    count *= static_cast<std::size_t>(d);
  std::vector<std::size_t> coord(out.rank(), 0);
  std::array<std::size_t, N> at{};
  for (std::size_t i = 0; i < count; ++i) {
    f(i, at);
    // The next coordinate: the last axis advances, carrying into the ones before it.
    for (std::size_t a = out.rank(); a-- > 0;) {
      const auto extent = static_cast<std::size_t>(out.dims[a]);
      if (++coord[a] < extent) {
        for (std::size_t k = 0; k < N; ++k)
          at[k] += strides[k][a];
        break;
      }
      coord[a] = 0;
      for (std::size_t k = 0; k < N; ++k)
        at[k] -= strides[k][a] * (extent - 1);
    }
  }
}

}  // namespace nnplan::runtime::reference
