#include "util/graphviz.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "util/file_util.h"

extern char** environ;

namespace ios {
namespace {

// Runs argv[0] (searched on PATH) and returns its exit status, or -1 when it cannot start.
// `quiet` sends the program's output to /dev/null.
int RunProgram(std::vector<std::string> args, bool quiet) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) return -1;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

bool HaveGraphvizDot() { return RunProgram({"dot", "-V"}, /*quiet=*/true) == 0; }

Status RenderDotToSvg(const std::string& dot_text, const std::string& svg_path) {
  if (!HaveGraphvizDot())
    return InvalidInput(svg_path +
                        ": drawing an SVG needs Graphviz's dot (Debian: apt install "
                        "graphviz); write the DOT text with --schedule-dot instead");
  const std::string base = svg_path + ".render." + std::to_string(::getpid());
  const std::string dot_path = base + ".dot";
  const std::string out_path = base + ".svg";
  IOS_RETURN_IF_ERROR(WriteFileAtomically(dot_path, dot_text));
  const int status = RunProgram({"dot", "-Tsvg", "-o", out_path, dot_path}, /*quiet=*/false);
  std::remove(dot_path.c_str());
  if (status != 0) {
    std::remove(out_path.c_str());
    return Internal(svg_path + ": Graphviz's dot failed (exit status " + std::to_string(status) +
                    ") on the schedule's DOT");
  }
  if (std::rename(out_path.c_str(), svg_path.c_str()) != 0) {
    std::remove(out_path.c_str());
    return IoError(svg_path + ": cannot write");
  }
  return Status::Ok();
}

}  // namespace ios
