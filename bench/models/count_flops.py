#!/usr/bin/python3
"""Counts the multiply-add work of an ONNX model's Conv, ConvTranspose, Gemm and MatMul nodes.

Prints `MODEL: G GFLOP (conv C, gemm/matmul M)`, counting one multiply-add as two floating-point
operations, from the shapes ONNX shape inference gives (static shapes, as the exported models of
bench/models have). Element-wise ops, pools and normalizations are left out: they are memory
bound and a small part of the work. Usage: count_flops.py MODEL.onnx...
"""

import sys

import onnx
from onnx import numpy_helper, shape_inference


def dims(vi):
    return [d.dim_value for d in vi.type.tensor_type.shape.dim]


def main():
    for path in sys.argv[1:]:
        model = shape_inference.infer_shapes(onnx.load(path))
        g = model.graph
        shapes = {vi.name: dims(vi) for vi in list(g.value_info) + list(g.input) + list(g.output)}
        for init in g.initializer:
            shapes[init.name] = list(init.dims)
        conv = mm = 0
        for n in g.node:
            if n.op_type in ("Conv", "ConvTranspose"):
                w = shapes[n.input[1]]
                group = next((a.i for a in n.attribute if a.name == "group"), 1)
                if n.op_type == "Conv":
                    out = shapes[n.output[0]]
                    per_out = w[1]
                    for k in w[2:]:
                        per_out *= k
                    count = 1
                    for d in out:
                        count *= d
                    conv += 2 * count * per_out
                else:
                    inp = shapes[n.input[0]]
                    count = 1
                    for d in inp:
                        count *= d
                    per_in = w[1]
                    for k in w[2:]:
                        per_in *= k
                    conv += 2 * count * per_in
            elif n.op_type in ("Gemm", "MatMul"):
                a, b, out = shapes[n.input[0]], shapes[n.input[1]], shapes[n.output[0]]
                k = a[-1] if n.op_type == "MatMul" or not any(
                    x.name == "transA" and x.i for x in n.attribute) else a[-2]
                count = 1
                for d in out:
                    count *= d
                mm += 2 * count * k
        print(f"{path}: {(conv + mm) / 1e9:.3f} GFLOP (conv {conv / 1e9:.3f}, gemm/matmul {mm / 1e9:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
