#!/usr/bin/env python3
"""The calls of bench-mcp.py on readerd alone, once, for instruction counts and answers.

Usage: bench/mcp-calls.py [--readerd build/daemon/readerd] [--files 2000] [--face mcp|plain]
                          [--start-only] [--callgrind OUT] [--prefix CMD] [--save FILE]
                          [--rounds N] [--budget TOKENS]

--face mcp (the default) starts `readerd mcp --root GO_SRC`, says initialize and
notifications/initialized, then sends bench-mcp.py's read_files of the first N `.go` files of
Go's source tree (budget.tokens 10^9) again with each answer's skip until every file has come
(four calls for 2,000 files), and closes its stdin. --face plain sends the same files in one
`read` over `readerd serve --stdio` instead (bench-client's request: no initialize). With
--start-only it stops after initialize: what the process's start costs, before any read.

With --callgrind OUT the server runs under `valgrind --tool=callgrind` and writes its profile
to OUT (read it with callgrind_annotate OUT); no time is measured. --prefix CMD runs it under
another command (strace -f -c -o OUT counts its system calls). --save FILE writes each answer
line as it came, so that two builds' answers can be compared byte for byte (cmp).

--budget TOKENS gives each call that budget instead (the plain face's `read` too): one that binds
makes the daemon measure (read and price) every file before it cuts.

--rounds N makes those calls N times over the same server (the first round is a fresh server's,
cold; the next ones find what the first left behind, as an agent reading the same files again
does). Under --callgrind with N > 1 the profile is dumped after initialize and after each round
(callgrind_control --dump zeroes the counters), so that OUT.1 holds the start, OUT.2 the first
round alone, OUT.3 the second, and so on; OUT itself holds the exit. The plain face has no
initialize to wait for: its OUT.1 holds the start with the first round.
"""
import argparse, json, os, re, shlex, subprocess, sys

from benchlib import GO_SRC, pick_files

BUDGET = 10 ** 9  # --budget: out of the way unless told

SKIP = re.compile(r"<Omitted files='(\d+)'[^>]* skip='(\d+)'")


class Server:
    """JSON-RPC lines over a server's stdio, one request at a time."""

    def __init__(self, argv):
        self.p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.id = 0

    def call(self, method, params):
        """Returns the answer's line (bytes, without its newline)."""
        self.id += 1
        self.p.stdin.write(json.dumps({'jsonrpc': '2.0', 'id': self.id, 'method': method,
                                       'params': params}).encode() + b'\n')
        self.p.stdin.flush()
        while True:
            line = self.p.stdout.readline()
            if not line:
                sys.exit('%s closed its stdout' % self.p.args[0])
            msg = json.loads(line)
            if msg.get('id') == self.id and 'method' not in msg:
                return line.rstrip(b'\n'), msg

    def notify(self, method):
        self.p.stdin.write(json.dumps({'jsonrpc': '2.0', 'method': method}).encode() + b'\n')
        self.p.stdin.flush()

    def close(self):
        self.p.stdin.close()
        if self.p.wait(timeout=600) != 0:
            sys.exit('%s exited with status %d' % (self.p.args[0], self.p.returncode))


def mcp_initialize(server):
    server.call('initialize', {'protocolVersion': '2025-06-18', 'capabilities': {},
                               'clientInfo': {'name': 'mcp-calls', 'version': '1'}})
    server.notify('notifications/initialized')


def mcp_calls(server, files):
    """bench-mcp.py's read_files calls, through every continuation; yields each answer line."""
    skip = 0
    while skip is not None:
        arguments = {'paths': files, 'budget': {'tokens': BUDGET}}
        if skip:
            arguments['skip'] = skip
        line, msg = server.call('tools/call', {'name': 'read_files', 'arguments': arguments})
        result = msg['result']
        assert not result.get('isError'), 'read_files failed'
        yield line
        m = SKIP.search([b['text'] for b in result['content'] if b['type'] == 'text'][-1])
        skip = int(m.group(2)) if m else None


def plain_calls(server, files):
    params = {'paths': files}
    if BUDGET != 10 ** 9:
        params['budget'] = {'tokens': BUDGET}
    line, msg = server.call('read', params)
    assert 'result' in msg, msg.get('error')
    yield line


def dump(server, what):
    """Writes the profile so far to a file of its own and zeroes the counters (callgrind)."""
    subprocess.run(['callgrind_control', '--dump=' + what, str(server.p.pid)], check=True,
                   stdout=subprocess.DEVNULL)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--files', type=int, default=2000)
    ap.add_argument('--face', choices=('mcp', 'plain'), default='mcp')
    ap.add_argument('--callgrind', metavar='OUT')
    ap.add_argument('--save', metavar='FILE')
    ap.add_argument('--start-only', action='store_true',
                    help='initialize (mcp) and exit: what the process costs before any read')
    ap.add_argument('--rounds', type=int, default=1,
                    help='the calls N times over one server; under --callgrind a dump per round')
    ap.add_argument('--budget', type=int, default=10 ** 9,
                    help='budget.tokens of each call (default 10^9: it cannot bind)')
    ap.add_argument('--prefix', metavar='CMD', help='runs the server under CMD, e.g. "strace -f -c -o OUT"')
    a = ap.parse_args()
    global BUDGET
    BUDGET = a.budget
    files = pick_files(a.files)
    readerd = os.path.abspath(a.readerd)
    argv = [readerd, 'mcp', '--root', GO_SRC] if a.face == 'mcp' else [readerd, 'serve', '--stdio']
    if a.callgrind:
        argv = ['valgrind', '--tool=callgrind', '--callgrind-out-file=' + a.callgrind] + argv
    if a.prefix:
        argv = shlex.split(a.prefix) + argv
    server = Server(argv)
    calls = mcp_calls if a.face == 'mcp' else plain_calls
    if a.face == 'mcp':
        mcp_initialize(server)
    if a.start_only:
        calls = lambda server, files: iter(())
    out = open(a.save, 'wb') if a.save else None
    n = size = 0
    if a.callgrind and a.rounds > 1 and a.face == 'mcp':
        dump(server, 'start')  # initialize has been answered: the server is up
    for r in range(a.rounds):
        for line in calls(server, files):
            n += 1
            size += len(line)
            if out:
                out.write(line + b'\n')
        if a.callgrind and a.rounds > 1:
            dump(server, 'round %d' % (r + 1))
    server.close()
    if out:
        out.close()
    print('%s: %d calls, %d bytes of answers' % (a.face, n, size))


if __name__ == '__main__':
    main()
