// A fuzz target without libFuzzer's feedback, for the deterministic fuzzing step of
// scripts/sanitize.sh (scripts/fuzz.sh --runs): each target also builds as <target>_mutants,
// this main around the same LLVMFuzzerTestOneInput and custom mutator.
//
//   <target>_mutants --seed S --runs N [--timeout 20] [--findings DIR] INPUT...
//
// It runs every input given (files, or folders of them, sorted by path), then N mutants: mutant
// i is input (r mod inputs) changed by one to three calls of the target's custom mutator (or, for
// a target without one, of the byte mutator below), every random number drawn from a generator
// seeded with S and i. Which inputs run therefore depends on the seed, the count and the
// committed inputs alone, never on coverage, timing or addresses, as libFuzzer's choices do: one
// commit always runs the same inputs and gives the same result. A sanitizer report, a crash or an
// input running past --timeout seconds writes the input to DIR/crash-<index> (or
// timeout-<index>) and ends the run with a non-zero status; a clean run prints
// "executions: <committed inputs + N>" and exits 0.
#include <sanitizer/common_interface_defs.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);
extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size,
                                          unsigned int seed) __attribute__((weak));

namespace {

// The generator of the mutation being made: the byte mutator below draws from it too.
std::mt19937_64 mutation_rng;

// What a crash, a sanitizer report or a timeout saves: the input being run.
std::vector<uint8_t> current_input;
std::string findings_dir;
int64_t current_index = -1;

void SaveCurrent(const char* kind) {
  if (findings_dir.empty() || current_index < 0) return;
  const std::string path = findings_dir + "/" + kind + "-" + std::to_string(current_index);
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr) return;
  if (!current_input.empty()) std::fwrite(current_input.data(), 1, current_input.size(), file);
  std::fclose(file);
  std::fprintf(stderr, "mutants: input %lld written to %s\n", static_cast<long long>(current_index),
               path.c_str());
}

void OnSanitizerDeath() { SaveCurrent("crash"); }

void OnAbort(int signal_number) {
  SaveCurrent("crash");
  signal(signal_number, SIG_DFL);
  raise(signal_number);
}

void OnTimeout(int) {
  std::fprintf(stderr, "mutants: input %lld ran past the timeout\n",
               static_cast<long long>(current_index));
  SaveCurrent("timeout");
  _exit(70);
}

constexpr int64_t kInteresting[] = {0,
                                    1,
                                    -1,
                                    2,
                                    0x7f,
                                    0xff,
                                    0x7fffffff,
                                    INT64_MAX,
                                    INT64_MIN,
                                    int64_t{1} << 62,
                                    -(int64_t{1} << 62),
                                    int64_t{1} << 31};

}  // namespace

// libFuzzer's byte mutator, which the custom mutators fall back to: one random edit (flip a
// bit, set a byte, write an interesting integer, insert, erase or copy bytes) drawn from the
// current mutation's generator.
extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size) {
  std::mt19937_64& rng = mutation_rng;
  if (size == 0) {
    if (max_size == 0) return 0;
    data[0] = static_cast<uint8_t>(rng());
    return 1;
  }
  switch (rng() % 6) {
    case 0:
      data[rng() % size] ^= static_cast<uint8_t>(1u << (rng() % 8));
      return size;
    case 1:
      data[rng() % size] = static_cast<uint8_t>(rng());
      return size;
    case 2: {
      const int64_t value = kInteresting[rng() % std::size(kInteresting)];
      const size_t width = std::min<size_t>(size, size_t{1} << (rng() % 4));  // 1, 2, 4, 8
      std::memcpy(data + rng() % (size - width + 1), &value, width);
      return size;
    }
    case 3: {
      if (size >= max_size) return size;
      const size_t at = rng() % (size + 1);
      std::memmove(data + at + 1, data + at, size - at);
      data[at] = static_cast<uint8_t>(rng());
      return size + 1;
    }
    case 4: {
      if (size == 1) return size;
      const size_t at = rng() % size;
      std::memmove(data + at, data + at + 1, size - at - 1);
      return size - 1;
    }
    default: {
      const size_t from = rng() % size, to = rng() % size;
      const size_t count = std::min<size_t>(1 + rng() % 16, size - std::max(from, to));
      std::memmove(data + to, data + from, count);
      return size;
    }
  }
}

int main(int argc, char** argv) {
  uint64_t seed = 1;
  int64_t runs = 0;
  unsigned timeout = 20;
  std::vector<std::string> paths;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--seed" || arg == "--runs" || arg == "--timeout" || arg == "--findings") &&
        i + 1 < argc) {
      const std::string value = argv[++i];
      if (arg == "--findings") {
        findings_dir = value;
      } else {
        char* end = nullptr;
        const unsigned long long number = std::strtoull(value.c_str(), &end, 10);
        if (value.empty() || *end != '\0') {
          std::fprintf(stderr, "mutants: %s takes a number, not '%s'\n", arg.c_str(),
                       value.c_str());
          return 2;
        }
        if (arg == "--seed") seed = number;
        if (arg == "--runs") runs = static_cast<int64_t>(number);
        if (arg == "--timeout") timeout = static_cast<unsigned>(number);
      }
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "usage: %s --seed S --runs N [--timeout 20] [--findings DIR] INPUT...\n",
                   argv[0]);
      return 2;
    } else {
      paths.push_back(arg);
    }
  }
  // The committed inputs, in path order whatever the file system lists first.
  std::vector<std::string> files;
  for (const std::string& path : paths) {
    if (std::filesystem::is_directory(path)) {
      for (const auto& entry : std::filesystem::recursive_directory_iterator(path))
        if (entry.is_regular_file()) files.push_back(entry.path().string());
    } else {
      files.push_back(path);
    }
  }
  std::sort(files.begin(), files.end());
  std::vector<std::vector<uint8_t>> inputs;
  size_t largest = 0;
  for (const std::string& file : files) {
    std::ifstream in(file, std::ios::binary);
    inputs.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    largest = std::max(largest, inputs.back().size());
  }
  if (inputs.empty()) {
    std::fprintf(stderr, "mutants: no inputs to start from\n");
    return 2;
  }
  if (!findings_dir.empty()) std::filesystem::create_directories(findings_dir);
  __sanitizer_set_death_callback(OnSanitizerDeath);
  signal(SIGALRM, OnTimeout);
  signal(SIGABRT, OnAbort);
  if (LLVMFuzzerInitialize != nullptr) LLVMFuzzerInitialize(&argc, &argv);

  auto run = [&](int64_t index) {
    current_index = index;
    alarm(timeout);
    LLVMFuzzerTestOneInput(current_input.data(), current_input.size());
    alarm(0);
  };
  int64_t executions = 0;
  for (const std::vector<uint8_t>& input : inputs) {
    current_input = input;
    run(executions++);
  }
  // The size a mutant may grow to, as libFuzzer's -max_len defaults to: the largest input's.
  const size_t max_size = std::max<size_t>(largest, 4096);
  std::vector<uint8_t> buffer;
  for (int64_t i = 0; i < runs; ++i) {
    std::mt19937_64 pick(seed * 0x9e3779b97f4a7c15ull + static_cast<uint64_t>(i));
    const std::vector<uint8_t>& base = inputs[pick() % inputs.size()];
    buffer.assign(max_size, 0);
    std::copy(base.begin(), base.end(), buffer.begin());
    size_t size = base.size();
    for (int edit = 0, edits = 1 + static_cast<int>(pick() % 3); edit < edits; ++edit) {
      const uint64_t mutation_seed = pick();
      mutation_rng.seed(mutation_seed);
      size = LLVMFuzzerCustomMutator != nullptr
                 ? LLVMFuzzerCustomMutator(buffer.data(), size, max_size,
                                           static_cast<unsigned>(mutation_seed))
                 : LLVMFuzzerMutate(buffer.data(), size, max_size);
    }
    current_input.assign(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(size));
    run(executions++);
  }
  std::printf("executions: %lld (%zu committed inputs, %lld mutants, seed %llu)\n",
              static_cast<long long>(executions), inputs.size(), static_cast<long long>(runs),
              static_cast<unsigned long long>(seed));
  return 0;
}
