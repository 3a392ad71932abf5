#!/usr/bin/env python3
"""Compares two .npy tensors, nnplan's output against ONNX Runtime's (bench/peers/run_compare.sh).

Usage: compare_outputs.py NNPLAN.npy ORT.npy
Prints one line: `shape=[...] max_abs=... max_rel=... max_rel_elem=...`, where
  max_abs      = max |nnplan - ort| over every element,
  max_rel      = max_abs / max |ort| (the error relative to the output's largest magnitude),
  max_rel_elem = max |nnplan - ort| / |ort| over the elements with |ort| >= 1e-3 * max |ort|.
Exits 1 when the shapes differ. Run it with /usr/bin/python3 (Debian's numpy).
"""
import sys

import numpy as np


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    nn = np.load(argv[1]).astype(np.float64)
    ort = np.load(argv[2]).astype(np.float64)
    if nn.shape != ort.shape:
        print(f"shape mismatch: nnplan {list(nn.shape)} ort {list(ort.shape)}")
        return 1
    diff = np.abs(nn - ort)
    scale = np.abs(ort).max() if ort.size else 0.0
    max_abs = diff.max() if diff.size else 0.0
    max_rel = max_abs / scale if scale > 0 else float("nan")
    big = np.abs(ort) >= 1e-3 * scale
    max_rel_elem = (diff[big] / np.abs(ort[big])).max() if scale > 0 and big.any() else float("nan")
    print(f"shape={list(ort.shape)} max_abs={max_abs:.3e} max_rel={max_rel:.3e} "
          f"max_rel_elem={max_rel_elem:.3e}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
