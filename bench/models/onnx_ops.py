#!/usr/bin/python3
"""What an ONNX model uses: op types by count, and (with --detail) every distinct use of each op.

Usage:
  onnx_ops.py summary MODEL          one line: NODES<TAB>Op:count Op:count ... (most used first)
  onnx_ops.py detail MODEL [MODEL...] for each model: opsets, inputs, outputs, initializers, op
                                      types by count, then per op type each distinct use with its
                                      count: the attributes, and per input its data type, rank and
                                      origin (a small constant's value is shown), plus derived facts
                                      (Conv/pool spatial rank, depthwise, asymmetric pads, whether
                                      ceil_mode changes the output size, the consumers of Where,
                                      Expand, Gather, Slice, Split, Shape and Cast outputs).
Needs python3-onnx (Debian's 1.12 is enough). External data is not loaded.
"""

import collections
import os
import sys

import onnx
from onnx import numpy_helper, shape_inference

DTYPE = {v: k for k, v in onnx.TensorProto.DataType.items()}
SMALL = 16  # integer and bool constants with at most this many elements are printed by value
SMALL_FLOAT = 4  # float constants into TRACED ops: only this small (scalars, Resize scales, Clip
# bounds); elsewhere (weights, biases) float constants are shown by rank
# Ops whose inputs' producers and outputs' consumers are shown (the shape-arithmetic and
# data-movement ops the importer must fold or pattern-match).
TRACED = {"Where", "Expand", "Gather", "Slice", "Split", "Shape", "Cast", "Concat", "Unsqueeze",
          "Squeeze", "Reshape", "ConstantOfShape", "Equal", "Identity", "Range", "Size", "Mul", "Div",
          "Add", "Sub", "Pow", "Sqrt", "ReduceMean", "Erf", "Tanh", "Clip", "Resize", "Softmax",
          "HardSigmoid", "HardSwish", "Sigmoid", "Transpose", "Flatten", "Constant", "Pad"}


def fmt_float(x):
    if x == float("inf"):
        return "inf"
    if x == float("-inf"):
        return "-inf"
    return f"{x:.7g}"


def fmt_array(a):
    if a.dtype.kind == "f":
        vals = ",".join(fmt_float(float(v)) for v in a.flatten())
    elif a.dtype.kind == "b":
        vals = ",".join("1" if v else "0" for v in a.flatten())
    else:
        vals = ",".join(str(int(v)) for v in a.flatten())
    return f"[{vals}]" if a.ndim > 0 else vals


def fmt_attr(attr):
    v = onnx.helper.get_attribute_value(attr)
    if isinstance(v, bytes):
        return f"{attr.name}={v.decode()!r}"
    if isinstance(v, float):
        return f"{attr.name}={fmt_float(v)}"
    if isinstance(v, list):
        items = [(x.decode() if isinstance(x, bytes) else fmt_float(x) if isinstance(x, float) else x)
                 for x in v]
        return f"{attr.name}=[{','.join(str(x) for x in items)}]"
    if isinstance(v, onnx.TensorProto):
        a = numpy_helper.to_array(v)
        shape = "x".join(str(d) for d in a.shape) or "scalar"
        if a.size <= SMALL:
            return f"{attr.name}={DTYPE[v.data_type]}[{shape}]{fmt_array(a)}"
        return f"{attr.name}={DTYPE[v.data_type]}[{shape}]"
    return f"{attr.name}={v}"


class Model:
    def __init__(self, path):
        self.path = path
        m = onnx.load(path, load_external_data=False)
        self.external = [t.name for t in m.graph.initializer
                         if t.data_location == onnx.TensorProto.EXTERNAL]
        try:
            m = shape_inference.infer_shapes(m)
        except Exception as e:  # keep going with what the exporter wrote
            print(f"  (shape inference failed: {e})")
        self.m = m
        g = m.graph
        self.types = {}  # value name -> (dtype name, shape tuple or None)
        for vi in list(g.input) + list(g.output) + list(g.value_info):
            tt = vi.type.tensor_type
            shape = None
            if tt.HasField("shape"):
                shape = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or "?")
                              for d in tt.shape.dim)
            self.types[vi.name] = (DTYPE.get(tt.elem_type, str(tt.elem_type)), shape)
        self.consts = {}  # name -> numpy array (initializers and Constant outputs with a value)
        self.const_kind = {}
        for t in g.initializer:
            if t.data_location != onnx.TensorProto.EXTERNAL:
                self.consts[t.name] = numpy_helper.to_array(t)
            self.types[t.name] = (DTYPE[t.data_type], tuple(t.dims))
            self.const_kind[t.name] = "init"
        self.producer = {}
        self.consumers = collections.defaultdict(list)
        for n in g.node:
            for o in n.output:
                self.producer[o] = n
            for i in n.input:
                if i:
                    self.consumers[i].append(n)
            if n.op_type == "Constant":
                for a in n.attribute:
                    if a.name == "value":
                        arr = numpy_helper.to_array(a.t)
                        self.consts[n.output[0]] = arr
                        self.types[n.output[0]] = (DTYPE[a.t.data_type], tuple(arr.shape))
                        self.const_kind[n.output[0]] = "const"
        self.graph_inputs = {i.name for i in g.input} - set(self.const_kind)

    def shape(self, name):
        return self.types.get(name, ("?", None))[1]

    def describe_input(self, name, traced):
        if not name:
            return "(none)"
        dtype, shape = self.types.get(name, ("?", None))
        rank = "?" if shape is None else str(len(shape))
        if name in self.const_kind:
            kind = self.const_kind[name]
            arr = self.consts.get(name)
            if arr is not None and arr.size <= (SMALL if arr.dtype.kind != "f" else SMALL_FLOAT if traced else 0):
                return f"{kind} {dtype} {fmt_array(arr)}" + (f" shape {list(arr.shape)}" if arr.ndim > 1 else "")
            if arr is not None and arr.dtype.kind == "f" and not traced:
                return f"{kind} {dtype} rank {arr.ndim}"  # weights: the shape would only split uses
            shp = "x".join(str(d) for d in shape) if shape is not None else "?"
            return f"{kind} {dtype}[{shp}]"
        if name in self.graph_inputs:
            return f"graph-input {dtype} rank {rank}"
        src = self.producer.get(name)
        if traced and src is not None:
            return f"{dtype} rank {rank} from {src.op_type}"
        return f"{dtype} rank {rank}"

    def derived(self, n):
        facts = []
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        op = n.op_type
        if op in ("Conv", "ConvTranspose", "MaxPool", "AveragePool"):
            xs = self.shape(n.input[0])
            if xs is not None:
                facts.append(f"{len(xs) - 2}-D")
            pads = attrs.get("pads")
            if pads:
                k = len(pads) // 2
                facts.append("pads asymmetric" if list(pads[:k]) != list(pads[k:]) else "pads symmetric")
        if op in ("Conv", "ConvTranspose"):
            group = attrs.get("group", 1)
            ws = self.shape(n.input[1]) if len(n.input) > 1 else None
            xs = self.shape(n.input[0])
            if group > 1 and xs is not None:
                cin = xs[1]
                if op == "Conv" and group == cin and ws is not None:
                    facts.append(f"depthwise (multiplier {ws[0] // group})")
                else:
                    facts.append(f"grouped ({cin} in channels / {group} groups)")
            dil = attrs.get("dilations")
            if dil and any(d != 1 for d in dil):
                facts.append("dilated")
            if len(n.input) > 2 and n.input[2]:
                facts.append("bias")
        if op in ("MaxPool", "AveragePool") and attrs.get("ceil_mode", 0) == 1:
            xs = self.shape(n.input[0])
            if xs is not None:
                ks = attrs["kernel_shape"]
                st = attrs.get("strides", [1] * len(ks))
                pads = attrs.get("pads", [0] * (2 * len(ks)))
                dil = attrs.get("dilations", [1] * len(ks))
                changes = False
                for i, k in enumerate(ks):
                    span = xs[2 + i] + pads[i] + pads[i + len(ks)] - dil[i] * (k - 1) - 1
                    if (span + st[i] - 1) // st[i] != span // st[i]:
                        changes = True
                facts.append("ceil changes the size" if changes else "ceil does not change the size")
        if op in TRACED:
            cons = collections.Counter()
            for o in n.output:
                if o in {x.name for x in self.m.graph.output}:
                    cons["graph-output"] += 1
                for c in self.consumers.get(o, []):
                    cons[c.op_type] += 1
            if cons:
                facts.append("-> " + ",".join(f"{k}" + (f"x{v}" if v > 1 else "") for k, v in sorted(cons.items())))
            outs = [self.types.get(o, ("?", None)) for o in n.output]
            facts.append("out " + ",".join(
                f"{d}" + (f"[{'x'.join(str(s) for s in shp)}]" if shp is not None else "") for d, shp in outs))
        return facts

    def signature(self, n):
        traced = n.op_type in TRACED
        attrs = " ".join(fmt_attr(a) for a in sorted(n.attribute, key=lambda a: a.name))
        ins = "; ".join(self.describe_input(i, traced) for i in n.input)
        facts = self.derived(n)
        parts = []
        if attrs:
            parts.append(attrs)
        if n.input:
            parts.append(f"in: {ins}")
        if facts:
            parts.append(" | ".join(facts))
        return "  ".join(parts)

    def op_counts(self):
        return collections.Counter(n.op_type for n in self.m.graph.node)


def ordered(counts):
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


def summary(path):
    m = onnx.load(path, load_external_data=False)
    counts = collections.Counter(n.op_type for n in m.graph.node)
    print(f"{sum(counts.values())}\t" + " ".join(f"{op}:{c}" for op, c in ordered(counts)))


def value_desc(model, vi):
    dtype, shape = model.types.get(vi.name, ("?", None))
    return f"{vi.name} {dtype}[{'x'.join(str(s) for s in shape) if shape is not None else '?'}]"


def detail(path):
    name = os.path.splitext(os.path.basename(path))[0]
    model = Model(path)
    m, g = model.m, model.m.graph
    counts = model.op_counts()
    print(f"=== {name} ({os.path.getsize(path) / 1e6:.1f} MB, {len(g.node)} nodes)")
    print("  producer: " + f"{m.producer_name} {m.producer_version}, ir_version {m.ir_version}, opsets "
          + ", ".join(f"{o.domain or 'ai.onnx'}:{o.version}" for o in m.opset_import))
    print("  inputs: " + ", ".join(value_desc(model, i) for i in g.input if i.name in model.graph_inputs))
    print("  outputs: " + ", ".join(value_desc(model, o) for o in g.output))
    init_types = collections.Counter(DTYPE[t.data_type] for t in g.initializer)
    nparams = sum(int(model.consts[t.name].size) for t in g.initializer if t.name in model.consts)
    print(f"  initializers: {len(g.initializer)} (" + ", ".join(f"{k} {v}" for k, v in ordered(init_types))
          + f"), {nparams} elements, external data: {len(model.external)}")
    print("  op types: " + " ".join(f"{op}:{c}" for op, c in ordered(counts)))
    for op, c in ordered(counts):
        uses = collections.Counter(model.signature(n) for n in g.node if n.op_type == op)
        print(f"  {op} x{c}:")
        for sig, k in sorted(uses.items(), key=lambda kv: (-kv[1], kv[0])):
            print(f"    x{k}  {sig}")
    print()


def main(argv):
    if len(argv) >= 2 and argv[0] == "summary":
        summary(argv[1])
        return 0
    if len(argv) >= 2 and argv[0] == "detail":
        for p in argv[1:]:
            detail(p)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
