#!/usr/bin/env python3
"""Differential test of `gcnemu disasm` against `llvm-objdump-15 -d` on real code objects.

Inputs: the committed HIP fixtures (tests/fixtures/hip/*.co), the gfx900-gfx90a code objects
inside the `.hip_fatbin` section of Debian ROCm library packages (downloaded with
`apt-get download`, unpacked with `dpkg-deb -x`), and any code objects or host libraries given on
the command line. Everything downloaded or extracted goes under --work (default
/tmp/gcn-difftest), never into the repository.

For each code object both tools disassemble it for the same target; instruction lines are matched
by address and their text compared (whitespace-normalised), as are the branch-target
annotations. The report gives the totals, the match rate, and the mnemonics that differ most,
with examples.

    cargo build --release
    tests/difftest/difftest.py                         # fixtures + librocrand1 + librocsparse0, gfx900 to gfx90a
    tests/difftest/difftest.py --deb librocsparse0 --targets gfx906 --report /tmp/r.txt
    tests/difftest/difftest.py --no-fixtures --no-deb some.co host_lib.so

Exit status: 0, or 1 when --min-rate is given and the match rate is below it.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import os
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
EM_AMDGPU = 224
MACH_NAMES = {0x2C: "gfx900", 0x2D: "gfx902", 0x2E: "gfx904", 0x2F: "gfx906",
              0x30: "gfx908", 0x31: "gfx909", 0x32: "gfx90c", 0x3F: "gfx90a"}
# `\t<text>// <12 hex address>: <words or bytes><annotation>`; long text runs into the `//`.
INST_LINE = re.compile(r"^\t(?P<text>.*?)\s*// (?P<addr>[0-9A-F]{12}):(?P<words>(?: [0-9A-F]{2,8})+)(?P<note>.*)$")


# ---------------------------------------------------------------- inputs

def elf_sections(data):
    """(name, offset, size) of each section of a 64-bit little-endian ELF file."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return []
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    if shoff == 0 or shoff + shnum * shentsize > len(data):
        return []
    headers = []
    for i in range(shnum):
        name, _type, _flags, _addr, offset, size = struct.unpack_from("<IIQQQQ", data, shoff + i * shentsize)
        headers.append((name, offset, size))
    str_off = headers[shstrndx][1]
    out = []
    for name, offset, size in headers:
        end = data.find(b"\0", str_off + name)
        out.append((data[str_off + name:end].decode(errors="replace"), offset, size))
    return out


def amdgpu_target(data):
    """The gfx9 target named in an AMDGPU ELF header, or None."""
    if data[:4] != b"\x7fELF" or len(data) < 0x40:
        return None
    machine, = struct.unpack_from("<H", data, 0x12)
    flags, = struct.unpack_from("<I", data, 0x30)
    return MACH_NAMES.get(flags & 0xFF) if machine == EM_AMDGPU else None


def bundle_entries(blob):
    """(id, bytes) of every entry of every clang offload bundle found in blob."""
    pos = blob.find(BUNDLE_MAGIC)
    while pos >= 0:
        try:
            count, = struct.unpack_from("<Q", blob, pos + 24)
            cursor = pos + 32
            for _ in range(min(count, 4096)):
                offset, size, id_len = struct.unpack_from("<QQQ", blob, cursor)
                ident = blob[cursor + 24:cursor + 24 + id_len].decode(errors="replace")
                cursor += 24 + id_len
                if size and pos + offset + size <= len(blob):
                    yield ident, blob[pos + offset:pos + offset + size]
        except struct.error:
            pass
        pos = blob.find(BUNDLE_MAGIC, pos + len(BUNDLE_MAGIC))


def bundle_target(ident):
    """`hipv4-amdgcn-amd-amdhsa--gfx906:xnack-` -> `gfx906`."""
    match = re.search(r"amdgcn-amd-amdhsa-+(gfx[0-9a-z]+)", ident)
    return match[1] if match else None


def code_objects_in_host_file(path, targets, out_dir):
    data = path.read_bytes()
    found = []
    for name, offset, size in elf_sections(data):
        if name != ".hip_fatbin":
            continue
        for ident, obj in bundle_entries(data[offset:offset + size]):
            target = bundle_target(ident)
            if target in targets and amdgpu_target(obj):
                digest = hashlib.sha1(obj).hexdigest()[:16]
                dest = out_dir / f"{path.name}-{target}-{digest}.co"
                if not dest.exists():
                    dest.write_bytes(obj)
                found.append((dest, target))
    return found


def unpack_deb(package, work):
    deb_dir = work / "debs"
    deb_dir.mkdir(parents=True, exist_ok=True)
    debs = sorted(deb_dir.glob(f"{package}_*.deb"))
    if not debs:
        subprocess.run(["apt-get", "download", package], cwd=deb_dir, check=True)
        debs = sorted(deb_dir.glob(f"{package}_*.deb"))
    root = work / "extract" / package
    if not root.exists():
        partial = root.with_name(package + ".partial")
        partial.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", str(debs[-1]), str(partial)], check=True)
        partial.rename(root)
    return [p for p in root.rglob("*.so*") if p.is_file() and not p.is_symlink()]


def collect_inputs(args, work):
    """[(code object path, target)], deduplicated by content."""
    objects_dir = work / "objects"
    objects_dir.mkdir(parents=True, exist_ok=True)
    inputs = []
    if args.fixtures:
        for co in sorted((REPO / "tests" / "fixtures" / "hip").glob("*.co")):
            target = amdgpu_target(co.read_bytes())
            if target in args.targets:
                inputs.append((co, target))
    host_files = []
    for package in args.deb:
        host_files += unpack_deb(package, work)
    for extra in map(Path, args.files):
        data = extra.read_bytes()
        if amdgpu_target(data):
            inputs.append((extra, args.target_override or amdgpu_target(data)))
        else:
            host_files.append(extra)
    for host in host_files:
        inputs += code_objects_in_host_file(host, args.targets, objects_dir)
    seen, unique = set(), []
    for path, target in inputs:
        key = (hashlib.sha1(path.read_bytes()).hexdigest(), target)
        if key not in seen:
            seen.add(key)
            unique.append((path, target))
    return unique[: args.max_objects] if args.max_objects else unique


# ---------------------------------------------------------------- running and comparing

def run_tool(cmd, cache=None):
    if cache and cache.exists():
        return 0, cache.read_text(errors="replace"), "", 0.0
    start = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    elapsed = time.perf_counter() - start
    if cache and proc.returncode == 0:
        cache.write_text(proc.stdout)
    return proc.returncode, proc.stdout, proc.stderr, elapsed


def instruction_lines(listing):
    """{address: (normalised text, words, annotation)} and the other lines, in order."""
    insts, others = {}, []
    for line in listing.splitlines():
        m = INST_LINE.match(line)
        if m:
            text = " ".join(m["text"].split())
            insts[int(m["addr"], 16)] = (text, m["words"].strip(), m["note"].strip())
        elif ":\tfile format" not in line:
            others.append(line)
    return insts, others


def mnemonic(text):
    return text.split(" ", 1)[0] if text else "<none>"


def compare(job, args, work):
    path, target = job
    key = hashlib.sha1(path.read_bytes()).hexdigest()[:16]
    cache = work / "objdump" / f"{key}-{target}.txt"
    cache.parent.mkdir(parents=True, exist_ok=True)
    rc_l, llvm_out, llvm_err, t_llvm = run_tool([args.objdump, "-d", f"--mcpu={target}", str(path)], cache)
    rc_g, ours_out, ours_err, t_ours = run_tool([args.gcnemu, "disasm", "--target", target, str(path)])
    result = {"path": str(path), "target": target, "t_llvm": t_llvm, "t_ours": t_ours,
              "lines": 0, "matches": 0, "note_mismatch": 0, "mismatches": [], "error": None,
              "structure_diffs": 0}
    if rc_l != 0:
        result["error"] = f"llvm-objdump failed ({rc_l}): {llvm_err.strip()[:200]}"
        return result
    if rc_g != 0:
        result["error"] = f"gcnemu failed ({rc_g}): {ours_err.strip()[:200]}"
    llvm_insts, llvm_other = instruction_lines(llvm_out)
    ours_insts, ours_other = instruction_lines(ours_out)
    result["structure_diffs"] = sum(a != b for a, b in zip(llvm_other, ours_other)) + abs(len(llvm_other) - len(ours_other))
    for addr, (text, words, note) in llvm_insts.items():
        result["lines"] += 1
        ours = ours_insts.get(addr)
        if ours and ours[0] == text:
            result["matches"] += 1
            if ours[2] != note:
                result["note_mismatch"] += 1
        else:
            result["mismatches"].append((mnemonic(text), addr, words, text, ours[0] if ours else "<no line at this address>"))
    return result


# ---------------------------------------------------------------- report

def write_report(results, args, elapsed):
    total = sum(r["lines"] for r in results)
    matches = sum(r["matches"] for r in results)
    rate = 100.0 * matches / total if total else 0.0
    by_mnemonic = collections.defaultdict(list)
    per_target = collections.defaultdict(lambda: [0, 0])
    for r in results:
        per_target[r["target"]][0] += r["lines"]
        per_target[r["target"]][1] += r["matches"]
        for mn, addr, words, llvm_text, ours in r["mismatches"]:
            by_mnemonic[mn].append((r["path"], addr, words, llvm_text, ours))
    out = []
    out.append("gcnemu disasm vs llvm-objdump-15 -d")
    out.append(f"code objects: {len(results)}    wall time: {elapsed:.1f}s")
    out.append(f"instruction lines: {total}")
    out.append(f"matching text:     {matches}")
    out.append(f"match rate:        {rate:.4f}%")
    out.append(f"annotation (<sym+0x..>) differences on matching lines: {sum(r['note_mismatch'] for r in results)}")
    out.append(f"non-instruction line differences (headers, '...', data): {sum(r['structure_diffs'] for r in results)}")
    t_llvm = sum(r["t_llvm"] for r in results if r["t_llvm"])
    t_ours = sum(r["t_ours"] for r in results)
    if t_llvm and t_ours:
        out.append(f"tool time (uncached objects only, not a benchmark): llvm-objdump {t_llvm:.2f}s, gcnemu {t_ours:.2f}s")
    out.append("")
    out.append("per target:")
    for target, (lines, ok) in sorted(per_target.items()):
        out.append(f"  {target}: {ok}/{lines} ({100.0 * ok / lines if lines else 0:.4f}%)")
    errors = [r for r in results if r["error"]]
    if errors:
        out.append("")
        out.append(f"tool failures: {len(errors)}")
        for r in errors[:20]:
            out.append(f"  {r['path']} [{r['target']}]: {r['error']}")
    out.append("")
    out.append(f"top mismatching mnemonics (of {len(by_mnemonic)}):")
    ranked = sorted(by_mnemonic.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    for mn, cases in ranked[: args.top]:
        out.append(f"  {mn}: {len(cases)}")
        for path, addr, words, llvm_text, ours in cases[: args.examples]:
            out.append(f"      {Path(path).name} @{addr:#x} [{words}]")
            out.append(f"        llvm:   {llvm_text}")
            out.append(f"        gcnemu: {ours}")
    text = "\n".join(out) + "\n"
    Path(args.report).parent.mkdir(parents=True, exist_ok=True)
    Path(args.report).write_text(text)
    return text, rate


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="*", help="extra code objects or host libraries with .hip_fatbin")
    parser.add_argument("--work", default="/tmp/gcn-difftest", help="download/extract/cache directory")
    parser.add_argument("--report", help="report file (default WORK/report.txt)")
    parser.add_argument("--gcnemu", default=str(REPO / "target" / "release" / "gcnemu"))
    parser.add_argument("--objdump", default="llvm-objdump-15")
    parser.add_argument("--targets", default="gfx900,gfx906,gfx908,gfx90a", help="comma-separated")
    parser.add_argument("--target", dest="target_override", help="target for extra code objects")
    parser.add_argument("--deb", action="append", help="Debian package to mine (default librocrand1 and librocsparse0)")
    parser.add_argument("--no-deb", action="store_true", help="no Debian packages")
    parser.add_argument("--no-fixtures", dest="fixtures", action="store_false")
    parser.add_argument("--max-objects", type=int, default=0, help="cap the number of code objects")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--top", type=int, default=25, help="mnemonics listed")
    parser.add_argument("--examples", type=int, default=3, help="examples per mnemonic")
    parser.add_argument("--min-rate", type=float, help="exit 1 below this match rate (percent)")
    args = parser.parse_args()
    args.targets = set(args.targets.split(","))
    args.deb = [] if args.no_deb else (args.deb or ["librocrand1", "librocsparse0"])
    work = Path(args.work)
    args.report = args.report or str(work / "report.txt")
    if not Path(args.gcnemu).exists():
        sys.exit(f"difftest: {args.gcnemu} not found; run `cargo build --release` first")

    start = time.perf_counter()
    inputs = collect_inputs(args, work)
    print(f"difftest: {len(inputs)} code objects", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda job: compare(job, args, work), inputs))
    text, rate = write_report(results, args, time.perf_counter() - start)
    print(text, end="")
    print(f"difftest: report written to {args.report}", file=sys.stderr)
    if args.min_rate is not None and rate < args.min_rate:
        sys.exit(1)


if __name__ == "__main__":
    main()
