#!/usr/bin/env python3
"""Draws a bxisim timeline (DIR/trace.json, Chrome trace events written by `bxisim run --trace DIR`)
as a PNG: one lane per rank and per busy NIC stage, time in simulated microseconds.
Used by `bxisim trace render DIR -o timeline.png`."""

import argparse
import json
import os
import sys

COLOURS = {
    "compute": "#8c8c8c",
    "mpi": "#1f77b4",
    "portals": "#ff7f0e",
    "tx": "#2ca02c",
    "rx": "#98df8a",
    "pcie": "#9467bd",
    "e2e": "#d62728",
    "match": "#e377c2",
    "stage-tx": "#bcbd22",
    "stage-rx": "#17becf",
    "stage-response": "#8c564b",
}
LEVEL_COLOURS = {"smpi": "#b8e0b8", "message": "#b8cde8", "cycle": "#f0c0c0"}
SUBLANES = {"mpi": 0, "portals": 1, "compute": 2}
SUBLANE_NAMES = {0: "MPI", 1: "Portals", 2: "compute"}
LEGEND = {
    "compute": "computation",
    "mpi": "MPI call",
    "portals": "Portals call",
    "tx": "frame sent (wire/loopback)",
    "rx": "frame received",
    "pcie": "PCIe transfer (command, DMA, event)",
    "e2e": "BXI ACK (E2E) / E2E engine",
    "match": "matching (engine, LMEs)",
    "stage-tx": "cycle TX stage",
    "stage-rx": "cycle RX stage",
    "stage-response": "cycle response stage",
}


def fail(message):
    """Bad input: bxisim's exit code 2 (docs/errors.md)."""
    print(f"bxisim trace render: {message}", file=sys.stderr)
    sys.exit(2)


def load(folder):
    path = os.path.join(folder, "trace.json") if os.path.isdir(folder) else folder
    try:
        with open(path) as file:
            return json.load(file)["traceEvents"], path
    except (OSError, ValueError, KeyError) as error:
        fail(f"cannot read {path} ({error}); give the folder of `bxisim run --trace DIR`.")


def main():
    parser = argparse.ArgumentParser(prog="bxisim trace render", description=__doc__)
    parser.add_argument("folder", help="folder given to bxisim run --trace (or its trace.json)")
    parser.add_argument("-o", "--output", default="timeline.png", help="PNG to write (default: timeline.png)")
    parser.add_argument("--from-us", type=float, default=None, help="start of the time window, simulated us")
    parser.add_argument("--to-us", type=float, default=None, help="end of the time window, simulated us")
    parser.add_argument("--title", default=None)
    parser.add_argument("--lanes", default=None,
                        help="draw only the lanes whose label matches this regular expression (e.g. 'node[01] ')")
    arguments = parser.parse_args()
    events, path = load(arguments.folder)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    process_names, thread_names, order = {}, {}, {}
    for event in events:
        if event.get("ph") != "M":
            continue
        if event["name"] == "process_name":
            process_names[event["pid"]] = event["args"]["name"]
        elif event["name"] == "thread_name":
            thread_names[(event["pid"], event["tid"])] = event["args"]["name"]
        elif event["name"] == "process_sort_index":
            order[event["pid"]] = event["args"]["sort_index"]

    low = arguments.from_us if arguments.from_us is not None else float("-inf")
    high = arguments.to_us if arguments.to_us is not None else float("inf")
    spans, markers, counters = {}, [], {}
    for event in events:
        phase = event.get("ph")
        if phase == "X":
            start, end = event["ts"], event["ts"] + event["dur"]
            if end < low or start > high:
                continue
            # A rank's MPI calls contain its Portals calls: each kind gets a lane of its own.
            category = event.get("cat", "")
            sublane = SUBLANES.get(category, 0) if process_names.get(event["pid"]) == "ranks" else 0
            spans.setdefault((event["pid"], event["tid"], sublane), []).append((start, event["dur"], category,
                                                                                  event["name"]))
        elif phase == "i" and low <= event["ts"] <= high:
            markers.append((event["pid"], event["tid"], event["ts"], event["name"], event.get("args", {})))
        elif phase == "C":
            for series, value in event["args"].items():
                counters.setdefault((event["pid"], series), []).append((event["ts"], value))
    if not spans:
        fail(f"{path} holds no activity in the window to draw.")

    lanes = sorted(spans, key=lambda lane: (order.get(lane[0], lane[0]), lane[0], lane[1], lane[2]))
    split = {(pid, tid) for pid, tid, sublane in lanes if sublane != 0} & {(pid, tid) for pid, tid, s in lanes if s == 0}
    labels = []
    for pid, tid, sublane in lanes:
        group = process_names.get(pid, str(pid))
        name = thread_names.get((pid, tid), str(tid))
        if group == "ranks":
            labels.append(f"{name} {SUBLANE_NAMES[sublane]}" if (pid, tid) in split or sublane else name)
        else:
            labels.append(f"{group.replace(' NIC', '')} {name}")
    if arguments.lanes is not None:
        import re

        pattern = re.compile(arguments.lanes)
        kept = [(lane, label) for lane, label in zip(lanes, labels) if pattern.search(label)]
        if not kept:
            fail(f"no lane matches --lanes '{arguments.lanes}'.")
        lanes, labels = [lane for lane, _ in kept], [label for _, label in kept]
        spans = {lane: spans[lane] for lane in lanes}
    times = [s[0] for lane in spans.values() for s in lane] + [m[2] for m in markers]
    ends = [s[0] + s[1] for lane in spans.values() for s in lane] + [m[2] for m in markers]
    start = max(low, min(times))
    end = min(high, max(ends))
    if end <= start:
        end = start + 1e-3

    # Wire/loopback occupancy per NIC, as a step curve under the lanes; at the cycle level the link
    # credits each NIC has left towards its peers' request buffers, in a panel of their own. With
    # --lanes, only the NICs whose lanes are drawn.
    drawn = {pid for pid, _, _ in lanes}
    occupancy = {key: values for key, values in counters.items()
                 if key[1] in ("wire", "loopback") and (arguments.lanes is None or key[0] in drawn)}
    credits = {key: values for key, values in counters.items()
               if key[1] == "link credits (requests)" and (arguments.lanes is None or key[0] in drawn)}
    panels = [panel for panel in (occupancy, credits) if panel]
    rows = 1 + len(panels)
    height = max(2.5, 0.42 * len(lanes) + 1.5)
    figure, axes = plt.subplots(rows, 1, figsize=(14, height + 2.2 * len(panels)), sharex=True,
                                gridspec_kw={"height_ratios": [height] + [2.2] * len(panels)}, squeeze=False)
    lanes_axis = axes[0][0]
    used = set()
    for row, lane in enumerate(lanes):
        y = len(lanes) - 1 - row
        label_end = float("-inf")  # labels of one lane never overlap
        for begin, duration, category, name in spans[lane]:
            colour = COLOURS.get(category, "#17becf")
            used.add(category)
            lanes_axis.broken_barh([(begin, max(duration, (end - start) * 1e-4))], (y - 0.38, 0.76),
                                   facecolors=colour, edgecolor="black" if duration > (end - start) * 0.02 else colour,
                                   linewidth=0.3)
            if duration > (end - start) * 0.06 and begin > label_end:
                label_end = begin + duration
                lanes_axis.text(begin + duration / 2, y, name.replace("MPI_", "").replace("Ptl", ""), ha="center",
                                va="center", fontsize=7, clip_on=True)
    lane_index = {lane: len(lanes) - 1 - row for row, lane in enumerate(lanes)}
    # Regions: a band per region a rank is in, coloured by the level it ran at, behind the rank's lanes.
    open_regions, bands = {}, []
    for pid, tid, time, name, args in sorted(markers, key=lambda m: m[2]):
        region, level = args.get("region"), args.get("level", "")
        if region is None:
            continue
        stack = open_regions.setdefault((pid, tid), [])
        if name.startswith("begin "):
            stack.append((region, level, time))
        elif stack:
            begun = stack.pop()
            bands.append((pid, tid, begun[0], begun[1], begun[2], time, len(stack)))
    for (pid, tid), stack in open_regions.items():
        for depth, (region, level, time) in enumerate(stack):
            bands.append((pid, tid, region, level, time, end, depth))
    for pid, tid, region, level, begin, finish, depth in bands:
        ys = [y for (p, t, _), y in lane_index.items() if (p, t) == (pid, tid)]
        if not ys:
            continue
        bottom, top = min(ys) - 0.5 + 0.06 * depth, max(ys) + 0.5 - 0.06 * depth
        lanes_axis.add_patch(Rectangle((begin, bottom), finish - begin, top - bottom,
                                       facecolor=LEVEL_COLOURS.get(level, "#dddddd"), alpha=0.35, edgecolor="black",
                                       linewidth=0.6, zorder=0))
        if finish - begin > (end - start) * 0.04:
            lanes_axis.text(begin + (end - start) * 0.003, top - 0.08 - 0.22 * depth, f"{region} ({level})", fontsize=7,
                            ha="left", va="top", clip_on=True, zorder=3)
    lanes_axis.set_yticks(range(len(lanes)))
    lanes_axis.set_yticklabels(list(reversed(labels)), fontsize=8)
    lanes_axis.set_xlim(start, end)
    lanes_axis.set_ylim(-0.7, len(lanes) - 0.2)
    lanes_axis.grid(axis="x", linestyle=":", linewidth=0.5)
    levels_used = sorted({band[3] for band in bands})
    lanes_axis.legend(handles=[Patch(color=COLOURS[c], label=LEGEND[c]) for c in COLOURS if c in used] +
                      [Patch(color=LEVEL_COLOURS.get(l, "#dddddd"), alpha=0.35, label=f"region at {l}") for l in levels_used],
                      loc="upper center", bbox_to_anchor=(0.5, -0.02 if panels else -0.12), ncol=4, fontsize=8,
                      frameon=False)
    lanes_axis.set_title(arguments.title or f"bxisim timeline: {os.path.abspath(path)}", fontsize=10)
    ylabels = {id(occupancy): "frames in flight\n(per NIC, out)", id(credits): "link credits left\n(request network, flits)"}
    for row, panel in enumerate(panels, start=1):
        axis = axes[row][0]
        for (pid, series), values in sorted(panel.items()):
            # The value before the window holds at its start: keep the last point before it.
            before = [point for point in values if point[0] < start]
            values = ([(start, before[-1][1])] if before else []) + [point for point in values if start <= point[0] <= end]
            if not values:
                continue
            times = [t for t, _ in values] + [end]
            counts = [v for _, v in values] + [values[-1][1]]
            name = series.replace("link credits (requests)", "credits")
            axis.step(times, counts, where="post", label=f"{process_names.get(pid, pid).replace(' NIC', '')} {name}")
        axis.set_ylabel(ylabels[id(panel)], fontsize=8)
        axis.legend(fontsize=7, ncol=4, loc="upper right")
        axis.grid(linestyle=":", linewidth=0.5)
        axis.set_xlim(start, end)
    axes[-1][0].set_xlabel("simulated time (us)")
    figure.tight_layout()
    figure.savefig(arguments.output, dpi=110)
    print(f"bxisim: wrote {arguments.output} ({len(lanes)} lanes, {start:.3f}-{end:.3f} us)")


if __name__ == "__main__":
    main()
