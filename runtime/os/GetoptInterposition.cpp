// getopt, getopt_long and getopt_long_only with a scan state per rank.
//
// libc keeps getopt's scan in a hidden static (the rest of a cluster like -abc, the permutation of
// non-options), so ranks calling libc's getopt would continue one another's scans. These functions
// follow GNU getopt's documented behaviour (permutation unless the option string starts with '+' or
// POSIXLY_CORRECT is set, '-' to return non-options in order, a leading ':' for silent errors,
// optional arguments with '::', unique prefixes of long options), and keep the scan in the rank's
// ProcessState. optind, optarg, opterr and optopt stay libc's variables, which programs read and
// write directly: they are saved and restored per rank around every rank switch (SimulatorCall).
// Outside a rank the functions scan with a state of their own.

#include "ProcessState.hpp"
#include "SimulatorCall.hpp"
#include "runtime/launch/Rank.hpp"

#include <getopt.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace
{
using bxisim::os::GetoptScan;

enum class Ordering { Permute, RequireOrder, ReturnInOrder };

GetoptScan& scan_of_caller()
{
  static GetoptScan outside_ranks;
  bxisim::runtime::Rank* rank = bxisim::os::running_rank();
  return rank != nullptr ? rank->process_state().getopt_scan : outside_ranks;
}

bool is_non_option(const char* argument)
{
  return argument[0] != '-' || argument[1] == '\0';
}

class Scanner
{
 public:
  Scanner(int argc, char* const* argv, const char* optstring, const option* longopts, int* longind, bool long_only,
          bool posix)
      : argc_(argc), argv_(const_cast<char**>(argv)), longopts_(longopts), longind_(longind), long_only_(long_only),
        scan_(scan_of_caller())
  {
    ordering_ = Ordering::Permute;
    if (optstring[0] == '-') {
      ordering_ = Ordering::ReturnInOrder;
      ++optstring;
    } else if (optstring[0] == '+') {
      ordering_ = Ordering::RequireOrder;
      ++optstring;
    } else if (posix || std::getenv("POSIXLY_CORRECT") != nullptr) {
      ordering_ = Ordering::RequireOrder;
    }
    optstring_    = optstring;
    print_errors_ = opterr != 0 && optstring_[0] != ':';
  }

  int next()
  {
    if (argc_ < 1)
      return -1;
    optarg = nullptr;
    if (optind == 0 || not scan_.initialized) {
      if (optind == 0)
        optind = 1;
      scan_.first_nonopt = scan_.last_nonopt = optind;
      scan_.nextchar                         = nullptr;
      scan_.initialized                      = true;
    }
    if (scan_.nextchar == nullptr || *scan_.nextchar == '\0') {
      int found = next_argument();
      if (found != kShortOption)
        return found;
    }
    return short_option();
  }

 private:
  static constexpr int kShortOption = -2; // next_argument() found a cluster of short options

  /** Moves the non-options skipped so far after the options seen since (GNU's permutation). */
  void move_non_options_after_options()
  {
    std::rotate(argv_ + scan_.first_nonopt, argv_ + scan_.last_nonopt, argv_ + optind);
    scan_.first_nonopt += optind - scan_.last_nonopt;
    scan_.last_nonopt = optind;
  }

  int next_argument()
  {
    scan_.last_nonopt  = std::min(scan_.last_nonopt, optind);
    scan_.first_nonopt = std::min(scan_.first_nonopt, optind);
    if (ordering_ == Ordering::Permute) {
      if (scan_.first_nonopt != scan_.last_nonopt && scan_.last_nonopt != optind)
        move_non_options_after_options();
      else if (scan_.last_nonopt != optind)
        scan_.first_nonopt = optind;
      while (optind < argc_ && is_non_option(argv_[optind]))
        ++optind;
      scan_.last_nonopt = optind;
    }
    if (optind != argc_ && std::strcmp(argv_[optind], "--") == 0) {
      ++optind;
      if (scan_.first_nonopt != scan_.last_nonopt && scan_.last_nonopt != optind)
        move_non_options_after_options();
      else if (scan_.first_nonopt == scan_.last_nonopt)
        scan_.first_nonopt = optind;
      scan_.last_nonopt = argc_;
      optind            = argc_;
    }
    if (optind == argc_) {
      if (scan_.first_nonopt != scan_.last_nonopt)
        optind = scan_.first_nonopt; // point at the non-options, now last
      return -1;
    }
    if (is_non_option(argv_[optind])) {
      if (ordering_ == Ordering::RequireOrder)
        return -1;
      optarg = argv_[optind++];
      return 1;
    }
    const char* argument = argv_[optind];
    if (longopts_ != nullptr) {
      if (argument[1] == '-') {
        scan_.nextchar = argument + 2;
        return long_option("--");
      }
      if (long_only_ && (argument[2] != '\0' || std::strchr(optstring_, argument[1]) == nullptr)) {
        scan_.nextchar = argument + 1;
        int found      = long_option("-");
        if (found != -1)
          return found;
      }
    }
    scan_.nextchar = argument + 1;
    return kShortOption;
  }

  /** `scan_.nextchar` is a long option's name (and =value); -1: not one, in long-only mode (try short). */
  int long_option(const char* prefix)
  {
    const char* name  = scan_.nextchar;
    size_t name_end   = std::strcspn(name, "=");
    const option* hit = nullptr;
    int hit_index     = -1;
    bool ambiguous    = false;
    for (int i = 0; longopts_[i].name != nullptr; ++i) {
      const option& candidate = longopts_[i];
      if (std::strncmp(candidate.name, name, name_end) != 0)
        continue;
      if (std::strlen(candidate.name) == name_end) { // exact
        hit       = &candidate;
        hit_index = i;
        ambiguous = false;
        break;
      }
      if (hit == nullptr) {
        hit       = &candidate;
        hit_index = i;
      } else if (hit->has_arg != candidate.has_arg || hit->flag != candidate.flag || hit->val != candidate.val) {
        ambiguous = true;
      }
    }
    if (ambiguous) {
      if (print_errors_) {
        std::string message = std::string(argv_[0]) + ": option '" + prefix + std::string(name, name_end) +
                              "' is ambiguous; possibilities:";
        for (int i = 0; longopts_[i].name != nullptr; ++i)
          if (std::strncmp(longopts_[i].name, name, name_end) == 0)
            message += std::string(" '") + prefix + longopts_[i].name + "'";
        std::fprintf(stderr, "%s\n", message.c_str());
      }
      scan_.nextchar = nullptr;
      ++optind;
      optopt = 0;
      return '?';
    }
    if (hit == nullptr) {
      if (long_only_ && argv_[optind][1] != '-' && std::strchr(optstring_, *name) != nullptr)
        return -1;
      if (print_errors_)
        std::fprintf(stderr, "%s: unrecognized option '%s%s'\n", argv_[0], prefix, name);
      scan_.nextchar = nullptr;
      ++optind;
      optopt = 0;
      return '?';
    }
    scan_.nextchar = nullptr;
    ++optind;
    if (name[name_end] == '=') {
      if (hit->has_arg == no_argument) {
        if (print_errors_)
          std::fprintf(stderr, "%s: option '%s%s' doesn't allow an argument\n", argv_[0], prefix, hit->name);
        optopt = hit->val;
        return '?';
      }
      optarg = const_cast<char*>(name + name_end + 1);
    } else if (hit->has_arg == required_argument) {
      if (optind >= argc_) {
        if (print_errors_)
          std::fprintf(stderr, "%s: option '%s%s' requires an argument\n", argv_[0], prefix, hit->name);
        optopt = hit->val;
        return optstring_[0] == ':' ? ':' : '?';
      }
      optarg = argv_[optind++];
    }
    if (longind_ != nullptr)
      *longind_ = hit_index;
    if (hit->flag != nullptr) {
      *hit->flag = hit->val;
      return 0;
    }
    return hit->val;
  }

  int short_option()
  {
    char c                 = *scan_.nextchar++;
    const char* definition = std::strchr(optstring_, c);
    if (*scan_.nextchar == '\0')
      ++optind;
    if (definition == nullptr || c == ':' || c == ';') {
      if (print_errors_)
        std::fprintf(stderr, "%s: invalid option -- '%c'\n", argv_[0], c);
      optopt = c;
      return '?';
    }
    if (definition[1] != ':')
      return c;
    if (definition[2] == ':') { // optional argument: only attached
      if (*scan_.nextchar != '\0') {
        optarg = const_cast<char*>(scan_.nextchar);
        ++optind;
      }
    } else if (*scan_.nextchar != '\0') {
      optarg = const_cast<char*>(scan_.nextchar);
      ++optind;
    } else if (optind == argc_) {
      if (print_errors_)
        std::fprintf(stderr, "%s: option requires an argument -- '%c'\n", argv_[0], c);
      optopt = c;
      c      = optstring_[0] == ':' ? ':' : '?';
    } else {
      optarg = argv_[optind++];
    }
    scan_.nextchar = nullptr;
    return c;
  }

  int argc_;
  char** argv_;
  const char* optstring_;
  const option* longopts_;
  int* longind_;
  bool long_only_;
  GetoptScan& scan_;
  Ordering ordering_;
  bool print_errors_;
};
} // namespace

extern "C" {

int getopt(int argc, char* const* argv, const char* optstring) noexcept
{
  return Scanner(argc, argv, optstring, nullptr, nullptr, false, false).next();
}

int __posix_getopt(int argc, char* const* argv, const char* optstring) noexcept
{
  return Scanner(argc, argv, optstring, nullptr, nullptr, false, true).next();
}

int getopt_long(int argc, char* const* argv, const char* optstring, const option* longopts, int* longind) noexcept
{
  return Scanner(argc, argv, optstring, longopts, longind, false, false).next();
}

int getopt_long_only(int argc, char* const* argv, const char* optstring, const option* longopts, int* longind) noexcept
{
  return Scanner(argc, argv, optstring, longopts, longind, true, false).next();
}

} // extern "C"
