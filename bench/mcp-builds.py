#!/usr/bin/env python3
"""bench-mcp.py's read of every file, on several builds of readerd in one run.

Usage: bench/mcp-builds.py [--files 2000] [--rounds 15] READERD [READERD...]

Each READERD (a path to a readerd binary, e.g. the build/daemon/readerd of two checkouts)
runs `readerd mcp` with Go's source tree as its root. Each server gets one round first that is
not counted (its price memo warm, as bench-mcp.py's medians are); then the rounds alternate
between the servers, so that whatever else the machine does weighs on every build alike. A
round is bench-mcp.py's `read_files` of the first --files `.go` files with a budget out of the
way, followed through the skips each answer names (four calls for 2,000 files), timed the same
way. Prints, per build, the median and first quartile of a round's wall time and its mean CPU
(the server's user and system time). No peer is run: to compare builds with each other, not
with the filesystem server (bench-mcp.py does that).
"""
import argparse, importlib.util, os, statistics, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import GO_SRC, pick_files  # noqa: E402

spec = importlib.util.spec_from_file_location('bench_mcp', os.path.join(HERE, 'bench-mcp.py'))
bench_mcp = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench_mcp)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--rounds', type=int, default=15)
    ap.add_argument('readerd', nargs='+')
    a = ap.parse_args()
    files = pick_files(a.files)
    sessions = [bench_mcp.Session([os.path.abspath(b), 'mcp', '--root', GO_SRC])
                for b in a.readerd]
    for s in sessions:
        bench_mcp.readerd_whole(s, files, 10 ** 9)
    walls = [[] for _ in sessions]
    cpus = [[] for _ in sessions]
    for _ in range(a.rounds):
        for k, s in enumerate(sessions):
            c0 = bench_mcp.cpu_ms(s.p.pid)
            walls[k].append(bench_mcp.readerd_whole(s, files, 10 ** 9)[0] * 1e3)
            cpus[k].append(bench_mcp.cpu_ms(s.p.pid) - c0)
    for s in sessions:
        s.close()
    print('| build | wall, median | wall, first quartile | CPU, mean |')
    print('|---|---|---|---|')
    for b, w, c in zip(a.readerd, walls, cpus):
        print('| %s | %.1f ms | %.1f ms | %.1f ms |'
              % (b, statistics.median(w), sorted(w)[len(w) // 4], statistics.mean(c)))
    print('\n%d rounds each; load average %.2f %.2f %.2f' % ((a.rounds,) + os.getloadavg()))


if __name__ == '__main__':
    main()
