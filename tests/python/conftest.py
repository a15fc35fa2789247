"""Shared set-up of the Python module's tests (run by ctest: tests/CMakeLists.txt).

ctest sets PYTHONPATH to build/python and names the moreau command (MOREAU_BIN), the
repository (MOREAU_SOURCE_DIR), ../shared (MOREAU_SHARED_DIR) and MuJoCo's sample models
(MUJOCO_MODEL_DIR). A missing variable or file is a failure, never a skip.
"""
import os
import subprocess

import pytest


def env_path(name):
    value = os.environ.get(name)
    assert value, f"{name} is not set (run the tests through ctest)"
    return value


def existing(path):
    assert os.path.exists(path), f"required file missing: {path}"
    return path


class Paths:
    def __init__(self):
        self.bin = existing(env_path("MOREAU_BIN"))
        self.source = existing(env_path("MOREAU_SOURCE_DIR"))
        self.shared = existing(env_path("MOREAU_SHARED_DIR"))
        self.mujoco = existing(env_path("MUJOCO_MODEL_DIR"))

    def model(self, name):
        """A model of the repository's models/ folder."""
        return existing(os.path.join(self.source, "models", name))

    def test_data(self, *parts):
        return existing(os.path.join(self.source, "tests", "data", *parts))

    @property
    def humanoid(self):
        return existing(os.path.join(self.mujoco, "humanoid", "humanoid.xml"))

    @property
    def robots(self):
        """Where package:// URIs of example-robot-data resolve."""
        return existing(os.path.join(self.shared, "models"))

    @property
    def panda(self):
        return existing(os.path.join(self.robots, "example-robot-data", "robots",
                                     "panda_description", "urdf", "panda.urdf"))


@pytest.fixture(scope="session")
def paths():
    return Paths()


@pytest.fixture(scope="session")
def cli(paths):
    """Runs the moreau command; returns the CompletedProcess (text)."""
    def run(*args, check=False):
        result = subprocess.run([paths.bin, *map(str, args)], capture_output=True, text=True,
                                timeout=600)
        if check:
            assert result.returncode == 0, result.stderr
        return result
    return run


def cli_error_line(result):
    """The CLI's one error line without its 'moreau: ' prefix."""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("moreau: "), lines[0]
    return lines[0][len("moreau: "):]
