#!/usr/bin/env python3
"""The flow-control study of thesis 7.1 (figures 7.1 and 7.2) at the message and cycle levels.

On --platform two-switches (k nodes per switch, one shared inter-switch link), 1 to 4 pairs of
flooding nodes run 8 processes each, sending `size`-byte Puts as fast as their NICs take them across
the shared link, while a victim pair sends `count` messages of the same size one after the other.
For each level, number of flooding pairs, kind of limit (per destination NIC, per destination
process) and limit, it records the victim's mean latency; plus the no-flood baseline and the
no-flow-control line. Writes flow_control.csv and one PNG per level (victim latency against the
limit, thesis figure 7.2).

E2E's timeout is raised to 1 s (--e2e-timeout): with the default 1 ms, 2 flooding pairs without flow
control delay frames beyond it, E2E sends them again and finally gives up (the flood program then
fails with exit code 3).

The default sweep is small (1 and 2 flooding pairs, limits 1, 4, 16, 64 and off: a few minutes on a
loaded 2-core machine); --full runs 1 to 4 pairs and limits 1, 2, 4, ..., 256 and off.
"""
import argparse
import csv
import os
import re
import subprocess
import sys
import time

PPN = 8


def run(args, level, pairs, kind, limit):
    """Mean victim latency (s), the run's wall time and NIC counters; pairs = 0: the victim alone."""
    k = pairs + 1
    command = [args.bxisim, "run", "-n", str(2 * k * PPN), "--ppn", str(PPN), "--platform", "two-switches",
               "--set", f"platform.nodes_per_switch={k}", "--no-cpu-simulation", "--level", level,
               "--set", f"nic.e2e_timeout={args.e2e_timeout}", "--nic-stats"]
    if kind != "off":
        command += ["--set", f"nic.flow_control_{kind}_limit={limit}"]
    command += [args.program, str(args.size), str(args.count), str(args.warmup_us)]
    start = time.monotonic()
    result = subprocess.run(command, capture_output=True, text=True)
    wall = time.monotonic() - start
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stdout}\n{result.stderr}")
    # NIC counters (--nic-stats): flow-control stalls, and at cycle the link port's credit stalls.
    counters = {"flow_stalls": 0, "credit_stalls": 0, "credit_stalled_s": 0.0}
    for line in result.stderr.splitlines():
        match = re.search(r"flow-control stalls (\d+)", line)
        if match:
            counters["flow_stalls"] = int(match.group(1))
        match = re.search(r"credit stalls (\d+) \(([0-9.e+-]+) s\)", line)
        if match:
            counters["credit_stalls"] = int(match.group(1))
            counters["credit_stalled_s"] = float(match.group(2))
    for line in result.stdout.splitlines():
        position = line.find("victim,")
        if position >= 0:
            fields = line[position:].split(",")
            return float(fields[3]), wall, counters
    sys.exit(f"no victim line: {' '.join(command)}\n{result.stdout}")


def plot(rows, level, path, size):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    mine = [r for r in rows if r["level"] == level]
    baseline = next(r["latency_us"] for r in mine if r["pairs"] == 0)
    figure, axis = plt.subplots(figsize=(7, 4.5))
    colours = ["tab:blue", "tab:orange", "tab:green", "tab:red"]
    for index, pairs in enumerate(sorted({r["pairs"] for r in mine if r["pairs"] > 0})):
        colour = colours[index % len(colours)]
        for kind, style in (("nic", "-o"), ("process", "--s")):
            points = sorted((r["limit"], r["latency_us"]) for r in mine if r["pairs"] == pairs and r["kind"] == kind)
            if points:
                axis.plot([p[0] for p in points], [p[1] for p in points], style, color=colour,
                          label=f"{pairs} flooding pair(s), {kind} limit")
        off = next(r["latency_us"] for r in mine if r["pairs"] == pairs and r["kind"] == "off")
        axis.axhline(off, color=colour, linestyle=":", label=f"{pairs} flooding pair(s), no flow control")
    axis.axhline(baseline, color="black", label="no flood")
    axis.set_xscale("log", base=2)
    axis.set_yscale("log")
    axis.set_xlabel("in-flight limit (requests per destination NIC or process)")
    axis.set_ylabel(f"victim latency of a {size // 1024} KiB Put (us)")
    axis.set_title(f"NIC flow control, --level {level} (thesis figure 7.2)")
    axis.legend(fontsize=7)
    axis.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bxisim", required=True)
    parser.add_argument("--program", required=True, help="flood, built with bxicc")
    parser.add_argument("--out", required=True)
    parser.add_argument("--levels", default="message,cycle")
    parser.add_argument("--size", type=int, default=1 << 20, help="bytes per message (thesis: 1 MiB, 16 MiB)")
    parser.add_argument("--count", type=int, default=5, help="victim messages")
    parser.add_argument("--warmup-us", type=int, default=500, help="flooding before the victim starts")
    parser.add_argument("--full", action="store_true", help="1-4 flooding pairs, limits 1..256")
    parser.add_argument("--e2e-timeout", default="1s",
                        help="nic.e2e_timeout: with the default 1ms, flooding without flow control makes E2E "
                             "send again and give up (congestion collapse), and the victim's messages fail")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    pair_counts = [1, 2, 3, 4] if args.full else [1, 2]
    limits = [1, 2, 4, 8, 16, 32, 64, 128, 256] if args.full else [1, 4, 16, 64]
    rows = []
    total_wall = 0.0
    for level in args.levels.split(","):
        plan = [(0, "off", 0)]
        for pairs in pair_counts:
            plan.append((pairs, "off", 0))
            plan += [(pairs, kind, limit) for kind in ("nic", "process") for limit in limits]
        for pairs, kind, limit in plan:
            latency, wall, counters = run(args, level, pairs, kind, limit)
            total_wall += wall
            row = {"level": level, "pairs": pairs, "kind": kind, "limit": limit, "latency_us": latency * 1e6,
                   "wall_s": round(wall, 2), **counters}
            rows.append(row)
            print(",".join(str(row[key]) for key in row), flush=True)
    with open(os.path.join(args.out, "flow_control.csv"), "w", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0].keys()))
        writer.writeheader()
        writer.writerows(rows)
    subprocess.run([args.bxisim, "plot", os.path.join(args.out, "flow_control.csv")], check=True)
    for level in args.levels.split(","):
        plot(rows, level, os.path.join(args.out, f"flow_control_{level}.png"), args.size)
    print(f"{len(rows)} runs, {total_wall:.1f} s wall; results in {args.out}")


if __name__ == "__main__":
    main()
