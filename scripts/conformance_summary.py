#!/usr/bin/env python3
"""Summarizes the ONNX conformance tables for docs/onnx-support.md.

Reads tests/data/onnx_conformance_{expectations,run_expectations,fast_cpu_expectations}.tsv and
the corpora's model.onnx files (../shared/conformance/onnx-node and onnx-node-more), and prints
Markdown: per corpus and per kind of test (float32 tensors only; float32, int64 and bool; any), how
many match under checked_cpu and fast_cpu, and the reasons of the models not planned, grouped.
Usage: scripts/conformance_summary.py [CORPUS_ROOT]   (default ../shared/conformance)
"""
import collections
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPORA = ["onnx-node", "onnx-node-more"]
FLOAT, INT64, BOOL = 1, 7, 9


def fields(data):
    """The top-level fields of a protobuf message: a list of (number, wire type, value)."""
    out, i = [], 0
    while i < len(data):
        key, i = varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(data, i)
        elif wire == 1:
            value, i = data[i:i + 8], i + 8
        elif wire == 2:
            n, i = varint(data, i)
            value, i = data[i:i + n], i + n
        elif wire == 5:
            value, i = data[i:i + 4], i + 4
        else:
            raise ValueError("wire type %d" % wire)
        out.append((number, wire, value))
    return out


def varint(data, i):
    shift = result = 0
    while True:
        b = data[i]
        i += 1
        result |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            return result, i


def field(msg, number):
    return [v for n, _, v in fields(msg) if n == number]


def value_type(value_info):
    """The element type of a ValueInfoProto's tensor type, or None for any other type."""
    for t in field(value_info, 2):
        tensor = field(t, 1)
        if not tensor:
            return None
        elem = field(tensor[0], 1)
        return elem[0] if elem else None
    return None


def tensor_types(model_path):
    """The element types of the graph's non-initializer inputs and its outputs (None: no tensor)."""
    graph = field(model_path.read_bytes(), 7)[0]
    initializers = {field(t, 8)[0].decode() for t in field(graph, 5) if field(t, 8)}
    types = []
    for vi in field(graph, 11):
        if field(vi, 1)[0].decode() not in initializers:
            types.append(value_type(vi))
    types += [value_type(vi) for vi in field(graph, 12)]
    return types


def read_tsv(name):
    rows = {}
    for line in (ROOT / "tests" / "data" / name).read_text().splitlines():
        if not line or line.startswith("#") or line.startswith("test_name\t"):
            continue
        cells = line.split("\t")
        rows[cells[0]] = cells
    return rows


def cause(reason):
    for pattern, label in [
        (r"operator (\w+) is not supported", "operator {0}"),
        (r"operator (\w+) is supported up to opset", "operator {0} past its last opset"),
        (r"(\w+)'s output shape would depend on its values",
         "{0} over values computed at run time (a data-dependent shape)"),
        (r"data type (\w+)", "data type {0}"),
        (r"has data type (\w+)", "data type {0}"),
        (r"no opset of the default ONNX domain", "training operators (ai.onnx.preview.training)"),
        (r"attribute (\w+)", "attribute {0} value"),
        (r"is a graph input, not an initializer", "weights given as graph inputs"),
        (r"is a graph input, not a constant|not a constant", "shape or axes given as graph inputs"),
        (r"output .* is used|outputs? past the first", "an output past the first is used"),
    ]:
        m = re.search(pattern, reason)
        if m:
            return label.format(*m.groups())
    return reason


def main():
    corpus_root = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "conformance"
    plan = read_tsv("onnx_conformance_expectations.tsv")
    ref = read_tsv("onnx_conformance_run_expectations.tsv")
    fast = read_tsv("onnx_conformance_fast_cpu_expectations.tsv")
    kinds = [("float32 inputs and outputs", lambda ts: all(t == FLOAT for t in ts)),
             ("float32, int64 or bool tensors", lambda ts: all(t in (FLOAT, INT64, BOOL) for t in ts)),
             ("any", lambda ts: True)]
    print("| corpus | tests | kind | match under checked_cpu | under fast_cpu | differ |")
    print("|---|---:|---|---:|---:|---:|")
    causes = collections.Counter()
    for corpus in CORPORA:
        tests = sorted(p.parent.name for p in (corpus_root / corpus).glob("test_*/model.onnx"))
        types = {t: tensor_types(corpus_root / corpus / t / "model.onnx") for t in tests}
        for label, keep in kinds:
            chosen = [t for t in tests if keep(types[t])]
            ok_ref = sum(1 for t in chosen if ref[t][1] == "matches")
            ok_fast = sum(1 for t in chosen if fast[t][1] == "matches")
            differ = sum(1 for t in chosen if "differs" in (ref[t][1], fast[t][1]))
            share = lambda n: "%d (%.0f%%)" % (n, 100.0 * n / len(chosen)) if chosen else "0"
            print("| %s | %d | %s | %s | %s | %d |" % (corpus, len(chosen), label, share(ok_ref),
                                                     share(ok_fast), differ))
        for t in tests:
            if ref[t][1] == "not-planned":
                causes[cause(ref[t][4] or plan[t][2])] += 1
    print()
    print("| models | why not planned (both corpora) |")
    print("|---:|---|")
    for label, n in sorted(causes.items(), key=lambda kv: (-kv[1], kv[0])):
        print("| %d | %s |" % (n, label))


if __name__ == "__main__":
    main()
