#!/usr/bin/env python3
"""readerd mcp against the MCP filesystem server, on the same files in one run.

Usage: bench/bench-mcp.py [--readerd build/daemon/readerd] [--files 2000] [--runs 7]

The first N `.go` files of Go's source tree (golang-1.19-src, the files bench.py reads) read
whole through readerd's `read_files`, and through the reference MCP filesystem server's
`read_multiple_files` (@modelcontextprotocol/server-filesystem, pinned in tests/mcp: install it
with `npm ci --prefix tests/mcp`) with the same paths. readerd's calls carry a budget that does
not bind (`budget.tokens` 10^9); its answers still stop at 8 MiB of content per call
(docs/mcp.md, Limits), so the same arguments are sent again with the `skip` each answer's last
block names until every file has come: the time of those calls together is what the peer's one
call is compared with. One call with the client's default budget (what an agent gets without
asking) is timed beside. Both servers are started once, with the Go tree as their only root,
and driven over stdio by this script with raw JSON-RPC lines (initialize,
notifications/initialized, then the calls). A call is timed from the request written to the
last byte of its answer read; wall time is the median of --runs rounds with warm caches, after
one round that is not counted, the servers' calls alternating. That first round is each
server's first work since it started (the files already in the page cache): it is given apart
as the cold figure, what an agent's first read costs, where readerd has nothing to reuse yet
(its price memo is empty). Peak memory is the server's VmHWM, reset before each round; CPU is
the server's user and system time per round (the median). Prints a Markdown table on stdout.
"""
import argparse, json, os, re, statistics, subprocess, sys, time

from benchlib import pick_files, reset_peak, vm_hwm_kib

HERE = os.path.dirname(os.path.abspath(__file__))
FS_SERVER = os.path.join(HERE, '..', 'tests', 'mcp', 'node_modules', '@modelcontextprotocol',
                         'server-filesystem', 'dist', 'index.js')
GO_SRC = '/usr/share/go-1.19/src'


class Session:
    """An MCP client over a server's stdio: one request at a time, answers matched by id."""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, bufsize=0)
        self.buf = bytearray(1 << 27)  # large answers land without regrowing
        self.start = self.end = 0  # unread bytes: buf[start:end]
        self.id = 0
        init = self.call('initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                                        'clientInfo': {'name': 'bench-mcp', 'version': '1'}})
        self.server = init['result']['serverInfo']
        self.send({'jsonrpc': '2.0', 'method': 'notifications/initialized'})

    def send(self, msg):
        data = memoryview(json.dumps(msg).encode() + b'\n')
        while data:
            data = data[self.p.stdin.write(data):]

    def readline(self):
        """The next line from the server, read straight into one large buffer."""
        scan = self.start
        while True:
            nl = self.buf.find(b'\n', scan, self.end)
            if nl >= 0:
                line = bytes(memoryview(self.buf)[self.start:nl])
                self.start = nl + 1
                return line
            if self.start > 0:  # move what is left to the front
                self.buf[:self.end - self.start] = self.buf[self.start:self.end]
                self.end -= self.start
                self.start = 0
            if self.end == len(self.buf):
                self.buf.extend(bytes(len(self.buf)))
            scan = self.end
            got = self.p.stdout.readinto(memoryview(self.buf)[self.end:])
            if not got:
                sys.exit('%s closed its stdout' % self.p.args[0])
            self.end += got

    def call(self, method, params):
        """Sends a request; returns (the parsed answer) once the line with its id has come."""
        self.id += 1
        self.send({'jsonrpc': '2.0', 'id': self.id, 'method': method, 'params': params})
        while True:
            msg = json.loads(self.readline())
            if msg.get('id') == self.id and 'method' not in msg:
                return msg

    def timed_call(self, tool, arguments):
        """tools/call; returns (seconds, answer bytes, result). JSON parsing is not timed."""
        self.id += 1
        self.send({'jsonrpc': '2.0', 'id': self.id, 'method': 'tools/call',
                   'params': {'name': tool, 'arguments': arguments}})
        t0 = time.perf_counter()
        while True:
            line = self.readline()
            dt = time.perf_counter() - t0
            msg = json.loads(line)
            if msg.get('id') == self.id and 'method' not in msg:
                break
        if 'error' in msg:
            sys.exit('%s: %s' % (tool, msg['error']))
        return dt, len(line), msg['result']

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


SKIP = re.compile(r"<Omitted files='(\d+)'[^>]* skip='(\d+)'")


def check_readerd(result, files):
    """One answer of read_files: no file refused; returns the skip its last block names for the
    files still to read, or None when there are none."""
    texts = [b['text'] for b in result['content'] if b['type'] == 'text']
    assert not result.get('isError') and texts, 'read_files failed'
    bad = [t[:200] for t in texts if " code='" in t.split('>', 1)[0] and "omitted=" not in t.split('>', 1)[0]]
    assert not bad, 'read_files: %s' % bad[:3]
    m = SKIP.search(texts[-1])
    return int(m.group(2)) if m else None


def cpu_ms(pid):
    with open('/proc/%d/stat' % pid) as fh:
        f = fh.read().rsplit(')', 1)[1].split()
    return (int(f[11]) + int(f[12])) * 1000 / os.sysconf('SC_CLK_TCK')


def readerd_whole(session, files, budget):
    """read_files of files, followed through its continuations; returns (seconds, answer bytes,
    calls)."""
    total_t, total_n, calls, skip = 0.0, 0, 0, 0
    while skip is not None:
        arguments = {'paths': files, 'budget': {'tokens': budget}}
        if skip:
            arguments['skip'] = skip
        dt, n, result = session.timed_call('read_files', arguments)
        total_t += dt
        total_n += n
        calls += 1
        skip = check_readerd(result, files)
        assert calls <= len(files), 'read_files: no progress'
    return total_t, total_n, calls


def readerd_default(session, files):
    """One read_files call with the client's default budget."""
    dt, n, result = session.timed_call('read_files', {'paths': files})
    check_readerd(result, files)
    return dt, n, 1


def check_fs(result, files):
    text = result['content'][0]['text']
    assert not result.get('isError'), text[:300]
    assert ': Error - ' not in text, 'read_multiple_files: %s' % text[text.index(': Error - ') - 200:][:400]
    assert text.count('\n---\n') >= len(files) - 1


def fs_whole(session, files):
    dt, n, result = session.timed_call('read_multiple_files', {'paths': files})
    check_fs(result, files)
    return dt, n, 1


def measure(rounds, runs):
    """rounds: (Session, fn) each, fn() -> (seconds, bytes, calls). They alternate, so that a
    machine busy with something else slows them alike. Returns (median s, peak KiB, bytes,
    calls, median CPU ms, cold) of each: cold is (s, CPU ms) of the round not counted when it
    was its server's first (a fresh process: nothing learnt, no memo), else None."""
    colds, fresh = [], set()
    for session, fn in rounds:
        c0 = cpu_ms(session.p.pid)
        dt = fn()[0]  # warm-up: caches, the JIT, the allocator, readerd's price memo
        colds.append((dt, cpu_ms(session.p.pid) - c0) if session not in fresh else None)
        fresh.add(session)
    times = [[] for _ in rounds]
    cpus = [[] for _ in rounds]
    peaks = [0] * len(rounds)
    sizes = [0] * len(rounds)
    calls = [0] * len(rounds)
    for _ in range(runs):
        for k, (session, fn) in enumerate(rounds):
            reset_peak(session.p.pid)
            c0 = cpu_ms(session.p.pid)
            dt, sizes[k], calls[k] = fn()
            cpus[k].append(cpu_ms(session.p.pid) - c0)
            times[k].append(dt)
            peaks[k] = max(peaks[k], vm_hwm_kib(session.p.pid))
    return [(statistics.median(t), p, n, c, statistics.median(u), cold)
            for t, p, n, c, u, cold in zip(times, peaks, sizes, calls, cpus, colds)]


def ratio(a, b):
    """a / b; CPU times come in clock ticks, and a small read may take none."""
    return a / b if b else float('inf')


def cold_cell(cold):
    return '%.1f ms, %.0f ms CPU' % (cold[0] * 1e3, cold[1]) if cold else '(not its first)'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--runs', type=int, default=7)
    a = ap.parse_args()
    if not os.path.exists(FS_SERVER):
        sys.exit('%s is missing: run npm ci --prefix tests/mcp' % FS_SERVER)
    files = pick_files(a.files)
    total = sum(os.path.getsize(f) for f in files)
    for f in files:  # warm the page cache for everyone
        with open(f, 'rb') as fh:
            fh.read()

    rd = Session([os.path.abspath(a.readerd), 'mcp', '--root', GO_SRC])
    fs = Session(['node', FS_SERVER, GO_SRC])
    (rd_t, rd_kib, rd_size, rd_calls, rd_cpu, rd_cold), \
        (df_t, df_kib, df_size, _, df_cpu, df_cold), \
        (fs_t, fs_kib, fs_size, _, fs_cpu, fs_cold) = measure([
            (rd, lambda: readerd_whole(rd, files, 10 ** 9)),
            (rd, lambda: readerd_default(rd, files)),
            (fs, lambda: fs_whole(fs, files))], a.runs)
    rd.close()
    fs.close()
    with open(os.path.join(os.path.dirname(FS_SERVER), '..', 'package.json')) as fh:
        version = json.load(fh)['version']

    mib = 1 << 20
    print('## MCP: read_files against the filesystem server\n')
    print('%d `.go` files (%.1f MiB) over stdio, median of %d rounds; load average %.2f %.2f %.2f\n'
          % ((len(files), total / mib, a.runs) + os.getloadavg()))
    print('| server | what | calls | answers | wall time | x readerd | server CPU | server peak RSS | cold: a fresh server\'s first round |')
    print('|---|---|---|---|---|---|---|---|---|')
    print('| `readerd mcp` | `read_files`, every file, budget out of the way | %d | %.1f MiB | %.1f ms | 1.00 | %.0f ms | %.1f MiB | %s |'
          % (rd_calls, rd_size / mib, rd_t * 1e3, rd_cpu, rd_kib / 1024, cold_cell(rd_cold)))
    print('| `readerd mcp` | `read_files`, the client\'s default budget (one call) | 1 | %.1f MiB | %.1f ms | %.2f | %.0f ms | %.1f MiB | %s |'
          % (df_size / mib, df_t * 1e3, df_t / rd_t, df_cpu, df_kib / 1024, cold_cell(df_cold)))
    print('| `@modelcontextprotocol/server-filesystem` %s | `read_multiple_files`, every file | 1 | %.1f MiB | %.1f ms | %.2f | %.0f ms | %.1f MiB | %s |'
          % (version, fs_size / mib, fs_t * 1e3, fs_t / rd_t, fs_cpu, fs_kib / 1024, cold_cell(fs_cold)))
    print('\nreaderd is %.1fx faster for every file (target: 15x); %.1fx in CPU'
          % (fs_t / rd_t, ratio(fs_cpu, rd_cpu)))
    print('cold, a fresh server\'s first round against the peer\'s first call: %.1fx; %.1fx in CPU'
          % (fs_cold[0] / rd_cold[0], ratio(fs_cold[1], rd_cold[1])))


if __name__ == '__main__':
    main()
