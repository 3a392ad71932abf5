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
                                      Expand, Gather, Slice, Split, Shape and Cast outputs, and
                                      the values int64/bool shape arithmetic folds to).
  onnx_ops.py across MODEL [MODEL...] per op type over all the models: the models that use it, and
                                      each distinct attribute set with the models where it appears
                                      (plus the first input's data type, and "folds" where every
                                      input is a constant or a static shape).
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
        self.folded = self.fold()
        self.reinfer()
        # Nodes whose every input is a constant, a static shape (Shape, Size) or such a node's output.
        self.foldable = set()
        constant = set(self.const_kind)
        for n in g.node:
            if n.op_type == "Constant":
                continue
            static = n.op_type in ("Shape", "Size") and all(
                isinstance(d, int) and d > 0 for d in (self.shape(n.input[0]) or [0]))
            if static or all((not i) or i in constant for i in n.input):
                self.foldable.add(n.name)
                constant.update(n.output)

    def reinfer(self):
        """Shape inference again with the folded values as initializers, so that the shapes behind
        computed Slice bounds, Reshape targets and Expand shapes are known too."""
        if not self.folded:
            return
        g = self.m.graph
        m2 = onnx.ModelProto()
        m2.CopyFrom(self.m)
        g2 = m2.graph
        del g2.value_info[:]
        keep = [n for n in g2.node if not all(o in self.folded for o in n.output)]
        del g2.node[:]
        g2.node.extend(keep)
        for name, val in self.folded.items():
            g2.initializer.append(numpy_helper.from_array(val, name))
        try:
            m2 = shape_inference.infer_shapes(m2)
        except Exception:
            return
        for vi in m2.graph.value_info:
            tt = vi.type.tensor_type
            if not tt.HasField("shape"):
                continue
            shape = tuple(d.dim_value if d.HasField("dim_value") else (d.dim_param or "?") for d in tt.shape.dim)
            old = self.types.get(vi.name, (None, None))[1]
            if old is None or any(not isinstance(d, int) or d <= 0 for d in old):
                self.types[vi.name] = (DTYPE.get(tt.elem_type, str(tt.elem_type)), shape)

    def fold(self):
        """Values of the non-float outputs that depend only on constants and static shapes, by a
        small numpy evaluator (what an importer's constant folding would compute)."""
        import numpy as np
        known = {k: v for k, v in self.consts.items() if v.dtype.kind != "f" or v.size <= SMALL_FLOAT}
        out = {}

        def static_shape(name):
            shp = self.shape(name)
            if shp is None or any(not isinstance(d, int) or d <= 0 for d in shp):
                return None
            return np.array(shp, dtype=np.int64)

        for n in self.m.graph.node:
            op = n.op_type
            attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
            ins = [known.get(i) if i else None for i in n.input]
            val = None
            try:
                if op == "Shape":
                    val = static_shape(n.input[0])
                    if val is not None and ("start" in attrs or "end" in attrs):
                        val = val[attrs.get("start", 0):attrs.get("end", len(val))]
                elif op == "Size":
                    shp = static_shape(n.input[0])
                    val = None if shp is None else np.array(np.prod(shp), dtype=np.int64)
                elif any(x is None for x, i in zip(ins, n.input) if i):
                    val = None
                elif op == "Gather":
                    val = np.take(ins[0], ins[1], axis=attrs.get("axis", 0))
                elif op == "Unsqueeze":
                    val = ins[0]
                    for ax in sorted(int(a) % (ins[0].ndim + len(ins[1])) for a in ins[1]):
                        val = np.expand_dims(val, ax)
                elif op == "Squeeze":
                    val = np.squeeze(ins[0], axis=tuple(int(a) for a in ins[1]) if len(ins) > 1 else None)
                elif op == "Concat":
                    val = np.concatenate(ins, axis=attrs["axis"])
                elif op in ("Add", "Sub", "Mul"):
                    val = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}[op](ins[0], ins[1])
                elif op == "Div":
                    val = (np.trunc(ins[0] / ins[1]).astype(ins[0].dtype) if ins[0].dtype.kind == "i"
                           else ins[0] / ins[1])
                elif op == "Equal":
                    val = np.equal(ins[0], ins[1])
                elif op == "Where":
                    val = np.where(ins[0], ins[1], ins[2])
                elif op == "ConstantOfShape":
                    fill = numpy_helper.to_array(attrs["value"]) if "value" in attrs else np.zeros(1, np.float32)
                    val = np.full(tuple(int(d) for d in ins[0]), fill.flatten()[0], dtype=fill.dtype)
                elif op == "Cast":
                    val = ins[0].astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[attrs["to"]])
                elif op == "Reshape":
                    val = ins[0].reshape(tuple(int(d) for d in ins[1]))
                elif op == "Expand":
                    val = ins[0] * np.ones(tuple(int(d) for d in ins[1]), dtype=ins[0].dtype)
                elif op == "Range":
                    val = np.arange(ins[0], ins[1], ins[2])
                elif op == "Identity":
                    val = ins[0]
            except Exception:
                val = None
            if val is not None and val.dtype.kind != "f":
                known[n.output[0]] = val
                out[n.output[0]] = val
        return out

    def shape(self, name):
        return self.types.get(name, ("?", None))[1]

    def describe_input(self, name, traced, position=0):
        if not name:
            return "(none)"
        dtype, shape = self.types.get(name, ("?", None))
        rank = "?" if shape is None else str(len(shape))
        if name in self.const_kind:
            kind = self.const_kind[name]
            arr = self.consts.get(name)
            if arr is not None and arr.size <= (SMALL if arr.dtype.kind != "f" else SMALL_FLOAT if traced else 0):
                return f"{kind} {dtype} {fmt_array(arr)}" + (f" shape {list(arr.shape)}" if arr.ndim > 1 else "")
            if arr is not None and arr.dtype.kind == "f":
                return f"{kind} {dtype} rank {arr.ndim}"  # weights: the shape would only split uses
            shp = "x".join(str(d) for d in shape) if shape is not None else "?"
            return f"{kind} {dtype}[{shp}]"
        if name in self.graph_inputs:
            return f"graph-input {dtype} rank {rank}"
        src = self.producer.get(name)
        fold = ""
        if name in self.folded and self.folded[name].size <= SMALL:
            fold = f" = {fmt_array(self.folded[name])}"
        if (traced or position > 0) and src is not None:
            return f"{dtype} rank {rank} from {src.op_type}{fold}"
        return f"{dtype} rank {rank}"

    def derived(self, n):
        facts = []
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in n.attribute}
        op = n.op_type
        if op in ("Conv", "ConvTranspose", "MaxPool", "AveragePool"):
            xs = self.shape(n.input[0])
            if xs is not None:
                facts.append(f"{len(xs) - 2}-D")
            elif "kernel_shape" in attrs:
                facts.append(f"{len(attrs['kernel_shape'])}-D")
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
        if op in ("Add", "Sub", "Mul", "Div", "Pow", "Where", "Max", "Min", "Equal") and n.output:
            out_shape = self.shape(n.output[0])
            in_shapes = [self.shape(i) for i in n.input]
            if out_shape is not None and all(x is not None for x in in_shapes) and any(
                    tuple(x) != tuple(out_shape) for x in in_shapes):
                # each input aligned right against the output: '=' where a dim equals the output's
                pats = []
                for x in in_shapes:
                    if len(x) == 0:
                        pats.append("scalar")
                        continue
                    tail = out_shape[len(out_shape) - len(x):]
                    pats.append("[" + ",".join("=" if d == o else str(d) for d, o in zip(x, tail)) + "]")
                facts.append("broadcast " + " x ".join(pats))
        if op in TRACED:
            cons = collections.Counter()
            for o in n.output:
                if o in {x.name for x in self.m.graph.output}:
                    cons["graph-output"] += 1
                for c in self.consumers.get(o, []):
                    cons[c.op_type] += 1
            if cons:
                facts.append("-> " + ",".join(f"{k}" + (f"x{v}" if v > 1 else "") for k, v in sorted(cons.items())))
            outs = []
            for o in n.output:  # float data by rank (shapes would only split uses), the rest exactly
                d, shp = self.types.get(o, ("?", None))
                if shp is None:
                    outs.append(f"{d} rank ?")
                elif d in ("FLOAT", "FLOAT16", "DOUBLE", "BFLOAT16"):
                    outs.append(f"{d} rank {len(shp)}")
                else:
                    outs.append(f"{d}[{'x'.join(str(s) for s in shp)}]")
                if o in self.folded:
                    outs[-1] += (f" folds to {fmt_array(self.folded[o])}" if self.folded[o].size <= SMALL
                                 else " folds")
            facts.append("out " + ", ".join(outs))
        return facts

    def signature(self, n):
        traced = n.op_type in TRACED
        attrs = " ".join(fmt_attr(a) for a in sorted(n.attribute, key=lambda a: a.name))
        descs = [self.describe_input(i, traced, k) for k, i in enumerate(n.input)]
        runs = []  # consecutive equal inputs once, with a count (Concat of many branches)
        for d in descs:
            if runs and runs[-1][0] == d:
                runs[-1][1] += 1
            else:
                runs.append([d, 1])
        ins = "; ".join(d if k == 1 else f"{d} (x{k})" for d, k in runs)
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


def across(paths):
    """Per op type over all the models: which models use it, then each distinct attribute set
    (with the derived facts, the data type of the first input, and whether the node folds) and
    the models where it appears."""
    per_op = collections.defaultdict(collections.Counter)  # op -> model -> count
    uses = collections.defaultdict(lambda: collections.defaultdict(collections.Counter))
    for path in paths:
        name = os.path.splitext(os.path.basename(path))[0]
        model = Model(path)
        for n in model.m.graph.node:
            per_op[n.op_type][name] += 1
            attrs = " ".join(fmt_attr(a) for a in sorted(n.attribute, key=lambda a: a.name))
            facts = [f for f in model.derived(n) if not f.startswith("->") and not f.startswith("out ")]
            first = model.types.get(n.input[0], ("?", None))[0] if n.input else ""
            sig = " ".join(x for x in [attrs, f"in0 {first}" if first else "", " | ".join(facts),
                                       "folds" if n.name in model.foldable else ""] if x)
            uses[n.op_type][sig][name] += 1
    for op in sorted(per_op, key=lambda o: (-len(per_op[o]), o)):
        models = per_op[op]
        print(f"== {op}: {len(models)} models, {sum(models.values())} nodes: "
              + " ".join(f"{m}:{c}" for m, c in sorted(models.items())))
        for sig, where in sorted(uses[op].items(), key=lambda kv: (-sum(kv[1].values()), kv[0])):
            print(f"   x{sum(where.values())}  {sig or '(no attributes)'}  ["
                  + " ".join(f"{m}:{c}" for m, c in sorted(where.items())) + "]")
    print()


def main(argv):
    if len(argv) >= 2 and argv[0] == "summary":
        summary(argv[1])
        return 0
    if len(argv) >= 2 and argv[0] == "across":
        across(argv[1:])
        return 0
    if len(argv) >= 2 and argv[0] == "detail":
        for p in argv[1:]:
            detail(p)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
