#!/usr/bin/env python3
"""readerd budget and plan: what a costed plan and a budgeted read cost against a plain read.

Usage: bench/bench-budget.py [--readerd build/daemon/readerd] [--files 2000] [--budget 50000] [--runs 7]

One daemon, one connection; each run reads the same N real source files (golang-1.19-src)
four ways, one after another so that a busy machine weighs on all of them alike:
  read    a plain read (every file's content)
  plan    plan: true (no content: kind, size, lines, tokens of each file)
  budget  budget: {tokens: B} (the measure phase, then only the files admitted)
  shown   a plain read of only the files the budget showed, each with the limit the budget
          kept of it (what the budget must cost about as much as)
  absent  a plain read of the same N paths with a suffix that no file has: N FILE_NOT_FOUND
          entries, what naming N paths costs when nothing is read (the floor under `budget`)
  stat    no readerd: one stat() of each of the N paths in a loop (bench-client stat), what
          telling that each file is there and how big it is costs at the least
Prints a Markdown table of median wall times per request and the ratios, on stdout.
"""
import argparse, json, os, statistics, subprocess, sys, tempfile, time

from benchlib import pick_files, start_daemon


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--budget', type=int, default=50000)
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--client', default='build/bench/bench-client')
    a = ap.parse_args()
    files = pick_files(a.files)
    with tempfile.TemporaryDirectory() as tmp:
        daemon, c = start_daemon(a.readerd, tmp)
        try:
            probe = c.read({'paths': files, 'budget': {'tokens': a.budget}})
            shown = []
            for f in probe['files']:
                if 'omitted' in f or 'code' in f:
                    continue
                first, last = f.get('shown', [1, 1])
                shown.append({'path': f['path'], 'limit': max(1, last - first + 1)})
            kinds = {
                'read': {'paths': files},
                'plan': {'paths': files, 'plan': True},
                'budget': {'paths': files, 'budget': {'tokens': a.budget}},
                'shown': {'paths': shown},
                'absent': {'paths': [f + '.absent' for f in files]},
            }
            times = {k: [] for k in kinds}
            size = {}
            for _ in range(a.runs):
                for k, params in kinds.items():
                    t0 = time.perf_counter()
                    raw = c.call('read', params)
                    times[k].append(time.perf_counter() - t0)
                    size[k] = len(raw)
            res = {k: json.loads(c.call('read', p))['result'] for k, p in kinds.items()}
            listing = os.path.join(tmp, 'paths.txt')
            with open(listing, 'w') as f:
                f.write('\n'.join(files) + '\n')
            out = subprocess.run([a.client, 'stat', listing, str(a.runs * 5)], check=True,
                                 capture_output=True, text=True).stdout.split()
            stat_ms = statistics.median(int(x) for x in out) / 1000
        finally:
            daemon.terminate()
            daemon.wait()
    med = {k: statistics.median(v) * 1000 for k, v in times.items()}
    print('| request | files shown | tokens | answerTokens | answer bytes | median ms | vs read '
          '| vs shown | vs absent |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for k in kinds:
        n = sum(1 for f in res[k]['files'] if 'omitted' not in f and 'code' not in f)
        print('| %s | %d | %d | %s | %d | %.1f | %.2f | %.2f | %.2f |' % (
            k, n, res[k]['tokens'], res[k].get('answerTokens', ''), size[k], med[k],
            med[k] / med['read'], med[k] / med['shown'], med[k] / med['absent']))
    print('| stat of each path (no readerd) | | | | | %.1f | %.2f | %.2f | %.2f |' % (
        stat_ms, stat_ms / med['read'], stat_ms / med['shown'], stat_ms / med['absent']))
    print()
    print('%d files, budget %d tokens, %d runs each, interleaved; plan/read = %.2f, '
          'budget/shown = %.2f, budget/absent = %.2f, (budget - absent)/shown = %.2f' % (
              len(files), a.budget, a.runs, med['plan'] / med['read'],
              med['budget'] / med['shown'], med['budget'] / med['absent'],
              (med['budget'] - med['absent']) / med['shown']))


if __name__ == '__main__':
    main()
