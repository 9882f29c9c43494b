#pragma once
// The simulator's file descriptors are kept above the ranks' ones.
//
// The ranks share the simulator's process, hence its table of descriptors, and the kernel gives each new
// descriptor the lowest free number. Programs depend on those numbers: OpenMPI's event library sizes an array
// by the highest descriptor it watches, so a number one higher can double a rank's allocation there and move
// its later buffers, whose addresses the NIC models see (pages a DMA crosses, the cycle NIC's TLB).
// Quicksilver at `cycle` took 0.9 % longer with `--trace-csv`, whose file had taken one low number, and a
// descriptor left open by the shell that started bxisim did the same. So what the simulator holds (what it
// inherited, its output pipes, its trace files) lives in the upper half of the limit of open files, and the
// ranks' descriptors are numbered from 3 in every run, whatever the options and the environment, as a
// process's are on a real node.

#include <cstdio>
#include <functional>

namespace bxisim::os
{

/** The lowest number of the simulator's range: the upper half of the limit of open files (RLIMIT_NOFILE, counted
 * up to 65,536), or its last 256 numbers when the limit is under 2048. */
int simulator_descriptor_floor();

/**
 * Moves `descriptor`, just opened by the simulator, into the simulator's range (its close-on-exec flag
 * kept) and returns its new number; when the range is full, it stays where it is.
 */
int move_to_simulator_range(int descriptor);

/**
 * Call it first thing, before the simulator opens any descriptor. Raises the limit of open files to the
 * hard limit (each OpenMPI copy holds three, and the usual 1024 stopped runs at about 250 ranks), then moves
 * every descriptor above stderr the process holds, those the caller of bxisim left open, into the
 * simulator's range.
 */
void prepare_descriptors_for_ranks();

/** Whether `descriptor` is in the simulator's range (moving it there fails when the range is full). */
bool in_simulator_range(int descriptor);

/** std::fopen() whose descriptor is in the simulator's range (when the range has room). */
std::FILE* open_simulator_file(const char* path, const char* mode);

/**
 * Runs `open_files`, which opens descriptors that bxisim cannot move afterwards (a library's FILE, such as
 * SystemC's VCD file), with every free number below the floor taken meanwhile, so that they land above it.
 */
void open_above_ranks(const std::function<void()>& open_files);

} // namespace bxisim::os
