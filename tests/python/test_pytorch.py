"""A PyTorch model exported to ONNX inside the test, planned and run from Python, its outputs
compared with PyTorch's."""

import numpy
import pytest

import nnplan

torch = pytest.importorskip("torch", reason="python3-torch is not installed")


class SmallNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(8)
        self.pool = torch.nn.MaxPool2d(2)
        self.fc = torch.nn.Linear(8 * 8 * 8, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn(self.conv(x))))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


def export(model, x, directory, name, output):
    """Exports `model` at opset 17 with input `x`; returns the path, x and PyTorch's output."""
    path = directory / name
    torch.onnx.export(model, x, str(path), input_names=["x"], output_names=[output],
                      opset_version=17)
    with torch.no_grad():
        expected = model(x).numpy()
    return path, x.numpy(), expected


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    torch.manual_seed(0)
    model = SmallNet().eval()
    with torch.no_grad():
        model.bn.running_mean.uniform_(-0.5, 0.5)
        model.bn.running_var.uniform_(0.5, 1.5)
    x = torch.randn(2, 3, 16, 16)
    return export(model, x, tmp_path_factory.mktemp("torch"), "small_net.onnx", "probs")


def test_the_exported_model_plans_with_onnx_node_names(exported):
    path, _, _ = exported
    plan = nnplan.plan(path)
    assert plan.accepted
    assert [g["op"] for g in plan.groups][0] == "conv"
    assert "/conv/Conv" in plan.report()


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_the_exported_model_runs_as_pytorch_does(exported, profile):
    path, x, expected = exported
    try:
        out = nnplan.run(path, {"x": x}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    assert list(out) == ["probs"]
    numpy.testing.assert_allclose(out["probs"], expected, rtol=1e-5, atol=1e-6)


class Activations(torch.nn.Module):
    """LeakyReLU and ELU (ONNX LeakyRelu and Elu, one IR op each) and softsign, which torch.onnx
    writes as Div(x, Add(Abs(x), 1)) rather than as ONNX's Softsign."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 6, 3, padding=1)
        self.leaky = torch.nn.LeakyReLU(0.2)
        self.elu = torch.nn.ELU(0.5)
        self.fc = torch.nn.Linear(6 * 8 * 8, 5)

    def forward(self, x):
        x = self.elu(self.leaky(self.conv(x)))
        return torch.nn.functional.softsign(self.fc(torch.flatten(x, 1)))


@pytest.fixture(scope="module")
def activations(tmp_path_factory):
    torch.manual_seed(1)
    model = Activations().eval()
    x = torch.randn(2, 3, 8, 8)
    return export(model, x, tmp_path_factory.mktemp("torch"), "activations.onnx", "y")


def test_leaky_relu_and_elu_plan_as_their_own_ops(activations):
    path, _, _ = activations
    plan = nnplan.plan(path)
    assert plan.accepted
    ops = [g["op"] for g in plan.groups]
    assert "leaky_relu" in ops and "elu" in ops


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_leaky_relu_and_elu_run_as_pytorch_does(activations, profile):
    path, x, expected = activations
    try:
        out = nnplan.run(path, {"x": x}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    numpy.testing.assert_allclose(out["y"], expected, rtol=1e-5, atol=1e-6)
