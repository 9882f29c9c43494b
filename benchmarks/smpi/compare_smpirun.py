#!/usr/bin/env python3
"""Wall time of `bxisim run --level smpi` against SimGrid's smpirun on the same runs.

Runs tests/middleware/programs/parity.c built both ways (bxicc: --program, smpicc: --smpi-program) on
the same platform and settings, alternating the two, --repeat times each, and prints per case the
median wall time of each and their ratio (bxisim / smpirun), and whether the simulated times agree.

    compare_smpirun.py --bxisim build/bin/bxisim --program build/tests/middleware/programs/parity \\
        --smpi-program build/tests/middleware/programs/parity_smpi --platform tests/middleware/parity/cluster16.xml \\
        --hosts tests/middleware/parity/cluster16.hosts
"""
import argparse
import resource
import statistics
import subprocess
import sys
import time

CASES = [
    ("pingpong 8 B x 20000, 2 ranks", 2, "pingpong 8 20000"),
    ("pingpong 1 MiB x 2000, 2 ranks", 2, "pingpong 1048576 2000"),
    ("allreduce 1000 doubles x 500, 16 ranks", 16, "allreduce 1000 repeat 500"),
    ("alltoall 100 doubles x 200, 16 ranks", 16, "alltoall 100 repeat 200"),
]


def parity_lines(output):
    lines = []
    for line in output.splitlines():
        at = line.find("parity rank=")
        if at >= 0:
            lines.append(line[at:])
    return sorted(lines)


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command):
    """Wall time, CPU time (user + system of the whole command) and the parity lines of one run."""
    start, cpu_start = time.perf_counter(), children_cpu()
    result = subprocess.run(command, shell=True, capture_output=True, text=True)
    elapsed, cpu = time.perf_counter() - start, children_cpu() - cpu_start
    if result.returncode != 0:
        sys.exit(f"failed ({result.returncode}): {command}\n{result.stdout}{result.stderr}")
    return elapsed, cpu, parity_lines(result.stdout + result.stderr)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bxisim", required=True)
    parser.add_argument("--smpirun", default="smpirun")
    parser.add_argument("--program", required=True)
    parser.add_argument("--smpi-program", required=True)
    parser.add_argument("--platform", required=True)
    parser.add_argument("--hosts", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print("case,bxisim_wall_s,smpirun_wall_s,ratio,bxisim_cpu_s,smpirun_cpu_s,cpu_ratio,simulated_times_equal")
    worst, worst_cpu = 0.0, 0.0
    for name, ranks, steps in CASES:
        ours_cmd = (f"{args.bxisim} run --level smpi --no-rank-prefix --platform {args.platform} -n {ranks} "
                    f"--cfg smpi/simulate-computation:no {args.program} {steps}")
        theirs_cmd = (f"{args.smpirun} -np {ranks} -platform {args.platform} -hostfile {args.hosts} "
                      f"--cfg=smpi/simulate-computation:no {args.smpi_program} {steps}")
        ours, theirs, ours_cpu, theirs_cpu, equal = [], [], [], [], True
        for _ in range(args.repeat):
            t, c, a = timed(ours_cmd)
            ours.append(t)
            ours_cpu.append(c)
            t, c, b = timed(theirs_cmd)
            theirs.append(t)
            theirs_cpu.append(c)
            equal = equal and a == b and len(a) > 0
        ratio = statistics.median(ours) / statistics.median(theirs)
        cpu_ratio = statistics.median(ours_cpu) / statistics.median(theirs_cpu)
        worst, worst_cpu = max(worst, ratio), max(worst_cpu, cpu_ratio)
        print(f"{name},{statistics.median(ours):.3f},{statistics.median(theirs):.3f},{ratio:.3f},"
              f"{statistics.median(ours_cpu):.3f},{statistics.median(theirs_cpu):.3f},{cpu_ratio:.3f},{equal}")
    print(f"worst ratio {worst:.3f} wall, {worst_cpu:.3f} CPU (target 1.05)")


if __name__ == "__main__":
    main()
