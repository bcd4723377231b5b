#!/usr/bin/env python3
"""readerd fairness: how long a one-file read waits while another client reads a lot.

Usage: bench/bench-fairness.py [--readerd build/daemon/readerd] [--client build/bench/bench-client]
                               [--files 2000] [--samples 1000]

Measures, in one run, the round trip of a one-file read (a small Go file) on its own
connection (through bench-client; case 3 also with both clients in Python):
1. with the machine idle,
2. while another process runs `cat` of the same N files in a loop (the floor: the same load on
   the machine, without sharing readerd),
3. while another client reads the N files from readerd in a loop (the case the scheduler is for),
4. while a client sends 4 MB request lines in a loop, each refused (-32601) once parsed: a
   line's parse must not hold the others,
5. while 10 clients each send a read of the N files and never read their answers,
6. while one client has 32 slow PDFs in flight and another 32 costly SVGs to render (`render`),
and the N-file read alone against `cat` of the same files, so that fairness is not bought with
throughput. The loads run in processes of their own, so that this script's measuring is not
slowed by them. The one-file reads, the big reader and the big read alone go through
bench-client (bench/bench-client.c, built with the project), so that neither the times nor the
load on the 2 cores include a Python client's own work. Prints a Markdown report on stdout.
"""
import argparse, json, multiprocessing, os, socket, statistics, subprocess, sys, tempfile, time

from benchlib import Client, pick_files, run_child, start_daemon


def client_times(argv):
    """Runs bench-client; returns the times it prints (µs, the first of each line), in seconds."""
    out = subprocess.run(argv, check=True, stdout=subprocess.PIPE, text=True).stdout
    return [int(line.split()[0]) / 1e6 for line in out.splitlines() if line.strip()]


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


def python_big_loop(sock, files, stop):
    """A Python client reading the files from readerd in a loop, answers parsed: the load an
    agent written in Python puts on the machine."""
    c = Client(sock)
    while not stop.is_set():
        c.read({'paths': files})


def long_lines_loop(sock, stop, n=100000):
    """A client that sends, one after the other, 4 MB request lines (a method that does not
    exist, with n paths as params) and reads each -32601: the cost is all in parsing the line."""
    pad = ['/usr/share/go-1.19/src/net/http/%06d-absent.go' % i for i in range(n)]
    line = json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'no_such_method', 'params': {'paths': pad}}).encode() + b'\n'
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    f = s.makefile('rb')
    while not stop.is_set():
        s.sendall(line)
        if b'-32601' not in f.readline():
            sys.exit('the long line was not refused with -32601')
    s.close()


def slow_pdf(path, ops=1500000):
    """A one-page PDF of many tiny text objects: poppler takes seconds over it."""
    body = ''.join('BT /F1 1 Tf %d %d Td (x) Tj ET\n' % (i % 600, (i // 600) % 800) for i in range(ops))
    objs = ['<< /Type /Catalog /Pages 2 0 R >>', '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
            '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R '
            '/Resources << /Font << /F1 5 0 R >> >> >>',
            '<< /Length %d >>\nstream\n%s\nendstream' % (len(body), body),
            '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>']
    out, offs = '%PDF-1.4\n', []
    for i, o in enumerate(objs):
        offs.append(len(out))
        out += '%d 0 obj\n%s\nendobj\n' % (i + 1, o)
    xref = len(out)
    out += 'xref\n0 6\n0000000000 65535 f \n' + ''.join('%010d 00000 n \n' % o for o in offs)
    out += 'trailer\n<< /Size 6 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n' % xref
    with open(path, 'w') as fh:
        fh.write(out)


def costly_svg(path, rects=200):
    """Blurred rectangles on a large canvas: librsvg spends many seconds of CPU on it."""
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="4000" height="4000">',
             '<filter id="b"><feGaussianBlur stdDeviation="40"/></filter>']
    parts += ['<rect x="%d" y="%d" width="3000" height="3000" fill="#%06x" filter="url(#b)"/>' %
              (i * 3 % 1000, i * 7 % 1000, i * 2654435 % 0xffffff) for i in range(rects)]
    parts.append('</svg>')
    with open(path, 'w') as fh:
        fh.write('\n'.join(parts))


def in_flight(sock, paths, render):
    """A client with one read of paths in flight; the socket stays open, the answer unread."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock)
    items = [{'path': p, 'render': True} for p in paths] if render else paths
    s.sendall(json.dumps({'jsonrpc': '2.0', 'id': 1, 'method': 'read', 'params': {'paths': items}}).encode() + b'\n')
    return s


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


def under_load(target, args, measure):
    stop = multiprocessing.Event()
    p = multiprocessing.Process(target=target, args=args + (stop,))
    p.start()
    time.sleep(0.5)  # let the load reach its pace
    try:
        return measure()
    finally:
        stop.set()
        p.join(60)
        if p.is_alive():
            p.terminate()


def under_client_load(argv, measure):
    """measure() while bench-client runs argv (a loop of reads); stopped with SIGTERM."""
    p = subprocess.Popen(argv)
    time.sleep(0.5)
    try:
        return measure()
    finally:
        p.terminate()
        p.wait(60)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--client', default='build/bench/bench-client')
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--samples', type=int, default=1000)
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--no-hostile', action='store_true', help='skip the PDF and SVG load (minutes of CPU)')
    a = ap.parse_args()
    readerd = os.path.abspath(a.readerd)
    client = os.path.abspath(a.client)
    files = pick_files(a.files)
    small = min(files, key=os.path.getsize)
    for f in files:
        with open(f, 'rb') as fh:
            fh.read()

    tmp = tempfile.mkdtemp(prefix='readerd-bench-')
    sock = os.path.join(tmp, 's.sock')
    listing = os.path.join(tmp, 'files.txt')
    with open(listing, 'w') as fh:
        fh.write('\n'.join(files) + '\n')
    daemon, c = start_daemon(readerd, tmp)
    one = lambda: client_times([client, 'latency', sock, small, str(a.samples)])
    try:
        latencies(c, small, 100)  # warm up
        idle = one()
        with_cat = under_load(cat_loop, (files,), one)
        with_big = under_client_load([client, 'loop', sock, listing], one)
        # The same with Python clients on both sides, as agents written in Python are.
        with_big_py = under_load(python_big_loop, (sock, files), lambda: latencies(c, small, a.samples))
        with_long = under_load(long_lines_loop, (sock,), one)
        stalled = stalled_clients(sock, files, 10)
        time.sleep(1.0)
        with_stalled = one()
        with open('/proc/%d/status' % daemon.pid) as fh:
            rss = [l.split()[1] for l in fh if l.startswith('VmRSS:')][0]
        for s in stalled:
            s.close()

        with_hostile = None
        if not a.no_hostile:
            pdf, svg = os.path.join(tmp, 'slow.pdf'), os.path.join(tmp, 'costly.svg')
            slow_pdf(pdf)
            costly_svg(svg)
            hostile = [in_flight(sock, [pdf] * 32, False), in_flight(sock, [svg] * 32, True)]
            time.sleep(1.0)
            with_hostile = client_times([client, 'latency', sock, small, str(min(a.samples, 300))])
            for s in hostile:
                s.close()
            time.sleep(1.0)

        t_read = statistics.median(client_times([client, 'read', sock, listing, str(a.runs)]))
        t_cat = statistics.median([run_child(['cat'] + files)[0] for _ in range(a.runs)])
        t_cat_sock = statistics.median(client_times([client, 'cat', listing, str(a.runs)]))
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
    print(row('the same, both clients in Python' , with_big_py))
    print(row('a client sending 4 MB lines in a loop (each -32601)', with_long))
    print(row('10 clients that never read their %d-file answers' % len(files), with_stalled))
    if with_hostile is not None:
        print(row('32 slow PDFs and 32 costly SVG renders in flight', with_hostile))
    print()
    print('Daemon RSS with the 10 stalled clients connected: %d MiB.' % (int(rss) // 1024))
    print()
    print('The %d-file read alone (bench-client): %.1f ms; `cat` of the same files to /dev/null: '
          '%.1f ms (%.2fx); `cat` into a socket drained by bench-client: %.1f ms (%.2fx).' %
          (len(files), t_read * 1e3, t_cat * 1e3, t_read / t_cat, t_cat_sock * 1e3, t_read / t_cat_sock))


if __name__ == '__main__':
    main()
