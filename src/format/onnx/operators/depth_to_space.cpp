// DepthToSpace and SpaceToDepth over (N, C, H, W): a reshape into blocks, a permute moving the
// blocks between the channel and the spatial axes, and a reshape merging them; data movement
// only, exact. DepthToSpace's DCR mode (the default) takes channel c * b * b + ... depth-first,
// CRD column-row-depth, as ONNX defines them.
#include <algorithm>

#include "../import_context.hpp"
#include "../operators.hpp"

namespace nnplan::format::onnx_import {

using ir::Dim;
using ir::NodeId;
using ir::Shape;

namespace {

// The (N, C, H, W) input and the block size, checked.
struct Blocks {
  NodeId x = 0;
  Dim n = 0, c = 0, h = 0, w = 0, b = 0;
};

Blocks read_blocks(ImportContext& cx) {
  cx.require_inputs(1, 1);
  Blocks r;
  r.x = cx.tensor(cx.in_name(0));
  const Shape xs = cx.shape_of(r.x);
  if (xs.rank() != 4) cx.fail("input has shape " + to_string(xs) + "; expected (N, C, H, W)");
  const std::int64_t b = cx.attr_int("blocksize", 0);
  if (b < 1) cx.fail("attribute blocksize = " + str(b) + " is not a positive block size");
  // b * b and the products below stay within the input's extents: no overflow.
  if (static_cast<Dim>(b) > std::max(xs.dims[1], std::max(xs.dims[2], xs.dims[3])) ||
      static_cast<Dim>(b) > (Dim{1} << 24)) {
    cx.fail("attribute blocksize = " + str(b) + " exceeds the input's extents " + to_string(xs));
  }
  r.n = xs.dims[0];
  r.c = xs.dims[1];
  r.h = xs.dims[2];
  r.w = xs.dims[3];
  r.b = static_cast<Dim>(b);
  return r;
}

NodeId permuted(ImportContext& cx, NodeId x, std::vector<std::uint32_t> perm) {
  return cx.add(ir::OpKind::permute, {x}, ir::PermuteParams{.perm = std::move(perm)});
}

}  // namespace

void import_depth_to_space(ImportContext& cx) {
  cx.allow_attrs({"blocksize", "mode"});
  const Blocks r = read_blocks(cx);
  if (r.b > r.c / r.b) {
    cx.fail("channels " + str(r.c) + " do not divide into blocks of " + str(r.b) + " x " +
            str(r.b));
  }
  const Dim bb = r.b * r.b;
  if (r.c % bb != 0) {
    cx.fail("channels " + str(r.c) + " do not divide into blocks of " + str(r.b) + " x " +
            str(r.b));
  }
  const std::string mode = cx.attr_string("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    cx.fail("attribute mode = " + quoted_name(mode) +
            " is no DepthToSpace mode; ONNX defines DCR and CRD");
  }
  const Dim c = r.c / bb;
  const NodeId blocks =
      mode == "DCR"
          ? permuted(cx, cx.reshape(r.x, Shape{{r.n, r.b, r.b, c, r.h, r.w}}), {0, 3, 4, 1, 5, 2})
          : permuted(cx, cx.reshape(r.x, Shape{{r.n, c, r.b, r.b, r.h, r.w}}), {0, 1, 4, 2, 5, 3});
  cx.define(cx.out_name(0), cx.reshape(blocks, Shape{{r.n, c, r.h * r.b, r.w * r.b}}));
}

void import_space_to_depth(ImportContext& cx) {
  cx.allow_attrs({"blocksize"});
  const Blocks r = read_blocks(cx);
  if (r.h % r.b != 0 || r.w % r.b != 0) {
    cx.fail("spatial size " + str(r.h) + " x " + str(r.w) + " does not divide into blocks of " +
            str(r.b) + " x " + str(r.b));
  }
  const Dim h = r.h / r.b;
  const Dim w = r.w / r.b;
  const NodeId blocks =
      permuted(cx, cx.reshape(r.x, Shape{{r.n, r.c, h, r.b, w, r.b}}), {0, 3, 5, 1, 2, 4});
  cx.define(cx.out_name(0), cx.reshape(blocks, Shape{{r.n, r.c * r.b * r.b, h, w}}));
}

}  // namespace nnplan::format::onnx_import
