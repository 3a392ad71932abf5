#!/usr/bin/python3
"""PyTorch's latency on the fast CPU benchmark set (issue 15), beside bench/peers/run_compare.sh.

For each model of bench/models/export_fast_cpu_models.py (the same modules, seed and input shape
the ONNX files were exported from): the median of N timed forward calls after W warm-up calls,
under torch.no_grad() and torch.set_num_threads(T), in two forms:
  eager   the nn.Module as it is;
  frozen  torch.jit.trace, torch.jit.freeze and torch.jit.optimize_for_inference (which on x86
          rewrites convolutions to oneDNN's blocked layouts).
Prints one markdown row per model: name, eager ms, frozen ms (or the reason a form failed).

Usage: torch_run.py [--threads T] [--runs N] [--warmup W] [--only NAME ...]
Run with /usr/bin/python3 (Debian's python3-torch 1.13).
"""

import argparse
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models"))
import export_fast_cpu_models  # noqa: E402


def median_ms(fn, x, runs, warmup):
    for _ in range(warmup):
        fn(x)
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn(x)
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    families = export_fast_cpu_models.FAMILIES
    parser.add_argument("--only", nargs="+", metavar="NAME", choices=list(families))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"# torch {torch.__version__}, threads {torch.get_num_threads()}, runs {args.runs}, "
          f"warm-up {args.warmup}")
    print("| model | PyTorch eager | PyTorch frozen (optimize_for_inference) |")
    print("|---|---:|---:|")
    for name in args.only or list(families):
        build, shape = families[name]
        torch.manual_seed(0)
        model = build().eval()
        x = torch.randn(*shape)
        with torch.no_grad():
            eager = f"{median_ms(model, x, args.runs, args.warmup):.2f} ms"
            try:
                frozen_model = torch.jit.optimize_for_inference(
                    torch.jit.freeze(torch.jit.trace(model, (x,)).eval()))
                frozen = f"{median_ms(frozen_model, x, args.runs, args.warmup):.2f} ms"
            except Exception as e:  # report and go on
                frozen = f"failed: {type(e).__name__}"
        print(f"| {name} | {eager} | {frozen} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
