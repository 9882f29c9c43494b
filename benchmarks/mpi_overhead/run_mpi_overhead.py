#!/usr/bin/env python3
"""The cost of the OpenMPI layer in the simulator (issue 10, item 10).

Wall time per simulated message of an MPI ping-pong (benchmarks/mpi's latency, over each rank's OpenMPI
copy, pml ob1 or cm) against the same exchange written directly in Portals (portals_bench pingpong: a
Put answered by a Put on its PUT event), at 8 B and 64 KiB, --level message, CPU simulation off, two
ranks on two nodes (--ppn 1) and on one node (--ppn 2). Start-up (MPI_Init, NIC actors) is subtracted:
each point is (wall(COUNT round trips) - wall(1 round trip)) / (2 (COUNT - 1)) messages, the fastest of
--repeat runs (the machine is shared). The ratio MPI / Portals is measured in this one run. Also prints
the simulated one-way time of both, to show that they model the same exchange. Writes mpi_overhead.csv.
"""
import argparse
import csv
import os
import subprocess
import sys
import time

SIZES = [8, 65536]


def run(command):
    best, output = None, ""
    for _ in range(ARGS.repeat):
        start = time.monotonic()
        result = subprocess.run(command, capture_output=True, text=True)
        elapsed = time.monotonic() - start
        if result.returncode != 0:
            sys.exit(f"failed: {' '.join(command)}\n{result.stdout}\n{result.stderr}")
        if best is None or elapsed < best:
            best, output = elapsed, result.stdout
    return best, output


def mpi(size, count, ppn):
    # latency runs warmup + iterations + 1 round trips: iterations = count - 1 gives count of them
    command = [ARGS.bxisim, "run", "--level", "message", "-n", "2", "--ppn", str(ppn), "--no-cpu-simulation",
               "--pml", ARGS.pml, ARGS.mpi_program, "latency", "--min", str(size), "--max", str(size),
               "--iterations", str(max(count - 1, 1)), "--warmup", "0", "--large-iterations", str(max(count - 1, 1)),
               "--large-warmup", "0"]
    wall, out = run(command)
    one_way_us = None
    for line in out.splitlines():
        fields = line.split("] ", 1)[-1].split(",")
        if fields[0] == "latency" and len(fields) > 3:
            one_way_us = float(fields[3])
    return wall, one_way_us


def portals(size, count, ppn):
    command = [ARGS.bxisim, "run", "--level", "message", "-n", "2", "--ppn", str(ppn), "--no-cpu-simulation",
               ARGS.portals_program, "pingpong", str(count), str(size)]
    wall, out = run(command)
    one_way_us = None
    for line in out.splitlines():
        fields = line.split("] ", 1)[-1].split(",")
        if fields[0] == "pingpong":
            one_way_us = float(fields[2]) * 1e6
    return wall, one_way_us


def per_message(measure, size, ppn):
    short, _ = measure(size, 2, ppn)
    total, one_way_us = measure(size, ARGS.count, ppn)
    return max(total - short, 0.0) / (2 * (ARGS.count - 2)), one_way_us


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bxisim", required=True)
    parser.add_argument("--mpi-program", required=True, help="benchmarks/mpi's mpi_bench, built with bxicc")
    parser.add_argument("--portals-program", required=True, help="benchmarks/portals' portals_bench")
    parser.add_argument("--out", required=True)
    parser.add_argument("--pml", default="ob1", choices=["ob1", "cm"])
    parser.add_argument("--count", type=int, default=2000, help="round trips per timed run")
    parser.add_argument("--repeat", type=int, default=2, help="runs per point, the fastest kept")
    ARGS = parser.parse_args()
    os.makedirs(ARGS.out, exist_ok=True)
    rows = []
    print("ppn,size,mpi_wall_us_per_msg,portals_wall_us_per_msg,ratio,mpi_sim_one_way_us,portals_sim_one_way_us")
    for ppn in (1, 2):
        for size in SIZES:
            mpi_wall, mpi_sim = per_message(mpi, size, ppn)
            ptl_wall, ptl_sim = per_message(portals, size, ppn)
            row = {"ppn": ppn, "size": size, "mpi_wall_us_per_msg": round(mpi_wall * 1e6, 2),
                   "portals_wall_us_per_msg": round(ptl_wall * 1e6, 2),
                   "ratio": round(mpi_wall / ptl_wall, 2) if ptl_wall > 0 else float("nan"),
                   "mpi_sim_one_way_us": mpi_sim, "portals_sim_one_way_us": round(ptl_sim, 3)}
            rows.append(row)
            print(",".join(str(v) for v in row.values()), flush=True)
    with open(os.path.join(ARGS.out, "mpi_overhead.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    main()
