#!/usr/bin/env python3
"""readerd benchmarks: ratios against a floor (cat) and a peer, measured in one run.

Usage: bench/bench.py [--readerd build/daemon/readerd] [--client build/bench/bench-client]
                      [--files 2000] [--runs 7] [--requests 1000]

1. One `read` of N real source files (golang-1.19-src) over the socket, against `cat` of the
   same files to /dev/null and `cat` into a socket drained by bench-client (the same sink as
   readerd's answer), and against a Node.js reader that does what the JavaScript peers do
   (read every file, number its lines, wrap it in XML, JSON-encode the answer). The socket
   read is timed twice: through bench-client (bench/bench-client.c: readerd and the kernel
   only) and through this script's Python client (its own receiving included).
2. M sequential single-file requests on one connection: round-trip time per request.
Wall time is the median of --runs runs with warm caches; peak memory is the peak RSS of the
process that did the work (for readerd, the daemon, reset before each measure). Needs GNU time
(Debian package `time`).
Prints a Markdown report on stdout.
"""
import argparse, json, os, subprocess, sys, tempfile, time

from benchlib import Client, median_of, pick_files, reset_peak, run_child, spawn_daemon, vm_hwm_kib

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--client', default='build/bench/bench-client')
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--requests', type=int, default=1000)
    a = ap.parse_args()
    readerd = os.path.abspath(a.readerd)
    client = os.path.abspath(a.client)
    files = pick_files(a.files)
    total = sum(os.path.getsize(f) for f in files)
    for f in files:  # warm the page cache for everyone
        with open(f, 'rb') as fh:
            fh.read()

    tmp = tempfile.mkdtemp(prefix='readerd-bench-')
    sock = os.path.join(tmp, 's.sock')
    listing = os.path.join(tmp, 'files.txt')
    with open(listing, 'w') as fh:
        fh.write('\n'.join(files) + '\n')
    daemon = spawn_daemon(readerd, sock)
    c = Client(sock)
    can_reset = reset_peak(daemon.pid)

    def cat(i):
        return run_child(['cat'] + files)

    def readerd_socket(i):
        reset_peak(daemon.pid)
        t0 = time.perf_counter()
        resp = c.call('read', {'paths': files})
        dt = time.perf_counter() - t0
        r = json.loads(resp)['result']
        assert len(r['files']) == len(files) and not any(f.get('code') for f in r['files']), 'read failed'
        return dt, vm_hwm_kib(daemon.pid)

    def client_time(argv):
        out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True).stdout
        return int(out.split()[0]) / 1e6

    def cat_socket(i):
        return client_time([client, 'cat', listing, '1']), 0

    def readerd_client(i):
        reset_peak(daemon.pid)
        return client_time([client, 'read', sock, listing, '1']), vm_hwm_kib(daemon.pid)

    def readerd_cli(i):
        return run_child([readerd, 'read'] + files)

    node = None
    for cand in ('node', 'nodejs'):
        if subprocess.run(['sh', '-c', 'command -v ' + cand], capture_output=True).returncode == 0:
            node = cand
            break

    def node_peer(i):
        return run_child([node, os.path.join(HERE, 'peer-read-many.js')] + files)

    rows = []
    cat_t, cat_m = median_of(a.runs, cat)
    rows.append(('cat (floor)', cat_t, cat_m))
    rows.append(('cat into a socket drained by bench-client', median_of(a.runs, cat_socket)[0], 0))
    rows.append(('readerd, one read over the socket (bench-client)', *median_of(a.runs, readerd_client)))
    rows.append(('readerd, one read over the socket (Python client)', *median_of(a.runs, readerd_socket)))
    rows.append(('readerd read (one-shot CLI, process start included)', *median_of(a.runs, readerd_cli)))
    if node:
        rows.append(('Node.js peer reader (process start included)', *median_of(a.runs, node_peer)))

    # Sequential single-file round trips.
    small = files[:50]
    rtts = []
    for i in range(a.requests):
        t0 = time.perf_counter()
        c.call('read', {'paths': [small[i % len(small)]]})
        rtts.append(time.perf_counter() - t0)
    rtts.sort()
    daemon.terminate()
    daemon.wait(5)

    print('## %d files, %.1f MiB (golang-1.19-src .go files), median of %d runs' % (len(files), total / 2**20, a.runs))
    print()
    print('| what | wall time | x cat | peak RSS | x cat |')
    print('|---|---|---|---|---|')
    for name, t, m in rows:
        mem = '%.1f MiB | %.1f' % (m / 1024, m / cat_m) if m else '| '
        print('| %s | %.1f ms | %.2f | %s |' % (name, t * 1e3, t / cat_t, mem))
    if not can_reset:
        print('\n(peak RSS of the daemon could not be reset between runs: it is the peak since start)')
    print()
    print('## %d sequential single-file requests on one connection' % a.requests)
    print()
    print('| median | p90 | p99 | max |')
    print('|---|---|---|---|')
    q = lambda p: rtts[min(len(rtts) - 1, int(p * len(rtts)))] * 1e6
    print('| %.0f µs | %.0f µs | %.0f µs | %.0f µs |' % (q(0.5), q(0.9), q(0.99), rtts[-1] * 1e6))
    print()
    print('Machine: %d cores; %s' % (os.cpu_count(), subprocess.run(['uname', '-srm'], capture_output=True, text=True).stdout.strip()))


if __name__ == '__main__':
    main()
