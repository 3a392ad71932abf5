#!/usr/bin/env python3
"""Writes the example graphs of examples/ and their payload files.

Each example is a `torchlean.ir.v1` graph (examples/<name>.json) and an `nnplan.payloads.v1`
file with its weights (examples/<name>.payloads), both byte-identical to what nnplan's own
writers produce for them (tests/format/ir_json_test.cpp checks that). Weights come from a seeded
splitmix64 generator, so the files are the same on every run and machine. Standard library only.

Usage: scripts/gen_examples.py [OUTPUT_DIR]   (default: examples/ next to this script)
"""

import json
import math
import os
import struct
import sys

IR_FORMAT = "torchlean.ir.v1"
PAYLOADS_FORMAT = "nnplan.payloads.v1"
MAGIC = b"\x89NNPAY\r\n"
ALIGNMENT = 64
MASK64 = (1 << 64) - 1


class SplitMix64:
    """The splitmix64 generator; uniform() gives multiples of 2^-24, exact in float32."""

    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self, low, high):
        return low + (high - low) * ((self.next() >> 40) / float(1 << 24))


def f32(value):
    """Rounds a Python float to the nearest float32."""
    return struct.unpack("<f", struct.pack("<f", value))[0]


class Graph:
    def __init__(self):
        self.nodes = []

    def add(self, kind, parents, shape, name=None, **fields):
        node_id = len(self.nodes)
        node = {"id": node_id, "kind": kind, "parents": list(parents), "shape": list(shape)}
        node.update(fields)
        if name:
            node["name"] = name
        self.nodes.append(node)
        return node_id

    def shape(self, node_id):
        return self.nodes[node_id]["shape"]


def ir_text(graph, input_id, output_id):
    """The canonical document, exactly as nnplan's write_ir_json lays it out."""

    def value(v):
        if isinstance(v, list):
            return "[" + ", ".join(str(x) for x in v) + "]"
        if isinstance(v, str):
            return json.dumps(v)
        return str(v)

    lines = []
    for node in graph.nodes:
        fields = ", ".join(json.dumps(k) + ": " + value(v) for k, v in node.items())
        lines.append("    {" + fields + "}")
    nodes = json_list(lines)
    return (
        "{\n"
        f'  "format": "{IR_FORMAT}",\n'
        f'  "input_id": {input_id},\n'
        f'  "output_id": {output_id},\n'
        f'  "nodes": {nodes}\n'
        "}\n"
    )


def json_list(lines):
    """One element a line, as nnplan's writers lay out lists of objects."""
    return "[\n" + ",\n".join(lines) + "\n  ]" if lines else "[]"


class Payloads:
    def __init__(self, seed):
        self.rng = SplitMix64(seed)
        self.tensors = {}  # (node_id, name) -> (shape, [float32 values])
        self.attributes = {}  # (node_id, name) -> float

    def tensor(self, node_id, name, shape, low, high):
        count = math.prod(shape)
        values = [f32(self.rng.uniform(low, high)) for _ in range(count)]
        self.tensors[(node_id, name)] = (list(shape), values)

    def constant(self, node_id, name, shape, values):
        self.tensors[(node_id, name)] = (list(shape), [f32(v) for v in values])

    def linear(self, node_id, in_features, out_features, bias=True):
        bound = 1.0 / math.sqrt(in_features)
        self.tensor(node_id, "weight", [out_features, in_features], -bound, bound)
        if bias:
            self.tensor(node_id, "bias", [out_features], -bound, bound)

    def to_bytes(self):
        """The file, exactly as nnplan's write_payloads lays it out."""
        placed = []
        data_bytes = 0
        for key in sorted(self.tensors):
            shape, values = self.tensors[key]
            offset = -(-data_bytes // ALIGNMENT) * ALIGNMENT
            placed.append((key, shape, values, offset))
            data_bytes = offset + 4 * len(values)
        entries = [
            "    {"
            f'"node_id": {key[0]}, "name": {json.dumps(key[1])}, "dtype": "float32", '
            f'"shape": [{", ".join(str(d) for d in shape)}], "offset": {offset}, '
            f'"bytes": {4 * len(values)}'
            "}"
            for key, shape, values, offset in placed
        ]
        attributes = [
            "    {"
            f'"node_id": {key[0]}, "name": {json.dumps(key[1])}, '
            f'"value": {self.attributes[key]!r}'
            "}"
            for key in sorted(self.attributes)
        ]
        index = (
            "{\n"
            f'  "format": "{PAYLOADS_FORMAT}",\n'
            f'  "data_bytes": {data_bytes},\n'
            f'  "entries": {json_list(entries)},\n'
            f'  "attributes": {json_list(attributes)}\n'
            "}\n"
        ).encode("utf-8")
        data_start = -(-(16 + len(index)) // ALIGNMENT) * ALIGNMENT
        out = bytearray(data_start + data_bytes)
        out[0:8] = MAGIC
        out[8:16] = struct.pack("<Q", len(index))
        out[16 : 16 + len(index)] = index
        for _, _, values, offset in placed:
            start = data_start + offset
            out[start : start + 4 * len(values)] = struct.pack(f"<{len(values)}f", *values)
        return bytes(out)


def mlp():
    """784 -> 32 -> 10 classifier on a batch of one."""
    g = Graph()
    p = Payloads(seed=1)
    x = g.add("input", [], [1, 784], name="image")
    h = g.add("linear", [x], [1, 32], name="fc1")
    p.linear(h, 784, 32)
    h = g.add("relu", [h], [1, 32], name="relu1")
    h = g.add("linear", [h], [1, 10], name="fc2")
    p.linear(h, 32, 10)
    y = g.add("softmax", [h], [1, 10], name="probs", axis=1)
    return g, x, y, p


def cnn():
    """conv 3x3 (no bias, batch norm follows) -> batch norm -> relu -> 2x2 max pool -> flatten ->
    linear -> softmax, on one 3x32x32 image."""
    g = Graph()
    p = Payloads(seed=2)
    x = g.add("input", [], [1, 3, 32, 32], name="image")
    c = g.add("conv2d", [x], [1, 8, 32, 32], name="conv1",
              inC=3, outC=8, kH=3, kW=3, stride=1, padding=1)
    p.tensor(c, "weight", [8, 3, 3, 3], -1.0 / math.sqrt(27), 1.0 / math.sqrt(27))
    b = g.add("batch_norm2d_nchw_eval", [c], [1, 8, 32, 32], name="bn1", channels=8)
    p.tensor(b, "scale", [8], 0.5, 1.5)
    p.tensor(b, "bias", [8], -0.1, 0.1)
    p.tensor(b, "mean", [8], -0.1, 0.1)
    p.tensor(b, "var", [8], 0.5, 1.5)
    p.attributes[(b, "epsilon")] = 1e-05
    h = g.add("relu", [b], [1, 8, 32, 32], name="relu1")
    h = g.add("max_pool2d", [h], [1, 8, 16, 16], name="pool1", kH=2, kW=2, stride=2)
    h = g.add("flatten", [h], [2048], name="flatten", in_shape=[1, 8, 16, 16])
    h = g.add("linear", [h], [10], name="fc")
    p.linear(h, 2048, 10)
    y = g.add("softmax", [h], [10], name="probs", axis=0)
    return g, x, y, p


def transformer_block():
    """A pre-norm single-head attention block with a feed-forward layer and residual adds, over 16
    tokens of width 64."""
    tokens, width, hidden = 16, 64, 128
    g = Graph()
    p = Payloads(seed=3)
    x = g.add("input", [], [tokens, width], name="tokens")
    n = g.add("layernorm", [x], [tokens, width], name="ln1", axis=1)
    q = g.add("linear", [n], [tokens, width], name="attn.q")
    p.linear(q, width, width)
    k = g.add("linear", [n], [tokens, width], name="attn.k")
    p.linear(k, width, width)
    v = g.add("linear", [n], [tokens, width], name="attn.v")
    p.linear(v, width, width)
    kt = g.add("permute", [k], [width, tokens], name="attn.k_t", perm=[1, 0])
    s = g.add("matmul", [q, kt], [tokens, tokens], name="attn.scores")
    c = g.add("const", [], [], name="attn.scale", value_shape=[])
    p.constant(c, "value", [], [1.0 / math.sqrt(width)])
    cb = g.add("broadcast_to", [c], [tokens, tokens], name="attn.scale_b",
               from_shape=[], to_shape=[tokens, tokens])
    s = g.add("mul_elem", [s, cb], [tokens, tokens], name="attn.scaled")
    a = g.add("softmax", [s], [tokens, tokens], name="attn.weights", axis=1)
    o = g.add("matmul", [a, v], [tokens, width], name="attn.context")
    o = g.add("linear", [o], [tokens, width], name="attn.out")
    p.linear(o, width, width)
    r = g.add("add", [x, o], [tokens, width], name="residual1")
    n = g.add("layernorm", [r], [tokens, width], name="ln2", axis=1)
    f = g.add("linear", [n], [tokens, hidden], name="ffn.up")
    p.linear(f, width, hidden)
    f = g.add("relu", [f], [tokens, hidden], name="ffn.relu")
    f = g.add("linear", [f], [tokens, width], name="ffn.down")
    p.linear(f, hidden, width)
    y = g.add("add", [r, f], [tokens, width], name="residual2")
    return g, x, y, p


def npy_bytes(shape, values):
    """A float32 .npy file (version 1.0, C order), laid out as numpy.save writes it."""
    dims = "".join(str(d) + ", " for d in shape) if len(shape) != 1 else str(shape[0]) + ","
    if len(shape) > 1:
        dims = ", ".join(str(d) for d in shape)
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + dims + "), }"
    # numpy leaves room for the first axis to grow by 21 digits, then pads to 64 bytes.
    header += " " * 21
    total = 10 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    out = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1")
    return out + b"".join(struct.pack("<f", v) for v in values)


def example_input(shape, seed):
    """Deterministic input values in [-1, 1), exact in float32."""
    rng = SplitMix64(seed)
    count = 1
    for d in shape:
        count *= d
    return npy_bytes(shape, [rng.uniform(-1.0, 1.0) for _ in range(count)])


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "examples")
    os.makedirs(out_dir, exist_ok=True)
    for name, build in (("mlp", mlp), ("cnn", cnn), ("transformer_block", transformer_block)):
        graph, input_id, output_id, payloads = build()
        with open(os.path.join(out_dir, name + ".json"), "w", encoding="utf-8", newline="\n") as f:
            f.write(ir_text(graph, input_id, output_id))
        with open(os.path.join(out_dir, name + ".payloads"), "wb") as f:
            f.write(payloads.to_bytes())
        # The input the README's first command runs the example on.
        with open(os.path.join(out_dir, name + "_input.npy"), "wb") as f:
            f.write(example_input(graph.shape(input_id), 2024))


if __name__ == "__main__":
    main()
