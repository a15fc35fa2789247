#!/usr/bin/env python3
"""A PD controller holding a robot arm's pose, with a push to recover from, recorded to HDF5.

The Franka Panda (example-robot-data) starts in its SRDF "default" pose. Every step, each
joint gets a torque through d.qfrc_applied:

    tau = M_ii (kp e - kd qdot) + qfrc_bias

a PD law on the pose error e = q* - q whose gains are accelerations (kp = w^2, kd = 2 zeta w,
a 5 Hz critically damped servo), scaled by the joint's own inertia (the diagonal of the
mass matrix, d.qM at m.dof_Madr) so that a heavy shoulder and a light wrist respond alike,
plus gravity and Coriolis compensation (d.qfrc_bias, the bias forces of the state the last
step started from). From t = 0.5 s to 1 s a 20 N force pushes the hand sideways
(d.xfrc_applied); the servo gives way and then brings the arm back.

    PYTHONPATH=build/python python3 examples/pd_hold.py --out hold.h5
    PYTHONPATH=build/python python3 examples/pd_hold.py --no-control --out fall.h5

Prints one JSON line: the largest pose error while pushed and at the end. The recording is
in the format of `moreau run --record` (h5py, h5dump and `moreau view --replay` read it).
"""
import argparse
import json
import math
import os

import numpy as np

import moreau

HERE = os.path.dirname(os.path.abspath(__file__))
ROBOTS = os.path.join(HERE, "..", "..", "shared", "models")
PANDA = os.path.join(ROBOTS, "example-robot-data", "robots", "panda_description", "urdf", "panda.urdf")

# The Panda's SRDF group_state "default" (panda_description/srdf/panda.srdf).
DEFAULT_POSE = {
    "panda_joint1": 0.0, "panda_joint2": -0.785398, "panda_joint3": 0.0,
    "panda_joint4": -2.35619, "panda_joint5": 0.0, "panda_joint6": 1.5707,
    "panda_joint7": 0.785398, "panda_finger_joint1": 0.001, "panda_finger_joint2": 0.001,
}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", default=PANDA, help="a fixed-base URDF (default: the Panda)")
    p.add_argument("--package-path", default=ROBOTS, help="roots for package:// URIs")
    p.add_argument("--out", default="pd_hold.h5", help="the recording (.h5 or .csv)")
    p.add_argument("--duration", type=float, default=2.0, help="simulated seconds")
    p.add_argument("--hz", type=float, default=5.0, help="servo bandwidth (Hz)")
    p.add_argument("--push", type=float, default=20.0, help="push on the hand (N)")
    p.add_argument("--push-body", default="panda_link7", help="the body pushed")
    p.add_argument("--no-control", action="store_true", help="no torques: the arm falls")
    return p.parse_args()


def joint_targets(m):
    """Each 1-dof joint's qpos and dof address and its target (the pose, else qpos0)."""
    qadr, vadr, target = [], [], []
    for j, name in enumerate(m.joint_names):
        if m.jnt_type[j] in (2, 3):  # slide, hinge
            qadr.append(m.jnt_qposadr[j])
            vadr.append(m.jnt_dofadr[j])
            target.append(DEFAULT_POSE.get(name, m.qpos0[m.jnt_qposadr[j]]))
    return np.array(qadr), np.array(vadr), np.array(target)


def main():
    args = parse_args()
    m = moreau.load(args.model, package_path=args.package_path, quiet=True)
    d = moreau.Data(m)
    qadr, vadr, target = joint_targets(m)
    d.qpos[qadr] = target
    moreau.forward(m, d)  # d.qfrc_bias and d.qM of the start state

    w = 2 * math.pi * args.hz
    kp, kd = w * w, 2 * w  # critically damped
    hand = m.body_names.index(args.push_body)
    pushed_error = end_error = 0.0
    steps = int(round(args.duration / m.opt.timestep))
    with moreau.Recorder(args.out, m) as rec:
        rec.write(d)
        for _ in range(steps):
            pushing = 0.5 <= d.time < 1.0
            d.xfrc_applied[hand, :3] = (0.0, args.push if pushing else 0.0, 0.0)
            if not args.no_control:
                inertia = d.qM[m.dof_Madr[vadr]]
                error = target - d.qpos[qadr]
                d.qfrc_applied[vadr] = inertia * (kp * error - kd * d.qvel[vadr]) + d.qfrc_bias[vadr]
            moreau.step(m, d)
            rec.write(d)
            error = float(np.abs(target - d.qpos[qadr]).max())
            if pushing:
                pushed_error = max(pushed_error, error)
            end_error = error
    print(json.dumps({"model": m.name, "steps": steps, "record": args.out,
                      "max_error_pushed": pushed_error, "final_error": end_error}))


if __name__ == "__main__":
    main()
