#!/usr/bin/env python3
"""readerd links none of the worker's libraries, and finds its worker executable.

poppler, cairo and gdk-pixbuf (and the PNG and JPEG libraries they bring) are linked by
readerd-worker alone: resolving them cost every `readerd read` and every daemon start some
28 M instructions of dynamic linking (docs/performance.md, "The CLI's start"). Checked here:

- readerd's DT_NEEDED (`readelf -d`) names none of them; readerd-worker's names poppler-glib,
  so that the pattern is seen to match what it looks for;
- the worker is found as daemon/worker/worker-path.h says: $READERD_WORKER; else beside the
  running executable (readerd run through a symbolic link from another folder still finds the
  worker beside the real file); else the installed path, named in a PDF's error when readerd
  runs from a folder without a worker;
- a running readerd keeps starting the worker it found at its start when another file is
  renamed over it (as an upgrade does): the new one is only for the next readerd;
- a worker that cannot be started is a per-file CONVERSION_FAILED for a PDF and for a picture
  that needs converting (a BMP), naming the path, through the CLI (exit 1, the text file beside
  them read) and through `serve --stdio`; never a crash or a hang.
- readerd's DT_NEEDED names neither libgit2 nor libcurl, which it opens with dlopen on their
  first use (daemon/request/git-dl.h, daemon/vision/curl-dl.h), and it carries their sonames;
  a folder and a glob in a git repository are read without what .gitignore leaves out, so
  libgit2 was loaded;
- libgit2 that cannot be loaded (READERD_LIBGIT2 naming a file that is not there, or a library
  without its functions) is each folder's and glob's READ_ERROR naming libgit2, through the CLI
  and `serve --stdio`, the plain file beside them read; `expand.ignored: true` still expands;
  libcurl that cannot be loaded (READERD_LIBCURL) is `read-images`' error naming libcurl.

Usage: linked.py READERD READERD_WORKER INSTALLED_WORKER_PATH
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from activation import make_pdf  # noqa: E402

WORKER_ONLY = re.compile(r"poppler|cairo|gdk_pixbuf|png|jpeg|tiff|rsvg", re.I)
DLOPENED = re.compile(r"libgit2|libcurl", re.I)


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def needed(binary):
    r = subprocess.run(["readelf", "-d", binary], capture_output=True, text=True, check=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.stdout)


def make_bmp(path):
    """A 4x3 24-bit BMP: a picture readerd converts in the worker (it is sent as PNG)."""
    w, h = 4, 3
    row = (w * 3 + 3) // 4 * 4
    data = b"".join(bytes([0, 0, 255] * w) + b"\0" * (row - w * 3) for _ in range(h))
    head = b"BM" + struct.pack("<IHHI", 54 + len(data), 0, 0, 54)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(data), 2835, 2835, 0, 0)
    with open(path, "wb") as f:
        f.write(head + info + data)


def env_with(worker):
    env = dict(os.environ)
    env.pop("READERD_WORKER", None)
    if worker is not None:
        env["READERD_WORKER"] = worker
    return env


def cli_files(readerd, paths, worker=None):
    """`readerd read --json PATHS`: (exit status, {path: file result})."""
    r = subprocess.run([readerd, "read", "--json"] + paths, capture_output=True, text=True,
                       env=env_with(worker), timeout=60)
    check(r.returncode in (0, 1), "readerd read: exit %d, %s" % (r.returncode, r.stderr))
    return r.returncode, {f["path"]: f for f in json.loads(r.stdout)["files"]}


def stdio_files(readerd, paths, worker, extra_env=None, params=None):
    params = dict(params or {}, paths=paths)
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "read", "params": params})
    env = dict(env_with(worker), **(extra_env or {}))
    r = subprocess.run([readerd, "serve", "--stdio"], input=line + "\n", capture_output=True,
                       text=True, env=env, timeout=60)
    check(r.returncode == 0, "serve --stdio: exit %d, %s" % (r.returncode, r.stderr))
    answer = json.loads(r.stdout.splitlines()[0])
    return {f["path"]: f for f in answer["result"]["files"]}


def rpc_read(proc, rid, paths):
    """One read on a running `serve --stdio`: {path: file result}."""
    req = {"jsonrpc": "2.0", "id": rid, "method": "read", "params": {"paths": paths}}
    proc.stdin.write(json.dumps(req) + "\n")
    proc.stdin.flush()
    answer = json.loads(proc.stdout.readline())
    check(answer.get("id") == rid and "result" in answer, "answer: %r" % answer)
    return {f["path"]: f for f in answer["result"]["files"]}


def check_kept_over_upgrade(readerd, worker, scratch, pdf, text):
    """readerd and its worker copied to a folder of their own; a daemon started there, then a
    worker that fails everything renamed over the worker file, as dpkg installs a new version:
    the daemon still reads the PDF with the worker it started with, a new readerd gets the new
    one (and fails, which shows the file really was replaced)."""
    folder = os.path.join(scratch, "upgrade")
    os.mkdir(folder)
    copy, copy_worker = os.path.join(folder, "readerd"), os.path.join(folder, "readerd-worker")
    shutil.copy2(readerd, copy)
    shutil.copy2(worker, copy_worker)
    proc = subprocess.Popen([copy, "serve", "--stdio"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=env_with(None))
    try:
        check("code" not in rpc_read(proc, 1, [text])[text], "the text file before the upgrade")
        new = os.path.join(folder, "new-worker")
        with open(new, "w") as f:
            f.write("#!/bin/sh\nexit 1\n")
        os.chmod(new, 0o755)
        os.rename(new, copy_worker)
        p = rpc_read(proc, 2, [pdf])[pdf]
        check("code" not in p and p["type"] == "pdf",
              "the running readerd started the replaced worker: %r" % p)
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    check(proc.returncode == 0, "serve --stdio: exit %d" % proc.returncode)
    p = cli_files(copy, [pdf])[1][pdf]
    check("code" in p and "exited with status 1" in p.get("error", ""),
          "a new readerd with the new worker: %r" % p)


def check_read(files, pdf, bmp):
    p, b = files[pdf], files[bmp]
    check("code" not in p and p["type"] == "pdf", "the PDF: %r" % p)
    check("code" not in b and b["type"] == "image", "the BMP: %r" % b)


def check_failed(files, pdf, bmp, text, worker):
    for path, what in ((pdf, "PDF reader"), (bmp, "image decoder")):
        f = files[path]
        check(f.get("code") == "CONVERSION_FAILED", "%s: %r" % (path, f))
        check("cannot start the %s %s: No such file or directory" % (what, worker) in f["error"],
              "%s: the error does not name the worker: %r" % (path, f["error"]))
    check("code" not in files[text], "the text file: %r" % files[text])


def make_repo(folder):
    """A git repository (the least libgit2 opens: git itself need not be installed) whose
    .gitignore leaves out .env."""
    for sub in ("objects", "refs"):
        os.makedirs(os.path.join(folder, ".git", sub))
    for name, text in ((".git/HEAD", "ref: refs/heads/main\n"),
                       (".git/config", "[core]\n\trepositoryformatversion = 0\n"),
                       (".gitignore", ".env\n"), (".env", "SECRET=1\n"), ("a.txt", "a\n")):
        with open(os.path.join(folder, name), "w") as f:
            f.write(text)


def cli_env(**extra):
    env = dict(os.environ)
    env.update(extra)
    return env


def check_dlopened(readerd, libs, scratch, text):
    bad = [lib for lib in libs if DLOPENED.search(lib)]
    check(not bad, "readerd links what it should open on first use: %s" % ", ".join(bad))
    with open(readerd, "rb") as f:
        image = f.read()
    check(re.search(rb"libgit2\.so\.[0-9]", image) and re.search(rb"libcurl\.so\.[0-9]", image),
          "readerd names no libgit2 or libcurl soname to open")
    repo = os.path.join(scratch, "repo")
    make_repo(repo)
    folder, glob = repo + "/", os.path.join(repo, "*")
    r = subprocess.run([readerd, "read", "--json", folder, glob], capture_output=True,
                       text=True, env=cli_env(), timeout=60)
    check(r.returncode == 0, "readerd read of a repository: exit %d, %s" % (r.returncode, r.stderr))
    paths = sorted(f["path"] for f in json.loads(r.stdout)["files"])
    want = sorted([folder + ".gitignore", folder + "a.txt"] * 2)
    check(paths == want, "the folder and glob with .gitignore applied: %r" % paths)
    print("ok: readerd links neither libgit2 nor libcurl; .gitignore applies through libgit2")

    for lib, words in ((os.path.join(scratch, "no-such-libgit2.so.1"), "cannot open shared"),
                       ("libz.so.1", "libz.so.1 has no git_repository_open_ext")):
        env = {"READERD_LIBGIT2": lib}
        r = subprocess.run([readerd, "read", "--json", folder, glob, text], capture_output=True,
                           text=True, env=cli_env(**env), timeout=60)
        check(r.returncode == 1, "libgit2 missing: exit %d, %s" % (r.returncode, r.stderr))
        cli = {f["path"]: f for f in json.loads(r.stdout)["files"]}
        stdio = stdio_files(readerd, [folder, glob, text], None, env, {"expand": {}})
        for files in (cli, stdio):
            check(sorted(files) == sorted([folder, glob, text]), "entries: %r" % sorted(files))
            check("code" not in files[text], "the text file: %r" % files[text])
            for path in (folder, glob):
                f = files[path]
                check(f.get("code") == "READ_ERROR" and
                      f["error"].startswith("libgit2 cannot be loaded: ") and
                      words in f["error"] and "git's ignore rules" in f["error"],
                      "%s without libgit2: %r" % (path, f))
        files = stdio_files(readerd, [folder], None, env, {"expand": {"ignored": True}})
        check(sorted(files) == sorted(folder + n for n in (".env", ".gitignore", "a.txt")),
              "expand.ignored without libgit2: %r" % sorted(files))
    print("ok: libgit2 that cannot be loaded is each folder's and glob's READ_ERROR")

    png = os.path.join(scratch, "a.png")
    make_png(png)
    missing = os.path.join(scratch, "no-such-libcurl.so.4")
    r = subprocess.run([readerd, "read-images", "--query", "what is it", png],
                       capture_output=True, text=True, timeout=60,
                       env=cli_env(READERD_LIBCURL=missing, READERD_VISION_MODEL="m",
                                   READERD_VISION_BASE_URL="http://127.0.0.1:9/v1"))
    check(r.returncode == 1 and "libcurl cannot be loaded: %s: cannot open shared" % missing
          in r.stderr, "read-images without libcurl: exit %d, %r" % (r.returncode, r.stderr))
    print("ok: libcurl that cannot be loaded is read-images' error naming it")


def make_png(path):
    """A 4x4 red RGB PNG."""
    raw = b"".join(b"\0" + b"\xff\0\0" * 4 for _ in range(4))

    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data +
                struct.pack(">I", zlib.crc32(kind + data)))
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)) +
                chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def main():
    if shutil.which("readelf") is None:
        print("SKIP: readelf (binutils) is not installed")
        return 77
    readerd, worker, installed = (os.path.abspath(a) for a in sys.argv[1:4])
    libs = needed(readerd)
    bad = [lib for lib in libs if WORKER_ONLY.search(lib)]
    check(not bad, "readerd links the worker's libraries: %s" % ", ".join(bad))
    check(any("poppler-glib" in lib for lib in needed(worker)),
          "readerd-worker does not link poppler-glib: %s" % needed(worker))
    print("ok: readerd links %d libraries, none of the worker's" % len(libs))

    scratch = tempfile.mkdtemp(prefix="readerd-linked-")
    try:
        pdf, bmp, text = (os.path.join(scratch, n) for n in ("a.pdf", "a.bmp", "a.txt"))
        make_pdf(pdf, "worker found")
        make_bmp(bmp)
        with open(text, "w") as f:
            f.write("some text\n")

        check_dlopened(readerd, libs, scratch, text)

        # Beside the running executable, READERD_WORKER unset.
        status, files = cli_files(readerd, [pdf, bmp])
        check_read(files, pdf, bmp)
        check(status == 0, "exit %d with every file read" % status)
        link = os.path.join(scratch, "bin", "readerd")
        os.mkdir(os.path.dirname(link))
        os.symlink(readerd, link)
        check_read(cli_files(link, [pdf, bmp])[1], pdf, bmp)
        print("ok: the worker beside readerd, also through a symbolic link")

        # Named by READERD_WORKER, relative to the current folder.
        rel = os.path.relpath(worker)
        check_read(cli_files(readerd, [pdf, bmp], worker=rel)[1], pdf, bmp)
        print("ok: READERD_WORKER=%s" % rel)

        check_kept_over_upgrade(readerd, worker, scratch, pdf, text)
        print("ok: a running readerd keeps its worker when an upgrade replaces the file")

        # Missing: a per-file error, through the CLI and the stdio server.
        missing = os.path.join(scratch, "no-such-worker")
        status, files = cli_files(readerd, [pdf, bmp, text], worker=missing)
        check(status == 1, "exit %d with per-file errors" % status)
        check_failed(files, pdf, bmp, text, missing)
        check_failed(stdio_files(readerd, [pdf, bmp, text], missing), pdf, bmp, text, missing)
        print("ok: a missing worker is each PDF's and picture's CONVERSION_FAILED")

        # No worker beside it and none named: the installed path, told when it is not there.
        alone = os.path.join(scratch, "alone", "readerd")
        os.mkdir(os.path.dirname(alone))
        shutil.copy2(readerd, alone)
        status, files = cli_files(alone, [pdf, bmp, text])
        if os.path.exists(installed):
            check_read(files, pdf, bmp)
            print("ok: the installed worker %s" % installed)
        else:
            check_failed(files, pdf, bmp, text, installed)
            print("ok: the installed path %s, named as missing" % installed)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
