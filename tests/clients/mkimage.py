#!/usr/bin/env python3
"""Builds a busybox image without a registry.

mkimage.py [--cmd JSON_LIST] OUTDIR [NAME]
  OUTDIR/rootfs.tar  the root filesystem as one uncompressed layer (also what
                     `podman import` takes)
  OUTDIR/oci.tar     an OCI image layout archive for `ctr images import`,
                     its manifest named NAME (default
                     docker.io/library/crt-busybox:latest)
--cmd sets the image config's Cmd (default ["sh"]), e.g. '["sleep", "2147483647"]'
for a pause image.
The busybox is the host's busybox-static; entries are sorted and dated 0 so
that the same busybox always gives the same digests.
"""
import argparse, hashlib, io, json, os, subprocess, tarfile

BUSYBOX = "/bin/busybox"


def add(tar, name, kind, data=b"", mode=0o755, link=""):
    ti = tarfile.TarInfo(name)
    ti.mtime = 0
    ti.uid = ti.gid = 0
    ti.uname = ti.gname = "root"
    ti.mode = mode
    ti.type = kind
    if kind == tarfile.SYMTYPE:
        ti.linkname = link
    if kind == tarfile.REGTYPE:
        ti.size = len(data)
        tar.addfile(ti, io.BytesIO(data))
    else:
        tar.addfile(ti)


def rootfs_tar():
    applets = subprocess.run([BUSYBOX, "--list"], check=True, capture_output=True,
                             text=True).stdout.split()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for d in ["bin", "dev", "etc", "proc", "root", "run", "sbin", "sys", "tmp",
                  "usr", "usr/bin", "var"]:
            add(tar, d, tarfile.DIRTYPE, mode=0o1777 if d == "tmp" else 0o755)
        with open(BUSYBOX, "rb") as f:
            add(tar, "bin/busybox", tarfile.REGTYPE, f.read())
        for a in sorted(set(applets) - {"busybox"}):
            add(tar, "bin/" + a, tarfile.SYMTYPE, link="busybox")
        add(tar, "etc/passwd", tarfile.REGTYPE,
            b"root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n",
            mode=0o644)
        add(tar, "etc/group", tarfile.REGTYPE, b"root:x:0:\ntty:x:5:\nnogroup:x:65534:\n",
            mode=0o644)
    return buf.getvalue()


def blob(tar, data):
    digest = hashlib.sha256(data).hexdigest()
    add(tar, "blobs/sha256/" + digest, tarfile.REGTYPE, data, mode=0o644)
    return {"digest": "sha256:" + digest, "size": len(data)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cmd", default='["sh"]', help="the image's Cmd as a JSON list")
    ap.add_argument("outdir")
    ap.add_argument("name", nargs="?", default="docker.io/library/crt-busybox:latest")
    a = ap.parse_args()
    out, name, cmd = a.outdir, a.name, json.loads(a.cmd)
    os.makedirs(out, exist_ok=True)
    layer = rootfs_tar()
    with open(os.path.join(out, "rootfs.tar"), "wb") as f:
        f.write(layer)
    diff_id = "sha256:" + hashlib.sha256(layer).hexdigest()
    config = {
        "architecture": "amd64", "os": "linux",
        "config": {"Env": ["PATH=/usr/sbin:/usr/bin:/sbin:/bin"], "Cmd": cmd,
                   "WorkingDir": "/"},
        "rootfs": {"type": "layers", "diff_ids": [diff_id]},
        "history": [{"created_by": "tests/clients/mkimage.py"}],
    }
    with tarfile.open(os.path.join(out, "oci.tar"), "w", format=tarfile.GNU_FORMAT) as tar:
        add(tar, "oci-layout", tarfile.REGTYPE, b'{"imageLayoutVersion":"1.0.0"}', mode=0o644)
        add(tar, "blobs", tarfile.DIRTYPE)
        add(tar, "blobs/sha256", tarfile.DIRTYPE)
        cdesc = blob(tar, json.dumps(config, sort_keys=True).encode())
        ldesc = blob(tar, layer)
        manifest = {
            "schemaVersion": 2,
            "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": dict(mediaType="application/vnd.oci.image.config.v1+json", **cdesc),
            "layers": [dict(mediaType="application/vnd.oci.image.layer.v1.tar", **ldesc)],
        }
        mdesc = blob(tar, json.dumps(manifest, sort_keys=True).encode())
        tag = name.rsplit(":", 1)[1] if ":" in name.rsplit("/", 1)[-1] else "latest"
        index = {
            "schemaVersion": 2,
            "manifests": [dict(mediaType="application/vnd.oci.image.manifest.v1+json",
                               annotations={"io.containerd.image.name": name,
                                            "org.opencontainers.image.ref.name": tag},
                               platform={"architecture": "amd64", "os": "linux"},
                               **mdesc)],
        }
        add(tar, "index.json", tarfile.REGTYPE, json.dumps(index).encode(), mode=0o644)


main()
