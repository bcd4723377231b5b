"""Helpers shared by readerd's benchmark scripts."""
import json, os, socket, statistics, subprocess, sys, tempfile, time

GO_SRC = '/usr/share/go-1.19/src'


def pick_files(n):
    out = []
    for root, dirs, files in os.walk(GO_SRC):
        dirs.sort()
        for f in sorted(files):
            if f.endswith('.go'):
                out.append(os.path.join(root, f))
                if len(out) == n:
                    return out
    sys.exit('only %d .go files under %s (install golang-1.19-src)' % (len(out), GO_SRC))


def run_child(argv):
    """Runs argv; returns (seconds, peak RSS in KiB) of that command alone.

    The peak comes from GNU time, not from wait4 here: a child forked from this (large) Python
    process would inherit its RSS high-water mark through fork and exec."""
    fd, out = tempfile.mkstemp()
    os.close(fd)
    t0 = time.perf_counter()
    p = subprocess.run(['/usr/bin/time', '-f', '%M', '-o', out] + argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        sys.exit('%s failed with status %d' % (argv[0], p.returncode))
    with open(out) as fh:
        kib = int(fh.read().split()[-1])
    os.unlink(out)
    return dt, kib


class Client:
    """One request at a time; the answer ends with the only newline it has."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = bytearray(1 << 27)  # large answers land without regrowing
        self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.id = 0

    def call(self, method, params):
        self.id += 1
        self.s.sendall(json.dumps({'jsonrpc': '2.0', 'id': self.id, 'method': method, 'params': params}).encode() + b'\n')
        n = 0
        while n == 0 or self.buf[n - 1] != 0x0a:
            if n == len(self.buf):
                self.buf.extend(bytes(len(self.buf)))
            got = self.s.recv_into(memoryview(self.buf)[n:])
            if got == 0:
                sys.exit('daemon closed the connection')
            n += got
        return bytes(memoryview(self.buf)[:n - 1])

    def read(self, params):
        """A read request; returns its result object."""
        return json.loads(self.call('read', params))['result']


def vm_hwm_kib(pid):
    with open('/proc/%d/status' % pid) as fh:
        for line in fh:
            if line.startswith('VmHWM:'):
                return int(line.split()[1])
    return 0


def reset_peak(pid):
    try:
        with open('/proc/%d/clear_refs' % pid, 'w') as fh:
            fh.write('5')
        return True
    except OSError:
        return False


def median_of(runs, fn):
    """Runs fn(i) for i in range(runs); fn returns (seconds, KiB). Median time, largest memory."""
    times, mems = [], []
    for i in range(runs):
        t, m = fn(i)
        times.append(t)
        mems.append(m)
    return statistics.median(times), max(mems)


def spawn_daemon(readerd, sock):
    """readerd serve on the socket path sock, once the socket is there; returns the process."""
    daemon = subprocess.Popen([readerd, 'serve', '--socket', sock], stderr=subprocess.DEVNULL)
    for _ in range(250):
        if os.path.exists(sock):
            return daemon
        time.sleep(0.02)
    sys.exit('readerd serve did not create its socket')


def start_daemon(readerd, tmp):
    """readerd serve on a socket in tmp; returns (process, Client)."""
    sock = os.path.join(tmp, 's.sock')
    return spawn_daemon(readerd, sock), Client(sock)


def task_cpu_ms(pid):
    """The run time of pid's threads so far (/proc/PID/task/TID/schedstat, nanoseconds), in ms."""
    total = 0
    for task in os.listdir('/proc/%d/task' % pid):
        try:
            with open('/proc/%d/task/%s/schedstat' % (pid, task)) as fh:
                total += int(fh.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total / 1e6
