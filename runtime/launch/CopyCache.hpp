/* Copies of a shared library kept between runs in the user's cache: a job needs one distinct file per
 * rank (the loader shares a file it already loaded), and copying a 6 MB library for every rank of every
 * run cost more than the run itself for short MPI jobs. Each folder names the library it copies (its
 * `source` file); a folder whose library is gone or changed (a build tree removed, a rebuild) is removed
 * by the next run, so the cache holds copies of the libraries that exist (a machine running fresh clones
 * had gathered 157 folders, 4.1 GB). */
#ifndef BXISIM_RUNTIME_LAUNCH_COPY_CACHE_HPP
#define BXISIM_RUNTIME_LAUNCH_COPY_CACHE_HPP

#include <cstdint>
#include <string>

namespace bxisim::runtime
{

class CopyCache
{
 public:
  /** Copies of `library`, at most `limit` of them, in <cache>/library-copies/<name>-<key of the library's path,
   *  size and modification time>; <cache> is $BXISIM_CACHE_DIR, else ${XDG_CACHE_HOME:-$HOME/.cache}/bxisim. */
  CopyCache(const std::string& library, long long limit);

  /** The path of copy `index`, made now if it is missing or incomplete; empty when the cache cannot hold it
   *  (index at the limit or beyond, a folder that cannot be written, no space): the caller copies elsewhere. */
  std::string copy(long long index);

  const std::string& folder() const { return folder_; }
  /** Why the last copy() returned nothing although the cache was meant to hold it; empty otherwise. */
  const std::string& why_not() const { return why_; }

 private:
  /** Removes the folders of libraries that are gone or changed (and those of older bxisims, without `source`). */
  void remove_stale_folders(const std::string& root) const;

  std::string library_;
  long long limit_;
  std::string identity_; // the library's path, size and modification time, one a line (`source`)
  std::uintmax_t size_ = 0;
  std::string folder_; // empty: no cache
  std::string why_;
};

} // namespace bxisim::runtime

#endif
