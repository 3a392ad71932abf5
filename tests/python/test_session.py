"""nnplan.Session (plan once, compile for this machine, run many times), nnplan.report, array-like
inputs (torch tensors through DLPack), Python-phrased hints and the public namespace."""

import numpy
import pytest

import nnplan

torch = pytest.importorskip("torch", reason="python3-torch is not installed")


@pytest.fixture
def cnn(examples):
    return examples / "cnn.json", numpy.load(examples / "cnn_input.npy")


@pytest.fixture(scope="module")
def two_outputs(tmp_path_factory):
    """A PyTorch model with two inputs (float32 features, int64 token ids) and two outputs."""

    class TwoHeads(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.embed = torch.nn.Embedding(10, 4)
            self.fc = torch.nn.Linear(4, 3)

        def forward(self, x, ids):
            h = x + self.embed(ids).sum(dim=1)
            return self.fc(h), torch.relu(h)

    torch.manual_seed(0)
    model = TwoHeads().eval()
    x = torch.randn(2, 4)
    ids = torch.tensor([[1, 2], [3, 9]], dtype=torch.int64)
    path = tmp_path_factory.mktemp("session") / "two_heads.onnx"
    torch.onnx.export(model, (x, ids), str(path), input_names=["x", "ids"],
                      output_names=["logits", "hidden"], opset_version=17)
    with torch.no_grad():
        logits, hidden = model(x, ids)
    return path, x, ids, logits.numpy(), hidden.numpy()


def test_a_session_names_its_inputs_and_outputs_with_dtypes_and_shapes(two_outputs):
    path = two_outputs[0]
    session = nnplan.Session(path)
    assert session.inputs == [nnplan.IOInfo("x", "float32", (2, 4)),
                              nnplan.IOInfo("ids", "int64", (2, 2))]
    assert [o.name for o in session.outputs] == ["logits", "hidden"]
    assert [o.dtype for o in session.outputs] == ["float32", "float32"]
    assert session.outputs[0].shape == (2, 3)
    assert session.plan.accepted
    assert "gate: accepted" in session.report()
    assert repr(session).startswith("<nnplan.Session ")


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_a_session_runs_torch_tensors_as_pytorch_does(two_outputs, profile):
    path, x, ids, logits, hidden = two_outputs
    try:
        session = nnplan.Session(path, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    out = session.run({"x": x, "ids": ids})
    numpy.testing.assert_allclose(out["logits"], logits, rtol=1e-5, atol=1e-6)
    numpy.testing.assert_allclose(out["hidden"], hidden, rtol=1e-5, atol=1e-6)
    # The same session again, from NumPy arrays, with one output asked for (any iterable).
    only = session.run({"x": x.numpy(), "ids": ids.numpy()}, outputs=(n for n in ["hidden"]))
    assert list(only) == ["hidden"]
    numpy.testing.assert_array_equal(only["hidden"], out["hidden"])


def test_a_torch_tensor_is_read_through_dlpack_without_a_copy(cnn):
    path, x = cnn
    tensor = torch.from_numpy(x)
    shared = nnplan._as_array("image", tensor)
    assert numpy.shares_memory(shared, x)
    session = nnplan.Session(path)
    numpy.testing.assert_array_equal(session.run(tensor)["output"], session.run(x)["output"])


def test_a_tensor_that_requires_grad_is_refused_with_the_fix(cnn):
    path, x = cnn
    session = nnplan.Session(path)
    with pytest.raises(TypeError, match=r"input 'image'.*detach\(\)"):
        session.run({"image": torch.from_numpy(x).requires_grad_(True)})


def test_something_that_is_no_array_is_refused_by_name(cnn):
    session = nnplan.Session(cnn[0])
    with pytest.raises(TypeError, match=r"input 'image' must be a numpy array, or an object "
                                        r"with __array__ or __dlpack__ \(a torch tensor\), not list"):
        session.run({"image": [1.0, 2.0]})


def test_a_wrong_output_name_is_not_found_with_a_suggestion(cnn):
    session = nnplan.Session(cnn[0])
    with pytest.raises(nnplan.NotFoundError,
                       match=r"output 'outptu' is not an output of the model; did you mean "
                             r"'output'\? its outputs: \['output'\]"):
        session.run(cnn[1], outputs=["outptu"])
    with pytest.raises(TypeError, match="outputs must be a list of output names"):
        session.run(cnn[1], outputs="output")


def test_a_session_whose_plan_the_gate_rejects_is_refused(examples, source_dir):
    # The verified policy admits no built-in capsule: no admissible capsule at all.
    with pytest.raises(nnplan.RejectedError, match="no admissible backend capsule"):
        nnplan.Session(examples / "cnn.json", assurance="verified")
    # A capsule the policy admits whose evidence the gate does not accept.
    with pytest.raises(nnplan.RejectedError,
                       match=r"the gate of profile .* rejected the plan of .*cli_relu.json \(.*\); "
                             r"nothing can run"):
        nnplan.Session(source_dir / "tests/data/graphs/cli_relu.json", assurance="verified",
                       registries=[source_dir / "tests/data/registries/cli_verified_relu.json"])


def test_a_wrong_dtype_says_how_to_convert(cnn):
    session = nnplan.Session(cnn[0])
    with pytest.raises(nnplan.BadInputError,
                       match=r"dtype float64; the model expects float32 \(convert it with "
                             r"array.astype\(numpy.float32\)\)"):
        session.run(cnn[1].astype(numpy.float64))


@pytest.fixture(scope="module")
def dynamic_batch(tmp_path_factory):
    """A small CNN exported with a dynamic batch axis, and a second model whose two inputs share
    it."""

    class Small(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
            self.fc = torch.nn.Linear(4 * 6 * 6, 5)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).flatten(1))

    class Pair(torch.nn.Module):
        def forward(self, a, b):
            return a * b

    torch.manual_seed(0)
    model = Small().eval()
    folder = tmp_path_factory.mktemp("dynamic")
    path = folder / "small.onnx"
    torch.onnx.export(model, torch.randn(2, 3, 6, 6), str(path), input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}},
                      opset_version=13)
    pair = folder / "pair.onnx"
    torch.onnx.export(Pair(), (torch.randn(2, 3), torch.randn(2, 3)), str(pair),
                      input_names=["a", "b"], output_names=["p"],
                      dynamic_axes={"a": {0: "batch"}, "b": {0: "batch"}, "p": {0: "batch"}})
    return path, model, pair


def _trace_cache(path):
    import json
    with open(path) as f:
        other = json.load(f)["otherData"]
    return other["input_shapes"], other["shape_cache"]


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_a_dynamic_batch_session_runs_every_batch_as_pytorch_does(dynamic_batch, profile,
                                                                  tmp_path):
    path, model, _ = dynamic_batch
    session = nnplan.Session(path, profile)
    assert session.inputs == [nnplan.IOInfo("x", "float32", ("batch", 3, 6, 6))]
    assert session.outputs == [nnplan.IOInfo("y", "float32", ("batch", 5))]
    assert session.compiled_shapes == [{"x": (1, 3, 6, 6)}]
    trace = tmp_path / "run.json"
    for batch, compiled in [(3, True), (1, False), (2, True), (3, False)]:
        x = torch.randn(batch, 3, 6, 6)
        y = session.run({"x": x}, trace=trace)["y"]
        with torch.no_grad():
            expected = model(x).numpy()
        assert y.shape == (batch, 5)
        numpy.testing.assert_allclose(y, expected, rtol=1e-5, atol=1e-5)
        shapes, cache = _trace_cache(trace)
        assert shapes == {"x": [batch, 3, 6, 6]}
        assert cache["compiled_for_this_run"] is compiled, batch
        assert cache["limit"] == 8
    assert session.compiled_shapes == [{"x": (1, 3, 6, 6)}, {"x": (2, 3, 6, 6)},
                                       {"x": (3, 3, 6, 6)}]
    assert "gate: accepted" in session.report()


def test_the_compiled_shapes_are_bounded_least_recently_used_first(dynamic_batch, tmp_path):
    session = nnplan.Session(dynamic_batch[0], max_shapes=2)
    trace = tmp_path / "run.json"
    for batch in (2, 3):
        session.run(numpy.zeros((batch, 3, 6, 6), numpy.float32))
    assert session.compiled_shapes == [{"x": (2, 3, 6, 6)}, {"x": (3, 3, 6, 6)}]
    session.run(numpy.zeros((1, 3, 6, 6), numpy.float32), trace=trace)
    # Batch 1, planned when the session was made, was dropped first: it is compiled again.
    assert _trace_cache(trace)[1] == {"compiled_for_this_run": True, "entries": 2, "limit": 2}
    assert session.compiled_shapes == [{"x": (3, 3, 6, 6)}, {"x": (1, 3, 6, 6)}]
    for bad in (0, -1, True, 1.5):
        with pytest.raises(nnplan.InvalidInputError, match="max_shapes="):
            nnplan.Session(dynamic_batch[0], max_shapes=bad)


def test_a_shape_the_model_cannot_take_is_bad_input(dynamic_batch):
    session = nnplan.Session(dynamic_batch[0])
    with pytest.raises(nnplan.BadInputError,
                       match=r"input 'x' has shape \[2, 4, 6, 6\]; the model expects "
                             r"\['batch', 3, 6, 6\]"):
        session.run(numpy.zeros((2, 4, 6, 6), numpy.float32))
    pair = nnplan.Session(dynamic_batch[2])
    with pytest.raises(nnplan.BadInputError,
                       match="dimension 'batch' is 2 in input 'a' but 3 in input 'b'; the model "
                             "names both 'batch', one size"):
        pair.run({"a": numpy.ones((2, 3), numpy.float32), "b": numpy.ones((3, 3), numpy.float32)})
    out = pair.run({"a": numpy.full((4, 3), 2, numpy.float32),
                    "b": numpy.full((4, 3), 3, numpy.float32)})["p"]
    assert out.shape == (4, 3) and (out == 6).all()


def test_a_session_checks_names_dtypes_and_sizes_before_it_plans_a_shape(dynamic_batch):
    pair = nnplan.Session(dynamic_batch[2], max_shapes=1)
    pair.run({"a": numpy.ones((3, 3), numpy.float32), "b": numpy.ones((3, 3), numpy.float32)})
    assert pair.compiled_shapes == [{"a": (3, 3), "b": (3, 3)}]
    with pytest.raises(nnplan.BadInputError,
                       match=r"input 'b' is not given; the model's inputs: 'a' \['batch', 3\], "
                             r"'b' \['batch', 3\]"):
        pair.run({"a": numpy.ones((5, 3), numpy.float32)})
    with pytest.raises(nnplan.BadInputError, match=r"input 'c' is not an input of the model; "
                                                   r"its inputs: 'a'"):
        pair.run({"a": numpy.ones((5, 3), numpy.float32), "c": numpy.ones((5, 3))})
    with pytest.raises(nnplan.BadInputError,
                       match=r"input 'b': dtype float64; the model expects float32 \(convert it "
                             r"with array.astype\(numpy.float32\)\)"):
        pair.run({"a": numpy.ones((5, 3), numpy.float32), "b": numpy.ones((5, 3))})
    with pytest.raises(nnplan.BadInputError, match="with an empty dimension"):
        pair.run({"a": numpy.ones((0, 3), numpy.float32), "b": numpy.ones((0, 3), numpy.float32)})
    # Nothing was planned for the refused calls: the one compiled shape is still there.
    assert pair.compiled_shapes == [{"a": (3, 3), "b": (3, 3)}]


def test_a_session_refuses_a_model_file_that_changed(dynamic_batch, tmp_path):
    import os
    import shutil
    model = tmp_path / "m.onnx"
    shutil.copy(dynamic_batch[0], model)
    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        session = nnplan.Session("m.onnx")
    finally:
        os.chdir(here)
    # A relative path is read again from where it was when the session was made.
    assert session.run(numpy.ones((2, 3, 6, 6), numpy.float32))["y"].shape == (2, 5)
    shutil.copy(dynamic_batch[2], model)
    with pytest.raises(nnplan.InvalidInputError,
                       match="changed since this session was made .* make a new Session"):
        session.run(numpy.ones((4, 3, 6, 6), numpy.float32))
    # A shape compiled before the change still runs the model the session was made with.
    assert session.run(numpy.ones((2, 3, 6, 6), numpy.float32))["y"].shape == (2, 5)


def test_one_input_shape_fixes_a_dimension_the_inputs_share(dynamic_batch):
    pair = nnplan.Session(dynamic_batch[2], input_shapes={"a": [4, 3]})
    assert [i.shape for i in pair.inputs] == [(4, 3), (4, 3)]
    out = pair.run({"a": numpy.full((4, 3), 2, numpy.float32),
                    "b": numpy.full((4, 3), 5, numpy.float32)})["p"]
    assert (out == 10).all()
    assert pair.compiled_shapes == []


def test_nnplan_run_takes_the_sizes_of_its_inputs(dynamic_batch):
    path, model, _ = dynamic_batch
    x = torch.randn(3, 3, 6, 6)
    y = nnplan.run(path, {"x": x}, "fast_cpu")["y"]
    with torch.no_grad():
        numpy.testing.assert_allclose(y, model(x).numpy(), rtol=1e-5, atol=1e-5)


def test_a_model_that_cannot_be_planned_at_one_is_planned_at_the_first_run(tmp_path):
    torch.manual_seed(0)
    model = torch.nn.Conv2d(3, 4, 5).eval()
    path = tmp_path / "conv5.onnx"
    torch.onnx.export(model, torch.randn(1, 3, 8, 8), str(path), input_names=["x"],
                      output_names=["y"], opset_version=13,
                      dynamic_axes={"x": {2: "height", 3: "width"}, "y": {2: "h", 3: "w"}})
    with pytest.raises(nnplan.InvalidInputError, match="planned at 1") as raised:
        nnplan.plan(path)
    assert "input_shapes={'x': [1, 3, <height>, <width>]}" in str(raised.value)
    # Only that failure is put off to the first run: a wrong profile is refused at once.
    with pytest.raises(nnplan.InvalidInputError, match="fast_cpuu"):
        nnplan.Session(path, "fast_cpuu")
    session = nnplan.Session(path, "fast_cpu")
    assert session.plan is None
    assert session.inputs == [nnplan.IOInfo("x", "float32", (1, 3, "height", "width"))]
    assert session.outputs == [nnplan.IOInfo("y", "float32", (1, 4, "h", "w"))]
    with pytest.raises(nnplan.InvalidInputError, match="run it first"):
        session.report()
    for height, width in [(8, 8), (9, 12)]:
        x = torch.randn(1, 3, height, width)
        y = session.run(x)["y"]
        with torch.no_grad():
            numpy.testing.assert_allclose(y, model(x).numpy(), rtol=1e-5, atol=1e-5)
    assert session.compiled_shapes == [{"x": (1, 3, 8, 8)}, {"x": (1, 3, 9, 12)}]
    assert "gate: accepted" in session.report()


def test_input_shapes_fix_an_open_dimension_up_front(dynamic_batch):
    session = nnplan.Session(dynamic_batch[0], input_shapes={"x": [5, 3, 6, 6]})
    assert session.inputs[0].shape == (5, 3, 6, 6)
    with pytest.raises(nnplan.BadInputError, match=r"the model expects \[5,3,6,6\]"):
        session.run(numpy.zeros((2, 3, 6, 6), numpy.float32))


def test_a_plan_says_which_dimensions_it_planned_at_one(dynamic_batch):
    planned = nnplan.plan(dynamic_batch[0], weights=True)
    assert planned.accepted
    with pytest.raises(nnplan.BadInputError,
                       match=r"the model expects \[1,3,6,6\] \(the model leaves 'batch' open; "
                             r"this plan was made at 1: nnplan.Session plans each new shape, or "
                             r"plan with input_shapes=\)"):
        planned.run(numpy.zeros((2, 3, 6, 6), numpy.float32))
    assert planned.symbolic_dims == [
        {"input": "x", "axis": 0, "name": "batch", "size": 1, "fixed": False}]
    fixed = nnplan.plan(dynamic_batch[0], input_shapes={"x": [4, 3, 6, 6]})
    assert fixed.symbolic_dims == [
        {"input": "x", "axis": 0, "name": "batch", "size": 4, "fixed": True}]


def test_the_report_of_a_dynamic_model_says_which_sizes_its_plan_was_made_for(dynamic_batch):
    page = nnplan.report(dynamic_batch[0], picture=False)
    assert ("this plan was made for &#39;batch&#39; (input &#39;x&#39; axis 0) = 1. Other sizes "
            "are planned and gated again") in page


def test_the_dynamic_dimension_hint_is_phrased_for_python(dynamic_batch, tmp_path):
    # convert writes a graph of static shapes: an open dimension needs its size.
    with pytest.raises(nnplan.UnsupportedError) as raised:
        nnplan.convert(dynamic_batch[0], tmp_path / "small.json")
    assert "fix it with input_shapes={'x': [1, 3, 6, 6]}" in raised.value.message
    assert "--input-shape" not in str(raised.value)


def test_report_writes_the_auditors_page(cnn, tmp_path):
    path = tmp_path / "cnn.html"
    page = nnplan.report(cnn[0], "fast_cpu", path=path, picture=False)
    assert page.startswith("<!DOCTYPE html>")
    assert path.read_text(encoding="utf-8") == page
    assert "left out on request (picture=False)" in page
    # A model with a node no capsule may run still gets its page, naming the node.
    refused = nnplan.report(cnn[0], assurance="verified", picture=False)
    assert "no admissible backend capsule" in refused


def test_report_states_the_layout_each_group_runs_in(cnn):
    page = nnplan.report(cnn[0], "fast_cpu", picture=False)
    assert "on this machine it runs <strong>channels-last</strong>" in page
    rejected = nnplan.report(cnn[0], assurance="verified", picture=False)
    assert "channels-last</strong>" not in rejected


def test_report_of_an_unsupported_model_lists_every_unsupported_node(tmp_path):
    class Unsupported(torch.nn.Module):
        def forward(self, x):
            return torch.linalg.det(x) + x.sum()

    model = tmp_path / "unsupported.onnx"
    torch.onnx.export(Unsupported(), torch.randn(3, 3), str(model), input_names=["x"],
                      opset_version=17)
    path = tmp_path / "unsupported.html"
    page = nnplan.report(model, path=path)
    assert path.read_text(encoding="utf-8") == page
    assert "Unsupported nodes" in page
    assert ">/Det<" in page and ">Det<" in page and "operator Det is not supported" in page
    with pytest.raises(nnplan.UnsupportedError):
        nnplan.plan(model)


def test_report_expanded_opens_every_group(cnn):
    page = nnplan.report(cnn[0], picture=False, expanded=True)
    assert page.count('<details class="group ') == page.count('" open>\n<summary>group ') > 0
    assert '" open>' not in nnplan.report(cnn[0], picture=False)


def test_report_never_writes_over_the_model(cnn, tmp_path):
    import shutil
    model = tmp_path / "cnn.json"
    shutil.copy(cnn[0], model)
    shutil.copy(cnn[0].with_suffix(".payloads"), tmp_path / "cnn.payloads")
    before = model.read_bytes()
    with pytest.raises(nnplan.NnplanError):
        nnplan.report(model, path=model, picture=False)
    assert model.read_bytes() == before


def test_the_public_namespace_holds_only_nnplan_names():
    public = {name for name in dir(nnplan) if not name.startswith("_")}
    assert not public & {"json", "os", "shutil", "subprocess", "difflib", "collections"}
    assert {"Session", "IOInfo", "report", "plan", "run"} <= public
    assert set(nnplan.__all__) <= public


def test_convert_writes_a_graph_that_plans_as_the_model_does(two_outputs, tmp_path):
    model = two_outputs[0]
    graph = tmp_path / "two_heads.json"
    summary = nnplan.convert(model, graph)
    assert summary["format"] == "nnplan.convert.v1"
    assert summary["graph"] == str(graph)
    assert summary["payloads"] == str(tmp_path / "two_heads.payloads")
    assert summary["nodes"] > 0 and summary["payload_tensors"] > 0
    assert (tmp_path / "two_heads.payloads").stat().st_size > 0
    from_model = [(g["op"], g["capsule"]) for g in nnplan.plan(model).groups]
    assert [(g["op"], g["capsule"]) for g in nnplan.plan(graph).groups] == from_model


def test_convert_refuses_to_write_over_the_model_or_a_name_the_model_lacks(two_outputs, tmp_path):
    model = two_outputs[0]
    before = model.read_bytes()
    with pytest.raises(nnplan.InvalidInputError, match="would overwrite the input"):
        nnplan.convert(model, model)
    assert model.read_bytes() == before
    with pytest.raises(nnplan.NotFoundError, match=r"an input shape is given for 'IDs', which is "
                                                   r"not a graph input; did you mean 'ids'\?"):
        nnplan.convert(model, tmp_path / "x.json", input_shapes={"IDs": [2, 2]})
