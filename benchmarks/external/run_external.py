#!/usr/bin/env python3
"""Builds programs nobody in bxisim wrote (OSU micro-benchmarks, LLNL Quicksilver) with bxicc/bxicxx and
runs them under `bxisim run` at chosen levels and placements, printing a table and writing CSV.

Fetches nothing: point it at source folders you already have. Their sources are copied into a scratch
folder before building, so your folders stay untouched. See README.md next to this script.

    run_external.py --bxisim-build build --scratch /tmp/ext --osu ~/src/osu-micro-benchmarks-7.4 \
        --quicksilver ~/src/Quicksilver --levels message,smpi --csv results.csv
"""

import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

# OSU benchmarks: name -> (folder under c/mpi, kind). Kinds: "pair" (exactly 2 ranks), "multi" (any even
# number of ranks), "coll" (any number of ranks), "onesided" (2 ranks), "startup".
OSU = {
    "osu_latency": ("pt2pt/standard", "pair"), "osu_bw": ("pt2pt/standard", "pair"),
    "osu_bibw": ("pt2pt/standard", "pair"), "osu_multi_lat": ("pt2pt/standard", "multi"),
    "osu_mbw_mr": ("pt2pt/standard", "multi"), "osu_latency_persistent": ("pt2pt/persistent", "pair"),
    "osu_bw_persistent": ("pt2pt/persistent", "pair"), "osu_bibw_persistent": ("pt2pt/persistent", "pair"),
    "osu_latency_mt": ("pt2pt/standard", "pair"), "osu_latency_mp": ("pt2pt/standard", "pair"),
    "osu_bw_fan_in": ("pt2pt/congestion", "coll"), "osu_bw_fan_out": ("pt2pt/congestion", "coll"),
    "osu_put_latency": ("one-sided", "onesided"), "osu_get_latency": ("one-sided", "onesided"),
    "osu_put_bw": ("one-sided", "onesided"), "osu_get_bw": ("one-sided", "onesided"),
    "osu_put_bibw": ("one-sided", "onesided"), "osu_acc_latency": ("one-sided", "onesided"),
    "osu_fop_latency": ("one-sided", "onesided"), "osu_cas_latency": ("one-sided", "onesided"),
    "osu_get_acc_latency": ("one-sided", "onesided"),
    "osu_hello": ("startup", "startup"), "osu_init": ("startup", "startup"),
}
for _name in ("allgather allgatherv allreduce alltoall alltoallv alltoallw barrier bcast gather gatherv reduce "
              "reduce_scatter reduce_scatter_block scatter scatterv").split():
    OSU["osu_" + _name] = ("collective/blocking", "coll")
    OSU["osu_i" + _name] = ("collective/non_blocking", "coll")
for _name in "allgather allgatherv alltoall alltoallv alltoallw".split():
    OSU["osu_neighbor_" + _name] = ("collective/neighborhood", "coll")
    OSU["osu_ineighbor_" + _name] = ("collective/neighborhood", "coll")

DEFAULT_OSU = "osu_latency,osu_bw,osu_bibw,osu_multi_lat,osu_allreduce,osu_bcast,osu_alltoall,osu_barrier"
COLUMNS = ["program", "level", "ranks", "ppn", "nodes", "status", "check", "first", "last", "peak", "unit",
           "wall_s", "command"]


def log(text):
    print(text, file=sys.stderr, flush=True)


def run(command, cwd, env=None, timeout=None, output=None):
    with open(output, "w") if output else open(os.devnull, "w") as sink:
        return subprocess.run(command, cwd=cwd, env=env, stdout=sink, stderr=subprocess.STDOUT, timeout=timeout,
                              check=False).returncode


def copy_sources(source, destination, fresh):
    if destination.exists() and fresh:
        shutil.rmtree(destination)
    if not destination.exists():
        shutil.copytree(source, destination, symlinks=True)


def build_osu(args, bindir):
    folder = args.scratch / "osu"
    copy_sources(args.osu, folder, args.rebuild)
    if (folder / "c/mpi/pt2pt/standard/osu_latency").exists() and not args.rebuild:
        log(f"OSU already built in {folder}")
        return folder
    env = dict(os.environ, BXISIM_PRETEND_CC="1")  # configure only: its test programs must run natively
    log("configuring OSU (BXISIM_PRETEND_CC=1 ./configure CC=bxicc CXX=bxicxx)")
    if run(["./configure", f"CC={bindir}/bxicc", f"CXX={bindir}/bxicxx"], folder, env,
           output=args.scratch / "osu-configure.log") != 0:
        sys.exit(f"OSU's configure failed: see {args.scratch}/osu-configure.log")
    log(f"building OSU (make -j{args.jobs})")
    env = {k: v for k, v in os.environ.items() if k != "BXISIM_PRETEND_CC"}
    if run(["make", f"-j{args.jobs}"], folder, env, output=args.scratch / "osu-make.log") != 0:
        log(f"OSU's make failed for some benchmarks: see {args.scratch}/osu-make.log")
    return folder


def build_quicksilver(args, bindir):
    folder = args.scratch / "quicksilver"
    copy_sources(args.quicksilver, folder, args.rebuild)
    if (folder / "src/qs").exists() and not args.rebuild:
        log(f"Quicksilver already built in {folder}")
        return folder
    log("building Quicksilver (make CXX=bxicxx CPPFLAGS=-DHAVE_MPI, no OpenMP, no GPU)")
    command = ["make", f"-j{args.jobs}", f"CXX={bindir}/bxicxx", "CXXFLAGS=-O2 -g", "CPPFLAGS=-DHAVE_MPI",
               "LDFLAGS="]
    if run(command, folder / "src", output=args.scratch / "quicksilver-make.log") != 0:
        sys.exit(f"Quicksilver's make failed: see {args.scratch}/quicksilver-make.log")
    return folder


def parse_osu(text):
    """(rows of (size, value), validation, unit) from an OSU benchmark's output."""
    rows, checks, unit = [], [], ""
    for line in text.splitlines():
        line = re.sub(r"^\[rank \d+\] ", "", line)
        if line.startswith("# Size"):
            unit = "MB/s" if "MB/s" in line else ("us" if "(us)" in line else line[6:].strip())
            continue
        if line.startswith("# Avg Latency(us)"):  # osu_barrier, osu_ibarrier: one figure, no sizes
            unit = "us"
            continue
        m = re.match(r"^\s+([-\d.]+)(?:\s+([-\d.]+)){0,3}\s*(Pass|Fail)?\s*$", line)
        if m and unit == "us" and not rows:
            rows.append((0, float(m.group(1))))
            continue
        m = re.match(r"^(\d+)\s+([-\d.]+)(?:\s+.*?)?\s*(Pass|Fail)?\s*$", line)
        if m and unit:
            rows.append((int(m.group(1)), float(m.group(2))))
            if m.group(3):
                checks.append(m.group(3))
    if not checks:
        check = "-"
    else:
        check = "pass" if all(c == "Pass" for c in checks) else f"FAIL ({checks.count('Fail')}/{len(checks)})"
    return rows, check, unit


def parse_quicksilver(text):
    clean = "\n".join(re.sub(r"^\[rank 0\] ", "", l) for l in text.splitlines() if not re.match(r"^\[rank [1-9]", l))
    fom = re.search(r"Figure Of Merit\s+([-\d.e+]+)", clean)
    tracking = re.search(r"^cycleTracking\s+(\d+)\s+([-\d.e+]+)\s+([-\d.e+]+)\s+([-\d.e+]+)", clean, re.M)
    main = re.search(r"^main\s+\d+\s+([-\d.e+]+)\s+([-\d.e+]+)\s+([-\d.e+]+)", clean, re.M)
    passes = len(re.findall(r"^PASS::", clean, re.M))
    fails = len(re.findall(r"^FAIL::", clean, re.M))
    return {
        "fom": float(fom.group(1)) if fom else None,
        "tracking_us": float(tracking.group(3)) if tracking else None,  # average over ranks, all cycles
        "cycles": int(tracking.group(1)) if tracking else None,
        "main_us": float(main.group(3)) if main else None,
        "check": "-" if passes + fails == 0 else ("pass" if fails == 0 else f"FAIL ({fails}/{passes + fails})"),
    }


def status_of(code):
    return {0: "ok", 1: "rank failed", 2: "refused", 3: "deadlock", 4: "crash", 5: "limit", 6: "unsupported",
            124: "timeout"}.get(code, f"exit {code}")


def bxisim_command(args, level, ranks, ppn):
    command = ["timeout", str(args.timeout), str(args.bxisim_build / "bin/bxisim"), "run", "-n", str(ranks), "--ppn",
               str(ppn), "--level", level]
    if not args.cpu_simulation:
        command.append("--no-cpu-simulation")
    return command + args.bxisim_arg


def run_one(args, name, level, ranks, ppn, command, cwd, logname):
    logfile = args.scratch / "logs" / logname
    logfile.parent.mkdir(parents=True, exist_ok=True)
    log(f"running {name} at {level}, {ranks} ranks, {ppn} per node: {' '.join(command[2:])}")
    start = time.monotonic()
    code = run(command, cwd, output=logfile)
    wall = time.monotonic() - start
    return code, wall, logfile.read_text(errors="replace")


def osu_runs(args, folder):
    results = []
    for name in args.osu_tests.split(","):
        if name not in OSU:
            sys.exit(f"unknown OSU benchmark {name}: one of {', '.join(sorted(OSU))}")
        sub, kind = OSU[name]
        program = folder / "c/mpi" / sub / name
        placements = args.pair_layouts if kind in ("pair", "onesided") else args.layouts
        for level in args.levels:
            for ranks, ppn in placements:
                extra = [] if kind == "startup" else args.osu_args.split()
                if args.validate and kind in ("pair", "multi", "coll") and name not in ("osu_barrier", "osu_ibarrier"):
                    extra = ["-c"] + extra
                command = bxisim_command(args, level, ranks, ppn) + [str(program)] + extra
                row = {"program": name, "level": level, "ranks": ranks, "ppn": ppn, "nodes": -(-ranks // ppn),
                       "command": " ".join(command[2:])}
                if not program.exists():
                    row.update(status="not built", check="-", wall_s="")
                    results.append(row)
                    continue
                code, wall, text = run_one(args, name, level, ranks, ppn, command, program.parent,
                                           f"{name}-{level}-n{ranks}-ppn{ppn}.log")
                rows, check, unit = parse_osu(text)
                row.update(status=status_of(code), check=check, unit=unit, wall_s=f"{wall:.1f}")
                if rows:
                    row["first"] = f"{rows[0][0]}B:{rows[0][1]:g}"
                    row["last"] = f"{rows[-1][0]}B:{rows[-1][1]:g}"
                    best = max(rows, key=lambda r: r[1]) if unit == "MB/s" else min(rows, key=lambda r: r[1])
                    row["peak"] = f"{best[0]}B:{best[1]:g}"
                    with open(args.scratch / "osu-sizes.csv", "a", newline="") as sizes:
                        writer = csv.writer(sizes)
                        for size, value in rows:
                            writer.writerow([name, level, ranks, ppn, size, value, unit])
                elif kind == "startup" and text.strip():
                    row["first"] = text.strip().splitlines()[-1][:60]
                results.append(row)
                print_row(row)
    return results


def quicksilver_runs(args, folder):
    results = []
    deck = args.qs_input or folder / "Examples/CORAL2_Benchmark/Problem1/Coral2_P1.inp"
    text = Path(deck).read_text()
    if args.qs_steps:  # the input deck wins over the command line in Quicksilver: edit a copy
        text = re.sub(r"nSteps:\s*\d+", f"nSteps: {args.qs_steps}", text)
    local_deck = args.scratch / "quicksilver-input.inp"
    local_deck.write_text(text)
    for level in args.levels:
        for ranks, ppn in args.layouts:
            command = bxisim_command(args, level, ranks, ppn) + [str(folder / "src/qs"), "-i", str(local_deck)]
            command += args.qs_args.split()
            row = {"program": "quicksilver", "level": level, "ranks": ranks, "ppn": ppn,
                   "nodes": -(-ranks // ppn), "command": " ".join(command[2:])}
            code, wall, output = run_one(args, "quicksilver", level, ranks, ppn, command, args.scratch,
                                         f"quicksilver-{level}-n{ranks}-ppn{ppn}.log")
            facts = parse_quicksilver(output)
            row.update(status=status_of(code), check=facts["check"], wall_s=f"{wall:.1f}", unit="")
            if facts["fom"] is not None:
                row["first"] = f"FOM:{facts['fom']:g}"
                row["last"] = f"tracking_us:{facts['tracking_us']:g}" if facts["tracking_us"] is not None else ""
                row["peak"] = f"main_us:{facts['main_us']:g}" if facts["main_us"] is not None else ""
                row["unit"] = "segments/s, us"
            results.append(row)
            print_row(row)
    return results


def print_row(row):
    print(" | ".join(str(row.get(c, "")) for c in COLUMNS[:-1]), flush=True)


def layouts(text):
    result = []
    for item in text.split(","):
        ranks, ppn = item.split(":")
        result.append((int(ranks), int(ppn)))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bxisim-build", type=Path, required=True, help="bxisim's build folder (bin/bxisim, bin/bxicc)")
    parser.add_argument("--scratch", type=Path, required=True, help="where sources are copied, built and logged")
    parser.add_argument("--osu", type=Path, help="OSU micro-benchmarks source folder (with configure)")
    parser.add_argument("--quicksilver", type=Path, help="Quicksilver source folder (with src/Makefile)")
    parser.add_argument("--levels", default="message", help="comma-separated: smpi,message,cycle")
    parser.add_argument("--layouts", type=layouts, default=layouts("16:8,16:4"),
                        help="RANKS:PPN,... for multi-rank programs (default 16:8,16:4: 2 and 4 nodes)")
    parser.add_argument("--pair-layouts", type=layouts, default=layouts("2:1,2:2"),
                        help="RANKS:PPN,... for two-rank OSU tests (default 2:1,2:2: across nodes, in a node)")
    parser.add_argument("--osu-tests", default=DEFAULT_OSU, help=f"comma-separated (default {DEFAULT_OSU})")
    parser.add_argument("--osu-args", default="-m 1:65536 -i 100 -x 10", help="options given to every OSU test")
    parser.add_argument("--no-validate", dest="validate", action="store_false", help="do not pass -c to OSU")
    parser.add_argument("--qs-input", type=Path, help="Quicksilver input deck (default: CORAL2 Problem 1)")
    parser.add_argument("--qs-steps", type=int, default=10, help="nSteps written into a copy of the deck (0: keep)")
    parser.add_argument("--qs-args", default="-X 8 -Y 8 -Z 8 -x 8 -y 8 -z 8 -I 4 -J 2 -K 2 -n 20480",
                        help="Quicksilver's command-line options (mesh, decomposition, particles)")
    parser.add_argument("--cpu-simulation", action="store_true",
                        help="simulate measured CPU time (default off: --no-cpu-simulation, repeatable times)")
    parser.add_argument("--bxisim-arg", action="append", default=[], help="extra argument for bxisim run (repeatable)")
    parser.add_argument("--timeout", type=int, default=900, help="wall-clock seconds per run")
    parser.add_argument("--jobs", type=int, default=2, help="make -j")
    parser.add_argument("--rebuild", action="store_true", help="copy and build again")
    parser.add_argument("--csv", type=Path, help="write the table as CSV here")
    args = parser.parse_args()
    if not args.osu and not args.quicksilver:
        parser.error("give --osu and/or --quicksilver")
    args.levels = args.levels.split(",")
    args.bxisim_build = args.bxisim_build.resolve()
    args.scratch = args.scratch.resolve()
    args.scratch.mkdir(parents=True, exist_ok=True)
    bindir = args.bxisim_build / "bin"
    for tool in ("bxisim", "bxicc", "bxicxx"):
        if not (bindir / tool).exists():
            sys.exit(f"{bindir / tool} is missing: build bxisim first (cmake --build {args.bxisim_build})")

    print(" | ".join(COLUMNS[:-1]), flush=True)
    results = []
    if args.osu:
        results += osu_runs(args, build_osu(args, bindir))
    if args.quicksilver:
        results += quicksilver_runs(args, build_quicksilver(args, bindir))
    if args.csv:
        with open(args.csv, "w", newline="") as out:
            writer = csv.DictWriter(out, fieldnames=COLUMNS)
            writer.writeheader()
            for row in results:
                writer.writerow({c: row.get(c, "") for c in COLUMNS})
        log(f"table written to {args.csv}; per-size OSU figures in {args.scratch}/osu-sizes.csv; logs in "
            f"{args.scratch}/logs")
    return 0 if all(r.get("status") == "ok" and not str(r.get("check", "")).startswith("FAIL") for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
