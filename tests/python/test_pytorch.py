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


class HardSqueezeExcite(torch.nn.Module):
    """MobileNetV3's pieces: conv then Hardswish, and a squeeze-excite gate through Hardsigmoid
    (torch writes HardSwish and HardSigmoid with alpha 1/6)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.act = torch.nn.Hardswish()
        self.fc = torch.nn.Conv2d(8, 8, 1)
        self.gate = torch.nn.Hardsigmoid()

    def forward(self, x):
        x = self.act(self.conv(x)) * 2.0
        s = self.gate(self.fc(torch.nn.functional.adaptive_avg_pool2d(x, 1)))
        return torch.nn.functional.hardswish(x * s)


@pytest.fixture(scope="module")
def hard_activations(tmp_path_factory):
    torch.manual_seed(3)
    model = HardSqueezeExcite().eval()
    x = torch.randn(2, 3, 9, 9) * 3
    return export(model, x, tmp_path_factory.mktemp("torch"), "hard_se.onnx", "y")


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_hardswish_and_hardsigmoid_run_as_pytorch_does(hard_activations, profile):
    path, x, expected = hard_activations
    kinds = [k for g in nnplan.plan(path, profile).groups for k in g["kinds"]]
    assert kinds.count("hard_swish") == 2 and kinds.count("hard_sigmoid") == 1
    try:
        out = nnplan.run(path, {"x": x}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    numpy.testing.assert_allclose(out["y"], expected, rtol=1e-5, atol=1e-5)


def test_hardswish_and_hardsigmoid_fuse_into_their_convolutions_under_fast_cpu(hard_activations):
    path, _, _ = hard_activations
    try:
        capsules = [g["capsule"] for g in nnplan.plan(path, "fast_cpu").groups]
    except nnplan.UnavailableError as error:
        pytest.skip(f"fast_cpu does not plan here: {error.message}")
    assert "onednn.conv_hard_swish" in capsules and "onednn.conv_hard_sigmoid" in capsules
    assert "onednn.hard_swish" in capsules  # the last one follows a mul


class SiluBlock(torch.nn.Module):
    """EfficientNet's pieces: conv then SiLU, a depthwise conv then SiLU (torch writes each
    SiLU as Sigmoid then Mul), and a SiLU of a sum, which no conv precedes."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.depthwise = torch.nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.act = torch.nn.SiLU()

    def forward(self, x):
        a = self.act(self.conv(x))
        return torch.nn.functional.silu(self.act(self.depthwise(a)) + a)


@pytest.fixture(scope="module")
def silu_block(tmp_path_factory):
    torch.manual_seed(5)
    model = SiluBlock().eval()
    x = torch.randn(2, 3, 9, 9) * 3
    return export(model, x, tmp_path_factory.mktemp("torch"), "silu.onnx", "y")


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_silu_runs_as_pytorch_does(silu_block, profile):
    path, x, expected = silu_block
    kinds = [k for g in nnplan.plan(path, profile).groups for k in g["kinds"]]
    assert kinds.count("silu") == 3 and "sigmoid" not in kinds
    try:
        out = nnplan.run(path, {"x": x}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    numpy.testing.assert_allclose(out["y"], expected, rtol=1e-5, atol=1e-5)


def test_silu_fuses_into_its_convolutions_under_fast_cpu(silu_block):
    path, _, _ = silu_block
    try:
        capsules = [g["capsule"] for g in nnplan.plan(path, "fast_cpu").groups]
    except nnplan.UnavailableError as error:
        pytest.skip(f"fast_cpu does not plan here: {error.message}")
    assert capsules.count("onednn.conv_silu") == 2
    assert "onednn.silu" in capsules  # the last one follows an add


class PReluInstanceNorm(torch.nn.Module):
    """PReLU (a slope per channel) and InstanceNorm2d with its affine scale and shift."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.prelu = torch.nn.PReLU(4, init=0.1)
        self.norm = torch.nn.InstanceNorm2d(4, affine=True)

    def forward(self, x):
        return self.norm(self.prelu(self.conv(x)))


class Bilinear(torch.nn.Module):
    """Bilinear upsampling by 2 (ONNX Resize, mode linear) with and without align_corners."""

    def __init__(self, align_corners):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.align_corners = align_corners

    def forward(self, x):
        y = torch.nn.functional.interpolate(self.conv(x), scale_factor=2, mode="bilinear",
                                            align_corners=self.align_corners)
        return torch.relu(y)


class ArgMaxHead(torch.nn.Module):
    """A classifier whose output is the int64 index of its largest logit."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 5)

    def forward(self, x):
        return self.fc(x).argmax(dim=1)


class LeakyByMask(torch.nn.Module):
    """torch.where over a runtime comparison (ONNX Greater, then Where)."""

    def forward(self, x):
        return torch.where(x > 0.25, x, 0.1 * x)


class GRUNet(torch.nn.Module):
    """nn.GRU, batch_first, returning its output sequence (ONNX GRU, linear_before_reset 1)."""

    def __init__(self):
        super().__init__()
        self.gru = torch.nn.GRU(6, 8, batch_first=True)

    def forward(self, x):
        y, _ = self.gru(x)
        return y


class BidirectionalLSTM(torch.nn.Module):
    """Two bidirectional nn.LSTM layers with a linear head over the last step's features."""

    def __init__(self):
        super().__init__()
        self.lstm = torch.nn.LSTM(5, 7, num_layers=2, bidirectional=True)
        self.head = torch.nn.Linear(14, 3)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.head(y[-1])


class GroupNormNet(torch.nn.Module):
    """nn.GroupNorm after a conv (exported as Reshape, InstanceNormalization, Reshape, Mul, Add)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.norm = torch.nn.GroupNorm(4, 8)
        with torch.no_grad():
            self.norm.weight.uniform_(0.5, 1.5)
            self.norm.bias.uniform_(-0.5, 0.5)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


MODELS = {
    "prelu_instance_norm": (PReluInstanceNorm, (2, 3, 6, 6)),
    "bilinear": (lambda: Bilinear(False), (1, 2, 5, 7)),
    "bilinear_align_corners": (lambda: Bilinear(True), (1, 2, 5, 7)),
    "argmax_head": (ArgMaxHead, (4, 6)),
    "where_mask": (LeakyByMask, (3, 5)),
    "gru": (GRUNet, (2, 5, 6)),
    "bidirectional_lstm": (BidirectionalLSTM, (4, 3, 5)),
    "group_norm": (GroupNormNet, (2, 3, 6, 5)),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def small_model(request, tmp_path_factory):
    torch.manual_seed(2)
    make, shape = MODELS[request.param]
    model = make().eval()
    x = torch.randn(*shape)
    return request.param, export(model, x, tmp_path_factory.mktemp("torch"),
                                 request.param + ".onnx", "y")


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_operators_users_write_run_as_pytorch_does(small_model, profile):
    name, (path, x, expected) = small_model
    try:
        out = nnplan.run(path, {"x": x}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    if expected.dtype == numpy.int64:
        assert out["y"].dtype == numpy.int64, name
        numpy.testing.assert_array_equal(out["y"], expected)
    else:
        numpy.testing.assert_allclose(out["y"], expected, rtol=1e-4, atol=1e-5, err_msg=name)


class CrossEntropy(torch.nn.Module):
    """F.cross_entropy with class weights and ignore_index (ONNX SoftmaxCrossEntropyLoss), its
    int64 targets a second graph input."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(4, 3)
        self.register_buffer("weight", torch.tensor([0.5, 2.0, 1.0]))

    def forward(self, x, target):
        return torch.nn.functional.cross_entropy(self.fc(x), target, weight=self.weight,
                                                 ignore_index=1)


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_cross_entropy_with_int64_targets_runs_as_pytorch_does(tmp_path, profile):
    torch.manual_seed(3)
    model = CrossEntropy().eval()
    x = torch.randn(6, 4)
    target = torch.tensor([0, 1, 2, 2, 1, 0])
    path = tmp_path / "cross_entropy.onnx"
    torch.onnx.export(model, (x, target), str(path), input_names=["x", "target"],
                      output_names=["loss"], opset_version=17)
    with torch.no_grad():
        expected = model(x, target).numpy()
    try:
        out = nnplan.run(path, {"x": x.numpy(), "target": target.numpy()}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    numpy.testing.assert_allclose(out["loss"], expected, rtol=1e-5, atol=1e-6)


class BagOfEmbeddings(torch.nn.Module):
    """A text classifier: token ids (int64, a graph input) look up an nn.Embedding table (ONNX
    Gather with runtime indices), averaged over the sequence, then a linear head."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(20, 8)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, ids):
        return self.head(self.embed(ids).mean(dim=1))


@pytest.fixture(scope="module")
def embedding_model(tmp_path_factory):
    torch.manual_seed(4)
    model = BagOfEmbeddings().eval()
    ids = torch.tensor([[3, 19, 0, 7, 7], [12, 1, 1, 5, 18]])
    path = tmp_path_factory.mktemp("torch") / "embedding.onnx"
    torch.onnx.export(model, ids, str(path), input_names=["ids"], output_names=["logits"],
                      opset_version=17)
    return path, model


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_an_embedding_lookup_of_runtime_token_ids_runs_as_pytorch_does(embedding_model, profile):
    path, model = embedding_model
    ids = torch.tensor([[4, 4, 0, 19, 2], [11, 13, 9, 9, 6]])
    with torch.no_grad():
        expected = model(ids).numpy()
    try:
        out = nnplan.run(path, {"ids": ids.numpy()}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    numpy.testing.assert_allclose(out["logits"], expected, rtol=1e-5, atol=1e-6)
    # A negative id counts from the end of the table, as ONNX Gather defines it.
    wrapped = nnplan.run(path, {"ids": (ids.numpy() - 20)}, profile)
    numpy.testing.assert_allclose(wrapped["logits"], expected, rtol=1e-5, atol=1e-6)


def test_a_token_id_past_the_table_is_refused_before_the_launch(embedding_model):
    path, _ = embedding_model
    ids = numpy.array([[4, 4, 0, 20, 2], [11, 13, 9, 9, 6]], dtype=numpy.int64)
    with pytest.raises(nnplan.GuardFailedError) as error:
        nnplan.run(path, {"ids": ids}, "checked_cpu")
    assert "element 3 is 20" in error.value.message
    assert "Gather" in str(error.value)


class TopKHead(torch.nn.Module):
    """A classifier's top-3 classes (torch.topk: ONNX TopK, values and int64 indices) and its 2
    least likely, from the softmax of a linear layer."""

    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 10)

    def forward(self, x):
        probs = torch.softmax(self.fc(x), dim=-1)
        top_values, top_indices = torch.topk(probs, 3)
        low_values, low_indices = torch.topk(probs, 2, largest=False)
        return top_values, top_indices, low_values, low_indices


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_a_top_k_head_runs_as_pytorch_does(tmp_path, profile):
    torch.manual_seed(5)
    model = TopKHead().eval()
    x = torch.randn(4, 16)
    path = tmp_path / "top_k.onnx"
    names = ["top_values", "top_indices", "low_values", "low_indices"]
    torch.onnx.export(model, x, str(path), input_names=["x"], output_names=names,
                      opset_version=17)
    with torch.no_grad():
        expected = dict(zip(names, (t.numpy() for t in model(x))))
    try:
        out = nnplan.run(path, {"x": x.numpy()}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    for name in ("top_indices", "low_indices"):
        assert out[name].dtype == numpy.int64, name
        numpy.testing.assert_array_equal(out[name], expected[name], err_msg=name)
    for name in ("top_values", "low_values"):
        numpy.testing.assert_allclose(out[name], expected[name], rtol=1e-5, atol=1e-7,
                                      err_msg=name)


class PositionIds(torch.nn.Module):
    """The running count of non-padding tokens (RoBERTa's position ids before its int64 multiply
    and add, which nnplan does not run yet): cumsum of an int64 mask; and a float32 cumsum."""

    def forward(self, ids, x):
        mask = ids.ne(1).long()
        positions = torch.cumsum(mask, dim=1)
        running = torch.cumsum(x, dim=-1)
        return positions, running


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_cumsum_of_int64_and_float32_runs_as_pytorch_does(tmp_path, profile):
    torch.manual_seed(6)
    model = PositionIds().eval()
    ids = torch.tensor([[0, 5, 7, 1, 1], [0, 9, 9, 9, 2]])
    x = torch.randn(2, 5)
    path = tmp_path / "position_ids.onnx"
    torch.onnx.export(model, (ids, x), str(path), input_names=["ids", "x"],
                      output_names=["positions", "running"], opset_version=17)
    with torch.no_grad():
        positions, running = model(ids, x)
    try:
        out = nnplan.run(path, {"ids": ids.numpy(), "x": x.numpy()}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    assert out["positions"].dtype == numpy.int64
    numpy.testing.assert_array_equal(out["positions"], positions.numpy())
    numpy.testing.assert_allclose(out["running"], running.numpy(), rtol=1e-6, atol=1e-6)


class Scatters(torch.nn.Module):
    """torch.scatter and scatter_add (ONNX ScatterElements, reduction none and add) with run-time
    int64 indices, and an index_put of rows (ONNX ScatterND)."""

    def forward(self, x, index, rows):
        src = torch.tanh(x)
        replaced = torch.zeros(3, 5).scatter(1, index, src)
        summed = torch.ones(3, 5).scatter_add(1, index, src)
        table = x.new_zeros(6, 4)
        table[rows] = x[:, :4]
        return replaced, summed, table


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_scatters_run_as_pytorch_does(tmp_path, profile):
    torch.manual_seed(7)
    model = Scatters().eval()
    x = torch.randn(3, 4)
    index = torch.tensor([[0, 4, 2, 1], [3, 3, 0, 0], [1, 2, 4, 3]])
    rows = torch.tensor([5, 0, 2])
    path = tmp_path / "scatters.onnx"
    names = ["replaced", "summed", "table"]
    torch.onnx.export(model, (x, index, rows), str(path), input_names=["x", "index", "rows"],
                      output_names=names, opset_version=17)
    with torch.no_grad():
        expected = dict(zip(names, (t.numpy() for t in model(x, index, rows))))
    try:
        out = nnplan.run(path, {"x": x.numpy(), "index": index.numpy(), "rows": rows.numpy()},
                         profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    # tanh may differ from PyTorch's by a unit in the last place; the scatters move it exactly.
    for name in names:
        numpy.testing.assert_allclose(out[name], expected[name], rtol=1e-6, atol=1e-7,
                                      err_msg=name)


class Remainders(torch.nn.Module):
    """torch.remainder of int64 values (ONNX Mod, fmod 0: the divisor's sign) and torch.fmod of
    floats (Mod, fmod 1: the dividend's sign), broadcast."""

    def forward(self, ids, x):
        return torch.remainder(ids, torch.tensor([3, -5])), torch.fmod(x, 0.75)


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_remainders_run_as_pytorch_does(tmp_path, profile):
    torch.manual_seed(8)
    ids = torch.tensor([[7, -7], [-12, 13], [0, 5]])
    x = torch.randn(3, 4) * 3
    path = tmp_path / "remainders.onnx"
    torch.onnx.export(Remainders(), (ids, x), str(path), input_names=["ids", "x"],
                      output_names=["r", "f"], opset_version=17)
    r, f = Remainders()(ids, x)
    try:
        out = nnplan.run(path, {"ids": ids.numpy(), "x": x.numpy()}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    assert out["r"].dtype == numpy.int64
    numpy.testing.assert_array_equal(out["r"], r.numpy())
    numpy.testing.assert_array_equal(out["f"], f.numpy())


class ConvHead(torch.nn.Module):
    """A conv, a transposed conv and a linear head, exported without their parameters."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.up = torch.nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.fc = torch.nn.Linear(4 * 16 * 16, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.up(torch.relu(self.conv1(x)))).flatten(1))


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
def test_a_model_exported_without_its_parameters_runs_with_them_as_inputs(tmp_path, profile):
    torch.manual_seed(5)
    model = ConvHead().eval()
    x = torch.randn(2, 3, 8, 8)
    path = tmp_path / "no_params.onnx"
    torch.onnx.export(model, x, str(path), export_params=False, input_names=["x"],
                      output_names=["y"], opset_version=17)
    with torch.no_grad():
        expected = model(x).numpy()
    inputs = {"x": x.numpy()}
    inputs.update({name: p.detach().numpy() for name, p in model.named_parameters()})
    try:
        out = nnplan.run(path, inputs, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    numpy.testing.assert_allclose(out["y"], expected, rtol=1e-4, atol=1e-5)
    # Without them the run says which input is missing.
    with pytest.raises(nnplan.NnplanError, match="conv1.weight"):
        nnplan.run(path, {"x": x.numpy()}, profile)


class Warp(torch.nn.Module):
    """F.grid_sample of a conv's features at a grid given as a second input (ONNX GridSample)."""

    def __init__(self, mode, padding_mode, align_corners):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 3, 3, padding=1)
        self.options = dict(mode=mode, padding_mode=padding_mode, align_corners=align_corners)

    def forward(self, x, grid):
        return torch.nn.functional.grid_sample(self.conv(x), grid, **self.options)


@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
def test_grid_sample_runs_as_pytorch_does(tmp_path, profile, mode):
    torch.manual_seed(7)
    x = torch.randn(2, 2, 5, 6)
    grid = torch.rand(2, 4, 7, 2) * 2.4 - 1.2  # some points outside the image
    # Bicubic with border padding is left out: ONNX Runtime and ONNX's 2-D reference clamp a
    # point outside the image to the border before taking its 16 taps, PyTorch clamps each tap
    # instead, and nnplan keeps to ONNX's (tests/runtime/reference/grid_sample_test.cpp).
    paddings = ["zeros", "reflection"] if mode == "bicubic" else ["zeros", "border", "reflection"]
    for padding_mode in paddings:
        for align_corners in [False, True]:
            model = Warp(mode, padding_mode, align_corners).eval()
            path = tmp_path / f"warp_{mode}_{padding_mode}_{align_corners}.onnx"
            torch.onnx.export(model, (x, grid), str(path), input_names=["x", "grid"],
                              output_names=["y"], opset_version=16)
            with torch.no_grad():
                expected = model(x, grid).numpy()
            try:
                out = nnplan.run(path, {"x": x.numpy(), "grid": grid.numpy()}, profile)
            except nnplan.UnavailableError as error:
                pytest.skip(f"{profile} does not run here: {error.message}")
            numpy.testing.assert_allclose(out["y"], expected, rtol=1e-4, atol=1e-5,
                                          err_msg=f"{mode} {padding_mode} {align_corners}")


class RoiHead(torch.nn.Module):
    """Features pooled over boxes by torchvision.ops.roi_align (ONNX RoiAlign)."""

    def __init__(self, sampling_ratio):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.sampling_ratio = sampling_ratio

    def forward(self, x, boxes):
        import torchvision

        features = torch.relu(self.conv(x))
        return torchvision.ops.roi_align(features, boxes, output_size=(3, 2), spatial_scale=0.5,
                                         sampling_ratio=self.sampling_ratio, aligned=True)


# aligned=True only: torchvision 0.14 writes RoiAlign without coordinate_transformation_mode, which
# ONNX reads as half_pixel (aligned=True) at opset 16; its aligned=False export therefore means
# half_pixel too, and nnplan, like ONNX, computes that (docs/onnx-support.md).
@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
@pytest.mark.parametrize("sampling_ratio", [-1, 2])
def test_roi_align_runs_as_torchvision_does(tmp_path, profile, sampling_ratio):
    pytest.importorskip("torchvision", reason="python3-torchvision is not installed")
    torch.manual_seed(3)
    x = torch.randn(2, 3, 16, 16)
    # Boxes (batch index, x1, y1, x2, y2) inside, across the border and partly outside.
    boxes = torch.tensor([[0, 1.5, 2.0, 20.0, 14.5], [1, 4.0, 3.3, 9.9, 29.0],
                          [1, -3.0, -2.0, 6.0, 5.0]])
    model = RoiHead(sampling_ratio).eval()
    path = tmp_path / "roi_head.onnx"
    torch.onnx.export(model, (x, boxes), str(path), input_names=["x", "boxes"],
                      output_names=["y"], opset_version=16)
    with torch.no_grad():
        expected = model(x, boxes).numpy()
    try:
        out = nnplan.run(path, {"x": x.numpy(), "boxes": boxes.numpy()}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    numpy.testing.assert_allclose(out["y"], expected, rtol=1e-5, atol=1e-6)


# AvgPool2d with ceil_mode: the last window runs past the input and its divisor counts only what
# it covers. (PyTorch 1.13 writes count_include_pad=True with padding as an explicit Pad before the
# AveragePool, after which ONNX's ceil rule may keep one more window than PyTorch does, e.g.
# kernel 2, stride 3, padding 1 over 8: that export differs from PyTorch under any ONNX runtime.)
@pytest.mark.parametrize("profile", ["checked_cpu", "fast_cpu"])
@pytest.mark.parametrize("kernel, stride, padding, count_include_pad",
                         [(3, 2, 1, True), (3, 2, 1, False), (3, 2, 0, True), (2, 3, 1, False)])
def test_average_pool_with_ceil_mode_runs_as_pytorch_does(tmp_path, profile, kernel, stride,
                                                          padding, count_include_pad):
    torch.manual_seed(4)
    x = torch.randn(2, 3, 7, 8)
    model = torch.nn.AvgPool2d(kernel, stride=stride, padding=padding, ceil_mode=True,
                               count_include_pad=count_include_pad).eval()
    path, x, expected = export(model, x, tmp_path, "avg_pool_ceil.onnx", "y")
    try:
        out = nnplan.run(path, {"x": x}, profile)
    except nnplan.UnavailableError as error:
        pytest.skip(f"{profile} does not run here: {error.message}")
    assert out["y"].shape == expected.shape
    numpy.testing.assert_allclose(out["y"], expected, rtol=1e-6, atol=1e-6)
