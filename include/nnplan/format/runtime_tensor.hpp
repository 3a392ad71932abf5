// Between the tensors tensor files hold and the tensors a run takes and returns: a file decodes
// into an ir::WeightTensor (format/tensor_file.hpp), which may be a view of the file's bytes; a
// run binds owned runtime::Tensors. These convert one into the other for every dtype both carry
// (float32, int64, bool), so `nnplan run` and the Python module read and write every dtype a
// model's values may have.
#pragma once

#include "nnplan/ir/weights.hpp"
#include "nnplan/runtime/tensor.hpp"

namespace nnplan::format {

// An owned copy of `tensor`'s elements in row-major order (a strided or misaligned view's too).
[[nodiscard]] runtime::Tensor to_runtime_tensor(const ir::WeightTensor& tensor);

// A weight tensor taking over `tensor`'s elements, without a copy.
[[nodiscard]] ir::WeightTensor to_weight_tensor(runtime::Tensor tensor);

}  // namespace nnplan::format
