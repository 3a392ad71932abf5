#!/usr/bin/python3
"""Exports the fast CPU benchmark set (issue 15) to ONNX, one OUT_DIR/<name>.onnx each.

The set: resnet18, resnet50, mobilenet_v2, efficientnet_b0 (as export_models.py writes them), a
BERT-base-sized encoder layer (d_model 768, 12 heads, feed-forward 3072, sequence 128, batch 1),
the MLP of export_models.py at batch 1 and at batch 64, and the small CNN of examples/cnn.json
(conv 3->8 3x3, batch norm, relu, 2x2 max pool, linear 2048->10, softmax; batch 1, 3x32x32).
Same rules as export_models.py: torch.manual_seed(0), eval mode, opset 17, constant folding, one
input "input", one output "output". Run with /usr/bin/python3 (Debian's python3-torch).

Usage: export_fast_cpu_models.py [OUT_DIR] [--only NAME ...]
"""

import argparse
import os
import sys

import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_models  # noqa: E402  (the shared families and their export rules)


class BertLayer(nn.Module):
    """One nn.TransformerEncoderLayer of BERT-base's size (GELU, post-norm), input [1, 128, 768]."""

    def __init__(self):
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d_model=768, nhead=12, dim_feedforward=3072,
                                                dropout=0.1, activation="gelu", batch_first=True)

    def forward(self, x):
        return self.layer(x)


class SmallCnn(nn.Module):
    """examples/cnn.json as a torch module: conv, batch norm, relu, max pool, linear, softmax."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(8 * 16 * 16, 10)

    def forward(self, x):
        x = self.pool(torch.relu(self.bn1(self.conv1(x))))
        return torch.softmax(self.fc(torch.flatten(x, 1)), dim=1)


FAMILIES = {
    "resnet18": export_models.FAMILIES["resnet18"],
    "resnet50": export_models.FAMILIES["resnet50"],
    "mobilenet_v2": export_models.FAMILIES["mobilenet_v2"],
    "efficientnet_b0": export_models.FAMILIES["efficientnet_b0"],
    "bert_base_layer": (BertLayer, (1, 128, 768)),
    "mlp": export_models.FAMILIES["mlp"],
    "mlp_b64": (export_models.FAMILIES["mlp"][0], (64, 784)),
    "small_cnn": (SmallCnn, (1, 3, 32, 32)),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir", nargs="?", default="/tmp/nnplan-fast-cpu-models")
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=list(FAMILIES))
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    export_models.FAMILIES.update(FAMILIES)
    for name in args.only or list(FAMILIES):
        path = export_models.export_one(name, args.out_dir)
        nodes, ops = export_models.op_summary(path)
        print(f"{name}: {os.path.getsize(path) / 1e6:.1f} MB, {nodes} nodes: {ops}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
