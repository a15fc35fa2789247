"""Python and the CLI compute the same thing: a model stepped from Python and recorded with
moreau.Recorder gives the recording `moreau run --record` writes, dataset by dataset
(HDF5) or byte for byte (CSV); the per-step metrics and contacts seen from Python are the
ones the CLI records."""
import csv

import h5py
import numpy as np

import moreau


def python_run(m, path, steps, setup=None, every=1, on_step=None):
    """The CLI's loop from Python: row 0, then a row after every `every`-th step."""
    d = moreau.Data(m)
    if setup:
        setup(m, d)
    with moreau.Recorder(path, m) as rec:
        rec.write(d)
        for i in range(1, steps + 1):
            moreau.step(m, d)
            if on_step:
                on_step(i, d)
            if i % every == 0:
                rec.write(d)
    return d


def h5_datasets(path):
    with h5py.File(path, "r") as f:
        return {k: f[k][...] for k in f}, dict(f.attrs)


def assert_same_h5(a, b):
    data_a, attrs_a = h5_datasets(a)
    data_b, attrs_b = h5_datasets(b)
    assert sorted(data_a) == sorted(data_b)
    assert len(data_a["time"]) > 1
    for key in data_a:
        np.testing.assert_array_equal(data_a[key], data_b[key], err_msg=key)
    assert attrs_a == attrs_b
    return data_a


def test_humanoid_falling_on_the_floor(paths, cli, tmp_path):
    model, steps = paths.humanoid, 300
    cli("run", model, "--steps", steps, "--record", tmp_path / "cli.h5", "--contacts",
        tmp_path / "contacts.csv", "--quiet", check=True)
    m = moreau.load(model)
    metrics, contacts = [], []

    def on_step(i, d):
        metrics.append(d.metrics)
        for c in d.contacts:
            contacts.append([i, c["geom1"], c["geom2"], *c["pos"], *c["normal"], c["dist"], c["id"]])

    python_run(m, tmp_path / "py.h5", steps, on_step=on_step)
    data = assert_same_h5(tmp_path / "cli.h5", tmp_path / "py.h5")
    assert data["ncon"].max() > 0 and data["iters"].max() > 0  # contact was solved
    # d.metrics after step i is row i of the recording.
    for key, name in (("iterations", "iters"), ("residual", "residual"), ("ncon", "ncon"),
                      ("nefc", "nefc"), ("status", "solver_status"), ("primal", "primal"),
                      ("dual", "dual"), ("complementarity", "complementarity"),
                      ("penetration", "penetration"), ("loop_closure", "loop_closure")):
        np.testing.assert_array_equal([x[key] for x in metrics], data[name][1:], err_msg=key)
    # d.contacts after step i are the CLI's contact rows of step i.
    with open(tmp_path / "contacts.csv") as f:
        rows = list(csv.DictReader(f))
    columns = ["step", "geom1", "geom2", "pos_x", "pos_y", "pos_z", "normal_x", "normal_y",
               "normal_z", "dist", "id"]
    expected = [[float(r[c]) for c in columns] for r in rows]
    assert len(expected) > 100
    np.testing.assert_array_equal(np.array(contacts, dtype=float), np.array(expected))


def test_keyframe_midpoint_csv_every_5(paths, cli, tmp_path):
    model = paths.model("double_pendulum.xml")
    cli("run", model, "--keyframe", "chaotic", "--integrator", "midpoint", "--steps", 400,
        "--record-every", 5, "--record", tmp_path / "cli.csv", "--quiet", check=True)
    m = moreau.load(model)

    def setup(m, d):
        moreau.reset_keyframe(m, d, "chaotic")
        d.integrator = "midpoint"

    python_run(m, tmp_path / "py.csv", 400, setup, every=5)
    cli_text = (tmp_path / "cli.csv").read_text()
    assert cli_text.count("\n") == 1 + 1 + 400 // 5
    assert (tmp_path / "py.csv").read_text() == cli_text


def test_actuated_keyframe_sap_and_dt(paths, cli, tmp_path):
    model = paths.model("fourbar.xml")
    cli("run", model, "--keyframe", "driven", "--solver", "sap", "--dt", 0.001, "--steps", 500,
        "--record", tmp_path / "cli.h5", "--quiet", check=True)
    m = moreau.load(model)

    def setup(m, d):
        moreau.reset_keyframe(m, d, "driven")
        d.solver = "sap"
        d.opt.timestep = 0.001

    python_run(m, tmp_path / "py.h5", 500, setup)
    data = assert_same_h5(tmp_path / "cli.h5", tmp_path / "py.h5")
    assert (data["ctrl"] == 2).all() and data["nefc"].max() > 0


def test_urdf_robot_with_package_path(paths, cli, tmp_path):
    cli("run", paths.panda, "--package-path", paths.robots, "--solver", "admm", "--steps", 300,
        "--record", tmp_path / "cli.h5", "--quiet", check=True)
    m = moreau.load(paths.panda, package_path=paths.robots, quiet=True)
    python_run(m, tmp_path / "py.h5", 300, lambda m, d: setattr(d, "solver", "admm"))
    data = assert_same_h5(tmp_path / "cli.h5", tmp_path / "py.h5")
    assert np.abs(data["qpos"][-1] - data["qpos"][0]).max() > 0.01  # the arm moved
