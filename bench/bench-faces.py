#!/usr/bin/env python3
"""The big read on each face against its floor, interleaved in one run.

Usage: bench/bench-faces.py [--readerd build/daemon/readerd] [--client build/bench/bench-client]
                            [--files 2000] [--runs 9] [--baseline OTHER-READERD]

Each round runs, one after another: `cat` of the N files into a socket drained by bench-client,
one read over readerd's socket (bench-client, a daemon already running), `cat` into a pipe
drained by bench-client, one read over `readerd serve --stdio` on pipes (the second read of a
fresh process, so that it is as warm as the daemon), and the one-shot `readerd read` into a
pipe (process start included). Rounds interleave the faces so that a loaded machine weighs on
each alike. With --baseline, another build's stdio and CLI faces join the same rounds (an A/B
on a machine that is not quiet). Prints the medians, the ratios to each face's floor and the
load average.

Beside the wall time, each face's CPU: the client's and the server's (the daemon's threads'
run time over the read, from /proc/PID/task/TID/schedstat; `cat`'s or the CLI's user and
system time), added up. A loaded machine stretches wall times but hardly CPU, so the CPU
ratios are what to compare there.
"""
import argparse, os, statistics, subprocess, tempfile

from benchlib import pick_files, spawn_daemon, task_cpu_ms


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--client', default='build/bench/bench-client')
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--runs', type=int, default=9)
    ap.add_argument('--baseline')
    a = ap.parse_args()
    readerd = os.path.abspath(a.readerd)
    client = os.path.abspath(a.client)
    files = pick_files(a.files)
    for f in files:
        with open(f, 'rb') as fh:
            fh.read()
    tmp = tempfile.mkdtemp(prefix='readerd-bench-')
    sock = os.path.join(tmp, 's.sock')
    listing = os.path.join(tmp, 'files.txt')
    with open(listing, 'w') as fh:
        fh.write('\n'.join(files) + '\n')
    daemon = spawn_daemon(readerd, sock)
    env = dict(os.environ, BENCH_CPU='1')

    def us(argv, line=-1, server_pid=None):
        """(wall ms, CPU ms of client and server) of the line-th run bench-client prints."""
        s0 = task_cpu_ms(server_pid) if server_pid else 0
        out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True, env=env).stdout
        f = out.strip().split('\n')[line].split()
        cpu = sum(int(x) for x in f[f.index('cpu') + 1:]) / 1e3
        if server_pid:
            cpu += task_cpu_ms(server_pid) - s0
        return int(f[0]) / 1e3, cpu

    faces = [
        ('cat into a socket (floor of the socket)', lambda: us([client, 'cat', listing, '1'])),
        ('readerd, one read over the socket', lambda: us([client, 'read', sock, listing, '1'], server_pid=daemon.pid)),
        ('cat into a pipe (floor of stdio and the CLI)', lambda: us([client, 'pipe-cat', listing, '1'])),
        ('readerd serve --stdio, one read', lambda: us([client, 'stdio', readerd, listing, '2'])),
        ('readerd read (one-shot CLI) into a pipe', lambda: us([client, 'cli', readerd, listing, '1'])),
    ]
    floor = {name: faces[0][0] if i < 2 else faces[2][0] for i, (name, _) in enumerate(faces)}
    if a.baseline:
        base = os.path.abspath(a.baseline)
        faces.append(('baseline: serve --stdio, one read', lambda: us([client, 'stdio', base, listing, '2'])))
        faces.append(('baseline: read (one-shot CLI) into a pipe', lambda: us([client, 'cli', base, listing, '1'])))
        floor[faces[-1][0]] = floor[faces[-2][0]] = faces[2][0]
    times = {name: [] for name, _ in faces}
    cpus = {name: [] for name, _ in faces}
    load0 = os.getloadavg()
    for fn in faces:  # one warm-up round
        fn[1]()
    for _ in range(a.runs):
        for name, fn in faces:
            t, c = fn()
            times[name].append(t)
            cpus[name].append(c)
    load1 = os.getloadavg()
    daemon.terminate()
    daemon.wait(5)

    med = {name: statistics.median(t) for name, t in times.items()}
    cpu = {name: statistics.median(t) for name, t in cpus.items()}
    print('## %d files (golang-1.19-src .go files), median of %d interleaved rounds' % (len(files), a.runs))
    print()
    print('| what | median | min | x its floor | CPU, client + server | CPU x its floor |')
    print('|---|---|---|---|---|---|')
    for name, _ in faces:
        print('| %s | %.1f ms | %.1f ms | %.2f | %.1f ms | %.2f |' % (
            name, med[name], min(times[name]), med[name] / med[floor[name]], cpu[name],
            cpu[name] / cpu[floor[name]]))
    print()
    print('stdio / socket: %.2f wall, %.2f CPU' % (med[faces[3][0]] / med[faces[1][0]],
                                                 cpu[faces[3][0]] / cpu[faces[1][0]]))
    print('load average before %.2f %.2f %.2f, after %.2f %.2f %.2f; %d cores' % (*load0, *load1, os.cpu_count()))


if __name__ == '__main__':
    main()
