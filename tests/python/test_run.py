"""nnplan.run and Plan.run: NumPy in and out, the command line's outputs, errors before anything
runs."""

import json
import os

import numpy
import pytest

import nnplan


def cnn_input(examples):
    return numpy.load(examples / "cnn_input.npy")


def test_run_gives_the_command_lines_outputs_bit_for_bit(examples, cli, tmp_path):
    out = nnplan.run(examples / "cnn.json", {"image": cnn_input(examples)})
    assert list(out) == ["output"]
    written = tmp_path / "y.npy"
    result = cli("run", examples / "cnn.json", "--quiet", "--input",
                 f"image={examples / 'cnn_input.npy'}", "--output", f"output={written}")
    assert result.returncode == 0, result.stderr
    expected = numpy.load(written)
    assert out["output"].dtype == numpy.float32
    assert out["output"].shape == expected.shape
    assert out["output"].tobytes() == expected.tobytes()


def test_outputs_own_the_runs_buffer_without_a_copy(examples):
    y = nnplan.run(examples / "cnn.json", cnn_input(examples))["output"]
    assert not y.flags.owndata and y.base is not None, "the array wraps the run's own buffer"
    assert y.flags.c_contiguous and y.flags.writeable


def test_a_plan_runs_many_times_and_the_compiled_buffer_is_reused(examples):
    plan = nnplan.plan(examples / "cnn.json", weights=True)
    x = cnn_input(examples)
    first = plan.run({"image": x})["output"]
    second = plan.run({"image": x})["output"]
    assert first.tobytes() == second.tobytes()
    info = plan.compiled()
    assert info["commands"] >= len(plan.groups)
    assert info["inputs"] == [("image", tuple(x.shape))]


def test_fast_cpu_agrees_with_the_reference_provider(examples):
    x = cnn_input(examples)
    reference = nnplan.run(examples / "cnn.json", x)["output"]
    try:
        fast = nnplan.run(examples / "cnn.json", x, "fast_cpu", threads=1)["output"]
    except nnplan.UnavailableError as error:
        pytest.skip(f"fast_cpu does not run here: {error.message}")
    numpy.testing.assert_allclose(fast, reference, rtol=1e-5, atol=1e-6)


def test_a_trace_is_written_where_asked(examples, tmp_path):
    trace = tmp_path / "cnn.trace.json"
    nnplan.run(examples / "cnn.json", cnn_input(examples), trace=trace)
    events = json.loads(trace.read_text())["traceEvents"]
    assert any(e.get("ph") == "X" for e in events)


def test_inputs_that_do_not_match_raise_bad_input_naming_the_input(examples):
    model = examples / "cnn.json"
    x = cnn_input(examples)
    with pytest.raises(nnplan.BadInputError, match=r"input 'image': dtype float64; the model "
                                                   r"expects float32"):
        nnplan.run(model, {"image": x.astype(numpy.float64)})
    with pytest.raises(nnplan.BadInputError,
                       match=r"input 'image' has shape \[1,3,16,32\]; the model expects "
                             r"\[1,3,32,32\]") as caught:
        nnplan.run(model, {"image": x[:, :, :16]})
    assert caught.value.kind == "bad-input"
    with pytest.raises(nnplan.BadInputError):
        nnplan.run(model, {"picture": x})
    with pytest.raises(TypeError, match="must be a numpy array"):
        nnplan.run(model, {"image": x.tolist()})
    with pytest.raises(nnplan.InvalidInputError, match="threads=0"):
        nnplan.run(model, x, threads=0)


def test_threads_outside_the_machine_are_refused_by_run_and_compiled(examples):
    plan = nnplan.plan(examples / "cnn.json", weights=True)
    x = cnn_input(examples)
    most = nnplan._nnplan.max_threads()
    for bad in (most + 1, 70000, 2**40):
        with pytest.raises(nnplan.InvalidInputError,
                           match=rf"threads={bad}: more threads than this machine can use; "
                                 rf"give 1 to {most} \("):
            plan.run({"image": x}, threads=bad)
        with pytest.raises(nnplan.InvalidInputError, match=rf"threads={bad}: more threads"):
            plan.compiled(threads=bad)
    for bad in (-5, 0, 1.5, True):
        with pytest.raises(nnplan.InvalidInputError, match="needs a whole number, at least 1"):
            plan.compiled(threads=bad)
    assert plan.compiled(threads=most)["commands"] >= 1


def test_a_strided_input_is_read_by_value(examples):
    x = cnn_input(examples)
    strided = numpy.asfortranarray(x)
    assert not strided.flags.c_contiguous
    a = nnplan.run(examples / "cnn.json", x)["output"]
    b = nnplan.run(examples / "cnn.json", strided)["output"]
    assert a.tobytes() == b.tobytes()


def test_a_plan_without_weights_says_how_to_run_it(examples):
    plan = nnplan.plan(examples / "cnn.json")
    with pytest.raises(nnplan.InvalidInputError, match="weights=True"):
        plan.run(cnn_input(examples))


def test_a_provider_the_probe_does_not_confirm_is_refused_before_running(examples):
    probe = nnplan.probe()
    if any(d["device"] == "cuda" and d["confirmed"] for d in probe["devices"]):
        pytest.skip("this machine has a CUDA device")
    with pytest.raises(nnplan.UnavailableError) as caught:
        nnplan.run(examples / "mlp.json", numpy.load(examples / "mlp_input.npy"), "checked_cuda")
    assert caught.value.kind in ("unprobed-provider", "unprobed-device")
    assert "the probe of this machine did not confirm" in caught.value.message
    assert "does not fall back" in str(caught.value)


def mixed_dtype_graph(tmp_path):
    """A graph whose int64 and bool inputs are also its outputs, beside a float32 relu."""
    graph = {
        "format": "nnplan.ir.v1", "input_id": 0, "output_ids": [1, 2, 3],
        "nodes": [
            {"id": 0, "kind": "input", "parents": [], "shape": [2], "name": "x"},
            {"id": 1, "kind": "relu", "parents": [0], "shape": [2]},
            {"id": 2, "kind": "input", "parents": [], "shape": [3], "dtype": "int64",
             "name": "ids"},
            {"id": 3, "kind": "input", "parents": [], "shape": [2], "dtype": "bool",
             "name": "mask"},
        ],
    }
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps(graph))
    return path


def test_int64_and_bool_values_come_back_with_their_dtype(tmp_path, cli):
    model = mixed_dtype_graph(tmp_path)
    ids = numpy.array([3, -1, 2**40], dtype=numpy.int64)
    mask = numpy.array([True, False])
    x = numpy.array([-1.0, 2.0], dtype=numpy.float32)
    out = nnplan.run(model, {"x": x, "ids": ids, "mask": mask})
    assert out["output0"].tolist() == [0.0, 2.0]
    assert out["output1"].dtype == numpy.int64 and out["output1"].tolist() == ids.tolist()
    assert out["output2"].dtype == numpy.bool_ and out["output2"].tolist() == [True, False]
    # The command line reads and writes the same dtypes.
    numpy.save(tmp_path / "ids.npy", ids)
    numpy.save(tmp_path / "mask.npy", mask)
    numpy.save(tmp_path / "x.npy", x)
    result = cli("run", model, "--quiet", "--input", f"x={tmp_path / 'x.npy'}", "--input",
                 f"ids={tmp_path / 'ids.npy'}", "--input", f"mask={tmp_path / 'mask.npy'}",
                 "--output", f"output1={tmp_path / 'ids_out.npy'}", "--output",
                 f"output2={tmp_path / 'mask_out.npy'}")
    assert result.returncode == 0, result.stderr
    assert numpy.load(tmp_path / "ids_out.npy").tolist() == ids.tolist()
    assert numpy.load(tmp_path / "mask_out.npy").dtype == numpy.bool_
    shown = cli("run", model, "--input", f"x={tmp_path / 'x.npy'}", "--input",
                f"ids={tmp_path / 'ids.npy'}", "--input", f"mask={tmp_path / 'mask.npy'}")
    assert shown.returncode == 0, shown.stderr
    assert b"output 'output1' [3] int64: min -1 max 1099511627776 mean" in shown.stdout
    assert b"first [3, -1, 1099511627776]" in shown.stdout
    assert b"output 'output2' [2] bool: min 0 max 1 mean 0.5 first [1, 0]" in shown.stdout
    with pytest.raises(nnplan.BadInputError,
                       match=r"input 'ids': dtype float32; the model expects int64 \(convert it "
                             r"with array.astype\(numpy.int64\)\)"):
        nnplan.run(model, {"x": x, "ids": ids.astype(numpy.float32), "mask": mask})
    with pytest.raises(nnplan.BadInputError, match=r"input 'mask': dtype uint8; the model "
                                                   r"expects bool"):
        nnplan.run(model, {"x": x, "ids": ids, "mask": mask.astype(numpy.uint8)})
    result = cli("run", model, "--quiet", "--input", f"x={tmp_path / 'x.npy'}", "--input",
                 f"ids={tmp_path / 'x.npy'}", "--input", f"mask={tmp_path / 'mask.npy'}")
    assert result.returncode == 3
    assert b"input 'ids'" in result.stderr
    # Refused at the .npy header, before its data is read.
    assert b"its header says shape [2] float32; the model expects [3] int64" in result.stderr


def test_a_float32_of_another_byte_order_or_from_pickle_is_float32(examples):
    import pickle
    x = cnn_input(examples)
    expected = nnplan.run(examples / "cnn.json", x)["output"]
    swapped = x.astype(x.dtype.newbyteorder(">"))
    assert swapped.dtype != numpy.float32 or swapped.dtype.byteorder == ">"
    assert nnplan.run(examples / "cnn.json", swapped)["output"].tobytes() == expected.tobytes()
    pickled = pickle.loads(pickle.dumps(x))
    assert nnplan.run(examples / "cnn.json", pickled)["output"].tobytes() == expected.tobytes()


# Run in a child process: a deadlock holding the GIL would hang this one past any timeout.
SHARED_PLAN_SCRIPT = """
import sys, threading
import numpy
import nnplan

examples, profile = sys.argv[1], sys.argv[2]
try:
    plan = nnplan.plan(examples + "/cnn.json", profile, weights=True)
    x = numpy.load(examples + "/cnn_input.npy")
    inputs = [x * numpy.float32(k + 1) for k in range(4)]
    serial = [plan.run({"image": v}, threads=1)["output"].tobytes() for v in inputs]
except nnplan.UnavailableError as error:
    print("unavailable:", error.message)
    sys.exit(0)
failures = []

def runner(k):
    try:
        for _ in range(100):
            if plan.run({"image": inputs[k]}, threads=1)["output"].tobytes() != serial[k]:
                failures.append(f"thread {k}: output differs from the serial run")
                return
    except Exception as error:
        failures.append(f"thread {k}: {error!r}")

def compiler():
    try:
        for threads in range(2, 6):
            plan.compiled(threads=threads)
    except Exception as error:
        failures.append(f"compiled(): {error!r}")

workers = [threading.Thread(target=runner, args=(k,)) for k in range(4)]
workers.append(threading.Thread(target=compiler))
for w in workers:
    w.start()
for w in workers:
    w.join()
print("failures:", failures)
sys.exit(1 if failures else 0)
"""


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_threads_sharing_one_plan_get_the_serial_outputs(examples, profile):
    """Four threads run one plan 100 times each while a fifth compiles it for other thread
    counts: nothing hangs and every output is the serial run's."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", SHARED_PLAN_SCRIPT, str(examples), profile],
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.fail("threads sharing one plan still run after 120 s (a deadlock)")
    assert done.returncode == 0, done.stdout + done.stderr
    if done.stdout.startswith("unavailable:"):
        pytest.skip(f"{profile} does not run here: {done.stdout}")


def _resident_bytes():
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_two_thousand_runs_hold_resident_memory_flat(examples, profile):
    # The soak test of the Python surface: after 200 warm runs, 1800 more (fresh input arrays,
    # outputs dropped) grow the process by at most 4 MiB.
    plan = nnplan.plan(examples / "cnn.json", profile, weights=True)
    rng = numpy.random.default_rng(0)
    warm = 0
    for r in range(1, 2001):
        x = rng.standard_normal((1, 3, 32, 32), dtype=numpy.float32)
        assert plan.run({"image": x}, threads=1)["output"].shape == (10,)
        if r == 200:
            warm = _resident_bytes()
    assert _resident_bytes() - warm <= 4 << 20
