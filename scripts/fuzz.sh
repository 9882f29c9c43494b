#!/bin/sh
# Builds the libFuzzer targets of tests/fuzz with clang in build-fuzz/ and runs each for
# FUZZ_SECONDS (default 600) at the lowest priority, starting from tests/fuzz/corpus/<target>.
# New inputs go to build-fuzz/corpus/<target>; crashes to build-fuzz/findings/<target>/.
#   scripts/fuzz.sh [target...]     (targets: toml_parameters set_option portals_arguments platform_xml cfg_option)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${FUZZ_SECONDS:-600}
targets=${*:-"toml_parameters set_option portals_arguments platform_xml cfg_option"}
missing=""
for package in $(grep -v '^#' "$root/scripts/fuzz-packages.txt"); do
  dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
  echo "fuzz.sh: missing Debian packages:$missing. Install them with: sudo apt-get install$missing" >&2
  exit 2
fi
export CCACHE_BASEDIR=/work CCACHE_NOHASHDIR=1
cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBXISIM_FUZZ=ON \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ >/dev/null
for target in $targets; do
  nice -n 19 cmake --build "$root/build-fuzz" -j2 --target "fuzz_$target"
done
for target in $targets; do
  corpus="$root/build-fuzz/corpus/$target"
  findings="$root/build-fuzz/findings/$target"
  mkdir -p "$corpus" "$findings"
  echo "fuzz.sh: $target for $seconds s"
  extra="-timeout=10"
  # One child per input (tests/fuzz/ForkedRun.hpp): libFuzzer sees no coverage, so it must keep every
  # seed (it would keep 3 of them) and never shrink them; the child's own limits (5 s of CPU, 60 s of
  # wall time) judge hangs, libFuzzer's wall-clock timeout only backs them up.
  case $target in
    platform_xml | cfg_option) extra="-timeout=90 -reduce_inputs=0 -keep_seed=1" ;;
  esac
  nice -n 19 "$root/build-fuzz/bin/fuzz_$target" $extra -max_total_time="$seconds" -max_len=4096 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$corpus" "$root/tests/fuzz/corpus/$target" || {
    echo "fuzz.sh: $target found a problem: see $findings" >&2
    exit 1
  }
done
