"""Shared fixtures of the Python module's tests (run by ctest as `python_module`, or by hand:
PYTHONPATH=build/python NNPLAN_CLI=build/bin/nnplan python3 -m pytest tests/python)."""

import os
import pathlib
import subprocess

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def source_dir():
    return SOURCE_DIR


@pytest.fixture
def examples():
    return SOURCE_DIR / "examples"


@pytest.fixture
def cli():
    """Runs the nnplan command line of the same build: cli(args...) -> CompletedProcess."""
    binary = os.environ.get("NNPLAN_CLI")
    if not binary:
        pytest.skip("NNPLAN_CLI is not set (ctest sets it to build/bin/nnplan)")

    def run(*args):
        return subprocess.run([binary, *map(str, args)], cwd=SOURCE_DIR, capture_output=True)

    return run
