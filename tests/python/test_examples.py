"""examples/pd_hold.py: the PD controller holds the Panda's SRDF pose through a push, and
its HDF5 recording says so when read back independently (h5py, the SRDF itself)."""
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

import moreau


def run_example(paths, tmp_path, name, *args):
    script = os.path.join(paths.source, "examples", "pd_hold.py")
    out = tmp_path / name
    result = subprocess.run([sys.executable, script, "--out", str(out), *args], capture_output=True,
                            text=True, timeout=600, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), out


def srdf_pose_errors(paths, qpos):
    """Per row, the largest distance of the 1-dof joints from the SRDF's "default" state."""
    srdf = os.path.join(os.path.dirname(paths.panda), "..", "srdf", "panda.srdf")
    state = ET.parse(srdf).getroot().find("group_state[@name='default']")
    values = {j.get("name"): float(j.get("value")) for j in state.findall("joint")}
    m = moreau.load(paths.panda, package_path=paths.robots, quiet=True)
    columns, target = [], []
    for j, name in enumerate(m.joint_names):
        if m.jnt_type[j] in (2, 3):
            columns.append(m.jnt_qposadr[j])
            # The mimic finger has no entry of its own: it follows finger 1.
            target.append(values.get(name, values["panda_finger_joint1"]))
    assert len(columns) == 9
    return np.abs(qpos[:, columns] - np.array(target)).max(axis=1)


def test_pd_hold_recovers_from_the_push(paths, tmp_path):
    summary, path = run_example(paths, tmp_path, "hold.h5")
    with h5py.File(path, "r") as f:
        time, qpos = f["time"][...], f["qpos"][...]
        assert f.attrs["model"] == b"panda" and "/qvel" in f and "/energy" in f
    assert len(time) == summary["steps"] + 1 == 2001
    errors = srdf_pose_errors(paths, qpos)
    assert errors[0] < 1e-5  # started in the pose
    pushed = errors[(time >= 0.5) & (time <= 1.0)].max()
    assert pushed > 5e-3  # the push moved the arm measurably
    assert pushed == summary["max_error_pushed"] or abs(pushed - summary["max_error_pushed"]) < 1e-3
    assert errors[time >= 1.5].max() < 1e-4  # and the servo brought it back
    assert summary["final_error"] < 1e-4


def test_without_control_the_arm_falls(paths, tmp_path):
    summary, path = run_example(paths, tmp_path, "fall.h5", "--no-control", "--duration", "1")
    with h5py.File(path, "r") as f:
        errors = srdf_pose_errors(paths, f["qpos"][...])
    assert errors[-1] > 0.3 and summary["final_error"] > 0.3
