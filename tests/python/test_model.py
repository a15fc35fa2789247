"""moreau.load and Model: sizes, names and arrays agree with `moreau info --json`, the
URDF load options work, and a model is read-only."""
import gc
import json

import numpy as np
import pytest

import moreau


def info(cli, *args):
    return json.loads(cli("info", *args, "--json", "--quiet", check=True).stdout)


def test_sizes_and_names_match_the_cli(paths, cli):
    m = moreau.load(paths.humanoid)
    expected = info(cli, paths.humanoid)
    for key in ("nq", "nv", "nbody", "njnt", "ngeom", "nu", "neq", "nkey", "nmesh"):
        assert getattr(m, key) == expected[key], key
    assert m.opt.timestep == expected["timestep"]
    assert m.mass == pytest.approx(expected["mass"], rel=1e-12)
    assert list(m.body_names) == expected["body_names"]
    assert m.name == expected["model"]
    assert m.path == paths.humanoid
    # Sizes of the arrays follow the sizes.
    assert m.body_mass.shape == (m.nbody,)
    assert m.jnt_range.shape == (m.njnt, 2)
    assert m.qpos0.shape == (m.nq,)
    assert len(m.joint_names) == m.njnt and len(m.actuator_names) == m.nu
    assert m.body_mass.sum() == pytest.approx(expected["mass"], rel=1e-12)


def test_names_and_ids(paths):
    m = moreau.load(paths.model("double_pendulum.xml"))
    assert m.key_names == ("chaotic", "kicked")
    for kind, names in (("body", m.body_names), ("joint", m.joint_names), ("key", m.key_names)):
        for i, name in enumerate(names):
            if name:
                assert moreau.name2id(m, kind, name) == i
                assert moreau.id2name(m, kind, i) == name
    assert moreau.name2id(m, "body", "no such body") == -1
    with pytest.raises(moreau.Error, match="unknown object kind 'bodies'"):
        moreau.name2id(m, "bodies", "x")
    with pytest.raises(moreau.Error, match=r"no body 99 \(the model has"):
        moreau.id2name(m, "body", 99)


def test_keyframes_are_arrays(paths):
    m = moreau.load(paths.model("double_pendulum.xml"))
    assert m.nkey >= 2
    assert m.key_qpos.shape == (m.nkey, m.nq)
    k = m.key_names.index("chaotic")
    np.testing.assert_array_equal(m.key_qpos[k], [1.8, -0.6])


def test_model_is_read_only(paths):
    m = moreau.load(paths.model("pendulum.xml"))
    with pytest.raises(ValueError):
        m.body_mass[1] = 5.0
    with pytest.raises(AttributeError):
        m.nq = 3
    with pytest.raises(AttributeError, match="read-only"):
        m.opt.timestep = 0.01
    with pytest.raises(ValueError):
        m.opt.gravity[2] = 0
    with pytest.raises(TypeError):
        moreau.Model()


def test_views_keep_the_model_alive(paths):
    m = moreau.load(paths.model("pendulum.xml"))
    mass = m.body_mass
    expected = mass.copy()
    assert mass.base is not None and not mass.flags.owndata
    del m
    gc.collect()
    np.testing.assert_array_equal(mass, expected)


def test_urdf_load_options(paths):
    fixed = moreau.load(paths.panda, package_path=paths.robots, quiet=True)
    floating = moreau.load(paths.panda, floating=True, package_path=paths.robots, quiet=True)
    assert fixed.is_urdf and floating.is_urdf
    assert floating.nq == fixed.nq + 7 and floating.nv == fixed.nv + 6
    assert floating.jnt_type[0] == 0  # the free joint at the root
    # The SRDF beside the URDF excludes a-b and b-c; another SRDF given by name excludes a-c,
    # and a link never collides with its parent (a-b, b-c) whichever SRDF is read.
    urdf = paths.test_data("urdf", "srdf_test.urdf")
    beside = moreau.load(urdf, quiet=True)
    other = moreau.load(urdf, srdf=paths.test_data("urdf", "other.srdf"), quiet=True)
    body = {name: i for i, name in enumerate(beside.body_names)}
    pairs = lambda m: {tuple(sorted(p)) for p in zip(m.exclude_body1, m.exclude_body2)}
    assert pairs(beside) == {tuple(sorted((body["a"], body["b"]))), tuple(sorted((body["b"], body["c"])))}
    assert pairs(other) == pairs(beside) | {tuple(sorted((body["a"], body["c"])))}
    with pytest.raises(moreau.Error, match="no_such.srdf"):
        moreau.load(urdf, srdf="no_such.srdf", quiet=True)
    # Path-like arguments are accepted.
    import pathlib
    assert moreau.load(pathlib.Path(paths.model("pendulum.xml"))).nq == 1
