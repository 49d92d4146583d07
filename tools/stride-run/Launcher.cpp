//===- Launcher.cpp - stride-run-gpu --ranks N: one process per GPU -------===//
//
// Part of the Stride project, under the Apache License v2.0 with LLVM
// Exceptions. See LICENSE for license information.
//
//===----------------------------------------------------------------------===//
//
// See Launcher.h. Tested on the CPU with the fake CUDA driver and the fake
// NCCL in test/Tools/stride-run-gpu-ranks.test.
//
//===----------------------------------------------------------------------===//

#include "Launcher.h"
#include "RankFolders.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace stride {

namespace {

/// The options the launcher sets for each rank itself.
bool isRankOption(const std::string &name) {
  return name == "--ranks" || name == "--output-dir" || name == "--expect" ||
         name == "--state-in" || name == "--state-out" || name == "--device";
}

/// `args` without the module path and the options the launcher sets per
/// rank (in both spellings, `--name value` and `--name=value`).
std::vector<std::string> sharedArgs(const std::vector<std::string> &args,
                                    const std::string &modulePath) {
  std::vector<std::string> shared;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    std::string name = arg.substr(0, arg.find('='));
    if (isRankOption(name)) {
      if (name == arg)
        ++i; // its value follows
      continue;
    }
    if (arg == modulePath)
      continue;
    shared.push_back(arg);
  }
  return shared;
}

/// Rank r's command line.
std::vector<std::string> rankArgs(const RunModuleOptions &options,
                                  const std::vector<std::string> &shared,
                                  int rank) {
  std::vector<std::string> args{rankPath(options.modulePath, rank), "--device",
                                std::to_string(rank)};
  // RankFolders.h: where each rank writes and what it reads.
  if (!options.outputDir.empty())
    args.insert(args.end(),
                {"--output-dir", run::rankFolder(options.outputDir, rank)});
  if (!options.stateOut.empty())
    args.insert(args.end(),
                {"--state-out", run::rankFolder(options.stateOut, rank)});
  if (!options.expectDir.empty())
    args.insert(args.end(),
                {"--expect", run::rankFolderOrShared(options.expectDir, rank)});
  if (!options.stateIn.empty())
    args.insert(args.end(),
                {"--state-in", run::rankFolderOrShared(options.stateIn, rank)});
  args.insert(args.end(), shared.begin(), shared.end());
  return args;
}

/// In the child: the environment torchrun gives rank `rank`, stdout and
/// stderr into `logs`/rank<r>.out and .err, then this program again.
[[noreturn]] void execRank(const std::string &self, const std::string &program,
                           const std::vector<std::string> &args, int rank,
                           int ranks, const std::string &folder) {
  setenv("RANK", std::to_string(rank).c_str(), 1);
  setenv("LOCAL_RANK", std::to_string(rank).c_str(), 1);
  setenv("WORLD_SIZE", std::to_string(ranks).c_str(), 1);
  setenv("LOCAL_WORLD_SIZE", std::to_string(ranks).c_str(), 1);
  setenv("STRIDE_NCCL_ID_FILE", (folder + "/nccl-id").c_str(), 1);
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  std::string log = folder + "/rank" + std::to_string(rank);
  int out = open((log + ".out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = open((log + ".err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
    _exit(127);
  std::vector<char *> argv{const_cast<char *>(program.c_str())};
  for (const std::string &a : args)
    argv.push_back(const_cast<char *>(a.c_str()));
  argv.push_back(nullptr);
  execv(self.c_str(), argv.data());
  std::fprintf(stderr, "%s: error: cannot run %s: %s\n", program.c_str(),
               self.c_str(), std::strerror(errno));
  _exit(127);
}

std::string readFile(const std::string &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Each line of `text`, prefixed.
std::string prefixLines(const std::string &text, const std::string &prefix) {
  std::stringstream in(text), out;
  for (std::string line; std::getline(in, line);)
    out << prefix << line << "\n";
  return out.str();
}

/// "exit status 1", "killed by signal 9".
std::string describeExit(int status) {
  if (WIFEXITED(status))
    return "exit status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

/// The rank's first "error:" line without the program's prefix, or its
/// last line of stderr; with neither, a mismatch with --expect.
std::string failureOf(const std::string &err, const std::string &program) {
  std::stringstream in(err);
  std::string last;
  for (std::string line; std::getline(in, line);) {
    std::string prefix = program + ": error: ";
    if (line.rfind(prefix, 0) == 0)
      return line.substr(prefix.size());
    if (!line.empty())
      last = line;
  }
  return last.empty() ? "its outputs differ from --expect's (its lines above)"
                      : last;
}

} // namespace

std::string rankPath(const std::string &pattern, int rank) {
  size_t at = pattern.find("%d");
  if (at == std::string::npos)
    return pattern;
  return pattern.substr(0, at) + std::to_string(rank) + pattern.substr(at + 2);
}

int launchRanks(const RunModuleOptions &options,
                const std::vector<std::string> &args,
                const std::string &program) {
  auto fail = [&](const std::string &message) {
    std::cerr << program << ": error: " << message << "\n";
    return 1;
  };
  if (options.deviceGiven)
    return fail("--ranks runs rank r on GPU r: leave out --device");
  for (int r = 0; r < options.ranks; ++r)
    if (!std::filesystem::exists(rankPath(options.modulePath, r)))
      return fail("rank " + std::to_string(r) + "'s module " +
                  rankPath(options.modulePath, r) + " does not exist");
  const char *tmp = std::getenv("TMPDIR");
  std::string templ =
      std::string(tmp && *tmp ? tmp : "/tmp") + "/stride-ranks-XXXXXX";
  if (!mkdtemp(templ.data()))
    return fail("cannot make a temporary folder " + templ + ": " +
                std::strerror(errno));
  std::string folder = templ;
  std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  std::vector<std::string> shared = sharedArgs(args, options.modulePath);
  std::vector<pid_t> children;
  for (int r = 0; r < options.ranks; ++r) {
    std::vector<std::string> own = rankArgs(options, shared, r);
    pid_t pid = fork();
    if (pid == 0)
      execRank(self, program, own, r, options.ranks, folder);
    if (pid < 0)
      return fail("cannot start rank " + std::to_string(r) + ": " +
                  std::strerror(errno));
    children.push_back(pid);
  }
  std::vector<int> statuses(children.size(), 0);
  for (size_t r = 0; r < children.size(); ++r)
    waitpid(children[r], &statuses[r], 0);
  int failed = 0;
  std::string failures;
  for (size_t r = 0; r < children.size(); ++r) {
    std::string log = folder + "/rank" + std::to_string(r);
    std::string out = readFile(log + ".out"), err = readFile(log + ".err");
    std::cout << "rank " << r << ":\n" << out;
    std::cerr << prefixLines(err, "rank " + std::to_string(r) + ": ");
    if (statuses[r] == 0)
      continue;
    ++failed;
    failures += program + ": error: rank " + std::to_string(r) + " of " +
                std::to_string(options.ranks) + " failed (" +
                describeExit(statuses[r]) + "): " + failureOf(err, program) +
                "\n";
  }
  std::cout.flush();
  std::filesystem::remove_all(folder);
  std::cerr << failures;
  return failed ? 1 : 0;
}

} // namespace stride
