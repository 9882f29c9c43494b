#!/usr/bin/python3
"""Runs bxisim's MPI micro-benchmarks (mpi_bench, OSU style) at the message level and writes one CSV
per benchmark and a PNG plot per group.

    /usr/bin/python3 benchmarks/mpi/run_mpi_benchmarks.py --bxisim build/bin/bxisim \
        --program build/benchmarks/mpi/mpi_bench --out build/benchmarks/mpi/results [--ranks 8 --ppn 1]

Times are simulated with computation not simulated (--no-cpu-simulation): the curves show OpenMPI
over the network model, and two runs give the same numbers. The wall-clock time of each benchmark
is printed, as the cost of the simulation. --small runs the configuration CI runs (a few sizes, few
iterations), which still checks every exchanged byte.
"""
import argparse
import csv
import os
import subprocess
import sys
import time

POINT_TO_POINT = ["latency", "bw", "bibw", "multi-lat"]
COLLECTIVES = ["allreduce", "bcast", "alltoall", "ialltoall", "allgather", "reduce", "gather", "gatherv", "barrier"]
FIELDS = ["benchmark", "ranks", "bytes", "avg_us", "min_us", "max_us", "MB_per_s"]


def run(args, benchmark, ranks, extra):
    command = [args.bxisim, "run", "--level", args.level, "-n", str(ranks), "--ppn", str(args.ppn),
               "--no-cpu-simulation", "--platform", args.platform, args.program, benchmark] + extra
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"{benchmark} failed (exit {result.returncode}): {' '.join(command)}\n{result.stdout}\n{result.stderr}")
    rows = []
    for line in result.stdout.splitlines():
        line = line.split("] ", 1)[-1]  # drop the [rank 0] prefix
        fields = line.split(",")
        if len(fields) == len(FIELDS) and fields[0] == benchmark:
            rows.append(dict(zip(FIELDS, fields)))
    if not rows:
        sys.exit(f"{benchmark}: no result lines:\n{result.stdout}\n{result.stderr}")
    return rows, wall


def plot(bxisim, paths):
    """`bxisim plot`: one PNG per CSV, next to it (log-log: sizes span decades)."""
    subprocess.run([bxisim, "plot", *paths], check=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bxisim", required=True)
    parser.add_argument("--program", required=True, help="mpi_bench built with bxicc")
    parser.add_argument("--out", required=True, help="folder for the CSV files and plots")
    parser.add_argument("--ranks", type=int, default=8, help="ranks of the collective benchmarks (default 8)")
    parser.add_argument("--ppn", type=int, default=1, help="ranks per node (default 1)")
    parser.add_argument("--platform", default="fat-tree")
    parser.add_argument("--level", default="message", help="accuracy level: message (default) or smpi")
    parser.add_argument("--small", action="store_true", help="CI's configuration: 1 B to 64 KiB, few iterations")
    parser.add_argument("--benchmarks", nargs="*", help="only these benchmarks")
    parser.add_argument("--no-plot", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    extra = []
    if args.small:
        extra = ["--min", "1", "--max", "65536", "--iterations", "5", "--warmup", "1", "--large-iterations", "2",
                 "--large-warmup", "1", "--window", "8"]
    for group, benchmarks in (("point-to-point", POINT_TO_POINT), ("collectives", COLLECTIVES)):
        results = {}
        paths = []
        for benchmark in benchmarks:
            if args.benchmarks and benchmark not in args.benchmarks:
                continue
            ranks = 2 if benchmark in ("latency", "bw", "bibw") else args.ranks
            rows, wall = run(args, benchmark, ranks, extra)
            results[benchmark] = rows
            path = os.path.join(args.out, f"{benchmark}.csv")
            with open(path, "w", newline="") as file:
                writer = csv.DictWriter(file, fieldnames=FIELDS)
                writer.writeheader()
                writer.writerows(rows)
            paths.append(path)
            print(f"{benchmark:10s} {ranks} ranks: {len(rows)} sizes, {wall:.1f} s wall -> {path}")
            for row in rows:
                print("   " + ",".join(row[f] for f in FIELDS))
        if paths and not args.no_plot:
            plot(args.bxisim, paths)


if __name__ == "__main__":
    main()
