#!/usr/bin/env python3
"""What stepping from Python costs, next to the same loop in C.

For each model, R interleaved rounds of three ways to run N steps from the model's initial
state (reset before each):

  C       build/bench/bench_step: for (i < N) mr_step(m, d), in its own process, timed
          inside the loop (load and start-up excluded)
  block   moreau.step(m, d, N): one Python call, the same loop in the extension
  loop    for _ in range(N): moreau.step(m, d): N Python calls

and reports the best round of each in microseconds per step of the thread's CPU time (the
work is deterministic, so the fastest round is the one least disturbed by other processes;
CPU time leaves out the turns other processes take on a shared machine, which the wall
clock would count), block / C (the cost
of the binding around a long call: within 2% is the target) as the ratio of the best
rounds and as the median of the per-round ratios, and loop - block, the overhead of one
Python call of one step (under 1 us is the target). A last column times N calls of
moreau.step(m, d, 0), which do everything but step.

    PYTHONPATH=build/python python3 bench/bench_python.py
    PYTHONPATH=build/python python3 bench/bench_python.py --rounds 15 --steps 2000 models/pendulum.xml

Speed is measured, never asserted: nothing here is a test. On a shared 2-core machine a
disturbed round can take twice as long: run on a quiet machine, with enough rounds.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import moreau

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_MODELS = [os.path.join(ROOT, "models", "pendulum.xml"),
                  os.path.join(ROOT, "models", "five_balls.xml"),
                  "/usr/share/mujoco/model/humanoid/humanoid.xml"]


def c_round(binary, model, steps):
    out = subprocess.run([binary, "--steps", str(steps), "--rounds", "1", model], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)["us_per_step"][0]


def block_round(m, d, steps):
    moreau.reset(m, d)
    start = time.thread_time()
    moreau.step(m, d, steps)
    return 1e6 * (time.thread_time() - start) / steps


def loop_round(m, d, steps):
    moreau.reset(m, d)
    step = moreau.step
    start = time.thread_time()
    for _ in range(steps):
        step(m, d)
    return 1e6 * (time.thread_time() - start) / steps


def empty_round(m, d, steps):
    step = moreau.step
    start = time.thread_time()
    for _ in range(steps):
        step(m, d, 0)
    return 1e6 * (time.thread_time() - start) / steps


def bench_model(binary, model, steps, rounds):
    m = moreau.load(model, quiet=True)
    d = moreau.Data(m)
    times = {"c": [], "block": [], "loop": [], "empty": []}
    for _ in range(rounds):
        times["c"].append(c_round(binary, model, steps))
        times["block"].append(block_round(m, d, steps))
        times["loop"].append(loop_round(m, d, steps))
        times["empty"].append(empty_round(m, d, steps))
    best = {k: min(v) for k, v in times.items()}
    # Per round, so that both sides of each ratio saw the same machine.
    ratios = [b / c for b, c in zip(times["block"], times["c"])]
    return {"model": os.path.basename(model), "nv": m.nv, "c_us": best["c"], "block_us": best["block"],
            "loop_us": best["loop"], "block_over_c": best["block"] / best["c"],
            "block_over_c_median": statistics.median(ratios),
            "call_overhead_us": best["loop"] - best["block"], "empty_call_us": best["empty"]}


def main():
    p = argparse.ArgumentParser(description="moreau.step from Python next to the C loop")
    p.add_argument("models", nargs="*", default=DEFAULT_MODELS)
    p.add_argument("--steps", type=int, default=1000)
    p.add_argument("--rounds", type=int, default=31)
    p.add_argument("--bench-step", default=os.path.join(ROOT, "build", "bench", "bench_step"),
                   help="the C loop (bench/bench_step.c)")
    p.add_argument("--json", action="store_true", help="one JSON object per model")
    args = p.parse_args()
    if not args.json:
        print(f"{'model':14s} {'nv':>4s} {'C us/step':>10s} {'block us':>9s} {'block/C':>8s} "
              f"{'(median)':>8s} {'loop us':>8s} {'call ovh us':>11s} {'empty call us':>13s}")
    for model in args.models:
        r = bench_model(args.bench_step, model, args.steps, args.rounds)
        if args.json:
            print(json.dumps(r))
        else:
            print(f"{r['model']:14s} {r['nv']:4d} {r['c_us']:10.3f} {r['block_us']:9.3f} "
                  f"{r['block_over_c']:8.4f} {r['block_over_c_median']:8.4f} {r['loop_us']:8.3f} "
                  f"{r['call_overhead_us']:11.3f} {r['empty_call_us']:13.3f}")


if __name__ == "__main__":
    main()
