"""nnplan.run and Plan.run: NumPy in and out, the command line's outputs, errors before anything
runs."""

import json

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
    with pytest.raises(nnplan.BadInputError, match="image") as caught:
        nnplan.run(model, {"image": x[:, :, :16]})
    assert caught.value.kind == "bad-input"
    with pytest.raises(nnplan.BadInputError):
        nnplan.run(model, {"picture": x})
    with pytest.raises(TypeError, match="must be a numpy array"):
        nnplan.run(model, {"image": x.tolist()})
    with pytest.raises(nnplan.InvalidInputError, match="threads=0"):
        nnplan.run(model, x, threads=0)


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
