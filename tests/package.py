#!/usr/bin/env python3
"""The readerd .deb, built by scripts/package.sh from debian/ and checked as it would be
installed: unpacked with `dpkg-deb -x` into a scratch root (no root needed).

Environment:
  READERD_BUILD_ROOT    where to build the package (meson's build folder; set by meson)
  READERD_VERSION       the version meson builds (set by meson)
  READERD_DEB           a .deb built already (scripts/package.sh): used instead of building one
  READERD_PACKAGE_ROOT  a root the package is installed in already (`/` after `apt install`):
                        checked there instead of unpacking one

Checked: the files (/usr/bin/readerd, /usr/libexec/readerd/readerd-worker, readerd(1), the user
units), Depends from the two binaries' libraries (and libgit2's package in Depends, libcurl's in
Recommends at the version meson.build requires, which readerd opens with dlopen), the version against meson's and the
changelog's, every option of `readerd --help` named in the man page and the page free of groff
warnings, the units by `systemd-analyze verify` (when installed), the socket path of
readerd.socket against the one `readerd serve` makes by default, the service's hardening (each
key, and `systemd-analyze security --offline`'s exposure when that systemd has it), the restart
policy that keeps the socket listening, and a socket-activated read (tests/activation.py) by the
installed binary with the installed worker (named by READERD_WORKER in an unpacked root, found
where it was installed under `/`). Skips (77) without dpkg-buildpackage, dpkg-deb or debhelper.
"""
import glob
import gzip
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(HERE)
UNITS = "usr/lib/systemd/user"
WORKER = "usr/libexec/readerd/readerd-worker"


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=kw.pop("timeout", 60),
                          **kw)


def build_deb():
    deb = os.environ.get("READERD_DEB")
    if deb:
        check(os.path.isfile(deb), "READERD_DEB names no file: " + deb)
        return deb
    missing = [t for t in ("dpkg-buildpackage", "dpkg-deb", "dh", "dpkg-checkbuilddeps")
               if shutil.which(t) is None]
    if missing:
        skip("%s missing: install dpkg-dev and debhelper to build the .deb"
             % ", ".join(missing))
    # The build dependencies must be installed (dpkg-buildpackage checks them): say which are
    # not, as a skip, rather than fail on a machine set up only to build.
    r = run(["dpkg-checkbuilddeps", "-Pnocheck", os.path.join(SOURCE, "debian", "control")])
    if r.returncode != 0:
        skip("build dependencies of the .deb missing: " + r.stderr.strip())
    out = os.path.join(os.environ.get("READERD_BUILD_ROOT", tempfile.gettempdir()), "package")
    for old in glob.glob(os.path.join(out, "readerd*_*")):
        os.unlink(old)
    # The .deb alone: the extension's suite builds and tests the .vsix.
    env = dict(os.environ, DEB_BUILD_OPTIONS="nocheck parallel=%d" % (os.cpu_count() or 1),
               READERD_NO_VSIX="1")
    t0 = time.monotonic()
    r = run([os.path.join(SOURCE, "scripts", "package.sh"), out], env=env, timeout=600)
    check(r.returncode == 0, "scripts/package.sh failed:\n" + r.stdout + r.stderr)
    debs = [l for l in r.stdout.strip().splitlines() if l.endswith(".deb")]
    deb = debs[-1] if debs else ""
    check(os.path.isfile(deb), "scripts/package.sh named no .deb: " + r.stdout)
    print("ok: built %s in %.0f s" % (os.path.basename(deb), time.monotonic() - t0))
    return deb


def check_control(deb, root):
    fields = run(["dpkg-deb", "-f", deb, "Package", "Version", "Depends", "Recommends"]).stdout
    check("Package: readerd" in fields, fields)
    version = re.search(r"^Version: (\S+)", fields, re.M).group(1)
    want = os.environ.get("READERD_VERSION")
    if want:
        check(version == want, "the package is %s, meson builds %s: update debian/changelog"
              % (version, want))
    # ${shlibs:Depends} filled: the package of each library readerd or its worker links, as
    # dpkg knows it on this machine, is named.
    depends = re.search(r"^Depends: (.*)$", fields, re.M).group(1)
    named = {d.split()[0].split(":")[0] for d in depends.split(", ")}
    needed = []
    for binary in ("usr/bin/readerd", WORKER):
        dump = run(["objdump", "-p", os.path.join(root, binary)]).stdout
        found = re.findall(r"NEEDED\s+(\S+)", dump)
        check(found, "objdump found no NEEDED entry in /" + binary)
        needed += [n for n in found if n not in needed]
    cache = run(["ldconfig", "-p"]).stdout
    for soname in needed:
        owner = package_of(soname, cache)
        check(owner in named, "Depends does not name %s (for %s): %s" % (owner, soname, depends))
    print("ok: %s, Depends on %d packages for %d libraries" % (version, depends.count(",") + 1,
                                                               len(needed)))
    # The libraries readerd opens with dlopen (their sonames are in the binary, DT_NEEDED does
    # not name them): libgit2's package in Depends, libcurl's in Recommends (debian/rules).
    m = re.search(r"^Recommends: (.*)$", fields, re.M)
    recommends = {d.split()[0].split(":")[0] for d in (m.group(1) if m else "").split(", ")}
    with open(os.path.join(root, "usr/bin/readerd"), "rb") as f:
        image = f.read()
    owners = {}
    for pattern, field, names in ((rb"libgit2\.so\.[0-9.]*[0-9]", "Depends", named),
                                  (rb"libcurl\.so\.[0-9.]*[0-9]", "Recommends", recommends)):
        found = re.search(pattern, image)
        check(found, "usr/bin/readerd names no %s to open" % pattern.decode())
        soname = found.group(0).decode()
        owner = owners[field] = package_of(soname, cache)
        check(owner in names, "%s does not name %s (for %s, opened with dlopen): %s"
              % (field, owner, soname, fields))
        print("ok: %s names %s, for %s opened with dlopen" % (field, owner, soname))
    # libcurl's package at the version meson.build requires and readerd checks on loading
    # (curl-dl.c), not the older one libcurl's symbols file dates curl_version() by.
    want = "%s (>= %s)" % (owners["Recommends"], libcurl_min_version())
    check(want in [d.strip() for d in m.group(1).split(",")],
          "Recommends does not name %s, the libcurl meson.build requires: %s" % (want, fields))
    print("ok: Recommends %s" % want)
    return version


def libcurl_min_version():
    """The oldest libcurl meson.build takes (dl_libs), which readerd checks on loading."""
    with open(os.path.join(SOURCE, "meson.build")) as f:
        found = re.search(r"'libcurl' : \['([0-9.]+)'", f.read())
    check(found, "meson.build names no libcurl version in dl_libs")
    return found.group(1)


def package_of(soname, cache):
    """The package that installed the library soname, as ldconfig's cache finds it."""
    m = re.search(r"^\s*%s \(.*x86-64.*\) => (\S+)$" % re.escape(soname), cache, re.M) or \
        re.search(r"^\s*%s \(.*\) => (\S+)$" % re.escape(soname), cache, re.M)
    check(m, "ldconfig does not know %s" % soname)
    # dpkg knows the path as the library's package installed it: with or without /usr
    # (merged /usr), the link or the file it points to.
    path, real = m.group(1), os.path.realpath(m.group(1))
    owner = ""
    for cand in (path, os.path.join(os.path.dirname(path), os.path.basename(real)), real):
        owner = owner or run(["dpkg", "-S", cand]).stdout.split(":")[0]
    check(owner, "dpkg knows no package of " + path)
    return owner


def check_files(root, version):
    for f in ("usr/bin/readerd", WORKER, "usr/share/man/man1/readerd.1.gz",
              UNITS + "/readerd.socket", UNITS + "/readerd.service",
              "usr/share/doc/readerd/copyright"):
        check(os.path.exists(os.path.join(root, f)), f + " is not in the package")
    readerd = os.path.join(root, "usr/bin/readerd")
    r = run([readerd, "--version"])
    check(r.returncode == 0 and r.stdout == "readerd %s\n" % version,
          "readerd --version: %d %r %r" % (r.returncode, r.stdout, r.stderr))
    print("ok: " + r.stdout.strip())
    return readerd


def check_man(root, readerd, version):
    with gzip.open(os.path.join(root, "usr/share/man/man1/readerd.1.gz"), "rt") as f:
        page = f.read()
    if shutil.which("groff"):
        r = run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=page)
        check(r.returncode == 0 and r.stderr == "", "groff warns on readerd(1): " + r.stderr)
    text = page.replace("\\-", "-")
    th = re.search(r'^\.TH READERD 1 "[^"]*" "readerd ([^"]*)"', page, re.M)
    check(th and th.group(1) == version.split("-")[0],
          "readerd(1)'s .TH names another version than %s: update docs/readerd.1" % version)
    usage = run([readerd, "--help"]).stdout
    options = sorted(set(re.findall(r"--[a-z][a-z-]+", usage)))
    missing = [o for o in options if o not in text]
    check(not missing, "readerd(1) does not name %s (readerd --help does)" % ", ".join(missing))
    for cmd in ("read", "serve", "mcp", "read-images"):
        check(re.search(r"^\.B.? %s\b" % re.escape(cmd.replace("-", "\\-")), page, re.M),
              "readerd(1) has no entry for " + cmd)
    print("ok: readerd(1) names the %d options of readerd --help" % len(options))


def unit_value(root, unit, key):
    with open(os.path.join(root, UNITS, unit)) as f:
        m = re.search(r"^%s=(.*)$" % key, f.read(), re.M)
    check(m, "%s has no %s=" % (unit, key))
    return m.group(1).strip()


def unit_values(root, unit, key):
    with open(os.path.join(root, UNITS, unit)) as f:
        return [v.strip() for v in re.findall(r"^%s=(.*)$" % key, f.read(), re.M)]


# The service's sandbox: readerd reads the user's files, writes only its socket's folder, talks
# HTTP to the vision endpoint, and runs readerd-worker as its PDF and image worker.
HARDENING = {
    "NoNewPrivileges": "yes",
    "UMask": "0077",
    "ProtectSystem": "strict",
    "ProtectHome": "read-only",
    "ReadWritePaths": "-%t",
    "PrivateTmp": "yes",
    "PrivateDevices": "yes",
    "ProtectKernelTunables": "yes",
    "ProtectKernelModules": "yes",
    "ProtectControlGroups": "yes",
    "RestrictNamespaces": "yes",
    "RestrictSUIDSGID": "yes",
    "LockPersonality": "yes",
    "MemoryDenyWriteExecute": "yes",
    "SystemCallArchitectures": "native",
    "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
    "Restart": "on-failure",
    "StartLimitIntervalSec": "0",
}


def syscall_group(group, seen):
    """The system calls of a group of systemd-analyze syscall-filter, its groups expanded."""
    calls = set()
    out = run(["systemd-analyze", "syscall-filter", group]).stdout
    for line in out.splitlines()[1:]:
        name = line.strip()
        if name.startswith("@") and name not in seen:
            seen.add(name)
            calls |= syscall_group(name, seen)
        elif name and not name.startswith("#"):
            calls.add(name)
    return calls


def check_hardening(root):
    for key, want in HARDENING.items():
        got = unit_value(root, "readerd.service", key)
        check(got == want, "readerd.service: %s=%s, expected %s" % (key, got, want))
    for key in ("MemoryHigh", "MemoryMax", "TasksMax", "RestartSec"):
        unit_value(root, "readerd.service", key)
    # The worker is forked and run again (execve) and sets its own limits (setrlimit): the
    # filter allows the system calls of a service, which hold them, and denies the privileged.
    check(unit_values(root, "readerd.service", "SystemCallFilter") ==
          ["@system-service", "~@privileged"],
          "readerd.service: SystemCallFilter= is %s" %
          unit_values(root, "readerd.service", "SystemCallFilter"))
    if shutil.which("systemd-analyze") is not None:
        allowed = syscall_group("@system-service", set())
        denied = syscall_group("@privileged", set())
        for call in ("execve", "clone3", "vfork", "prlimit64", "setrlimit", "memfd_create",
                     "fstatfs"):
            check(call in allowed and call not in denied,
                  "the filter does not allow %s, which readerd needs" % call)
    # The socket keeps listening after a burst of failed starts: the service never hits a start
    # limit (which would fail the socket too), and the socket's own trigger limit is set.
    for key in ("TriggerLimitIntervalSec", "TriggerLimitBurst"):
        unit_value(root, "readerd.socket", key)
    print("ok: readerd.service's sandbox, its system calls and the restart policy")


def check_exposure(units, env):
    """systemd-analyze security's exposure score of the service, where it can read a unit file
    (--offline, systemd 250 and later): at most 3.0 of 10."""
    r = run(["systemd-analyze", "security", "--offline=yes", "--no-pager", "readerd.service"],
            cwd=units, env=env)
    m = re.search(r"Overall exposure level for readerd.service: ([0-9.]+)", r.stdout + r.stderr)
    if m is None:
        print("ok: exposure not measured (this systemd-analyze has no security --offline)")
        return
    check(float(m.group(1)) <= 3.0, "readerd.service's exposure is %s; at most 3.0 expected:\n%s"
          % (m.group(1), r.stdout))
    print("ok: readerd.service's exposure by systemd-analyze security: " + m.group(1))


def check_units(root, readerd, scratch):
    check_hardening(root)
    exec_start = unit_value(root, "readerd.service", "ExecStart")
    check(exec_start.split()[0] == "/usr/bin/readerd", "ExecStart= runs " + exec_start)
    check(unit_value(root, "readerd.socket", "SocketMode") == "0600", "SocketMode= is not 0600")
    # The socket systemd makes is the one readerd makes when started by hand, so clients that
    # use the default path find either.
    listen = unit_value(root, "readerd.socket", "ListenStream")
    runtime = os.path.join(scratch, "run")
    os.mkdir(runtime, 0o700)
    proc = subprocess.Popen([readerd, "serve"], env=dict(os.environ, XDG_RUNTIME_DIR=runtime),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    default = None
    t0 = time.monotonic()
    while default is None and time.monotonic() - t0 < 20 and proc.poll() is None:
        found = os.listdir(runtime)
        default = os.path.join(runtime, found[0]) if found else None
        time.sleep(0.02)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    check(default is not None, "readerd serve made no socket in XDG_RUNTIME_DIR: " + err)
    check(listen.replace("%t", runtime) == default, "readerd.socket listens on %s, readerd serve "
          "on %s" % (listen, default))
    if shutil.which("systemd-analyze") is None:
        print("ok: the units (systemd-analyze is not installed: not verified)")
        return
    # Verified where ExecStart= finds the package's binary, with its man page for
    # Documentation=, in a user manager's terms (%t from XDG_RUNTIME_DIR).
    units = os.path.join(scratch, "units")
    os.mkdir(units)
    for unit in ("readerd.socket", "readerd.service"):
        with open(os.path.join(root, UNITS, unit)) as f:
            text = f.read().replace("/usr/bin/readerd", readerd)
        with open(os.path.join(units, unit), "w") as f:
            f.write(text)
    env = dict(os.environ, XDG_RUNTIME_DIR=runtime,
               MANPATH=os.path.join(root, "usr/share/man") + ":")
    cmd = ["systemd-analyze", "--user", "verify", "readerd.socket", "readerd.service"]
    r = run(cmd, cwd=units, env=env)
    if "Failed to initialize manager" in r.stderr:
        cmd.remove("--user")
        r = run(cmd, cwd=units, env=env)
    check(r.returncode == 0 and r.stderr.strip() == "",
          "%s: %d\n%s" % (" ".join(cmd), r.returncode, r.stderr))
    print("ok: the units verified by " + " ".join(cmd[:-2]))
    check_exposure(units, env)


def main():
    scratch = tempfile.mkdtemp(prefix="readerd-package-")
    os.chmod(scratch, 0o700)
    try:
        root = os.environ.get("READERD_PACKAGE_ROOT")
        if root:
            deb = None
            r = run(["dpkg-query", "-W", "-f=${Version}", "readerd"])
            check(r.returncode == 0, "READERD_PACKAGE_ROOT is set, but readerd is not installed")
            version = r.stdout.strip()
        else:
            deb = build_deb()
            root = os.path.join(scratch, "root")
            r = run(["dpkg-deb", "-x", deb, root])
            check(r.returncode == 0, "dpkg-deb -x: " + r.stderr)
            version = check_control(deb, root)
        readerd = check_files(root, version)
        check_man(root, readerd, version)
        check_units(root, readerd, scratch)
        # The packaged worker: under / readerd finds it where it was installed; unpacked
        # elsewhere, it must be named (the build folder's would otherwise be inherited).
        env = dict(os.environ)
        env.pop("READERD_WORKER", None)
        if os.path.realpath(root) != "/":
            env["READERD_WORKER"] = os.path.join(root, WORKER)
        r = subprocess.run([sys.executable, os.path.join(HERE, "activation.py"), readerd],
                           env=env, timeout=120)
        check(r.returncode == 0, "the socket-activated read by the packaged readerd failed "
              "(exit %d)" % r.returncode)
        print("ok: the packaged readerd served a socket-activated read")
        return 0
    finally:
        if os.environ.get("READERD_TEST_KEEP") != "1":
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
