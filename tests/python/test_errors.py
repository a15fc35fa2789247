"""moreau.Error carries the one line the moreau command prints (without 'moreau: ')."""
import glob
import os

import numpy as np
import pytest

import moreau
from conftest import cli_error_line


def bad_files(paths):
    files = sorted(glob.glob(os.path.join(paths.test_data("bad"), "*.xml")) +
                   glob.glob(os.path.join(paths.test_data("bad"), "*.urdf")))
    assert len(files) >= 10, "tests/data/bad lost its files"
    return files


def load_error(path, **kwargs):
    with pytest.raises(moreau.Error) as caught:
        moreau.load(path, quiet=True, **kwargs)
    return str(caught.value)


def test_bad_files_give_the_cli_message(paths, cli):
    for path in bad_files(paths):
        result = cli("info", path, "--quiet")
        if result.returncode == 0:
            # Repaired with a warning (e.g. a balanced inertia): Python loads it too.
            assert moreau.load(path, quiet=True).nbody >= 1
            continue
        assert result.returncode == 2, (path, result.stderr)
        message = load_error(path)
        assert message == cli_error_line(result), path
        assert "\n" not in message


def test_missing_file(paths, cli):
    path = os.path.join(paths.source, "no", "such", "model.xml")
    message = load_error(path)
    assert message == cli_error_line(cli("info", path))
    assert "no/such/model.xml" in message


def test_error_is_an_exception_with_the_line():
    assert issubclass(moreau.Error, Exception)
    assert "FILE:LINE" in moreau.Error.__doc__


def test_bad_keyframe_and_solver(paths, cli):
    path = paths.model("double_pendulum.xml")
    m = moreau.load(path)
    d = moreau.Data(m)
    for key in ("nope", 7):
        with pytest.raises(moreau.Error) as caught:
            moreau.reset_keyframe(m, d, key)
        expected = cli_error_line(cli("run", path, "--keyframe", key, "--steps", "1"))
        assert str(caught.value) == expected
    with pytest.raises(moreau.Error, match=r"unknown solver 'nope' \(moreau.solvers\(\) lists them\)"):
        d.solver = "nope"
    with pytest.raises(moreau.Error, match="expected euler or midpoint"):
        d.integrator = "rk4"
    with pytest.raises(moreau.Error, match="bad value -1 for timestep: expected seconds > 0"):
        d.opt.timestep = -1
    with pytest.raises(moreau.Error, match="bad value -1 for max_iter"):
        d.opt.max_iter = -1
    assert d.solver == m.opt.solver and d.opt.timestep == m.opt.timestep  # nothing changed


def test_divergence_names_the_step(paths, cli):
    path = paths.model("pendulum.xml")
    m = moreau.load(path)
    d = moreau.Data(m)
    moreau.step(m, d, 3)
    d.qvel[0] = np.inf
    with pytest.raises(moreau.Error) as caught:
        moreau.step(m, d, 10)
    message = str(caught.value)
    assert message.startswith(f"{path}: simulation diverged at step 4 (t = 0.006")
    assert message.endswith("): non-finite state")
    assert d.nstep == 4  # the loop stopped at the failing step


def test_wrong_arguments(paths):
    m = moreau.load(paths.model("pendulum.xml"))
    other = moreau.load(paths.model("double_pendulum.xml"))
    d = moreau.Data(m)
    with pytest.raises(moreau.Error, match="made for another model"):
        moreau.step(other, d)
    with pytest.raises(TypeError, match="expected a moreau.Data"):
        moreau.step(m, m)
    with pytest.raises(TypeError):
        moreau.step(m, d, 1, 2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'steps'"):
        moreau.step(m, d, steps=2)
    with pytest.raises(moreau.Error, match="bad value -1 for nstep"):
        moreau.step(m, d, -1)
    with pytest.raises(TypeError):
        moreau.Data(d)
    moreau.step(m=m, d=d, nstep=2)
    assert d.nstep == 2
