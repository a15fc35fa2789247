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
    assert path.read_text().splitlines() == ["time,qpos_0,qvel_0,ncon,iters,residual,energy,status,natural_map"]


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


def test_a_full_disk_is_the_cli_error(paths, cli, tmp_path):
    """A file size limit (RLIMIT_FSIZE, SIGXFSZ ignored) makes writes fail as a full disk
    does: the write raises the CLI's message and FILE.part keeps the rows that reached
    the disk, nothing posing as complete is left."""
    import subprocess
    import sys
    import textwrap
    limit = 100000
    script = textwrap.dedent(f"""
        import resource, signal, moreau
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit}))
        m = moreau.load({paths.humanoid!r})
        d = moreau.Data(m)
        rec = moreau.Recorder({str(tmp_path / "py.csv")!r}, m)
        try:
            for _ in range(3000):
                moreau.step(m, d)
                rec.write(d)
        except moreau.Error as e:
            print(e)
            print(rec.closed, rec.rows)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    message, state = result.stdout.splitlines()
    assert message.startswith(f"{tmp_path / 'py.csv'}.part: write error: File too large")
    closed, rows = state.split()
    assert closed == "True" and 0 < int(rows) < 3000
    assert sorted(os.listdir(tmp_path)) == ["py.csv.part"]
    with open(tmp_path / "py.csv.part") as f:
        lines = f.read().splitlines()
    assert lines[0].startswith("time,") and len(lines) >= 2
    os.remove(tmp_path / "py.csv.part")

    def limited():
        import resource
        import signal
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    result = subprocess.run([paths.bin, "run", paths.humanoid, "--steps", "3000", "--quiet",
                             "--record", str(tmp_path / "py.csv")], capture_output=True, text=True,
                            timeout=300, preexec_fn=limited)
    assert result.returncode == 1
    assert result.stderr.strip() == "moreau: " + message
