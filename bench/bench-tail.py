#!/usr/bin/env python3
"""Tails and long-line columns: what `tail: N` costs beside reading the same lines forwards.

Writes a log of --mb megabytes (default 230) into a temporary folder, warms the page cache, then
for each command takes the best of --runs runs of its CPU time (user + system, from wait4, so
that the machine's load does not count) and its wall time:

  readerd read --tail 5          the tail, found from the end
  readerd read --offset L-4      the same lines read forwards
  tail -n 5                      the floor for finding the last lines (no line numbers)
  wc -l                          the floor for counting lines

and the same for one window of a 3 MB one-line file read by column near its end beside the
window at its start. Usage: python3 bench/bench-tail.py [--mb N] [--runs N] [--readerd PATH]
"""
import argparse
import os
import shutil
import subprocess
import tempfile
import time


def run_best(argv, runs):
    best_cpu, best_wall = None, None
    for _ in range(runs):
        start = time.monotonic()
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.monotonic() - start
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{argv} failed")
        cpu = usage.ru_utime + usage.ru_stime
        best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        best_wall = wall if best_wall is None else min(best_wall, wall)
    return best_cpu, best_wall


def write_log(path, mb):
    lines = 0
    with open(path, "w") as f:
        while f.tell() < mb * 1000 * 1000:
            chunk = []
            for _ in range(10000):
                lines += 1
                i = lines
                chunk.append(f"2026-11-23T19:{i // 60000 % 60:02d}:{i // 1000 % 60:02d}."
                             f"{i % 1000:03d}Z INFO request {i:09d} handled in {i * 7 % 997} ms\n")
            f.write("".join(chunk))
    return lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=230)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--readerd", default="build/daemon/readerd")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="readerd-bench-tail-")
    try:
        log = os.path.join(tmp, "big.log")
        lines = write_log(log, args.mb)
        with open(log, "rb") as f:
            while f.read(1 << 24):
                pass
        size = os.path.getsize(log)
        print(f"log: {size} bytes, {lines} lines; best of {args.runs} runs\n")
        print("| command | CPU s | wall s |")
        print("|---|---|---|")
        rows = [
            ("readerd read --tail 5", [args.readerd, "read", "--tail", "5", log]),
            (f"readerd read --offset {lines - 4}",
             [args.readerd, "read", "--offset", str(lines - 4), log]),
            ("tail -n 5", ["tail", "-n", "5", log]),
            ("wc -l", ["wc", "-l", log]),
        ]
        for name, argv in rows:
            cpu, wall = run_best(argv, args.runs)
            print(f"| `{name}` | {cpu:.3f} | {wall:.3f} |")

        js = os.path.join(tmp, "app.min.js")
        with open(js, "w") as f:
            f.write(("function f(a,b){return a+b};var x=[1,2,3].map(f);" * 60000)[:3000000])
        print("\n| one-line 3 MB file, 2000 characters | CPU s | wall s |")
        print("|---|---|---|")
        for column in (1, 2998001):
            req = ('{"jsonrpc":"2.0","id":1,"method":"read","params":{"paths":[{"path":"%s",'
                   '"offset":1,"column":%d}]}}\n' % (js, column))
            req_path = os.path.join(tmp, f"req{column}.jsonl")
            with open(req_path, "w") as f:
                f.write(req)
            cpu, wall = run_best(["sh", "-c", f"{args.readerd} serve --stdio < {req_path}"],
                                 args.runs)
            print(f"| column {column} | {cpu:.3f} | {wall:.3f} |")
    finally:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
