#!/usr/bin/env python3
"""Peak memory of nnplan against the size of its input, for every input format.

Usage: bench/memory/measure_rss.py BUILD_BIN_DIR WORK_DIR [--scale S]

Generates, for each format, legitimate inputs (a chain graph, a registry of many capsules, the
artifact of a large graph, ONNX chains, payload files) and hostile ones (deep or wide JSON in an
unknown field, unused initializers, metadata entries, a long packed attribute) at three sizes, runs
the nnplan subcommand that reads it under /usr/bin/time, and prints one row per run: the input,
its size, the exit code, peak RSS, and RSS per input byte above the baseline (the RSS of planning
examples/mlp.json). docs/limits.md records the table and the k and c it implies
(RSS <= k * input bytes + c). Inputs are written to WORK_DIR and not committed.
"""
import json
import os
import struct
import subprocess
import sys

# --- protobuf wire encoding (enough for ModelProto) ----------------------------------------------


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_varint(number, value):
    return varint(number << 3) + varint(value)


def field_bytes(number, payload):
    if isinstance(payload, str):
        payload = payload.encode()
    return varint((number << 3) | 2) + varint(len(payload)) + payload


def value_info(name, dims):
    shape = b"".join(field_bytes(1, field_varint(1, d)) for d in dims)
    tensor_type = field_varint(1, 1) + field_bytes(2, shape)
    return field_bytes(1, name) + field_bytes(2, field_bytes(1, tensor_type))


def node(op, inputs, outputs, name, attributes=b""):
    body = b"".join(field_bytes(1, i) for i in inputs)
    body += b"".join(field_bytes(2, o) for o in outputs)
    return field_bytes(1, body + field_bytes(3, name) + field_bytes(4, op) + attributes)


def model(graph_body, extra=b""):
    opset = field_bytes(8, field_bytes(1, "") + field_varint(2, 17))
    return field_varint(1, 8) + opset + field_bytes(7, graph_body) + extra


def onnx_chain(n):
    body = bytearray()
    prev = "x"
    for i in range(n):
        out = f"v{i}"
        body += node("Relu", [prev], [out], f"relu{i}")
        prev = out
    body += field_bytes(11, value_info("x", [1, 4])) + field_bytes(12, value_info(prev, [1, 4]))
    return model(bytes(body))


def onnx_unused_initializers(n):
    body = bytearray(node("Relu", ["x"], ["y"], "relu"))
    one = struct.pack("<f", 0.0)
    for i in range(n):
        tensor = field_varint(1, 1) + field_varint(2, 1) + field_bytes(4, one) + field_bytes(8, f"w{i}")
        body += field_bytes(5, tensor)
    body += field_bytes(11, value_info("x", [1, 4])) + field_bytes(12, value_info("y", [1, 4]))
    return model(bytes(body))


def onnx_metadata(n):
    body = node("Relu", ["x"], ["y"], "relu")
    body += field_bytes(11, value_info("x", [1, 4])) + field_bytes(12, value_info("y", [1, 4]))
    extra = b"".join(field_bytes(14, field_bytes(1, f"k{i}") + field_bytes(2, "v")) for i in range(n))
    return model(body, extra)


def onnx_packed_attribute(n):
    packed = b"".join(varint(7) for _ in range(n))
    attribute = field_bytes(5, field_bytes(1, "junk") + field_bytes(8, packed) + field_varint(20, 7))
    body = node("Relu", ["x"], ["y"], "relu", attribute)
    body += field_bytes(11, value_info("x", [1, 4])) + field_bytes(12, value_info("y", [1, 4]))
    return model(body)


# --- JSON inputs ----------------------------------------------------------------------------------


def ir_chain(n):
    nodes = [{"id": 0, "kind": "input", "parents": [], "shape": [1, 4]}]
    for i in range(1, n + 1):
        nodes.append({"id": i, "kind": "relu", "parents": [i - 1], "shape": [1, 4]})
    return json.dumps({"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [n],
                       "nodes": nodes})


def ir_unknown_field(n):
    return ('{"format": "torchlean.ir.v1", "input_id": 0, "output_ids": [0], "junk": ['
            + ",".join(["[]"] * n) + '], "nodes": [{"id": 0, "kind": "input", "parents": [], '
            '"shape": [1]}]}')


def registry_of(n, template):
    base = json.load(open(template))["modules"][0]["capsules"][0]
    capsules = []
    for i in range(n):
        c = json.loads(json.dumps(base))
        c["name"] = f"acme.relu{i}"
        capsules.append(c)
    return json.dumps({"format": "nnplan.capsules.v1", "modules": [{"name": "acme", "capsules": capsules}]})


def registry_unknown_field(n):
    return ('{"format": "nnplan.capsules.v1", "junk": [' + ",".join(["[]"] * n)
            + '], "modules": []}')


def artifact_unknown_field(text, n):
    return text.replace('"groups": [', '"groups": [' + ",".join(["[]"] * n) + ",", 1)


def run(binary, args):
    result = subprocess.run(["/usr/bin/time", "-f", "%M", binary] + args,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    rss_kib = int(result.stderr.strip().splitlines()[-1])
    return result.returncode, rss_kib * 1024


def main():
    bin_dir, work = sys.argv[1], sys.argv[2]
    scale = float(sys.argv[sys.argv.index("--scale") + 1]) if "--scale" in sys.argv else 1.0
    nnplan = os.path.join(bin_dir, "nnplan")
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    os.makedirs(work, exist_ok=True)
    template = os.path.join(source, "tests/data/registries/acme.json")

    def write(name, data):
        path = os.path.join(work, name)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        return path

    _, baseline = run(nnplan, ["plan", os.path.join(source, "examples/mlp.json")])
    rows = []

    def measure(label, path, args):
        code, rss = run(nnplan, args)
        size = os.path.getsize(path)
        rows.append((label, size, code, rss, (rss - baseline) / size))

    sizes = [int(s * scale) for s in (10_000, 100_000, 1_000_000)]
    for n in sizes:
        p = write(f"chain{n}.json", ir_chain(n))
        measure(f"graph: {n}-node chain, plan --json", p, ["plan", p, "--json"])
        art = os.path.join(work, f"chain{n}.plan.json")
        subprocess.run([nnplan, "plan", p, "--json", "-o", art], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        measure(f"artifact: verify of the {n}-node chain", art, ["verify", p, art])
        bomb = write(f"artifact_bomb{n}.json", artifact_unknown_field(open(art).read(), 10 * n))
        measure(f"artifact: {10 * n} x [] inside groups", bomb, ["verify", p, bomb])
        p = write(f"unknown{n}.json", ir_unknown_field(10 * n))
        measure(f"graph: {10 * n} x [] in an unknown field", p, ["plan", p])
        p = write(f"onnx_chain{n}.onnx", onnx_chain(n))
        measure(f"onnx: {n}-node Relu chain", p, ["plan", p])
        p = write(f"onnx_init{n}.onnx", onnx_unused_initializers(n))
        measure(f"onnx: {n} unused initializers", p, ["plan", p])
        p = write(f"onnx_meta{n}.onnx", onnx_metadata(n))
        measure(f"onnx: {n} metadata entries", p, ["plan", p])
        p = write(f"onnx_attr{n}.onnx", onnx_packed_attribute(10 * n))
        measure(f"onnx: {10 * n} packed ints in one attribute", p, ["plan", p])
        p = write(f"registry_bomb{n}.json", registry_unknown_field(10 * n))
        measure(f"registry: {10 * n} x [] in an unknown field", p,
                ["capsules", "--registry", p])
    for n in [int(s * scale) for s in (1024, 8192, 65536)]:
        p = write(f"registry{n}.json", registry_of(n, template))
        measure(f"registry: {n} capsules", p, ["capsules", "--registry", p])

    print(f"baseline (plan examples/mlp.json): {baseline / 2**20:.1f} MiB")
    print("| input | bytes | exit | peak RSS | (RSS - baseline) / bytes |")
    print("|---|---:|---:|---:|---:|")
    for label, size, code, rss, k in rows:
        print(f"| {label} | {size:,} | {code} | {rss / 2**20:.1f} MiB | {k:.2f} |")


if __name__ == "__main__":
    main()
