#!/usr/bin/env python3
"""Prints the include graph between the repository's folders and fails (exit 1) on a cycle,
on an include that breaks the layering below, on a source file over MAX_LINES lines, or on
more than MAX_ENGINE_TOP source files directly in engine/ (the stages have folders).

Quoted includes resolve as the compiler resolves them here: beside the including file,
then from the repository root, then from engine/core (where moreau.h, the public header,
lives). An include that resolves nowhere is reported too, so the graph cannot silently
miss an edge.

    scripts/check-layout.py           the graph, then "layout: ok" or the violations
"""
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
SCAN = ['app', 'render', 'engine', 'collision', 'python', 'tests', 'bench']
PUBLIC = 'engine/core'

# What each folder may include besides itself: the pipeline's layers, bottom first. A new
# folder must be placed here before it can be included from anywhere.
ENGINE_STAGES = ['engine/core', 'engine/io', 'engine/compile', 'engine/robot', 'engine/dynamics',
                 'engine/solver', 'engine/constraint', 'engine/sensor', 'engine/record',
                 'collision']
ALLOWED = {
    'engine/core': [],
    'collision': ['engine/core'],
    'engine/io': ['engine/core'],
    'engine/compile': ['engine/core', 'engine/io', 'collision'],
    # after compile: poses, self-collision and servo gains need kinematics, M and contacts
    'engine/robot': ['engine/core', 'engine/io', 'engine/compile', 'engine/dynamics', 'collision'],
    'engine/dynamics': ['engine/core'],
    'engine/solver': ['engine/core'],
    'engine/constraint': ['engine/core', 'engine/dynamics', 'engine/solver', 'collision'],
    'engine/sensor': ['engine/core', 'engine/dynamics', 'collision'],
    'engine/record': ['engine/core'],
    'engine': ENGINE_STAGES,
    'render': ['engine', 'assets'] + ENGINE_STAGES,
    'app': ['render', 'engine'] + ENGINE_STAGES,
    'python': ['app', 'engine'] + ENGINE_STAGES,  # app: its job runner and batch pool
}
# Consumers outside the pipeline: they may include any layer, and nothing includes them.
CONSUMERS = ['tests', 'bench']

MAX_LINES = 900
MAX_ENGINE_TOP = 15

# Headers the build generates, by the folder they are generated from.
GENERATED = {'mr_assets.h': 'assets'}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def sources():
    for top in SCAN:
        base = os.path.join(ROOT, top)
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if d not in ('data', 'corpus')]
            for name in filenames:
                if name.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(dirpath, name), ROOT)


def resolve(src, name):
    if name in GENERATED:
        return os.path.join(GENERATED[name], name)
    for base in (os.path.dirname(src), '', PUBLIC):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(ROOT, cand)):
            return cand
    return None


def folder(path):
    d = os.path.dirname(path)
    for c in CONSUMERS:
        if d == c or d.startswith(c + '/'):
            return c
    return d


def find_cycle(graph):
    state, stack = {}, []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def main():
    graph, problems = {}, []
    for src in sources():
        text = open(os.path.join(ROOT, src), encoding='utf-8', errors='replace').read()
        here = folder(src)
        graph.setdefault(here, set())
        for name in INCLUDE.findall(text):
            target = resolve(src, name)
            if target is None:
                problems.append(f'{src}: "{name}" resolves to no file')
                continue
            there = folder(target)
            if there == here:
                continue
            graph[here].add(there)
            if here in CONSUMERS:
                continue
            if there in CONSUMERS or there not in ALLOWED.get(here, []):
                problems.append(f'{src}: includes "{name}" ({there}), which {here} may not include')
    engine_top = 0
    for src in sources():
        with open(os.path.join(ROOT, src), encoding='utf-8', errors='replace') as f:
            lines = sum(1 for _ in f)
        if lines > MAX_LINES:
            problems.append(f'{src}: {lines} lines (at most {MAX_LINES}: split it by concept)')
        engine_top += os.path.dirname(src) == 'engine'
    if engine_top > MAX_ENGINE_TOP:
        problems.append(f'engine/: {engine_top} source files directly in it (at most {MAX_ENGINE_TOP})')
    for n in sorted(graph):
        deps = ', '.join(sorted(graph[n])) or '-'
        print(f'{n:20s} -> {deps}', flush=True)
    cycle = find_cycle(graph)
    if cycle:
        problems.append('cycle between folders: ' + ' -> '.join(cycle))
    for p in problems:
        print('layout: ' + p, file=sys.stderr)
    if problems:
        return 1
    print('layout: ok (no cycle, every include points down, no file over %d lines)' % MAX_LINES)
    return 0


if __name__ == '__main__':
    sys.exit(main())
