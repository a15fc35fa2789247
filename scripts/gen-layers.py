#!/usr/bin/env python3
"""Writes models/layersN.xml: N boxes (0.1 m, 1 kg) dropped in layers of ten (a 5 x 2 grid
0.12 m apart, 0.13 m between layers, +-1 cm of seeded jitter) onto a floor, dt = 2 ms.
The scaling scenes of bench_contact (bench/README.md): contacts grow with N, the columns
topple into a heap. Loads unchanged in MuJoCo 2.2 (its <size> sized for 160 boxes).

usage: scripts/gen-layers.py N > models/layersN.xml"""
import random
import sys


def main():
    n = int(sys.argv[1])
    rng = random.Random(1)
    print(f'<!-- layers{n}.xml: {n} boxes dropped in layers of ten onto a floor; written by '
          f'scripts/gen-layers.py {n} -->')
    print(f'<mujoco model="layers{n}">\n  <option timestep="0.002"/>')
    print('  <size nconmax="2000" njmax="8000"/>\n  <worldbody>')
    print('    <geom name="floor" type="plane" size="5 5 0.1"/>')
    for i in range(n):
        layer, j = divmod(i, 10)
        x = (j % 5 - 2) * 0.12 + rng.uniform(-0.01, 0.01)
        y = (j // 5 - 0.5) * 0.12 + rng.uniform(-0.01, 0.01)
        z = 0.06 + layer * 0.13
        print(f'    <body pos="{x:.4f} {y:.4f} {z:.4f}"><freejoint/>'
              f'<geom type="box" size="0.05 0.05 0.05" mass="1"/></body>')
    print('  </worldbody>\n</mujoco>')


if __name__ == '__main__':
    main()
