"""nnplan.plan, Plan, explain, verify: the same answers as the command line, as Python data."""

import json

import pytest

import nnplan


def test_plan_of_a_small_cnn_is_accepted_with_groups_and_audit(examples):
    plan = nnplan.plan(examples / "cnn.json")
    assert plan.accepted is True
    assert plan.profile["name"] == "checked_cpu"
    assert [g["op"] for g in plan.groups][:2] == ["conv", "batch_norm"]
    assert all(g["provider"] == "reference" and g["device"] == "cpu" for g in plan.groups)
    assert all(g["capsule"].startswith("reference.") for g in plan.groups)
    kernels = plan.audit["kernels"]
    assert len(plan.audit["rows"]) == len(plan.groups)
    assert set(kernels[0]["contracts"]) == {"shape", "layout", "value", "vjp"}
    assert plan.gate_failures == []
    assert "accepted" in repr(plan)


def test_artifact_report_and_dot_are_the_command_lines_bytes(examples, cli):
    model = examples / "cnn.json"
    plan = nnplan.plan(model, lowering="singleton")
    assert plan.to_json() == cli("plan", model, "--lowering", "singleton", "--json").stdout.decode()
    assert plan.report() == cli("plan", model, "--lowering", "singleton").stdout.decode()
    assert plan.dot() == cli("dot", model, "--lowering", "singleton").stdout.decode()
    assert json.loads(plan.to_json())["format"] == "nnplan.plan.v1"


def test_config_keywords_change_the_profile(examples):
    plan = nnplan.plan(examples / "mlp.json", "checked_cuda")
    assert plan.profile["name"] == "checked_cuda"
    assert {g["device"] for g in plan.groups} == {"cuda"}
    cuda_default = nnplan.plan(examples / "mlp.json", device="cuda")
    assert cuda_default.profile["name"] == "checked_cuda"
    overridden = nnplan.plan(examples / "mlp.json", vjp="none")
    assert overridden.profile["name"] == "checked_cpu+overrides"
    assert overridden.profile["vjp"] == "none"


def test_a_gate_rejection_is_a_plan_with_its_failures(source_dir):
    plan = nnplan.plan(source_dir / "tests/data/graphs/cli_relu.json", assurance="verified",
                       registries=[source_dir / "tests/data/registries/cli_verified_relu.json"])
    assert plan.accepted is False
    assert plan.gate_failures, "the gate's failures are listed"
    assert plan.gate_failures[0]["node_ids"]
    assert "rejected" in repr(plan)
    with pytest.raises(nnplan.RejectedError, match="rejected by its gate; nothing was run"):
        plan.run({})


def test_no_admissible_capsule_raises_with_candidates_and_the_failure_artifact(examples):
    with pytest.raises(nnplan.RejectedError) as caught:
        nnplan.plan(examples / "cnn.json", assurance="verified")
    error = caught.value
    assert error.kind == "rejected-by-policy"
    assert "no admissible backend capsule for op conv on device cpu" in error.message
    assert error.node_id is not None
    assert error.candidates and error.candidates[0]["reasons"]
    assert {r["code"] for c in error.candidates for r in c["reasons"]} >= {"trust-not-admitted"}
    assert json.loads(error.artifact)["error"]["kind"] == "no-admissible-capsule"
    assert "trust-not-admitted" in str(error)


def test_unknown_names_raise_invalid_input_naming_the_keyword(examples):
    with pytest.raises(nnplan.InvalidInputError) as caught:
        nnplan.plan(examples / "cnn.json", "fastest_cpu")
    assert "in profile=" in caught.value.context
    assert "checked_cpu" in str(caught.value), "the valid spellings are listed"
    with pytest.raises(nnplan.InvalidInputError, match="in device="):
        nnplan.plan(examples / "cnn.json", device="gpu")
    with pytest.raises(nnplan.InvalidInputError, match="in lowering="):
        nnplan.plan(examples / "cnn.json", lowering="fast")
    with pytest.raises(nnplan.InvalidInputError, match="exclude each other") as caught:
        nnplan.plan(examples / "cnn.json", prefer="onednn", only="reference")
    assert caught.value.kind == "invalid-input"
    with pytest.raises(TypeError, match="model must be a path"):
        nnplan.plan(3)


def test_malformed_and_missing_models_raise_invalid_input_naming_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "torchlean.ir.v1", "nodes": [')
    with pytest.raises(nnplan.InvalidInputError) as caught:
        nnplan.plan(bad)
    assert str(bad) in caught.value.message
    with pytest.raises(nnplan.InvalidInputError, match="missing.onnx"):
        nnplan.plan(tmp_path / "missing.onnx")
    with pytest.raises(nnplan.InvalidInputError, match="input_shapes"):
        nnplan.plan(bad, input_shapes={"x": [1, 2]})


def test_explain_lists_every_capsule_and_the_choice(examples):
    answer = nnplan.explain(examples / "cnn.json", 1)
    assert answer["op"] == "conv"
    assert answer["chosen"] == "reference.conv"
    verdicts = {c["capsule"]: c["verdict"] for c in answer["capsules"]}
    assert verdicts["reference.conv"] == "chosen"
    rejected = [c for c in answer["capsules"] if c["verdict"] == "rejected"]
    assert rejected and all(c["reasons"] for c in rejected)
    assert answer["fused_group"] is None


def test_explain_names_the_fused_group_under_fast_cpu(examples):
    answer = nnplan.explain(examples / "mlp.json", 2, "fast_cpu")
    if answer["chosen"] is None or not answer["chosen"].startswith("onednn."):
        pytest.skip("this build has no onednn provider")
    assert answer["op"] == "relu"
    assert answer["fused_group"] == {"group": 0, "capsule": "onednn.linear_relu", "nodes": [1, 2]}


def test_explain_of_a_node_outside_the_graph_raises_not_found(examples):
    with pytest.raises(nnplan.NotFoundError, match=r"node 99 is not in graph .*valid: 0\.\."):
        nnplan.explain(examples / "cnn.json", 99)
    with pytest.raises(TypeError):
        nnplan.explain(examples / "cnn.json", -1)
    # Past what a node id can be: the same error kind, not pybind11's "incompatible arguments".
    with pytest.raises(nnplan.NotFoundError, match=r"node 10{30}: no graph has a node"):
        nnplan.explain(examples / "cnn.json", 10**30)


def test_input_shapes_past_what_a_dimension_holds_are_invalid_input(examples):
    with pytest.raises(nnplan.InvalidInputError,
                       match=r"input_shapes\['image'\]: dimension 10{30} is outside"):
        nnplan.plan(examples / "cnn.json", input_shapes={"image": [10**30]})
    with pytest.raises(nnplan.InvalidInputError, match="dimension -1 is outside"):
        nnplan.plan(examples / "cnn.json", input_shapes={"image": [-1, 3]})


def test_saved_artifacts_verify_and_a_changed_one_does_not(examples, tmp_path):
    model = examples / "mlp.json"
    saved = tmp_path / "mlp.plan.json"
    nnplan.plan(model).save(saved)
    result = nnplan.verify(model, saved)
    assert result["verified"] is True and result["differences"] == []
    changed = json.loads(saved.read_text())
    changed["groups"][0]["capsule"] = "lab.fast_linear"
    saved.write_text(json.dumps(changed, indent=2) + "\n")
    result = nnplan.verify(model, saved)
    assert result["verified"] is False
    assert any(d.startswith("groups[0].capsule:") for d in result["differences"])
    assert result["total_differences"] >= 1


def test_verify_rebuilds_the_recorded_profile(examples, tmp_path):
    saved = tmp_path / "cuda.plan.json"
    nnplan.plan(examples / "mlp.json", "checked_cuda").save(saved)
    assert nnplan.verify(examples / "mlp.json", saved)["profile"] == "checked_cuda"
    assert nnplan.verify(examples / "mlp.json", saved, "checked_cpu")["verified"] is False


def test_save_never_overwrites_the_model(examples, tmp_path):
    model = tmp_path / "cnn.json"
    model.write_bytes((examples / "cnn.json").read_bytes())
    with pytest.raises(nnplan.InvalidInputError, match="overwrite"):
        nnplan.plan(model).save(model)
    assert model.read_bytes() == (examples / "cnn.json").read_bytes()


def test_verify_of_a_file_that_is_no_artifact_raises(examples):
    with pytest.raises(nnplan.InvalidInputError, match="not an nnplan.plan.v1 artifact"):
        nnplan.verify(examples / "mlp.json", examples / "mlp.json")


def test_save_and_trace_never_write_over_the_models_external_data(tmp_path):
    """A model whose weight lives in an external data file: Plan.save and run(trace=) onto that
    file are refused and leave it as it was (the model would no longer load)."""
    onnx = pytest.importorskip("onnx")
    import numpy
    from onnx import helper, numpy_helper

    w = numpy_helper.from_array(numpy.arange(6, dtype=numpy.float32).reshape(3, 2), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm")], "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 2])], [w])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = tmp_path / "model.onnx"
    onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                    location="w.bin", size_threshold=0)
    data = tmp_path / "w.bin"
    before = data.read_bytes()
    plan = nnplan.plan(path, weights=True)
    with pytest.raises(nnplan.InvalidInputError, match="would overwrite the input .*w.bin"):
        plan.save(data)
    with pytest.raises(nnplan.InvalidInputError, match="would overwrite the input .*w.bin"):
        plan.run({"x": numpy.ones((2, 3), numpy.float32)}, trace=data)
    assert data.read_bytes() == before
    out = nnplan.run(path, {"x": numpy.ones((2, 3), numpy.float32)})["y"]
    assert out.tolist() == [[6.0, 9.0], [6.0, 9.0]]


def test_paths_that_are_not_utf8_work_everywhere(examples, source_dir, tmp_path):
    # A name the file system holds as bytes that are not UTF-8 reaches Python (os.listdir,
    # sys.argv) as a str with surrogate escapes; nnplan takes it as those bytes.
    import os
    import shutil
    import numpy
    odd = os.fsdecode(b"model\xff")
    shutil.copy(examples / "cnn.json", tmp_path / (odd + ".json"))
    shutil.copy(examples / "cnn.payloads", tmp_path / (odd + ".payloads"))
    registry = tmp_path / os.fsdecode(b"registry\xfe.json")
    shutil.copy(source_dir / "tests/data/registries/cli_verified_relu.json", registry)
    with_registry = nnplan.plan(tmp_path / (odd + ".json"), registries=[registry])
    assert any(g["capsule"] == "lab.verified_relu" for g in with_registry.groups)
    plan = nnplan.plan(tmp_path / (odd + ".json"), weights=True)
    out = plan.run({"image": numpy.load(examples / "cnn_input.npy")},
                   trace=tmp_path / os.fsdecode(b"trace\xfd.json"))
    assert out["output"].shape == (10,)
    plan.save(tmp_path / os.fsdecode(b"plan\xfc.json"))
    names = set(os.listdir(os.fsencode(tmp_path)))
    assert {b"trace\xfd.json", b"plan\xfc.json"} <= names
    with pytest.raises(nnplan.InvalidInputError, match=r"missing\\xff\.json: cannot read"):
        nnplan.plan(tmp_path / os.fsdecode(b"missing\xff.json"))
    assert "xff.json" in repr(plan)
    # Messages that name such a path are NnplanErrors, not decoding errors.
    with pytest.raises(nnplan.NnplanError, match=r"\\xff"):
        nnplan.plan(tmp_path / (odd + ".json")).run({"image": numpy.zeros((1, 3, 32, 32), "f4")})
    with pytest.raises(nnplan.NnplanError, match=r"none\\xfe"):
        plan.save(tmp_path / os.fsdecode(b"none\xfe") / "p.json")
