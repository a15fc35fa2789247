"""Data: numpy views on the C state, settings switched at run time, metrics and contacts,
and the GIL released while stepping."""
import gc
import math
import re
import threading
import time

import numpy as np
import pytest

import moreau


def test_views_are_the_state(paths):
    m = moreau.load(paths.model("pendulum.xml"))
    d = moreau.Data(m)
    assert d.qpos.shape == (1,) and d.xpos.shape == (m.nbody, 3) and d.xquat.shape == (m.nbody, 4)
    assert d.qpos is d.qpos and not d.qpos.flags.owndata
    # Swing the hinge (about y) to 0.3 rad by writing into the view: the bob, 1 m below the
    # pivot at z = 1.5, moves to the analytic position.
    d.qpos[0] = 0.3
    moreau.kinematics(m, d)
    bob = m.geom_names.index("bob")
    pivot = np.array([0, 0, 1.5])
    expected = pivot + np.array([-math.sin(0.3), 0, -math.cos(0.3)])
    np.testing.assert_allclose(d.geom_xpos[bob], expected, atol=1e-12)
    np.testing.assert_allclose(d.xquat[1], [math.cos(0.15), 0, math.sin(0.15), 0], atol=1e-12)
    # Whole assignment copies into the same memory; a wrong shape is refused.
    view = d.qpos
    d.qpos = [0.1]
    assert view[0] == 0.1
    with pytest.raises(ValueError):
        d.qpos = [1, 2, 3]
    d.time = 2.5
    assert d.time == 2.5


def test_views_survive_reset_and_del(paths):
    m = moreau.load(paths.model("double_pendulum.xml"))
    d = moreau.Data(m)
    qpos, qvel = d.qpos, d.qvel
    moreau.reset_keyframe(m, d, "kicked")
    np.testing.assert_array_equal(qvel, m.key_qvel[m.key_names.index("kicked")])
    moreau.reset_keyframe(m, d, 0)
    np.testing.assert_array_equal(qpos, m.key_qpos[0])
    moreau.step(m, d, 10)
    moreau.reset(m, d)
    np.testing.assert_array_equal(qpos, m.qpos0)
    assert d.time == 0 and d.nstep == 0 and not qvel.any()
    moreau.step(m, d, 5)
    expected = qpos.copy()
    del d
    gc.collect()
    np.testing.assert_array_equal(qpos, expected)  # the array keeps the state alive


def test_ctrl_drives_the_actuators(paths):
    m = moreau.load(paths.model("fourbar.xml"))
    assert m.nu >= 1
    d = moreau.Data(m)
    d.ctrl[:] = 2.0
    moreau.forward(m, d)
    assert np.abs(d.actuator_force).max() > 0
    np.testing.assert_allclose(d.qfrc_actuator.sum(), (d.actuator_force * m.actuator_gear).sum(), rtol=1e-12)


def test_settings_switch_at_run_time(paths):
    m = moreau.load(paths.humanoid)
    names = [s["name"] for s in moreau.solvers()]
    assert len(names) == 10 and "pgs" in names and "sap" in names and "newton" in names
    assert sum(s["default"] for s in moreau.solvers()) == 1
    default = [s["name"] for s in moreau.solvers() if s["default"]][0]
    # each solver's own cap applies while opt.max_iter is 0, the default
    caps = {s["name"]: s["max_iter"] for s in moreau.solvers()}
    assert caps["newton"] == 500 and caps["pgs"] == 100
    plain, switched = moreau.Data(m), moreau.Data(m)
    assert plain.opt.max_iter == 0
    moreau.step(m, plain, 150)
    moreau.step(m, switched, 150)
    np.testing.assert_array_equal(plain.qpos, switched.qpos)
    assert plain.ncon > 0  # the humanoid is on the floor: the solver matters
    switched.solver = "sap"
    switched.integrator = "midpoint"
    assert switched.solver == "sap" and switched.opt.solver == "sap"
    assert switched.integrator == "midpoint" and plain.integrator == "euler"
    moreau.step(m, plain, 1)
    moreau.step(m, switched, 1)
    assert switched.metrics["newton_iters"] > 0 and plain.metrics["newton_iters"] == 0
    moreau.step(m, plain, 20)
    moreau.step(m, switched, 20)
    assert np.abs(plain.qpos - switched.qpos).max() > 1e-9
    # The model's defaults are untouched.
    assert m.opt.solver == default and m.opt.integrator == "euler"
    switched.opt.gravity[2] = 0.0
    assert switched.opt.gravity[2] == 0 and m.opt.gravity[2] == -9.81


def mr_metrics_fields(paths):
    """The field names of mr_metrics, read from the public header itself."""
    with open(f"{paths.source}/engine/core/moreau.h") as f:
        header = f.read()
    body = re.search(r"typedef struct mr_metrics \{(.*?)\} mr_metrics;", header, re.S).group(1)
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    return re.findall(r"\b(\w+)\s*;", body)


def test_metrics_has_every_field(paths):
    fields = mr_metrics_fields(paths)
    assert "complementarity" in fields and len(fields) >= 10
    m = moreau.load(paths.humanoid)
    d = moreau.Data(m)
    moreau.step(m, d, 150)
    metrics = d.metrics
    for key in fields + ["iterations", "pgs_sweeps", "residual", "status", "nefc", "ncon"]:
        assert key in metrics, key
    assert metrics["ncon"] == d.ncon > 0
    assert metrics["iterations"] >= 1 and metrics["residual"] >= 0
    assert 0 <= metrics["pgs_sweeps"] <= metrics["iterations"]
    assert metrics["energy"] == pytest.approx(d.energy.sum(), rel=1e-12)
    history = d.solver_history
    assert len(history) == metrics["iterations"]
    assert history[-1] == pytest.approx(metrics["residual"], rel=1e-12, abs=1e-300)


def test_contacts_are_a_structured_array(paths):
    m = moreau.load(paths.humanoid)
    d = moreau.Data(m)
    moreau.step(m, d, 150)
    c = d.contacts
    assert c.dtype == moreau.contact_dtype and len(c) == d.ncon > 0
    for name in ("geom1", "geom2", "pos", "normal", "frame", "dist", "id", "impulse"):
        assert name in c.dtype.names
    np.testing.assert_array_equal(c["normal"], c["frame"][:, 0, :])
    np.testing.assert_allclose(np.linalg.norm(c["normal"], axis=1), 1, atol=1e-12)
    assert (c["geom1"] < m.ngeom).all() and (c["geom2"] < m.ngeom).all()
    np.testing.assert_array_equal(c["body1"], m.geom_bodyid[c["geom1"]])
    # Coulomb's cone holds for the impulses the solver returned (normal >= 0, friction
    # within mu times the normal), up to the solver's tolerance.
    normal, tangent = c["impulse"][:, 0], np.linalg.norm(c["impulse"][:, 1:], axis=1)
    assert (normal >= -1e-9).all() and normal.max() > 0
    assert (tangent <= c["friction"][:, 0] * normal + 1e-6).all()


def stepped_while_ticking(m, d, n):
    """Steps d n times in another thread while this one ticks: the call's window and the
    ticks this thread took meanwhile."""
    window = {}

    def worker():
        window["start"] = time.perf_counter()
        moreau.step(m, d, n)
        window["end"] = time.perf_counter()

    ticks = []
    thread = threading.Thread(target=worker)
    thread.start()
    while thread.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    thread.join()
    return window["start"], window["end"], ticks


def test_step_releases_the_gil(paths):
    m = moreau.load(paths.humanoid)
    d = moreau.Data(m)
    d.opt.disable = moreau.DISABLE_CONTACT  # steady cost per step
    n = 20000
    for attempt in range(6):  # a call of at least 0.2 s, however fast the machine
        start, end, ticks = stepped_while_ticking(m, d, n)
        if end - start >= 0.2:
            break
        n *= 2
    assert end - start >= 0.2
    # This thread ran Python while the other was inside one step() call: with the GIL held
    # through the call, no tick could fall strictly inside it.
    inside = [t for t in ticks if start + 0.05 < t < end - 0.05]
    assert len(inside) >= 10


def test_a_busy_data_is_refused(paths):
    m = moreau.load(paths.humanoid)
    d = moreau.Data(m)
    d.opt.disable = moreau.DISABLE_CONTACT
    errors = []
    thread = threading.Thread(target=lambda: moreau.step(m, d, 20000))
    thread.start()
    while d.nstep == 0 and thread.is_alive():
        time.sleep(0.0005)
    for attempt in (lambda: moreau.step(m, d), lambda: setattr(d, "solver", "sap"),
                    lambda: moreau.reset(m, d)):
        try:
            attempt()
        except moreau.Error as e:
            errors.append(str(e))
    thread.join()
    assert d.nstep == 20000  # the stepping thread was not disturbed
    assert len(errors) == 3 and all("being stepped by another thread" in e for e in errors)
    assert d.solver == [s["name"] for s in moreau.solvers() if s["default"]][0]  # not "sap"


def test_dropped_data_and_views_are_freed(paths):
    """Data objects with their views, dropped, give their C memory back (each holds about
    0.3 MB of touched state for the humanoid: 300 leaked would be about 100 MB)."""
    import resource
    m = moreau.load(paths.humanoid)

    def churn():
        for _ in range(300):
            d = moreau.Data(m)
            views = (d.qpos, d.xpos, d.opt.gravity, d.energy, m.body_mass)
            moreau.step(m, d, 1)
            del d, views
        gc.collect()

    churn()  # warm-up: the allocator's high-water mark
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    churn()
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mb < 30
