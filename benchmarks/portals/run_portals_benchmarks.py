#!/usr/bin/python3
"""Runs the Portals benchmarks of thesis 4.6.1 (and ptlperf-like modes) on the message NIC model and
writes one CSV per benchmark and a PNG plot of time, bandwidth and message rate against size.

    /usr/bin/python3 benchmarks/portals/run_portals_benchmarks.py --bxisim build/bin/bxisim \
        --program build/benchmarks/portals/portals_bench --out build/benchmarks/portals/results

The two ranks are on two nodes of one switch (--ppn 1, the default), or both on one node with
--ppn 2: then every frame goes through the NIC's loopback, and the files are named *-one-node.*.

Times are simulated (computation is not simulated: --no-cpu-simulation, so the curves show the
network model alone and two runs give the same numbers); the wall-clock time of each benchmark is
printed, as the cost of the simulation.
"""
import argparse
import csv
import os
import subprocess
import sys
import time

BENCHMARKS = ["put-waitack", "put-nowait", "put-waitsend", "get-waitreply", "get-nowait"]
PTLPERF = ["ack", "ct", "reply", "match"]
# 1 B to 16 MiB in powers of two, plus both sides of the inline (8 B), early-SEND (64 B) and PIO
# (408 B) thresholds.
SIZES = sorted(set([2**k for k in range(0, 25)] + [9, 65, 408, 409]))


def run(bxisim, program, mode, count, sizes, extra):
    command = [bxisim, "run", "-n", "2", "--no-cpu-simulation"] + extra + [program, mode, str(count)]
    command += [str(s) for s in sizes]
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"{mode} failed (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")
    rows = []
    for line in result.stdout.splitlines():
        line = line.split("] ", 1)[-1]  # drop the [rank 0] prefix
        fields = line.split(",")
        if len(fields) == 5 and fields[0] == mode:
            rows.append({"size": int(fields[1]), "time": float(fields[2]), "bandwidth": float(fields[3]),
                         "rate": float(fields[4])})
    if len(rows) != len(sizes):
        sys.exit(f"{mode}: expected {len(sizes)} result lines, got {len(rows)}:\n{result.stdout}")
    return rows, wall


def plot(results, path, placement):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, 3, figsize=(18, 5))
    for mode, rows in results.items():
        sizes = [r["size"] for r in rows]
        axes[0].plot(sizes, [r["time"] * 1e6 for r in rows], marker=".", label=mode)
        axes[1].plot(sizes, [r["bandwidth"] / 1e9 for r in rows], marker=".", label=mode)
        axes[2].plot(sizes, [r["rate"] / 1e6 for r in rows], marker=".", label=mode)
    for axis, label in zip(axes, ["time per request (us)", "bandwidth (GB/s)", "message rate (M/s)"]):
        axis.set_xscale("log", base=2)
        axis.set_xlabel("payload (bytes)")
        axis.set_ylabel(label)
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    axes[0].set_yscale("log")
    axes[2].set_yscale("log")
    figure.suptitle(f"bxisim message NIC model: Portals benchmarks (simulated), {placement}")
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bxisim", required=True)
    parser.add_argument("--program", required=True, help="portals_bench built with bxicc")
    parser.add_argument("--out", required=True, help="folder for the CSV files and plots")
    parser.add_argument("--count", type=int, default=10000, help="requests per size (default 10000)")
    parser.add_argument("--platform", default="single-switch")
    parser.add_argument("--reuse", action="store_true",
                        help="read the CSV of a benchmark already in --out instead of running it again")
    parser.add_argument("--ppn", type=int, choices=[1, 2], default=1,
                        help="ranks per node: 1 (two nodes, default) or 2 (both ranks on one node)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    extra = ["--platform", args.platform, "--ppn", str(args.ppn)]
    tag = "" if args.ppn == 1 else "-one-node"
    placement = "two nodes" if args.ppn == 1 else "both ranks on one node (NIC loopback)"

    for group, modes in (("thesis-4.6.1", BENCHMARKS), ("ptlperf", PTLPERF)):
        results = {}
        for mode in modes:
            path = os.path.join(args.out, f"{mode}{tag}.csv")
            if args.reuse and os.path.exists(path):
                with open(path) as file:
                    results[mode] = [{"size": int(r["size"]), "time": float(r["time_s"]),
                                      "bandwidth": float(r["bandwidth_Bps"]), "rate": float(r["message_rate_per_s"])}
                                     for r in csv.DictReader(file)]
                print(f"{mode:14s} read from {path}", flush=True)
                continue
            rows, wall = run(args.bxisim, args.program, mode, args.count, SIZES, extra)
            results[mode] = rows
            with open(path, "w", newline="") as file:
                writer = csv.writer(file)
                writer.writerow(["size", "time_s", "bandwidth_Bps", "message_rate_per_s"])
                for r in rows:
                    writer.writerow([r["size"], repr(r["time"]), repr(r["bandwidth"]), repr(r["rate"])])
            small, large = rows[0], rows[-1]
            print(f"{mode:14s} wall {wall:7.2f} s | 1 B: {small['time'] * 1e6:8.3f} us, {small['rate'] / 1e6:7.3f} M/s"
                  f" | 16 MiB: {large['bandwidth'] / 1e9:6.3f} GB/s", flush=True)
        plot(results, os.path.join(args.out, f"{group}{tag}.png"), placement)
        # One PNG per CSV too (time, bandwidth and rate against size, log-log).
        subprocess.run([args.bxisim, "plot", *[os.path.join(args.out, f"{mode}{tag}.csv") for mode in modes]],
                       check=True)
    print(f"CSV and PNG in {args.out}")


if __name__ == "__main__":
    main()
