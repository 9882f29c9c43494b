#!/bin/sh
# Bit-exactness check of speed changes (issue 12): runs a fixed set of simulations with CPU simulation
# off and keeps, per run, what depends on simulated times only: the ranks' output, the summary's
# simulated figures (wall-clock and host figures removed) and the --trace-csv CSVs. Run it before and
# after a change into two folders and compare them byte for byte:
#
#   benchmarks/simspeed/reference_runs.sh build /tmp/ref-before      # on the old binaries
#   benchmarks/simspeed/reference_runs.sh build /tmp/ref-after       # on the new ones
#   diff -r /tmp/ref-before /tmp/ref-after && echo identical
#
# Cases: every portals_bench mode at 8 B and 64 KiB across nodes (--ppn 1) and inside a node
# (--ppn 2), E2E drops and random losses, NIC flow control, quick ACKs, E2E off, the ping-pong, a
# 64-rank neighbour exchange on a fat-tree.
set -eu
build=$1
out=$2
mkdir -p "$out"
bxisim=$build/bin/bxisim
bench=$build/benchmarks/portals/portals_bench
pingpong=$build/examples/programs/pingpong
neighbour=$build/benchmarks/simspeed/neighbour_exchange
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

one() { # one NAME BXISIM-ARGS... -- PROGRAM ARGS...
  name=$1
  shift
  timeout 600 "$bxisim" run -q --no-cpu-simulation --trace-csv "$work/trace.csv" --summary "$work/summary.json" "$@" \
    >"$out/$name.out" 2>"$work/err" || {
    echo "reference_runs: $name failed:" >&2
    cat "$work/err" >&2
    exit 1
  }
  # The summary's simulated figures; wall time, memory and paths vary from run to run. SimGrid's
  # activity counts go to a file of their own: a speed change may change them, never the times.
  python3 - "$work/summary.json" "$out/$name" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))
for key in ("command_line", "outputs", "peak_memory_bytes", "memory_in_use_bytes", "program", "wall_time", "working_directory"):
    summary.pop(key, None)
activities = summary.pop("simgrid", None)
json.dump(summary, open(sys.argv[2] + ".summary", "w"), indent=1, sort_keys=True)
json.dump(activities, open(sys.argv[2] + ".activities", "w"), indent=1, sort_keys=True)
PY
  for csv in "$work/trace.csv"/*; do
    cp "$csv" "$out/$name.$(basename "$csv")"
  done
  rm -rf "$work/trace.csv"
}

for ppn in 1 2; do
  two="-n 2 --ppn $ppn --platform single-switch"
  for mode in put-waitack put-nowait put-waitsend get-waitreply get-nowait ct match; do
    one "$mode-ppn$ppn" $two "$bench" "$mode" 300 8 65536
  done
  one "pingpong-ppn$ppn" $two "$pingpong" 8 200
  one "bench-pingpong-ppn$ppn" $two "$bench" pingpong 200 8 65536
  one "drops-ppn$ppn" $two --set nic.drop_frames=1,5,9,40,41 "$bench" put-waitack 100 8 65536
  one "loss-ppn$ppn" $two --set fault.loss_rate=0.02 --set fault.seed=7 "$bench" get-nowait 300 8 4096
  one "flow-ppn$ppn" $two --set nic.flow_control_nic_limit=2 --set nic.flow_control_process_limit=1 \
    "$bench" put-nowait 300 8 65536
  one "quickacks-ppn$ppn" $two --set nic.quick_acks=true "$bench" put-nowait 300 8 65536
  one "e2eoff-ppn$ppn" $two --e2e off "$bench" put-nowait 300 8 65536
done
one neighbour-64 -n 64 --platform fat-tree --set "platform.fat_tree=2;8,8;1,8;1,1" "$neighbour" 4 8
echo "reference_runs: $(ls "$out" | wc -l) files in $out"
