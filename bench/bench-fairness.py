#!/usr/bin/env python3
"""readerd fairness: how long a one-file read waits while another client reads a lot.

Usage: bench/bench-fairness.py [--readerd build/daemon/readerd] [--files 2000] [--samples 1000]

Measures, in one run, the round trip of a one-file read (a small Go file) on its own
connection:
1. with the machine idle,
2. while another process runs `cat` of the same N files in a loop (the floor: the same load on
   the machine, without sharing readerd),
3. while another client reads the N files from readerd in a loop (the case the scheduler is for),
4. while 10 clients each send a read of the N files and never read their answers,
and the N-file read alone against `cat` of the same files, so that fairness is not bought with
throughput. The loads run in processes of their own, so that this script's measuring is not
slowed by them. Prints a Markdown report on stdout.
"""
import argparse, json, multiprocessing, os, socket, statistics, subprocess, sys, tempfile, time

from benchlib import Client, pick_files, run_child, start_daemon


def big_reader(sock, files, stop):
    c = Client(sock)
    while not stop.is_set():
        c.call('read', {'paths': files})


def cat_loop(files, stop):
    while not stop.is_set():
        subprocess.run(['cat'] + files, stdout=subprocess.DEVNULL)


def stalled_clients(sock, files, n):
    """n clients that each send a big read and never read the answer; the sockets stay open."""
    out = []
    line = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'read', 'params': {'paths': files}}).encode() + b'\n'
    for _ in range(n):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sock)
        s.sendall(line)
        out.append(s)
    return out


def latencies(c, path, samples):
    out = []
    for _ in range(samples):
        t0 = time.perf_counter()
        r = c.read({'paths': [path]})
        out.append(time.perf_counter() - t0)
        assert not r['files'][0].get('code'), r['files'][0]
    return out


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def row(name, xs):
    return '| %s | %.2f ms | %.2f ms | %.2f ms |' % (name, statistics.median(xs) * 1e3, pct(xs, 99) * 1e3,
                                                     max(xs) * 1e3)


def under_load(target, args, c, path, samples):
    stop = multiprocessing.Event()
    p = multiprocessing.Process(target=target, args=args + (stop,))
    p.start()
    time.sleep(0.5)  # let the load reach its pace
    try:
        return latencies(c, path, samples)
    finally:
        stop.set()
        p.join(60)
        if p.is_alive():
            p.terminate()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--samples', type=int, default=1000)
    ap.add_argument('--runs', type=int, default=7)
    a = ap.parse_args()
    readerd = os.path.abspath(a.readerd)
    files = pick_files(a.files)
    small = min(files, key=os.path.getsize)
    for f in files:
        with open(f, 'rb') as fh:
            fh.read()

    tmp = tempfile.mkdtemp(prefix='readerd-bench-')
    sock = os.path.join(tmp, 's.sock')
    daemon, c = start_daemon(readerd, tmp)
    try:
        latencies(c, small, 100)  # warm up
        idle = latencies(c, small, a.samples)
        with_cat = under_load(cat_loop, (files,), c, small, a.samples)
        with_big = under_load(big_reader, (sock, files), c, small, a.samples)
        stalled = stalled_clients(sock, files, 10)
        time.sleep(1.0)
        with_stalled = latencies(c, small, a.samples)
        with open('/proc/%d/status' % daemon.pid) as fh:
            rss = [l.split()[1] for l in fh if l.startswith('VmRSS:')][0]
        for s in stalled:
            s.close()

        big = Client(sock)
        t_read = statistics.median([timed(lambda: big.call('read', {'paths': files})) for _ in range(a.runs)])
        t_cat = statistics.median([run_child(['cat'] + files)[0] for _ in range(a.runs)])
    finally:
        daemon.terminate()
        daemon.wait()

    print('## Fairness: a one-file read while others read (%d files, %d samples, %d CPUs)' %
          (len(files), a.samples, os.cpu_count()))
    print()
    print('| one-file read | median | p99 | max |')
    print('|---|---|---|---|')
    print(row('idle', idle))
    print(row('`cat` of the %d files in a loop (floor)' % len(files), with_cat))
    print(row('another client reading the %d files in a loop' % len(files), with_big))
    print(row('10 clients that never read their %d-file answers' % len(files), with_stalled))
    print()
    print('Daemon RSS with the 10 stalled clients connected: %d MiB.' % (int(rss) // 1024))
    print()
    print('The %d-file read alone: %.1f ms; `cat` of the same files: %.1f ms; ratio %.2fx.' %
          (len(files), t_read * 1e3, t_cat * 1e3, t_read / t_cat))


def timed(fn):
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


if __name__ == '__main__':
    main()
