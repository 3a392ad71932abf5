#!/usr/bin/python3
"""Exports 24 common model families to ONNX, one OUT_DIR/<name>.onnx each.

Uses Debian's python3-torch 1.13 and python3-torchvision 0.14 (bench/models/install-export-deps.sh
installs them; run this with /usr/bin/python3 so a pyenv or venv python does not shadow them).
Every model: random weights (torch.manual_seed(0) before building it), eval mode, batch 1, static
shapes, torch.onnx.export(..., opset_version=17, do_constant_folding=True), one input named
"input" and one output named "output".

With --torchvision it exports instead every classification model torchvision 0.14 lists
(torchvision.models.list_models()) with fewer than 100 M parameters and at most 20 G multiply-adds
per image at its default input size (the crop size of its default weights' transforms; the
multiply-adds of its convolutions and linear layers, counted by forward hooks: torchvision's
documentation calls the same count "GFLOPS"), and its segmentation models (FCN, DeepLabV3,
LRASPP: their `out` output, at [1, 3, 520, 520], the size their default transforms resize to).
Each file is named `tv_<model>.onnx`; the families above that are also torchvision models are
exported again under that name, so the set stands on its own.

Usage: export_models.py [OUT_DIR] [--only NAME ...] [--list] [--torchvision]
OUT_DIR defaults to /tmp/nnplan-models. Prints one line per model: name, file size, node count and
the op types by count. Exits 1 if any model failed to export (the others are still written).
"""

import argparse
import collections
import os
import sys
import time
import traceback

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

OPSET = 17


# ---------------------------------------------------------------------------------------------
# Small models written here (the non-torchvision families)


class TransformerEncoderNet(nn.Module):
    """nn.TransformerEncoder: d_model 256, 4 heads, 2 layers, batch_first, input [1, 32, 256]."""

    def __init__(self):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                           dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False)

    def forward(self, x):
        return self.encoder(x)


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_head, seq):
        super().__init__()
        self.n_head = n_head
        self.d_head = d_model // n_head
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        # True above the diagonal: the positions a query may not see.
        self.register_buffer("mask", torch.triu(torch.ones(seq, seq, dtype=torch.bool), diagonal=1))

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        q = q.view(b, t, self.n_head, self.d_head).transpose(1, 2)
        k = k.view(b, t, self.n_head, self.d_head).transpose(1, 2)
        v = v.view(b, t, self.n_head, self.d_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (self.d_head ** 0.5))
        att = att.masked_fill(self.mask[:t, :t], float("-inf"))
        att = F.softmax(att, dim=-1)
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.proj(y)


class GPTBlock(nn.Module):
    """One pre-LN GPT decoder block, embedding-free: input [1, 32, 128] floats, 4 heads."""

    def __init__(self, d_model=128, n_head=4, seq=32):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_head, seq)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(),
                                 nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class LSTMNet(nn.Module):
    """nn.LSTM, 2 layers, hidden 128, batch_first, input [1, 16, 64]; returns the output sequence."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(input_size=64, hidden_size=128, num_layers=2, batch_first=True)

    def forward(self, x):
        y, _ = self.lstm(x)
        return y


class GRUNet(nn.Module):
    """nn.GRU, bidirectional, hidden 128, batch_first, input [1, 32, 64]; returns the output sequence."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(input_size=64, hidden_size=128, batch_first=True, bidirectional=True)

    def forward(self, x):
        y, _ = self.gru(x)
        return y


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SmallUNet(nn.Module):
    """Two-level U-Net, input [1, 3, 64, 64]: the inner level upsamples with ConvTranspose2d, the
    outer with nn.Upsample(scale_factor=2, mode='nearest') followed by a conv; skips concatenate."""

    def __init__(self, classes=2):
        super().__init__()
        self.enc1 = conv_block(3, 16)
        self.enc2 = conv_block(16, 32)
        self.pool = nn.MaxPool2d(2)
        self.bottleneck = conv_block(32, 64)
        self.up2 = nn.ConvTranspose2d(64, 32, kernel_size=2, stride=2)
        self.dec2 = conv_block(64, 32)
        self.up1 = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(32, 16, 1))
        self.dec1 = conv_block(32, 16)
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        b = self.bottleneck(self.pool(e2))
        d2 = self.dec2(torch.cat([self.up2(b), e2], dim=1))
        d1 = self.dec1(torch.cat([self.up1(d2), e1], dim=1))
        return self.head(d1)


class BilinearUNet(SmallUNet):
    """SmallUNet with both decoder upsamplings bilinear (nn.Upsample(scale_factor=2,
    mode='bilinear', align_corners=False) then a conv), as segmentation models often write them."""

    def __init__(self, classes=2):
        super().__init__(classes)
        self.up2 = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 nn.Conv2d(64, 32, 1))
        self.up1 = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 nn.Conv2d(32, 16, 1))


class AudioConv1dNet(nn.Module):
    """M5-style raw-audio classifier, input [1, 1, 8000]: Conv1d, BatchNorm1d, ReLU, MaxPool1d,
    AdaptiveAvgPool1d(1), Linear."""

    def __init__(self, classes=35):
        super().__init__()
        layers = []
        cin = 1
        for i, cout in enumerate([32, 32, 64, 64]):
            k, s = (80, 4) if i == 0 else (3, 1)
            layers += [nn.Conv1d(cin, cout, kernel_size=k, stride=s, padding=0 if i == 0 else 1),
                       nn.BatchNorm1d(cout), nn.ReLU(), nn.MaxPool1d(4)]
            cin = cout
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(cin, classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.pool(self.features(x)), 1))


class MLP(nn.Module):
    """784 -> 256 -> 128 -> 10 with ReLU, input [1, 784]."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                                 nn.Linear(128, 10))

    def forward(self, x):
        return self.net(x)


# ---------------------------------------------------------------------------------------------
# The families: name -> (constructor, input shape)

tv = torchvision.models
IMAGE = (1, 3, 224, 224)

FAMILIES = collections.OrderedDict([
    ("resnet18", (lambda: tv.resnet18(weights=None), IMAGE)),
    ("resnet50", (lambda: tv.resnet50(weights=None), IMAGE)),
    ("alexnet", (lambda: tv.alexnet(weights=None), IMAGE)),
    ("vgg11", (lambda: tv.vgg11(weights=None), IMAGE)),
    ("densenet121", (lambda: tv.densenet121(weights=None), IMAGE)),
    ("squeezenet1_0", (lambda: tv.squeezenet1_0(weights=None), IMAGE)),
    ("googlenet", (lambda: tv.googlenet(weights=None, aux_logits=False, init_weights=True), IMAGE)),
    ("mobilenet_v2", (lambda: tv.mobilenet_v2(weights=None), IMAGE)),
    ("mobilenet_v3_small", (lambda: tv.mobilenet_v3_small(weights=None), IMAGE)),
    ("efficientnet_b0", (lambda: tv.efficientnet_b0(weights=None), IMAGE)),
    ("regnet_y_400mf", (lambda: tv.regnet_y_400mf(weights=None), IMAGE)),
    ("shufflenet_v2_x1_0", (lambda: tv.shufflenet_v2_x1_0(weights=None), IMAGE)),
    ("convnext_tiny", (lambda: tv.convnext_tiny(weights=None), IMAGE)),
    ("mnasnet0_5", (lambda: tv.mnasnet0_5(weights=None), IMAGE)),
    ("resnext50_32x4d", (lambda: tv.resnext50_32x4d(weights=None), IMAGE)),
    ("vit_b_16", (lambda: tv.vit_b_16(weights=None), IMAGE)),
    ("transformer_encoder", (TransformerEncoderNet, (1, 32, 256))),
    ("gpt_block", (GPTBlock, (1, 32, 128))),
    ("lstm", (LSTMNet, (1, 16, 64))),
    ("gru", (GRUNet, (1, 32, 64))),
    ("unet_small", (SmallUNet, (1, 3, 64, 64))),
    ("unet_bilinear", (BilinearUNet, (1, 3, 64, 64))),
    ("audio_conv1d", (AudioConv1dNet, (1, 1, 8000))),
    ("mlp", (MLP, (1, 784))),
])


# ---------------------------------------------------------------------------------------------
# The torchvision set (--torchvision)

MAX_PARAMS = 100_000_000
MAX_MACS = 20e9
SEGMENTATION_INPUT = (1, 3, 520, 520)


class SegmentationOut(nn.Module):
    """A torchvision segmentation model's `out` output (the dict's other entry, `aux`, is absent
    without weights)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


def multiply_adds(model, shape):
    """The multiply-adds of one forward pass's Conv and Linear modules at input `shape`."""
    total = 0

    def conv(module, _inputs, output):
        nonlocal total
        per_output = module.in_channels // module.groups
        for k in module.kernel_size:
            per_output *= k
        total += output.numel() * per_output

    def linear(module, _inputs, output):
        nonlocal total
        total += output.numel() * module.in_features

    hooks = []
    for m in model.modules():
        if isinstance(m, (nn.Conv1d, nn.Conv2d, nn.Conv3d)):
            hooks.append(m.register_forward_hook(conv))
        elif isinstance(m, nn.Linear):
            hooks.append(m.register_forward_hook(linear))
    with torch.no_grad():
        model(torch.zeros(*shape))
    for h in hooks:
        h.remove()
    return total


def torchvision_families(verbose=False, only=None):
    """name -> (constructor, input shape) for the torchvision set, in list_models() order; with
    `only`, for those of its names that are in the set (the others are not built)."""
    out = collections.OrderedDict()
    for name in tv.list_models(module=tv):
        if only is not None and "tv_" + name not in only:
            continue
        build = (lambda n=name: tv.get_model(n, weights=None))
        params = sum(p.numel() for p in build().parameters())
        if params >= MAX_PARAMS:
            if verbose:
                print(f"# {name}: {params / 1e6:.1f} M parameters, left out", flush=True)
            continue
        size = tv.get_model_weights(name).DEFAULT.transforms().crop_size[0]
        shape = (1, 3, size, size)
        macs = multiply_adds(build().eval(), shape)
        if macs > MAX_MACS:
            if verbose:
                print(f"# {name}: {macs / 1e9:.1f} G multiply-adds at {size}, left out", flush=True)
            continue
        if verbose:
            print(f"# {name}: {params / 1e6:.1f} M parameters, {macs / 1e9:.2f} G multiply-adds "
                  f"at {size}", flush=True)
        out["tv_" + name] = (build, shape)
    for name in tv.list_models(module=tv.segmentation):
        if only is not None and "tv_" + name not in only:
            continue
        out["tv_" + name] = ((lambda n=name: SegmentationOut(tv.get_model(n, weights=None,
                                                                          weights_backbone=None))),
                             SEGMENTATION_INPUT)
    return out


def op_summary(path):
    try:
        import onnx
    except ImportError:
        return None, ""
    model = onnx.load(path, load_external_data=False)
    counts = collections.Counter(n.op_type for n in model.graph.node)
    text = " ".join(f"{op}:{c}" for op, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return sum(counts.values()), text


def export_one(name, out_dir, families):
    build, shape = families[name]
    torch.manual_seed(0)
    model = build().eval()
    x = torch.randn(*shape)
    path = os.path.join(out_dir, name + ".onnx")
    # Not under torch.no_grad(): with autograd off, torch 1.13's nn.TransformerEncoderLayer in eval
    # mode takes its fused fast path, aten::_transformer_encoder_layer_fwd, which has no ONNX export.
    torch.onnx.export(model, (x,), path, opset_version=OPSET, do_constant_folding=True,
                      input_names=["input"], output_names=["output"])
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", nargs="?", default="/tmp/nnplan-models")
    parser.add_argument("--only", nargs="+", metavar="NAME")
    parser.add_argument("--list", action="store_true", help="print the family names and exit")
    parser.add_argument("--torchvision", action="store_true",
                        help="the torchvision set (tv_<model>) instead of the families")
    args = parser.parse_args()
    families = (torchvision_families(verbose=args.list, only=args.only) if args.torchvision
                else FAMILIES)
    unknown = [n for n in args.only or [] if n not in families]
    if unknown:
        parser.error(f"unknown model(s): {' '.join(unknown)}; --list prints them")
    if args.list:
        print("\n".join(families))
        return 0
    os.makedirs(args.out_dir, exist_ok=True)
    print(f"# torch {torch.__version__}, torchvision {torchvision.__version__}, opset {OPSET}",
          flush=True)
    failed = []
    for name in args.only or list(families):
        start = time.monotonic()
        try:
            path = export_one(name, args.out_dir, families)
        except Exception as e:  # report and go on with the others
            failed.append(name)
            print(f"{name}: export FAILED: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}",
                  flush=True)
            traceback.print_exc(file=sys.stderr)
            continue
        nodes, ops = op_summary(path)
        size = os.path.getsize(path)
        print(f"{name}: {size / 1e6:.1f} MB, {nodes} nodes, {time.monotonic() - start:.0f} s: {ops}",
              flush=True)
    if failed:
        print(f"# failed: {' '.join(failed)}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
