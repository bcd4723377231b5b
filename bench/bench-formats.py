#!/usr/bin/env python3
"""readerd formats: peak memory and time of one large read in each output format.

Usage: bench/bench-formats.py [--readerd build/daemon/readerd] [--files 2000] [--images 0] [--runs 5]

One `read` of N real source files (golang-1.19-src), plus optionally M noise PNGs of about
2.3 MiB each (sent as they are), over the socket, once per format: xml (the default),
anthropic, openai, toolresult, text. Each measure starts a fresh daemon, so that its peak RSS
(VmHWM) is that one request's; "idle" is a fresh daemon after a one-file read. The answer is
formatted per file on the pool and sent as pieces with one vectored write: the peak above idle
should stay near the answer's size (built once), not twice it.
Prints a Markdown table on stdout.
"""
import argparse, json, os, socket, statistics, struct, subprocess, sys, tempfile, time, zlib

from benchlib import pick_files, vm_hwm_kib

FORMATS = ['xml', 'anthropic', 'openai', 'toolresult', 'text']


def noise_png(path, w, h, seed):
    """An RGB PNG of random pixels: it does not compress, so it is sent byte for byte."""
    rows = b''.join(b'\0' + os.urandom(3 * w) for _ in range(h))

    def chunk(kind, data):
        return struct.pack('>I', len(data)) + kind + data + struct.pack('>I', zlib.crc32(kind + data))

    with open(path, 'wb') as fh:
        fh.write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0))
                 + chunk(b'IDAT', zlib.compress(rows, 1)) + chunk(b'IEND', b''))


class Daemon:
    def __init__(self, readerd, tmp):
        self.sock = os.path.join(tmp, 's.sock')
        if os.path.exists(self.sock):
            os.unlink(self.sock)
        self.p = subprocess.Popen([readerd, 'serve', '--socket', self.sock], stderr=subprocess.DEVNULL)
        for _ in range(500):  # the socket file appears at bind(), before listen()
            self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                self.s.connect(self.sock)
                break
            except OSError:
                self.s.close()
                time.sleep(0.01)
        else:
            sys.exit('readerd did not start')
        self.id = 0

    def call(self, params):
        self.id += 1
        self.s.sendall(json.dumps({'jsonrpc': '2.0', 'id': self.id, 'method': 'read', 'params': params}).encode() + b'\n')
        chunks = []
        while True:
            got = self.s.recv(1 << 22)
            if not got:
                sys.exit('daemon closed the connection')
            chunks.append(got)
            if got.endswith(b'\n'):
                return b''.join(chunks)

    def stop(self):
        self.s.close()
        self.p.terminate()
        self.p.wait(10)


def measure(readerd, tmp, params):
    """(seconds, peak RSS KiB, answer bytes) of one read on a fresh daemon."""
    d = Daemon(readerd, tmp)
    try:
        t0 = time.perf_counter()
        resp = d.call(params)
        dt = time.perf_counter() - t0
        msg = json.loads(resp)
        if 'result' not in msg:
            sys.exit('read failed: %s' % resp[:300])
        return dt, vm_hwm_kib(d.p.pid), len(resp)
    finally:
        d.stop()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--images', type=int, default=0)
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    readerd = os.path.abspath(a.readerd)
    tmp = tempfile.mkdtemp(prefix='readerd-bench-formats-')
    paths = pick_files(a.files)
    for i in range(a.images):
        p = os.path.join(tmp, 'noise-%d.png' % i)
        noise_png(p, 1000, 800, i)
        paths.append(p)
    total = sum(os.path.getsize(f) for f in paths)
    for f in paths:  # warm the page cache
        with open(f, 'rb') as fh:
            fh.read()

    idle = max(measure(readerd, tmp, {'paths': [paths[0]]})[1] for _ in range(3))
    rows = []
    for fmt in FORMATS:
        runs = [measure(readerd, tmp, {'paths': paths, 'format': fmt}) for _ in range(a.runs)]
        rows.append((fmt, statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[0][2]))

    what = '%d files' % a.files + (' and %d PNGs of 1000x800 noise' % a.images if a.images else '')
    print('## One read of %s (%.1f MiB on disk), per format; median time and max peak of %d runs'
          % (what, total / 2**20, a.runs))
    print()
    print('| format | answer | wall time | peak RSS | peak - idle | (peak - idle) / answer |')
    print('|---|---|---|---|---|---|')
    for fmt, t, m, size in rows:
        print('| %s | %.1f MiB | %.0f ms | %.1f MiB | %.1f MiB | %.2f |'
              % (fmt, size / 2**20, t * 1e3, m / 1024, (m - idle) / 1024, (m - idle) * 1024 / size))
    print()
    print('Idle daemon after a one-file read: %.1f MiB. Machine: %d cores; %s'
          % (idle / 1024, os.cpu_count(), subprocess.run(['uname', '-srm'], capture_output=True, text=True).stdout.strip()))
    for f in os.listdir(tmp):
        os.unlink(os.path.join(tmp, f))
    os.rmdir(tmp)


if __name__ == '__main__':
    main()
