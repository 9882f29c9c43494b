#!/usr/bin/env python3
"""Turns benchmark CSVs (benchmarks/*) into PNG plots, one per CSV, for `bxisim plot CSV... [-o DIR]`.

The x axis is the first of size, bytes, pairs, ranks, operations (else the first numeric column);
one curve per configuration (the text columns, such as level, kind or mode, and small configuration
numbers such as limit); one panel per measured column (up to four). Axes are logarithmic where the
values span two decades or more. A CSV where no number varies (one row) gets a bar per row."""

import argparse
import csv
import os
import sys

X_NAMES = ["size", "bytes", "pairs", "ranks", "operations"]
CONFIG_NAMES = {"limit", "ranks", "pairs", "level", "kind", "mode", "benchmark", "workload", "placement"}
MAX_PANELS = 4


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def spans_decades(values):
    positive = [v for v in values if v is not None and v > 0]
    return len(positive) == len([v for v in values if v is not None]) and positive and max(positive) / min(positive) >= 100


def plot_file(path, output_dir, plt):
    with open(path, newline="") as file:
        rows = list(csv.DictReader(file))
    if not rows:
        raise ValueError("no rows")
    columns = list(rows[0].keys())
    numeric = [c for c in columns if all(number(r[c]) is not None for r in rows if r[c] != "")]
    x = next((c for c in X_NAMES if c in numeric and len({r[c] for r in rows}) > 1), None)
    if x is None:
        x = next((c for c in numeric if len({r[c] for r in rows}) > 1), None)
    if x is None:
        return plot_bars(path, rows, columns, numeric, output_dir, plt)
    groups = [c for c in columns if c != x and (c not in numeric or (c in CONFIG_NAMES and len({r[c] for r in rows}) <= 12))]
    groups = [c for c in groups if len({r[c] for r in rows}) > 1]
    measured = [c for c in numeric if c != x and c not in groups and len({r[c] for r in rows}) > 1][:MAX_PANELS]
    if not measured:
        raise ValueError("no measured column varies")

    curves = {}
    for row in rows:
        key = ", ".join(f"{g}={row[g]}" for g in groups) or os.path.basename(path)
        curves.setdefault(key, []).append(row)
    figure, axes = plt.subplots(len(measured), 1, figsize=(8, 3.2 * len(measured) + 0.6), squeeze=False, sharex=True)
    xs = [number(r[x]) for r in rows]
    # Curves of one value of the first configuration column share a line style (colours repeat after ten).
    styles = {}
    for row in rows:
        if groups:
            styles.setdefault(row[groups[0]], ["-", "--", ":", "-."][len(styles) % 4])
    for panel, column in enumerate(measured):
        axis = axes[panel][0]
        for key, members in curves.items():
            members = sorted(members, key=lambda r: number(r[x]))
            points = [(number(r[x]), number(r[column])) for r in members if number(r[column]) is not None]
            if points:
                style = styles.get(members[0][groups[0]], "-") if groups else "-"
                axis.plot([p[0] for p in points], [p[1] for p in points], style, marker="o", markersize=3, label=key)
        if spans_decades(xs):
            axis.set_xscale("log", base=2 if x in ("size", "bytes") else 10)
        if spans_decades([number(r[column]) for r in rows]):
            axis.set_yscale("log")
        axis.set_ylabel(column)
        axis.grid(True, which="both", linestyle=":", linewidth=0.5)
        if panel == 0 and len(curves) > 1:
            axis.legend(fontsize=7, ncol=2 if len(curves) > 6 else 1)
    axes[-1][0].set_xlabel(x)
    axes[0][0].set_title(os.path.basename(path), fontsize=10)
    figure.tight_layout()
    folder = output_dir or os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    output = os.path.join(folder, os.path.splitext(os.path.basename(path))[0] + ".png")
    figure.savefig(output, dpi=110)
    plt.close(figure)
    return output, x, measured, len(curves)


def plot_bars(path, rows, columns, numeric, output_dir, plt):
    """A CSV where no number varies along rows (one barrier time, say): one bar per row and measure."""
    measured = [c for c in numeric if c not in CONFIG_NAMES and c not in X_NAMES][:MAX_PANELS]
    if not measured:
        raise ValueError("no numeric column to plot")
    labels = [", ".join(row[c] for c in columns if c not in numeric) or str(i) for i, row in enumerate(rows)]
    figure, axes = plt.subplots(1, len(measured), figsize=(3 * len(measured) + 1, 3.6), squeeze=False)
    for panel, column in enumerate(measured):
        axis = axes[0][panel]
        axis.bar(range(len(rows)), [number(r[column]) or 0 for r in rows])
        axis.set_xticks(range(len(rows)))
        axis.set_xticklabels(labels, fontsize=7, rotation=30)
        axis.set_title(column, fontsize=9)
    figure.suptitle(os.path.basename(path), fontsize=10)
    figure.tight_layout()
    folder = output_dir or os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    output = os.path.join(folder, os.path.splitext(os.path.basename(path))[0] + ".png")
    figure.savefig(output, dpi=110)
    plt.close(figure)
    return output, "rows", measured, len(rows)


def main():
    parser = argparse.ArgumentParser(prog="bxisim plot", description=__doc__)
    parser.add_argument("csv", nargs="+")
    parser.add_argument("--output-dir", default=None)
    arguments = parser.parse_args()
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    failed = 0
    for path in arguments.csv:
        try:
            output, x, measured, curves = plot_file(path, arguments.output_dir, plt)
            print(f"bxisim: wrote {output} ({', '.join(measured)} against {x}, {curves} curve(s))")
        except (OSError, ValueError, KeyError) as error:
            print(f"bxisim plot: cannot plot {path}: {error}. Give a CSV written by a benchmark of benchmarks/.",
                  file=sys.stderr)
            failed += 1
    sys.exit(2 if failed else 0)


if __name__ == "__main__":
    main()
