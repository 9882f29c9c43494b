#pragma once
// The per-run temporary folder that holds each rank's copies of the program and of privatized
// libraries: removed when the run ends (also after a crash, see CrashReport), kept on request.

#include <string>
#include <vector>

namespace bxisim::runtime
{

class RunFolder
{
 public:
  /** Creates a fresh folder under the system's temporary folder ($TMPDIR, else /tmp). */
  explicit RunFolder(bool keep);
  ~RunFolder();
  RunFolder(const RunFolder&)            = delete;
  RunFolder& operator=(const RunFolder&) = delete;

  const std::string& path() const { return path_; }
  bool kept() const { return keep_; }
  /** Creates (once) and returns the sub-folder of `rank`. */
  std::string rank_folder(int rank) { return sub_folder("rank-" + std::to_string(rank)); }
  /** Creates (once) and returns the sub-folder `name`. */
  std::string sub_folder(const std::string& name);
  /** Copies `original` to `destination` (inside the folder); a failure (a full disk) names the fix. */
  static void copy_file(const std::string& original, const std::string& destination);
  /** Records a file created inside the folder, so that it can be removed without walking the folder. */
  void add_file(const std::string& path) { files_.push_back(path); }

  /** Every file and sub-folder created, deepest first, then the folder itself. */
  std::vector<std::string> files() const { return files_; }
  std::vector<std::string> folders() const;

 private:
  std::string path_;
  bool keep_;
  std::vector<std::string> files_;
  std::vector<std::string> sub_folders_;
};

} // namespace bxisim::runtime
