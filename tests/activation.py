#!/usr/bin/env python3
"""Socket activation of `readerd serve`, as systemd's readerd.socket does it: the test makes the
listening socket, a client connects and sends a read before any readerd runs, then readerd is
started with the socket on descriptor 3 (LISTEN_FDS=1, LISTEN_PID) and must answer it.

  activation.py READERD [--require-activation]

Cases: the first connection started by systemd-socket-activate when installed (else by hand); a
text file and a PDF (read by the worker process, readerd-worker, found beside readerd or named
by READERD_WORKER) answered; --idle-exit: readerd exits 0 once idle, the socket file stays, and
a client that connects meanwhile waits in the backlog until readerd is started again; SIGTERM
leaves the socket file; refusals (a TCP socket, --socket with a passed socket, --idle-exit
without one).
A readerd built without libsystemd must refuse a passed socket; the rest is then skipped (77).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

DEADLINE = 20


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def make_pdf(path, text):
    """Writes a one-page PDF showing `text` in Helvetica, with an exact xref table."""
    stream = b"BT /F1 24 Tf 72 700 Td (" + text.encode() + b") Tj ET"
    objs = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    with open(path, "wb") as f:
        f.write(out)


def listening_socket(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    os.chmod(path, 0o600)
    s.listen(16)
    return s


def start_activated(readerd, lsock, args, log):
    """Starts `readerd serve ARGS` as systemd would: the socket on descriptor 3, LISTEN_FDS=1
    and LISTEN_PID its own pid (set by the shell that execs it, whose pid readerd keeps)."""
    fd = lsock.fileno()

    def on_3():
        os.dup2(fd, 3)
        os.set_inheritable(3, True)

    return subprocess.Popen(
        ["sh", "-c", 'LISTEN_PID=$$ LISTEN_FDS=1 exec "$0" serve "$@"', readerd] + args,
        stdin=subprocess.DEVNULL, stdout=log, stderr=log, close_fds=False, preexec_fn=on_3)


def connect(path):
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    c.settimeout(DEADLINE)
    c.connect(path)
    return c


def send_read(c, rid, paths):
    req = {"jsonrpc": "2.0", "id": rid, "method": "read", "params": {"paths": paths}}
    c.sendall(json.dumps(req).encode() + b"\n")


def recv_answer(c, rid):
    buf = b""
    while b"\n" not in buf:
        chunk = c.recv(65536)
        check(chunk, "the connection closed before the answer to request %d" % rid)
        buf += chunk
    msg = json.loads(buf.split(b"\n", 1)[0])
    check(msg.get("id") == rid, "answer for another request: %r" % msg)
    check("result" in msg, "an error answered: %r" % msg)
    return msg["result"]


def check_answer(result, text_path, text, pdf_path=None, pdf_text=None):
    f = result["files"][0]
    check(f.get("type") == "text", "the text file: %r" % f)
    check(f["lines"] == text.count("\n"), "lines %r, wrote %d" % (f["lines"], text.count("\n")))
    for i, line in enumerate(text.splitlines(), 1):
        check("%6d\t%s" % (i, line) in result["xml"], "line %d not in the answer" % i)
    if pdf_path is not None:
        p = result["files"][1]
        check(p.get("type") == "pdf" and "code" not in p, "the PDF: %r" % p)
        check(pdf_text in result["xml"], "the PDF's text is not in the answer: " + result["xml"])
        check("<Page number='1'" in result["xml"], "no page 1 in the answer")


def wait_exit(proc, timeout, what):
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        fail(what)


def read_log(path):
    with open(path, errors="replace") as f:
        return f.read()


def run_refused(readerd, lsock, args, logpath):
    with open(logpath, "w") as log:
        p = start_activated(readerd, lsock, args, log)
    return wait_exit(p, DEADLINE, "readerd serve %s did not exit" % args), read_log(logpath)


def main():
    if len(sys.argv) < 2:
        print("usage: activation.py READERD [--require-activation]", file=sys.stderr)
        return 2
    readerd = os.path.abspath(sys.argv[1])
    base = tempfile.mkdtemp(prefix="readerd-activation-")
    os.chmod(base, 0o700)
    try:
        return cases(readerd, base)
    finally:
        if os.environ.get("READERD_TEST_KEEP") != "1":
            shutil.rmtree(base, ignore_errors=True)


PASSED_ENV = ("G_SLICE", "G_DEBUG", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS",
              "TSAN_OPTIONS", "MALLOC_PERTURB_", "READERD_WORKER")


def first_connection(readerd, base, name, tool, text_path, text, pdf_path):
    """A client connects and sends a read before readerd runs; readerd, started on the socket
    (by `tool`, or by hand when None), answers it; SIGTERM then leaves the socket file."""
    first_sock = os.path.join(base, name + ".sock")
    logpath = os.path.join(base, name + ".log")
    log = open(logpath, "w")
    if tool:
        # The tool hands readerd only the environment it is told to: the sanitizers' and
        # GLib's settings go with it, or a sanitizer run checks a different program; and the
        # worker a test names (the package's, unpacked beside no readerd of its own).
        keep = [a for v in PASSED_ENV if v in os.environ for a in ("-E", v)]
        proc = subprocess.Popen([tool, "-l", first_sock] + keep + [readerd, "serve"],
                                stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        # Its socket file exists from bind(), before listen(): a connect in between is refused.
        # The tool says "Listening on PATH as 3." once it listens.
        t0 = time.monotonic()
        while "Listening on " + first_sock not in read_log(logpath):
            check(time.monotonic() - t0 < DEADLINE, "systemd-socket-activate made no socket")
            check(proc.poll() is None, "systemd-socket-activate exited: " + read_log(logpath))
            time.sleep(0.02)
        how = os.path.basename(tool)
    else:
        first = listening_socket(first_sock)
        proc = None
        how = "by hand"
    c = connect(first_sock)
    send_read(c, 1, [text_path, pdf_path])
    if proc is None:
        proc = start_activated(readerd, first, [], log)
        first.close()
    check_answer(recv_answer(c, 1), text_path, text, pdf_path, "Hello from a passed socket")
    c.close()
    print("ok: the first connection, readerd started %s, read a text file and a PDF" % how)
    proc.send_signal(signal.SIGTERM)
    status = wait_exit(proc, DEADLINE, "readerd did not stop on SIGTERM")
    log.close()
    check(status == 0, "exit status %d after SIGTERM: %s" % (status, read_log(logpath)))
    check(os.path.exists(first_sock), "readerd removed the socket file it was passed")
    check("a socket passed on descriptor 3" in read_log(logpath), "log: " + read_log(logpath))
    print("ok: SIGTERM: exit 0, the socket file left to its owner")


def cases(readerd, base):
    sock = os.path.join(base, "readerd.sock")
    text = "first line\nsecond line, über\n\tthird\n"
    text_path = os.path.join(base, "notes.txt")
    with open(text_path, "w") as f:
        f.write(text)
    pdf_path = os.path.join(base, "hello.pdf")
    make_pdf(pdf_path, "Hello from a passed socket")

    # A build without libsystemd refuses a passed socket, saying why.
    lsock = listening_socket(sock)
    probe = os.path.join(base, "probe.log")
    status, out = run_refused(readerd, lsock, ["--socket", os.path.join(base, "x.sock")], probe)
    if "without libsystemd" in out:
        check(status == 1, "a build without libsystemd exits %d on a passed socket" % status)
        check(os.path.exists(sock), "the passed socket's file was removed")
        print("SKIP: this readerd was built without libsystemd: it refuses a passed socket "
              "(checked); socket activation itself cannot be tested")
        return 77
    # --socket with a passed socket is a usage error, and nothing was bound.
    check(status == 2 and "--socket cannot be given" in out, "--socket with LISTEN_FDS: %d %s"
          % (status, out))
    check(not os.path.exists(os.path.join(base, "x.sock")), "--socket was bound anyway")

    # 1. The first connection starts readerd: by hand as systemd does, and by
    # systemd-socket-activate (which makes the socket and execs readerd when the first client
    # connects) when it is installed.
    first_connection(readerd, base, "hand", None, text_path, text, pdf_path)
    tool = shutil.which("systemd-socket-activate")
    if tool:
        first_connection(readerd, base, "tool", tool, text_path, text, pdf_path)
    else:
        print("note: systemd-socket-activate is not installed: started by hand only")

    # 2. --idle-exit: readerd exits once idle; a client connecting meanwhile waits in the
    # backlog and is answered by the next readerd started on the same socket.
    log2 = os.path.join(base, "idle.log")
    with open(log2, "w") as log:
        proc = start_activated(readerd, lsock, ["--idle-exit", "1"], log)
    c = connect(sock)
    send_read(c, 2, [text_path])
    check_answer(recv_answer(c, 2), text_path, text)
    time.sleep(1.5)
    check(proc.poll() is None, "readerd exited while a client was connected")
    c.close()
    status = wait_exit(proc, DEADLINE, "readerd --idle-exit 1 still runs with no client")
    check(status == 0, "exit status %d when idle: %s" % (status, read_log(log2)))
    check("no client for 1 s" in read_log(log2), "log: " + read_log(log2))
    check(os.path.exists(sock), "the socket file was removed at the idle exit")
    c = connect(sock)
    send_read(c, 3, [text_path])
    with open(log2, "a") as log:
        proc = start_activated(readerd, lsock, ["--idle-exit", "1"], log)
    check_answer(recv_answer(c, 3), text_path, text)
    c.close()
    check(wait_exit(proc, DEADLINE, "the second readerd did not exit when idle") == 0,
          "the second readerd's exit status")
    print("ok: --idle-exit: exit 0 when idle, the next client answered by the next start")

    # 3. Refusals.
    tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(1)
    status, out = run_refused(readerd, tcp, [], os.path.join(base, "tcp.log"))
    check(status == 1 and "not a Unix socket" in out, "a TCP socket: %d %s" % (status, out))
    tcp.close()
    r = subprocess.run([readerd, "serve", "--idle-exit", "5", "--socket",
                        os.path.join(base, "y.sock")], capture_output=True, text=True,
                       timeout=DEADLINE)
    check(r.returncode == 2 and "--idle-exit needs a socket passed by systemd" in r.stderr,
          "--idle-exit without a passed socket: %d %s" % (r.returncode, r.stderr))
    r = subprocess.run([readerd, "serve", "--idle-exit", "0"], capture_output=True, text=True,
                       timeout=DEADLINE)
    check(r.returncode == 2 and "1 to 86400" in r.stderr, "--idle-exit 0: " + r.stderr)
    print("ok: a TCP socket, --socket and --idle-exit without a passed socket refused")
    lsock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
