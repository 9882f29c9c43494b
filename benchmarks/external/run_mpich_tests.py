#!/usr/bin/env python3
"""Build and run a user's copy of MPICH's MPI test suite (test/mpi) under bxisim.

Nothing of MPICH is in this repository: point --suite at your own copy of MPICH's test/mpi
folder (any release whose tests stay within MPI-3.1, e.g. v3.4.3). The script compiles each test
of the chosen folders with bxicc against the suite's own util/mtest.c, runs it with the rank count
its testlist gives, at the levels and placements asked, under a timeout, and judges its output as
the suite's own `runtests` does (every line " No Errors" or "Test Passed", at least one " No
Errors", exit status 0; `resultTest=TestStatus`/`TestErrFatal` tests must exit non-zero).
See README.md beside this script.
"""

import argparse
import concurrent.futures
import csv
import os
import re
import shutil
import subprocess
import sys
import time
import zlib

# mpitestconf.h is what the suite's configure would write for a strict MPI-3.1 library on Linux
# (no MPICH extensions, no GPU, no Fortran): facts about this platform, nothing copied.
CONF_H = """/* written by bxisim's run_mpich_tests.py in place of the suite's configure */
#ifndef MPITESTCONF_H_INCLUDED
#define MPITESTCONF_H_INCLUDED
#define HAVE_STDLIB_H 1
#define HAVE_STRING_H 1
#define HAVE_STDIO_H 1
#define HAVE_STDARG_H 1
#define HAVE_UNISTD_H 1
#define HAVE_SYS_TIME_H 1
#define HAVE_SYS_RESOURCE_H 1
#define HAVE_GETRUSAGE 1
#define HAVE_LONG_DOUBLE 1
#define HAVE_LONG_LONG 1
#define HAVE_LONG_LONG_INT 1
#define HAVE_FLOAT__COMPLEX 1
#define HAVE_DOUBLE__COMPLEX 1
#define HAVE_LONG_DOUBLE__COMPLEX 1
#define HAVE_MPI_WIN_CREATE 1
#define HAVE_MPI_TYPE_CREATE_STRUCT 1
#define HAVE_MPI_INIT_THREAD 1
#define HAVE_MPI2_COMBINERS 1
#define HAVE_MPI_IO 1
#define MPIO_USES_MPI_REQUEST 1 /* configure: mpi.h has no MPIO_Request (io/async needs it) */
#define HAVE_MPI_INTEGER16 1 /* configure: "MPI_Datatype t = MPI_INTEGER16;" compiles with mpi.h */
#define USE_STRICT_MPI 1
#define THREAD_PACKAGE_NAME THREAD_PACKAGE_POSIX
#endif
"""

UTIL_SOURCES = ["mtest.c", "mtest_common.c", "mtest_single.c", "dtypes.c"]
# The threads folders link util/mtest_thread.c (MTest_Start_thread & co., POSIX threads) instead of mtest_single.c.
THREAD_UTIL_SOURCES = ["mtest.c", "mtest_common.c", "mtest_thread.c", "dtypes.c"]


def parse_makefile_am(path):
    """Per program: its sources and extra preprocessor flags, from the folder's Makefile.am."""
    sources, cppflags, ldadd = {}, {}, {}
    if not os.path.exists(path):
        return sources, cppflags, ldadd
    text = open(path).read().replace("\\\n", " ")
    for line in text.splitlines():
        m = re.match(r"^\s*([A-Za-z0-9_]+)_(SOURCES|CPPFLAGS|CFLAGS|LDADD)\s*=\s*(.*)$", line)
        if not m:
            continue
        name, kind, value = m.group(1), m.group(2), m.group(3)
        words = [w for w in value.split() if not w.startswith("$(") and not w.startswith("@")]
        if kind == "SOURCES":
            sources[name] = [w for w in words if w.endswith(".c")]
        elif kind in ("CPPFLAGS", "CFLAGS"):
            cppflags.setdefault(name, []).extend(w for w in words if w.startswith("-D") or w.startswith("-I"))
        else:
            ldadd[name] = [w for w in words if w.startswith("-l")]
    return sources, cppflags, ldadd


def parse_testlist(folder):
    """Entries (program, ranks, options) of the folder's testlist (testlist.in without @subst@ lines)."""
    for name in ("testlist", "testlist.in"):
        path = os.path.join(folder, name)
        if os.path.exists(path):
            break
    else:
        return []
    entries = []
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#") or "@" in line:
            continue
        words = line.split()
        if len(words) < 2 or not words[1].isdigit():
            continue
        opts = {"args": [], "env": [], "raw": " ".join(words[2:])}
        for w in words[2:]:
            if "=" in w:
                k, v = w.split("=", 1)
                if k == "arg":
                    opts["args"].append(v)
                elif k == "env":
                    opts["env"].append(v)
                else:
                    opts[k] = v
        entries.append((words[0], int(words[1]), opts))
    return entries


def run(cmd, cwd=None, timeout=None, env=None):
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout.decode(errors="replace"), time.time() - t0
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode(errors="replace")
        return None, out, time.time() - t0
    except OSError as e:  # e.g. the binary is being rebuilt
        return -1, f"cannot run {cmd[0]}: {e}", time.time() - t0


def is_threaded(folder):
    return folder.split("/")[0] == "threads"


def build_util(args, build_dir, sources):
    inc = os.path.join(build_dir, "include")
    os.makedirs(inc, exist_ok=True)
    with open(os.path.join(inc, "mpitestconf.h"), "w") as f:
        f.write(CONF_H)
    objs = []
    for src in sources:
        obj = os.path.join(build_dir, src.replace(".c", ".o"))
        if not os.path.exists(obj):
            rc, out, _ = run([args.bxicc, "-O1", "-g", "-w", "-I", inc, "-I", os.path.join(args.suite, "include"),
                              "-c", os.path.join(args.suite, "util", src), "-o", obj])
            if rc != 0:
                sys.exit(f"cannot compile util/{src}:\n{out}")
        objs.append(obj)
    return inc, objs


def build_test(args, folder, prog, mk, inc, util_objs, build_dir):
    sources, cppflags, ldadd = mk
    out_dir = os.path.join(build_dir, folder)
    os.makedirs(out_dir, exist_ok=True)
    exe = os.path.join(out_dir, prog)
    log = exe + ".build.log"
    if os.path.exists(exe):
        return exe, None
    if os.path.exists(log):
        return None, open(log).read()
    srcs = sources.get(prog, [prog + ".c"])
    srcs = [os.path.join(args.suite, folder, s) for s in srcs]
    if not all(os.path.exists(s) for s in srcs):
        msg = "missing source " + " ".join(srcs)
        open(log, "w").write(msg)
        return None, msg
    cmd = [args.bxicc, "-O1", "-g", "-w", "-I", inc, "-I", os.path.join(args.suite, "include"),
           "-I", os.path.join(args.suite, folder)] + cppflags.get(prog, []) + srcs + util_objs + \
        ldadd.get(prog, []) + ["-lm"] + (["-pthread"] if is_threaded(folder) else []) + ["-o", exe]
    rc, out, _ = run(cmd)
    if rc != 0:
        open(log, "w").write(" ".join(cmd) + "\n" + out)
        return None, out
    return exe, None


def judge(result_test, rc, stdout_text):
    """The suite's runtests rule (TestDefault, TestStatus, TestErrFatal, TestAllowWarnings)."""
    lines = [l for l in stdout_text.splitlines() if l.strip() and "FORTRAN STOP" not in l]
    if result_test in ("TestStatus", "TestErrFatal"):
        return rc not in (0, None)
    no_errors = any(re.match(r"^\s*No [Ee]rrors\s*$", l) for l in lines)
    other = [l for l in lines if not re.match(r"^\s*(No [Ee]rrors|Test Passed)\s*$", l)]
    if result_test == "TestAllowWarnings":
        other = [l for l in other if "warning" not in l.lower()]
    return rc == 0 and no_errors and not other


def run_one(args, exe, folder, prog, nprocs, opts, level, ppn, log_dir):
    tag = f"{folder}-{prog}-n{nprocs}-{level}-ppn{ppn}"
    if opts["raw"]:  # the same program is listed with different arguments or environments
        tag += "-" + format(zlib.crc32(opts["raw"].encode()), "08x")
    out_dir = os.path.join(log_dir, tag)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    result_test = opts.get("resultTest", "TestDefault")
    limit = int(opts.get("timeLimit", args.timeout))
    if result_test != "TestErrFatal":  # a test that expects the launcher to stop it gets its own limit
        limit = min(max(limit, args.timeout), args.max_timeout)
    platform = []
    if -(-nprocs // ppn) > args.fat_tree_nodes:  # more nodes than the default fat-tree has
        platform = ["--platform", "single-switch", "--set", f"platform.nodes={-(-nprocs // ppn)}"]
    cmd = [args.bxisim, "run"] + platform + ["-n", str(nprocs), "--ppn", str(min(ppn, nprocs)), "--level", level,
           "--no-cpu-simulation", "-q", "--no-summary", "--output-dir", out_dir,
           "--wall-limit", str(limit)] + args.bxisim_arg + [exe] + opts["args"]
    env = dict(os.environ)
    for e in opts["env"]:
        k, v = e.split("=", 1)
        env[k] = v
    rc, out, wall = run(cmd, cwd=os.path.join(args.suite, folder), timeout=limit + 30, env=env)
    stdout_text = ""
    for r in range(nprocs):
        p = os.path.join(out_dir, f"rank-{r}.stdout")
        if os.path.exists(p):
            stdout_text += open(p, errors="replace").read()
    with open(os.path.join(out_dir, "bxisim.out"), "w") as f:
        f.write(" ".join(cmd) + "\n" + out + f"\nexit: {rc}\n")
    if (rc is None or rc == 5) and result_test != "TestErrFatal":
        status = "timeout"
    elif judge(result_test, rc, stdout_text):
        status = "pass"
    else:
        status = "fail"
    return {"folder": folder, "test": prog, "ranks": nprocs, "options": opts["raw"], "level": level,
            "ppn": min(ppn, nprocs), "status": status, "exit": rc, "wall_s": round(wall, 1),
            "log": out_dir}


def csv_rows_so_far(args, rows):
    """Writes the runs done so far (a long run stopped early keeps its results)."""
    path = args.csv or os.path.join(os.path.abspath(args.scratch), "results.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["folder", "test", "ranks", "options", "level", "ppn", "status", "exit",
                                          "wall_s", "log"])
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bxisim-build", required=True, help="bxisim's build folder")
    ap.add_argument("--suite", required=True, help="your copy of MPICH's test/mpi folder")
    ap.add_argument("--scratch", required=True, help="where the tests are built and the logs written")
    ap.add_argument("--dirs", default="pt2pt,coll,comm,datatype,group,init,info,attr,errhan,topo")
    ap.add_argument("--levels", default="smpi,message")
    ap.add_argument("--ppn", default="1,2", help="ranks per node to run each test at")
    ap.add_argument("--tests", default="", help="only these programs (comma-separated)")
    ap.add_argument("--skip", default="", help="leave out these programs (comma-separated), e.g. tests known to be long")
    ap.add_argument("--timeout", type=int, default=120, help="wall seconds per run (at least)")
    ap.add_argument("--max-timeout", type=int, default=300, help="cap on a testlist's timeLimit")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--fat-tree-nodes", type=int, default=16,
                    help="nodes of the default platform; runs needing more use a single switch with enough nodes")
    ap.add_argument("--bxisim-arg", action="append", default=[])
    ap.add_argument("--csv", default="", help="write every run as CSV (default <scratch>/results.csv)")
    args = ap.parse_args()
    args.suite = os.path.abspath(args.suite)
    args.bxicc = os.path.join(os.path.abspath(args.bxisim_build), "bin", "bxicc")
    args.bxisim = os.path.join(os.path.abspath(args.bxisim_build), "bin", "bxisim")
    build_dir = os.path.join(os.path.abspath(args.scratch), "build")
    log_dir = os.path.join(os.path.abspath(args.scratch), "logs")
    os.makedirs(log_dir, exist_ok=True)
    inc, single_objs = build_util(args, build_dir, UTIL_SOURCES)
    _, thread_objs = build_util(args, build_dir, THREAD_UTIL_SOURCES)
    only = set(t for t in args.tests.split(",") if t)
    skip = set(t for t in args.skip.split(",") if t)

    jobs = []
    rows = []
    for folder in args.dirs.split(","):
        mk = parse_makefile_am(os.path.join(args.suite, folder, "Makefile.am"))
        for prog, nprocs, opts in parse_testlist(os.path.join(args.suite, folder)):
            if (only and prog not in only) or prog in skip:
                continue
            util_objs = thread_objs if is_threaded(folder) else single_objs
            exe, err = build_test(args, folder, prog, mk, inc, util_objs, build_dir)
            if exe is None:
                first = next((l for l in err.splitlines() if "error" in l), err.strip()[:200])
                rows.append({"folder": folder, "test": prog, "ranks": nprocs, "options": opts["raw"],
                             "level": "-", "ppn": "-", "status": "build", "exit": "",
                             "wall_s": 0, "log": first.strip()})
                print(f"{folder:9} {prog:28} n={nprocs:<2} BUILD FAILED: {first.strip()}", flush=True)
                continue
            for level in args.levels.split(","):
                ppns = [1] if level == "smpi" else [int(p) for p in args.ppn.split(",")]
                for ppn in ppns:
                    if ppn > 1 and nprocs == 1 and 1 in ppns:
                        continue
                    jobs.append((exe, folder, prog, nprocs, opts, level, ppn))

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = [pool.submit(run_one, args, *j, log_dir) for j in jobs]
        for fut in futures:
            r = fut.result()
            csv_rows_so_far(args, rows + [r])
            rows.append(r)
            print(f"{r['folder']:9} {r['test']:28} n={r['ranks']:<2} {r['level']:8} ppn={r['ppn']} "
                  f"{r['status']:8} exit={r['exit']} {r['wall_s']:6.1f}s {r['options']}", flush=True)

    csv_path = args.csv or os.path.join(os.path.abspath(args.scratch), "results.csv")
    with open(csv_path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["folder"])
        w.writeheader()
        w.writerows(rows)
    tally = {}
    for r in rows:
        key = (r["folder"], r["level"], r["ppn"])
        tally.setdefault(key, {"pass": 0, "fail": 0, "timeout": 0, "build": 0})[r["status"]] += 1
    print("\nfolder    level    ppn  pass fail timeout build")
    for (folder, level, ppn), t in sorted(tally.items(), key=lambda kv: tuple(str(x) for x in kv[0])):
        print(f"{folder:9} {level:8} {ppn!s:4} {t['pass']:4} {t['fail']:4} {t['timeout']:7} {t['build']:5}")
    print(f"\nCSV: {csv_path}")


if __name__ == "__main__":
    main()
