"""moreau.batch runs what `moreau batch` runs: the same summary rows and the same
recordings, error rows for failed jobs, one-line errors for bad jobs, and Ctrl-C."""
import csv
import json
import os
import subprocess
import sys
import textwrap

import h5py
import numpy as np
import pytest

import moreau

TIMING = {"wall_s", "steps_per_s"}


def jobs_for(paths):
    pendulum, double = paths.model("pendulum.xml"), paths.model("double_pendulum.xml")
    return [
        {"model": pendulum, "solver": "pgs", "steps": 300, "record": "pendulum_{index}.h5"},
        {"model": double, "keyframe": "chaotic", "integrator": "midpoint", "dt": 0.0005,
         "steps": 400, "record": "double_{index}.csv", "seed": 3},
        {"model": double, "solver": "sap", "duration": 0.25, "no_gravity": True, "name": "weightless"},
        {"model": paths.humanoid, "steps": 200, "record": "humanoid_{index}.h5", "seed": 1},
        {"model": pendulum + ".missing", "steps": 10},
    ]


def write_jobs_csv(path, jobs):
    columns = []
    for job in jobs:
        columns += [k for k in job if k not in columns]
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(columns)
        for job in jobs:
            w.writerow(["" if job.get(c) is None else (int(job[c]) if isinstance(job[c], bool) else job[c])
                        for c in columns])


def test_rows_and_recordings_equal_the_command(paths, cli, tmp_path):
    jobs = jobs_for(paths)
    write_jobs_csv(tmp_path / "jobs.csv", jobs)
    result = cli("batch", tmp_path / "jobs.csv", "--out", tmp_path / "cli", "--jobs", 2, "--quiet")
    assert result.returncode == 1  # the missing model is an error row
    rows = moreau.batch(jobs, workers=2, out=tmp_path / "py")
    with open(tmp_path / "cli" / "summary.json") as f:
        expected = json.load(f)["rows"]
    assert len(rows) == len(expected) == len(jobs)
    for row, want in zip(rows, expected):
        want.pop("resumed")
        for key in want:
            if key not in TIMING:
                assert row[key] == want[key], (row["job"], key)
        assert set(row) == set(want)
    assert [r["status"] for r in rows] == ["ok", "ok", "ok", "ok", "error"]
    assert rows[2]["name"] == "weightless" and "pendulum.xml.missing:1: " in rows[4]["message"]
    assert rows[1]["used_integrator"] == "midpoint" and rows[1]["used_dt"] == 0.0005
    # The summary files are written as the command writes them.
    with open(tmp_path / "py" / "summary.csv") as f:
        header = f.readline()
    with open(tmp_path / "cli" / "summary.csv") as f:
        assert f.readline() == header
    # Recordings: the same bytes of data.
    for name in ("pendulum_1.h5", "humanoid_4.h5"):
        with h5py.File(tmp_path / "cli" / name) as a, h5py.File(tmp_path / "py" / name) as b:
            for key in a:
                np.testing.assert_array_equal(a[key][...], b[key][...], err_msg=key)
    assert (tmp_path / "cli" / "double_2.csv").read_text() == (tmp_path / "py" / "double_2.csv").read_text()


def test_relative_outputs_without_out_go_to_the_current_directory(paths, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = moreau.batch([{"model": paths.model("pendulum.xml"), "steps": 20, "record": "sub/p.csv"}],
                        workers=1)
    assert rows[0]["status"] == "ok" and rows[0]["rows"] == 21
    assert len((tmp_path / "sub" / "p.csv").read_text().splitlines()) == 22


def test_bad_jobs_are_one_line_errors(paths, tmp_path):
    model = paths.model("pendulum.xml")
    cases = [
        ([{"model": model}, {"model": model, "dt": -1}], "jobs:2: bad value '-1' for --dt: expected seconds > 0"),
        ([{"model": model, "colour": "red"}], "jobs:1: unknown column 'colour'"),
        ([{"model": model, "solver": "nope"}], "jobs:1: unknown solver 'nope'"),
        ([{"model": model, "record": "a.txt"}], "a.txt"),
        ([{"steps": 3}], "job 1 has no model"),
        ([{"model": model, "record": "same.csv"}, {"model": model, "record": "same.csv"}],
         "jobs 1 and 2 both write"),
    ]
    for jobs, message in cases:
        with pytest.raises(moreau.Error) as caught:
            moreau.batch(jobs, out=tmp_path)
        assert message in str(caught.value) and "\n" not in str(caught.value)
    with pytest.raises(TypeError):
        moreau.batch([{"model": model, "steps": [1, 2]}])
    with pytest.raises(TypeError):
        moreau.batch(["model=x"])
    with pytest.raises(moreau.Error, match="workers"):
        moreau.batch([{"model": model}], workers=0)
    assert moreau.batch([]) == []


def test_ctrl_c_stops_the_batch(paths, tmp_path):
    """A SIGINT during the batch raises KeyboardInterrupt within a fraction of a second, after
    the summary is written with the interrupted jobs."""
    script = textwrap.dedent(f"""
        import os, signal, threading, time, json, moreau
        jobs = [{{"model": {paths.humanoid!r}, "steps": 10**7, "record": "h{{index}}.h5"}}] * 2
        threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT)).start()
        start = time.perf_counter()
        try:
            moreau.batch(jobs, workers=2, out={str(tmp_path)!r})
        except KeyboardInterrupt:
            print(json.dumps({{"interrupted_after": time.perf_counter() - start}}))
    """)
    env = dict(os.environ)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                            timeout=300, env=env)
    assert result.returncode == 0, result.stderr
    seconds = json.loads(result.stdout)["interrupted_after"]
    assert 0.9 < seconds < 30
    with open(tmp_path / "summary.json") as f:
        summary = json.load(f)
    assert [r["status"] for r in summary["rows"]] == ["interrupted", "interrupted"]
    for k in (1, 2):  # the recordings are complete, with every step done
        with h5py.File(tmp_path / f"h{k}.h5") as f:
            assert len(f["time"]) > 10
