// The window attributes that Conv, ConvTranspose, MaxPool and AveragePool share: kernel_shape,
// strides, dilations, pads (begins then ends) and auto_pad, read for any number of spatial axes
// and checked against the input's spatial extents. Each operator turns the result into the IR's
// conv, conv_transpose or pool parameters (operators/conv.cpp, operators/pooling.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "nnplan/ir/shape.hpp"

namespace nnplan::format::onnx_import {

class ImportContext;

// One entry per spatial axis.
struct WindowGeometry {
  std::vector<std::uint32_t> kernel;
  std::vector<std::uint32_t> stride;
  std::vector<std::uint32_t> dilation;
  std::vector<std::uint32_t> pad_begin;
  std::vector<std::uint32_t> pad_end;
};

// Reads the window of the current node over the last `kernel.size()` axes of `in` (whose
// extents are `spatial`). `kernel` comes from the weight or from kernel_shape. auto_pad SAME_*
// computes the padding the ONNX way (SAME_UPPER puts the odd unit at the end); `transposed`
// selects ConvTranspose's rule, where SAME_* pads the output instead. Fails naming the attribute
// on a wrong count, a value out of range or an unknown auto_pad.
WindowGeometry read_window(const ImportContext& cx, const std::vector<ir::Dim>& spatial,
                           const std::vector<std::uint32_t>& kernel, bool transposed = false);

// kernel_shape as positive 32-bit values, one per spatial axis (`rank` of them); fails when it
// is missing and `required`, or malformed. Empty when absent and not required.
std::vector<std::uint32_t> read_kernel_shape(const ImportContext& cx, std::size_t rank,
                                             bool required);

}  // namespace nnplan::format::onnx_import
