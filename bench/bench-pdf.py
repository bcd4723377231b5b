#!/usr/bin/env python3
"""PDF benchmark: readerd against poppler-utils on the 134-page ReportLab user guide.

    bench/bench-pdf.py [--readerd build/daemon/readerd] [--pdf PATH] [--runs 7]

Text: all 134 pages through a running `readerd serve --socket`, as a client connected to its
socket, once as one request whose paths split the document into page ranges (read in
parallel), once the way an agent reads on (one request, then `pages="N-"` from each
continuation notice until there is none, one request at a time), and once more that way on a
copy of the PDF whose times are touched before each request (a changed file: every window opens
the document again, as before workers kept documents open), against `pdftotext FILE -`. Rendering: pages 1-10 with `render: true` (at the default 1568 px long edge,
and at 1169 px, which is A4 at 100 dpi), against `pdftoppm -r 100 -jpeg -f 1 -l 10`.
Each run times readerd and its baseline back to back; the table gives median times and the
median of the per-run ratios, readerd / poppler-utils (lower is better), for wall-clock time
and for CPU time (readerd's: the daemon and its PDF worker processes; CPU time is the steadier
figure on a busy machine, wall-clock time what a client waits).
Prints a Markdown table. Needs poppler-utils and python-reportlab-doc.
"""
import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from benchlib import start_daemon

DEFAULT_PDF = '/usr/share/doc/python-reportlab-doc/reportlab-userguide.pdf'


class Daemon:
    """readerd serve on a socket in tmp, and one client connection: one request at a time."""

    def __init__(self, binary, tmp):
        self.p, self.client = start_daemon(binary, tmp)

    def read(self, paths, **params):
        return self.client.read(dict(paths=paths, **params))

    def cpu(self):
        """CPU seconds of the daemon and of its PDF workers: those still running (workers are
        kept for reuse) to the nanosecond (schedstat), those it has waited for in clock ticks."""
        def run_ns(pid):
            total = 0
            try:
                tasks = os.listdir('/proc/%d/task' % pid)
            except OSError:
                return 0
            for task in tasks:
                try:
                    total += int(open('/proc/%d/task/%s/schedstat' % (pid, task)).read().split()[0])
                except (OSError, IndexError, ValueError):
                    pass
            return total

        stat = open('/proc/%d/stat' % self.p.pid).read().rsplit(')', 1)[1].split()
        total = run_ns(self.p.pid) / 1e9
        total += (int(stat[13]) + int(stat[14])) / os.sysconf('SC_CLK_TCK')  # cutime cstime
        for task in os.listdir('/proc/%d/task' % self.p.pid):
            try:
                children = open('/proc/%d/task/%s/children' % (self.p.pid, task)).read().split()
            except OSError:
                continue
            total += sum(run_ns(int(c)) for c in children) / 1e9
        return total

    def close(self):
        self.client.s.close()
        self.p.terminate()
        self.p.wait(timeout=30)


def timed(fn, cpu):
    """Wall-clock and CPU seconds of fn(); cpu() reads the CPU seconds spent so far."""
    c, t = cpu(), time.perf_counter()
    fn()
    return time.perf_counter() - t, cpu() - c


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def measure(cases, runs, daemon_cpu):
    """cases: [(name, fn, baseline_fn)]. Each run times every case and its baseline back to
    back, so that a machine busy with other work slows both alike. Returns, per case, the
    medians of: time, baseline time, time ratio, CPU time, baseline CPU time, CPU ratio."""
    values = {name: [[] for _ in range(6)] for name, _, _ in cases}
    for _ in range(runs):
        for name, fn, base in cases:
            b, bc = timed(base, children_cpu)
            t, tc = timed(fn, daemon_cpu)
            for v, x in zip(values[name], (t, b, t / b, tc, bc, tc / bc if bc > 0 else 0)):
                v.append(x)
    return {name: tuple(statistics.median(v) for v in values[name]) for name in values}


def check_files(result, want_pages=None):
    for f in result['files']:
        if f.get('code'):
            sys.exit('readerd failed on %s: %s %s' % (f['path'], f['code'], f['error']))
    if want_pages is not None:
        got = [int(n) for n in re.findall(r"<Page number='(\d+)'", result['xml'])]
        if got != want_pages:
            sys.exit('readerd showed pages %r, expected %r' % (got[:5], want_pages[:5]))


def text_in_ranges(d, pdf, n_pages, step):
    paths = [{'path': pdf, 'pages': '%d-%d' % (a, min(a + step - 1, n_pages))}
             for a in range(1, n_pages + 1, step)]
    check_files(d.read(paths), list(range(1, n_pages + 1)))


def text_following_notices(d, pdf, n_pages, touch=False):
    """With touch, the file's times change before each request: the worker cannot keep it."""
    shown, pages = [], '1-'
    while pages:
        if touch:
            os.utime(pdf, ns=(time.time_ns(), time.time_ns()))
        r = d.read([{'path': pdf, 'pages': pages}])
        check_files(r)
        shown += [int(n) for n in re.findall(r"<Page number='(\d+)'", r['xml'])]
        m = re.search(r'continue with pages="([^"]+)"', r['xml'])
        pages = m.group(1) if m else None
    if shown != list(range(1, n_pages + 1)):
        sys.exit('following the notices showed %d pages' % len(shown))


def render_ten(d, pdf, max_dim):
    r = d.read([{'path': pdf, 'pages': '1-10', 'render': True}], images={'maxDimension': max_dim})
    check_files(r)
    if len(r['images']) != 10:
        sys.exit('readerd rendered %d pages, not 10' % len(r['images']))
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--pdf', default=DEFAULT_PDF)
    ap.add_argument('--runs', type=int, default=7)
    args = ap.parse_args()
    for tool in ('pdftotext', 'pdftoppm', 'pdfinfo'):
        if shutil.which(tool) is None:
            sys.exit('%s is missing (Debian package poppler-utils)' % tool)
    if not os.path.exists(args.pdf):
        sys.exit('%s is missing (Debian package python-reportlab-doc)' % args.pdf)
    pdf = os.path.abspath(args.pdf)
    info = subprocess.run(['pdfinfo', pdf], capture_output=True, text=True, check=True).stdout
    n_pages = int(re.search(r'^Pages:\s+(\d+)', info, re.M).group(1))
    out_dir = tempfile.mkdtemp(prefix='bench-pdf-')
    touched = os.path.join(out_dir, 'touched.pdf')
    shutil.copyfile(pdf, touched)
    d = Daemon(args.readerd, out_dir)
    try:
        def pdftotext():
            subprocess.run(['pdftotext', pdf, os.path.join(out_dir, 'out.txt')], check=True)

        def pdftoppm():
            subprocess.run(['pdftoppm', '-r', '100', '-jpeg', '-f', '1', '-l', '10', pdf,
                            os.path.join(out_dir, 'page')], check=True)

        text_in_ranges(d, pdf, n_pages, 20)  # warm the page cache and the pool
        cases = [
            ('text, all %d pages: one request, 7 ranges of 20 pages read in parallel' % n_pages,
             lambda: text_in_ranges(d, pdf, n_pages, 20), pdftotext, 'pdftotext'),
            ('text, all %d pages: from page 1, then following each `continue with pages=` notice'
             % n_pages, lambda: text_following_notices(d, pdf, n_pages), pdftotext, 'pdftotext'),
            ('text, all %d pages: the same, the file touched before each request (opened again '
             'each time)' % n_pages, lambda: text_following_notices(d, touched, n_pages, True),
             pdftotext, 'pdftotext'),
            ('render pages 1-10, long edge 1568 px (the default)',
             lambda: render_ten(d, pdf, 1568), pdftoppm, 'pdftoppm -r 100 -jpeg'),
            ('render pages 1-10, long edge 1169 px (A4 at 100 dpi)',
             lambda: render_ten(d, pdf, 1169), pdftoppm, 'pdftoppm -r 100 -jpeg'),
        ]
        results = measure([(name, fn, base) for name, fn, base, _ in cases], args.runs, d.cpu)
        rows = [(name, results[name], label) for name, _, _, label in cases]
        media = render_ten(d, pdf, 1568)['images']
    finally:
        d.close()
        shutil.rmtree(out_dir, ignore_errors=True)

    print('PDF: `%s` (%d pages), medians of %d runs, %d CPUs\n' % (os.path.basename(pdf), n_pages,
                                                                   args.runs, os.cpu_count()))
    print('| what | readerd | baseline | baseline time | ratio | readerd CPU | baseline CPU | CPU ratio |')
    print('|---|---|---|---|---|---|---|---|')
    for what, (ours, base, ratio, cpu, base_cpu, cpu_ratio), name in rows:
        print('| %s | %.0f ms | `%s` | %.0f ms | %.2fx | %.0f ms | %.0f ms | %.2fx |' % (
            what, ours * 1000, name, base * 1000, ratio, cpu * 1000, base_cpu * 1000, cpu_ratio))
    kinds = {}
    for img in media:
        kinds[img['mediaType']] = kinds.get(img['mediaType'], 0) + 1
    print('\nRendered pages 1-10 were sent as %s.' % ', '.join('%d %s' % (n, k) for k, n in sorted(kinds.items())))


if __name__ == '__main__':
    main()
