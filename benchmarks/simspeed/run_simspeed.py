#!/usr/bin/env python3
"""Simulator speed of bxisim: fixed workloads, each a child process, measured for wall time, CPU time
(user + system of the child) and peak memory, printed as simulated operations per wall second, with
the engine's floor (the same message pattern as a bare SimGrid S4U program) measured in the same run.

    run_simspeed.py --bxisim BXISIM --bench PORTALS_BENCH --pingpong PINGPONG
                    --neighbour NEIGHBOUR --floor BARE_SIMGRID [--quick] [--csv FILE] [--only NAME]

CPU simulation is off in every run, so the simulated times are deterministic and the wall time is
the simulator's own cost. Nothing here is a pass/fail test: it prints figures and ratios."""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time


def run_one(command):
    """Runs `command`; returns (stdout, wall s, CPU s, peak KiB) of that child alone (wait4's rusage)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.monotonic()
        child = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.monotonic() - start
        child.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if child.returncode != 0:
            sys.exit(f"simspeed: {' '.join(command)} failed ({child.returncode}):\n{err.read()}")
        return out.read(), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss


def simulated_per_operation(output):
    """The simulated nanoseconds per operation portals_bench prints (mode,size,seconds per operation,...); NaN for
    the workloads that print no such line."""
    match = re.search(r"^\[rank 0\] [a-z-]+,\d+,([0-9.e+-]+),", output, re.MULTILINE)
    return float(match.group(1)) * 1e9 if match else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bxisim", required=True)
    parser.add_argument("--bench", required=True, help="benchmarks/portals/portals_bench built with bxicc")
    parser.add_argument("--pingpong", required=True, help="examples/portals/pingpong built with bxicc")
    parser.add_argument("--neighbour", required=True, help="neighbour_exchange built with bxicc")
    parser.add_argument("--floor", required=True, help="the bare_simgrid executable")
    parser.add_argument("--quick", action="store_true", help="a tenth of the operations (a smoke run)")
    parser.add_argument("--csv", help="also write the table as CSV")
    parser.add_argument("--only", action="append", help="run only the workloads whose name starts with this")
    args = parser.parse_args()

    scale = 10 if args.quick else 1
    puts = 100000 // scale
    two_ranks = [args.bxisim, "run", "-n", "2", "--ppn", "1", "--platform", "single-switch", "--no-cpu-simulation"]
    # S4BXI's speed options (thesis 4.3.4): no PCIe transfers, ACK events raised at the target, no E2E. They
    # drop activities, and with them the PCIe's latency and contention and the ACK's way back: the rows
    # ending in -fast show what that buys and, in the simulated column, what it costs.
    fast = ["--set", "nic.model_pcie=false", "--set", "nic.quick_acks=true", "--set", "nic.e2e=false"]

    def neighbour(ranks):
        # 8 ranks per node (node.cores' default), on a fat-tree with enough leaves for them.
        return lambda rounds: [args.bxisim, "run", "-n", str(ranks), "--platform", "fat-tree", "--set",
                               "platform.fat_tree=2;32,16;1,16;1,1", "--no-cpu-simulation", args.neighbour,
                               str(rounds), "8"]

    # (name, operations per unit of count, count, command for a count, what one operation is)
    workloads = [
        ("floor-waitack-8B", 1, puts, lambda n: [args.floor, "waitack", str(n), "8"], "request + answer"),
        ("floor-nowait-8B", 1, puts, lambda n: [args.floor, "nowait", str(n), "8"], "request + answer"),
        ("put-waitack-8B", 1, puts, lambda n: two_ranks + [args.bench, "put-waitack", str(n), "8"], "Put + ACK"),
        ("put-nowait-8B", 1, puts, lambda n: two_ranks + [args.bench, "put-nowait", str(n), "8"], "Put + ACK"),
        ("put-waitack-8B-fast", 1, puts, lambda n: two_ranks + fast + [args.bench, "put-waitack", str(n), "8"],
         "Put + ACK"),
        ("put-nowait-8B-fast", 1, puts, lambda n: two_ranks + fast + [args.bench, "put-nowait", str(n), "8"],
         "Put + ACK"),
        ("put-waitack-64KiB", 1, puts, lambda n: two_ranks + [args.bench, "put-waitack", str(n), "65536"],
         "Put + ACK"),
        ("put-nowait-64KiB", 1, puts, lambda n: two_ranks + [args.bench, "put-nowait", str(n), "65536"],
         "Put + ACK"),
        ("pingpong-8B", 1, puts // 2, lambda n: two_ranks + [args.pingpong, "8", str(n)], "round trip"),
        ("neighbour-1024", 1024, 8, neighbour(1024), "Put + ACK"),
        ("neighbour-4096", 4096, 4, neighbour(4096), "Put + ACK"),
    ]
    if args.only:
        workloads = [w for w in workloads if any(w[0].startswith(prefix) for prefix in args.only)]

    # Each workload runs twice, with its count and with a count of 1: the difference is the cost of
    # the operations alone, without start-up (loading, platform, launch), which is reported apart.
    rows = []
    print(f"{'workload':<20} {'ops':>8} {'start wall s':>12} {'wall s':>8} {'CPU s':>8} {'ops/wall s':>11} "
          f"{'us CPU/op':>10} {'peak MiB':>9} {'sim ns/op':>10}  one op")
    for name, per_count, count, command, unit in workloads:
        _, wall_1, cpu_1, _ = run_one(command(1))
        output, wall_n, cpu_n, peak = run_one(command(count))
        operations = per_count * (count - 1)
        wall, cpu = max(wall_n - wall_1, 1e-9), max(cpu_n - cpu_1, 1e-9)
        row = dict(workload=name, operations=operations, startup_wall_s=wall_1, wall_s=wall, cpu_s=cpu,
                   ops_per_wall_s=operations / wall, us_cpu_per_op=1e6 * cpu / operations, peak_mib=peak / 1024.0,
                   sim_ns_per_op=simulated_per_operation(output))
        rows.append(row)
        simulated = f"{row['sim_ns_per_op']:>10.2f}" if row["sim_ns_per_op"] == row["sim_ns_per_op"] else f"{'':>10}"
        print(f"{name:<20} {operations:>8} {wall_1:>12.2f} {wall:>8.2f} {cpu:>8.2f} {row['ops_per_wall_s']:>11.0f} "
              f"{row['us_cpu_per_op']:>10.2f} {row['peak_mib']:>9.1f} {simulated}  {unit}", flush=True)

    by_name = {row["workload"]: row for row in rows}
    print("\nRatios of CPU time per operation, measured in this run (wall time is what a user waits for; CPU time\n"
          "is steadier when the machine is shared):")
    for ours, floor in (("put-waitack-8B", "floor-waitack-8B"), ("put-nowait-8B", "floor-nowait-8B"),
                        ("put-waitack-8B-fast", "floor-waitack-8B"), ("put-nowait-8B-fast", "floor-nowait-8B")):
        if ours in by_name and floor in by_name:
            print(f"  {ours} / {floor}: {by_name[ours]['us_cpu_per_op'] / by_name[floor]['us_cpu_per_op']:.1f}x")
    print("\nThe speed options (-fast rows against the same rows without them): CPU per operation, and the simulated\n"
          "time per operation they change (a fidelity cost):")
    for name in ("put-waitack-8B", "put-nowait-8B"):
        exact, quick = by_name.get(name), by_name.get(name + "-fast")
        if exact and quick:
            print(f"  {name}: {exact['us_cpu_per_op'] / quick['us_cpu_per_op']:.1f}x less CPU, simulated "
                  f"{exact['sim_ns_per_op']:.2f} -> {quick['sim_ns_per_op']:.2f} ns per operation")
    if args.csv:
        with open(args.csv, "w") as out:
            out.write(",".join(rows[0].keys()) + "\n")
            for row in rows:
                out.write(",".join(f"{v:.6g}" if isinstance(v, float) else str(v) for v in row.values()) + "\n")
        subprocess.run([args.bxisim, "plot", args.csv], check=True)


if __name__ == "__main__":
    main()
