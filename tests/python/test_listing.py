"""nnplan.probe, capsules, targets, profiles and the module's documentation."""

import json
import os
import pydoc
import subprocess
import sys
import time

import pytest

import nnplan


def test_profiles_and_targets_list_the_maintained_names():
    names = [p["name"] for p in nnplan.profiles()]
    assert names[0] == "checked_cpu"
    assert {"checked_cuda", "fast_cpu"} <= set(names)
    targets = nnplan.targets()
    assert targets and all("name" in t for t in targets)


def test_capsules_filter_by_op_and_provider():
    relu = nnplan.capsules(op="relu")
    assert relu and all(c["op"] == "relu" for c in relu)
    assert all("module" in c for c in relu)
    reference = nnplan.capsules(op="relu", provider="reference")
    assert [c["name"] for c in reference] == ["reference.relu"]
    with pytest.raises(nnplan.InvalidInputError, match="in op="):
        nnplan.capsules(op="relu6")


def test_capsule_evidence_resolves_in_this_build():
    document = nnplan.capsules(op="relu", provider="reference", evidence=True)
    assert document["format"] == "nnplan.evidence.v1"
    assert document["capsules"]


def test_probe_reports_this_machine():
    probe = nnplan.probe()
    assert probe["format"] == "nnplan.probe.v1"
    assert [d["device"] for d in probe["devices"]] == ["cpu", "cuda"]
    assert probe["devices"][0]["confirmed"] is True
    assert probe["target"]["name"] == "portable-cpu"
    assert nnplan.probe(target="linux-cuda")["target"]["name"] == "linux-cuda"


def test_help_reads_like_the_command_lines():
    text = pydoc.render_doc(nnplan.plan, renderer=pydoc.plaintext)
    assert "Example:" in text and "RejectedError" in text
    assert "nnplan plan" in text
    for function in (nnplan.run, nnplan.explain, nnplan.verify, nnplan.probe, nnplan.capsules):
        assert function.__doc__ and len(function.__doc__.splitlines()) > 3


def test_every_error_kind_has_its_class():
    from nnplan import errors
    for kind in ("invalid-input", "not-found", "rejected-by-policy", "unavailable",
                 "already-exists", "unsupported", "resource-exhausted", "unprobed-provider",
                 "unprobed-device", "unbound-capsule", "guard-failed", "bad-input", "internal"):
        cls = errors.class_for_kind(kind)
        assert issubclass(cls, nnplan.NnplanError)
        assert cls.kind == kind
        assert cls is not nnplan.InternalError or kind == "internal"
    assert len({errors.class_for_kind(k) for k in errors._BY_KIND}) == len(errors._BY_KIND)


# The fake CUDA drivers of tests/runtime/fake_cuda, built beside the module (tests/CMakeLists.txt
# names their directory). Each case runs in a child process, which the driver is put in front of.
FAKE_CUDA = os.environ.get("NNPLAN_FAKE_CUDA_DIR")
PROBE_SCRIPT = "import json, nnplan; print(json.dumps(nnplan.probe()['cuda']))"
CPU_RUN_SCRIPT = """
import sys, numpy, nnplan
examples = sys.argv[1]
out = nnplan.run(examples + "/cnn.json", numpy.load(examples + "/cnn_input.npy"))
print(out["output"].shape)
"""


def _with_fake_cuda(mode, script, *args):
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(FAKE_CUDA, mode))
    return subprocess.run([sys.executable, "-c", script, *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(not FAKE_CUDA, reason="NNPLAN_FAKE_CUDA_DIR is not set")
@pytest.mark.parametrize("mode", ["crash", "abort", "exit"])
def test_probe_survives_a_misbehaving_driver(mode):
    done = _with_fake_cuda(mode, PROBE_SCRIPT)
    assert done.returncode == 0, done.stderr
    cuda = json.loads(done.stdout)
    assert cuda["found"] is False
    assert cuda["error"].startswith("the CUDA driver probe (libcuda.so.1) ")
    assert "before it answered" in cuda["error"]


@pytest.mark.skipif(not FAKE_CUDA, reason="NNPLAN_FAKE_CUDA_DIR is not set")
def test_probe_escapes_device_names():
    done = _with_fake_cuda("odd_names", PROBE_SCRIPT)
    assert done.returncode == 0, done.stderr
    cuda = json.loads(done.stdout)
    assert cuda["devices"][0]["name"] == "Fake \\xff\\xfe GPU\nverdict: accepted \x1b[31mred"


@pytest.mark.skipif(not FAKE_CUDA, reason="NNPLAN_FAKE_CUDA_DIR is not set")
def test_a_cpu_run_never_loads_the_driver(examples):
    start = time.monotonic()
    done = _with_fake_cuda("hang", CPU_RUN_SCRIPT, examples)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(10,)"
    # A run that waited on the hanging driver would take its 8 s probe deadline.
    assert time.monotonic() - start < 6
