#!/usr/bin/env python3
"""The campaign store packed to be carried to the device machine: a copy without the per-step
rows (`step_errors`), vacuumed and gzip-compressed, written where scripts/device/common.sh reads it.

Why: a device call carries the working tree and the named ignored paths, 64 MiB in all. The
tracked tree (the committed results export in docs/data/ included) is about 23 MB and the wheel
6 MB; the whole 2026-12-04 campaign store compresses to 34 MB, a third of it per-step rows, and a
call that carried it with a faster compression was refused (2026-12-04, 40 MB). Nothing on the
device reads earlier calls' per-step rows: a run resumes from `evaluations`, the per-step layouts
(`step_layouts`, small) are kept, and the device's export brings back the rows its runs add, which
scripts/merge-device-results.py inserts beside the ones the local store kept. Only a `kmut depth`
printed on the device sees the new rows alone; the figures come from the merged store here.

Usage: scripts/pack-device-store.py STORE [OUT]      # OUT defaults to .dev1/wit.sqlite.gz
Prints the packed size and what a call from the working folder would carry (the tracked tree,
.whl/ and OUT's folder), and fails (exit 1) above --limit MB (default 40) for the store or above
62 MiB for the carry, so growth is noticed here instead of by a refused call.
"""

import argparse
import gzip
import os
import shutil
import sqlite3
import sys
import tempfile


def pack(store: str, out: str) -> dict:
    """Write the packed copy of `store` to `out`; return what was dropped and the sizes."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "store.sqlite")
        src = sqlite3.connect(store)
        dst = sqlite3.connect(copy)
        src.backup(dst)  # a consistent copy even of a store another process is writing
        src.close()
        steps = dst.execute("DELETE FROM step_errors").rowcount if _has(dst, "step_errors") else 0
        dst.commit()
        dst.execute("VACUUM")
        dst.close()
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        partial = out + ".partial"
        with open(copy, "rb") as f, gzip.open(partial, "wb", compresslevel=9) as g:
            shutil.copyfileobj(f, g, 1 << 20)
        os.replace(partial, out)  # never a half-written carried store
        return {"step_rows_dropped": steps, "bytes": os.path.getsize(out), "store_bytes": os.path.getsize(copy)}


def carry_bytes(root: str, out: str) -> int | None:
    """What a device call would carry from `root`: the tracked and untracked-not-ignored files,
    the wheel folder `.whl/` and the packed store's folder; None outside a git checkout."""
    import subprocess

    try:
        listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    total = 0
    for name in listed.split(b"\0"):
        path = os.path.join(root, os.fsdecode(name))
        if name and os.path.isfile(path):
            total += os.path.getsize(path)
    for folder in (os.path.join(root, ".whl"), os.path.dirname(os.path.abspath(out))):
        if os.path.isdir(folder):
            total += sum(os.path.getsize(os.path.join(folder, f)) for f in os.listdir(folder) if os.path.isfile(os.path.join(folder, f)))
    return total


def _has(db: sqlite3.Connection, table: str) -> bool:
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)).fetchone() is not None


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("store")
    ap.add_argument("out", nargs="?", default=".dev1/wit.sqlite.gz")
    ap.add_argument("--limit", type=float, default=40.0, help="fail above this many MB (default 40)")
    args = ap.parse_args()
    if not os.path.exists(args.store):
        print(f"pack: {args.store}: no such store", file=sys.stderr)
        return 2
    got = pack(args.store, args.out)
    mb = got["bytes"] / 1e6
    print(f"{args.out}: {mb:.1f} MB ({got['store_bytes'] / 1e6:.0f} MB uncompressed), {got['step_rows_dropped']} per-step rows left out")
    carried = carry_bytes(os.getcwd(), args.out)
    if carried is not None:
        mib = carried / 2**20
        print(f"a device call from here would carry about {mib:.1f} MiB of its 64 (the tree, .whl/ and {os.path.dirname(args.out) or '.'}/)")
        if mib > 62:
            print("pack: that is over the device's 64 MiB carry with little room: make the tree or the store smaller first", file=sys.stderr)
            return 1
    if mb > args.limit:
        print(f"pack: {args.out} is {mb:.1f} MB, over the {args.limit:.0f} MB limit: the device call carries 64 MiB in all", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
