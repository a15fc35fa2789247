#!/usr/bin/env bash
# README command 1: set-up, build, then a sample run headless with its summary: the project's
# own quadruped (models/quadruped.urdf) dropped from 0.45 m onto the floor Moreau gives a
# floating robot, its joints held by servos, landing on its four feet and standing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh build
./build/moreau run models/quadruped.urdf --floating --keyframe drop --hold --duration 3 "$@"
