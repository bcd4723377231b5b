#!/usr/bin/env python3
"""readerd image downscaling against vipsthumbnail, on real photos, as ratios in one run.

Usage: bench/bench-images.py [--readerd build/daemon/readerd] [--runs 7] [--size 1568]

Each photo is scaled so that its long edge is --size pixels and encoded as JPEG, by:
- `vipsthumbnail FILE --size N -o out.jpg[Q=85]` (Debian package libvips-tools): a process each run;
- `readerd read --json --max-dimension N FILE`: a process each run, like vipsthumbnail;
- a warm `readerd serve` over its socket: the conversion alone (a different maxDimension each run,
  N, N-1, ..., so that the cache never answers), and a cache hit (the same request again).
Wall time is the median of --runs runs with warm page caches; peak RSS is that of the process
(GNU time, Debian package `time`). Prints a Markdown table on stdout.
"""
import argparse, base64, json, os, subprocess, sys, tempfile, time

from benchlib import median_of, run_child, start_daemon

PHOTOS = [
    ('6028x3391 JPEG wallpaper', '/usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg'),  # lomiri-wallpapers-20.04
    ('3120x4208 JPEG phone photo', '/usr/libexec/installed-tests/gdk-pixbuf/issue70.jpg'),  # gdk-pixbuf-tests
]


def jpeg_size(data):
    i = 2
    while i + 9 < len(data):
        marker = data[i + 1]
        if marker in (0xd8, 0x01) or 0xd0 <= marker <= 0xd7:
            i += 2
            continue
        if 0xc0 <= marker <= 0xcf and marker not in (0xc4, 0xc8, 0xcc):
            return int.from_bytes(data[i + 7:i + 9], 'big'), int.from_bytes(data[i + 5:i + 7], 'big')
        i += 2 + int.from_bytes(data[i + 2:i + 4], 'big')
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--readerd', default='build/daemon/readerd')
    ap.add_argument('--runs', type=int, default=7)
    ap.add_argument('--size', type=int, default=1568)
    a = ap.parse_args()
    readerd = os.path.abspath(a.readerd)
    vips = subprocess.run(['sh', '-c', 'command -v vipsthumbnail'], capture_output=True, text=True).stdout.strip()
    if not vips:
        sys.exit('vipsthumbnail is missing (Debian package libvips-tools)')
    photos = [(name, path) for name, path in PHOTOS if os.path.exists(path)]
    if not photos:
        sys.exit('no photo found (Debian packages lomiri-wallpapers-20.04, gdk-pixbuf-tests)')
    tmp = tempfile.mkdtemp(prefix='readerd-bench-images-')
    out = os.path.join(tmp, 'out.jpg')
    daemon, client = start_daemon(readerd, tmp)

    print('## Downscaling photos to %d px on the long edge, JPEG; median of %d runs' % (a.size, a.runs))
    print()
    print('| photo | what | wall time | x vipsthumbnail | peak RSS | output |')
    print('|---|---|---|---|---|---|')
    for name, path in photos:
        with open(path, 'rb') as fh:  # warm the page cache for everyone
            fh.read()

        def vips_run(i):
            return run_child([vips, path, '--size', str(a.size), '-o', out + '[Q=85]'])

        def cli_run(i):
            return run_child([readerd, 'read', '--json', '--max-dimension', str(a.size), path])

        def socket_miss(i):
            t0 = time.perf_counter()
            r = client.read({'paths': [path], 'images': {'maxDimension': a.size - 1 - i}})
            dt = time.perf_counter() - t0
            assert not r['files'][0].get('code'), r['files'][0]
            return dt, 0

        def socket_hit(i):
            t0 = time.perf_counter()
            client.read({'paths': [path], 'images': {'maxDimension': a.size}})
            return time.perf_counter() - t0, 0

        vt, vm = median_of(a.runs, vips_run)
        with open(out, 'rb') as fh:
            vdata = fh.read()
        vdims = jpeg_size(vdata)
        ct, cm = median_of(a.runs, cli_run)
        r = client.read({'paths': [path], 'images': {'maxDimension': a.size}})
        img = r['images'][0]
        rdata = base64.b64decode(img['data'])
        mt, _ = median_of(a.runs, socket_miss)
        ht, _ = median_of(a.runs, socket_hit)
        rows = [
            ('vipsthumbnail (process)', vt, vm, vdims, len(vdata)),
            ('readerd read (process)', ct, cm, (img['width'], img['height']), len(rdata)),
            ('readerd serve, conversion (warm daemon, cache miss)', mt, None, None, None),
            ('readerd serve, same request again (cache hit)', ht, None, None, None),
        ]
        for what, t, m, dims, size in rows:
            print('| %s | %s | %.0f ms | %.2f | %s | %s |' % (
                name, what, t * 1e3, t / vt, '%.0f MiB' % (m / 1024) if m else '',
                '%dx%d, %d KiB' % (dims[0], dims[1], size // 1024) if dims else ''))
    daemon.terminate()
    daemon.wait(5)
    print()
    print('Machine: %d cores; %s; %s' % (
        os.cpu_count(), subprocess.run(['uname', '-srm'], capture_output=True, text=True).stdout.strip(),
        subprocess.run([vips, '--vips-version'], capture_output=True, text=True).stdout.strip()))


if __name__ == '__main__':
    main()
