#pragma once
// Which process owns a run's temporary folder, so that a later run can remove the folders of runs
// that were killed before they could (SIGKILL, the OOM killer, a node's reboot): each holds copies
// of the program and of OpenMPI per rank, megabytes to gigabytes that nothing else would reclaim.

#include <filesystem>
#include <string>

namespace bxisim::runtime
{

/**
 * Writes `<folder>/owner`: this process's identity (boot, pid namespace, pid, start time). Returns the
 * file's path, or "" when there is no /proc to tell it (the folder then stays unowned).
 */
std::string mark_run_folder_owner(const std::string& folder);

/**
 * Removes the `bxisim-run-*` folders under `base` that belong to this user and whose owner is dead:
 * another boot, or this pid namespace without the process that wrote them. Folders without an owner
 * (kept by --keep-temps, being created, or of another pid namespace) are left alone. Returns how many.
 */
int remove_folders_of_dead_runs(const std::filesystem::path& base);

} // namespace bxisim::runtime
