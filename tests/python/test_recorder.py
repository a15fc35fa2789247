"""moreau.Recorder: files that never pose as complete, the CLI's messages for bad names,
rows kept when a block fails."""
import os

import h5py
import numpy as np
import pytest

import moreau
from conftest import cli_error_line


@pytest.fixture
def pendulum(paths):
    m = moreau.load(paths.model("pendulum.xml"))
    return m, moreau.Data(m)


def test_part_file_until_closed(pendulum, tmp_path):
    m, d = pendulum
    path = tmp_path / "run.h5"
    rec = moreau.Recorder(path, m)
    assert not os.path.exists(str(path) + ".part")  # created by the first write
    rec.write(d)
    moreau.step(m, d, 10)
    rec.write(d)
    rec.flush()
    assert os.path.exists(str(path) + ".part") and not path.exists()
    with h5py.File(str(path) + ".part", "r") as f:  # readable as it grows
        assert len(f["time"]) == 2
    assert rec.rows == 2 and not rec.closed
    rec.close()
    assert rec.closed and path.exists() and not os.path.exists(str(path) + ".part")
    with h5py.File(path, "r") as f:
        np.testing.assert_array_equal(f["time"][...], [0, d.time])
        assert d.time == pytest.approx(10 * m.opt.timestep, rel=1e-12)
        np.testing.assert_array_equal(f["qpos"][1], d.qpos)
    rec.close()  # a second close is harmless
    with pytest.raises(moreau.Error, match="the recording is closed"):
        rec.write(d)


def test_rows_are_kept_when_the_block_fails(pendulum, tmp_path):
    m, d = pendulum
    path = tmp_path / "run.csv"
    with pytest.raises(RuntimeError):
        with moreau.Recorder(path, m) as rec:
            for _ in range(5):
                moreau.step(m, d)
                rec.write(d)
            raise RuntimeError("the controller failed")
    lines = path.read_text().splitlines()
    assert lines[0].startswith("time,qpos_0,qvel_0,")
    assert len(lines) == 6


def test_recorder_given_the_data_creates_the_file_at_once(pendulum, tmp_path):
    m, d = pendulum
    d.solver = "sap"
    path = tmp_path / "run.h5"
    rec = moreau.Recorder(path, m, d)
    assert os.path.exists(str(path) + ".part")
    rec.close()
    with h5py.File(path, "r") as f:
        assert f.attrs["solver"] == b"sap" and len(f["time"]) == 0


def test_close_without_rows_leaves_an_empty_recording(pendulum, tmp_path):
    m, _ = pendulum
    path = tmp_path / "empty.csv"
    moreau.Recorder(path, m).close()
    assert path.read_text().splitlines() == ["time,qpos_0,qvel_0,ncon,iters,residual,energy"]


def test_dropped_recorder_completes_its_file(pendulum, tmp_path):
    m, d = pendulum
    path = tmp_path / "dropped.csv"
    rec = moreau.Recorder(path, m)
    rec.write(d)
    del rec
    assert path.exists() and len(path.read_text().splitlines()) == 2


def test_bad_names_give_the_cli_message(paths, cli, pendulum, tmp_path):
    m, d = pendulum
    for name in ("run.txt", "no/such/dir/run.csv"):
        path = str(tmp_path / name)
        with pytest.raises(moreau.Error) as caught:
            rec = moreau.Recorder(path, m)
            rec.write(d)
        result = cli("run", paths.model("pendulum.xml"), "--steps", 1, "--record", path)
        assert result.returncode == 2
        assert str(caught.value) == cli_error_line(result)
    other = moreau.load(paths.model("double_pendulum.xml"))
    with pytest.raises(moreau.Error, match="made for another model"):
        moreau.Recorder(tmp_path / "x.csv", other).write(d)
    assert not os.path.exists(tmp_path / "x.csv") and not os.path.exists(tmp_path / "x.csv.part")
