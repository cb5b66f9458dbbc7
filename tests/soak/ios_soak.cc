// ios_soak: the library under load for minutes, through the public API alone (libios.so), as a
// server embeds it. Not a ctest: scripts/soak.py builds the plan, runs both modes and judges them.
//
//   ios_soak --plan PLAN --mode run [--threads 8] [--seconds 600] [--device D]
//            [--sample-seconds 10] [--warmup-seconds 60] [--inputs 4]
//   ios_soak --plan PLAN --mode open-close [--sessions 50] [--device D] [--warmup-sessions 10]
//
// run: one shared ios::Session; --threads threads call Run until --seconds have passed, each
// cycling through --inputs fixed pseudo-random inputs with its own output buffers. Every output
// is compared bit for bit with what one thread alone got for the same input before the threads
// started. The resident set size is sampled every --sample-seconds; the latency of every call
// (its wait for the session included: the session runs one inference at a time) is kept by the
// minute it ended in.
// open-close: --sessions times, a session is opened, runs input 0 once (compared bit for bit with
// the first session's output) and is closed; the resident set size is sampled after each close.
//
// Prints one JSON object on stdout (the figures, and "ok"); exit status 0 when the run had no
// error, no differing output and a resident set that stayed flat after the warm-up (RssTrend:
// within 2%), 1 otherwise, 2 for bad arguments or a plan that does not open.
#include <ios/ios.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

constexpr double kMaxRssSpread = 0.02;

struct Options {
  std::string plan;
  std::string mode = "run";
  std::string device;
  int threads = 8;
  double seconds = 600;
  double sample_seconds = 10;
  double warmup_seconds = 60;
  int inputs = 4;
  int sessions = 50;
  int warmup_sessions = 10;
};

int Usage(const std::string& why) {
  std::fprintf(stderr,
               "ios_soak: %s\nusage: ios_soak --plan PLAN [--mode run|open-close] [--device D] "
               "[--threads 8] [--seconds 600] [--sample-seconds 10] [--warmup-seconds 60] "
               "[--inputs 4] [--sessions 50] [--warmup-sessions 10]\n",
               why.c_str());
  return 2;
}

// Resident set size of this process, in bytes (Linux's /proc/self/statm).
int64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t total_pages = 0, resident_pages = 0;
  statm >> total_pages >> resident_pages;
  return resident_pages * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
}

std::string Quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", static_cast<unsigned char>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

// The plan's inputs filled from a fixed seed: float inputs uniform in [-1, 1), other types 0.
std::vector<std::vector<uint8_t>> MakeInputs(const std::vector<ios::TensorInfo>& infos,
                                             uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.f, 1.f);
  std::vector<std::vector<uint8_t>> buffers;
  for (const ios::TensorInfo& info : infos) {
    std::vector<uint8_t> bytes(info.bytes, 0);
    if (info.dtype == ios::DataType::kFloat32) {
      for (size_t i = 0; i + sizeof(float) <= bytes.size(); i += sizeof(float)) {
        const float v = uniform(rng);
        std::memcpy(bytes.data() + i, &v, sizeof(float));
      }
    }
    buffers.push_back(std::move(bytes));
  }
  return buffers;
}

using Buffers = std::vector<std::vector<uint8_t>>;

Buffers MakeOutputs(const std::vector<ios::TensorInfo>& infos) {
  Buffers out;
  for (const ios::TensorInfo& info : infos) out.emplace_back(info.bytes, 0);
  return out;
}

ios::Status RunOnce(ios::Session& session, const Buffers& inputs, Buffers* outputs) {
  std::vector<ios::InputBuffer> in;
  for (size_t i = 0; i < inputs.size(); ++i)
    in.push_back({session.inputs()[i].name, inputs[i].data(), inputs[i].size()});
  std::vector<ios::OutputBuffer> out;
  for (size_t i = 0; i < outputs->size(); ++i)
    out.push_back({session.outputs()[i].name, (*outputs)[i].data(), (*outputs)[i].size()});
  return session.Run(in, out);
}

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  const size_t k = static_cast<size_t>(q * static_cast<double>(values.size() - 1) + 0.5);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
  return values[k];
}

// The resident set as the process has it (`raw`), and once malloc_trim has returned glibc's free
// pages to the system (`trimmed`): glibc keeps freed memory for reuse, per thread arena, which
// moves the raw figure by steps of megabytes that no allocation of the library explains. Flatness
// is judged on the trimmed figure; both are reported.
struct RssSample {
  double t = 0;  // seconds since the start (run) or the session's number (open-close)
  int64_t raw = 0;
  int64_t trimmed = 0;
};

RssSample SampleRss(double t) {
  RssSample sample;
  sample.t = t;
  sample.raw = ResidentBytes();
  malloc_trim(0);
  sample.trimmed = ResidentBytes();
  return sample;
}

// The resident set after the warm-up (the samples from `first` on). It is flat when its largest
// sample is within kMaxRssSpread of its smallest; `growth` (the median of the last third over
// the first third's) shows a trend.
struct RssTrend {
  size_t samples = 0;
  int64_t min = 0, max = 0;
  int64_t first_third = 0, last_third = 0;  // medians
  double growth = 0;                        // last_third / first_third - 1
  double spread = 0;                        // max / min - 1
  bool flat = false;
};

int64_t Median(std::vector<int64_t> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2),
                   values.end());
  return values[values.size() / 2];
}

RssTrend Trend(const std::vector<RssSample>& samples, size_t first, bool trimmed) {
  RssTrend trend;
  if (first >= samples.size()) return trend;
  std::vector<int64_t> after;
  for (size_t i = first; i < samples.size(); ++i)
    after.push_back(trimmed ? samples[i].trimmed : samples[i].raw);
  trend.samples = after.size();
  trend.min = *std::min_element(after.begin(), after.end());
  trend.max = *std::max_element(after.begin(), after.end());
  const std::ptrdiff_t third = std::max<std::ptrdiff_t>(1, after.size() / 3);
  trend.first_third = Median(std::vector<int64_t>(after.begin(), after.begin() + third));
  trend.last_third = Median(std::vector<int64_t>(after.end() - third, after.end()));
  trend.growth = static_cast<double>(trend.last_third) / static_cast<double>(trend.first_third) - 1;
  trend.spread = static_cast<double>(trend.max) / static_cast<double>(trend.min) - 1;
  trend.flat = trend.spread <= kMaxRssSpread;
  return trend;
}

double Megabytes(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

std::string TrendJson(const RssTrend& trend) {
  return "{\"samples\": " + std::to_string(trend.samples) +
         ", \"min_mb\": " + Number(Megabytes(trend.min)) +
         ", \"max_mb\": " + Number(Megabytes(trend.max)) +
         ", \"first_third_median_mb\": " + Number(Megabytes(trend.first_third)) +
         ", \"last_third_median_mb\": " + Number(Megabytes(trend.last_third)) +
         ", \"growth\": " + Number(trend.growth) + ", \"spread\": " + Number(trend.spread) +
         ", \"limit\": " + Number(kMaxRssSpread) +
         ", \"flat\": " + (trend.flat ? "true" : "false") + "}";
}

// The samples, then the trend after the warm-up of the trimmed figure (judged) and of the raw one.
std::string RssJson(const std::vector<RssSample>& samples, size_t first, const char* t_name) {
  std::string json = "\"rss\": [";
  for (size_t i = 0; i < samples.size(); ++i) {
    json += std::string(i ? ", " : "") + "{\"" + t_name + "\": " + Number(samples[i].t) +
            ", \"mb\": " + Number(Megabytes(samples[i].raw)) +
            ", \"trimmed_mb\": " + Number(Megabytes(samples[i].trimmed)) + "}";
  }
  return json + "], \"rss_after_warmup\": " + TrendJson(Trend(samples, first, true)) +
         ", \"raw_rss_after_warmup\": " + TrendJson(Trend(samples, first, false));
}

ios::StatusOr<std::unique_ptr<ios::Session>> Open(const Options& options) {
  ios::SessionOptions session_options;
  session_options.device = options.device;
  session_options.force = true;  // a plan made for another machine of the same kind runs too
  return ios::Session::Open(options.plan, session_options);
}

// One shared session, many threads calling Run.
int SoakRun(const Options& options) {
  auto opened = Open(options);
  if (!opened.ok()) return Usage(opened.status().message());
  ios::Session& session = **opened;
  std::vector<Buffers> inputs;
  std::vector<Buffers> expected;  // what one thread alone gets for each input
  for (int k = 0; k < options.inputs; ++k) {
    inputs.push_back(MakeInputs(session.inputs(), 1000 + static_cast<uint32_t>(k)));
    expected.push_back(MakeOutputs(session.outputs()));
    ios::Status status = RunOnce(session, inputs.back(), &expected.back());
    if (!status.ok()) return Usage("the single-thread run failed: " + status.message());
  }

  const Clock::time_point start = Clock::now();
  const Clock::time_point end = start + std::chrono::duration_cast<Clock::duration>(
                                            std::chrono::duration<double>(options.seconds));
  const int minutes = static_cast<int>((options.seconds + 59) / 60);
  std::mutex mutex;  // guards the figures below
  std::vector<std::vector<double>> latency_ms(static_cast<size_t>(std::max(minutes, 1)));
  int64_t runs = 0, errors = 0, mismatches = 0;
  std::string first_error;
  std::vector<std::thread> workers;
  for (int t = 0; t < options.threads; ++t) {
    workers.emplace_back([&, t] {
      Buffers outputs = MakeOutputs(session.outputs());
      std::vector<std::pair<size_t, double>> mine;  // (minute, ms)
      int64_t my_errors = 0, my_mismatches = 0;
      std::string my_error;
      for (int64_t i = 0; Clock::now() < end; ++i) {
        const size_t k = static_cast<size_t>((t + i) % options.inputs);
        const Clock::time_point before = Clock::now();
        ios::Status status = RunOnce(session, inputs[k], &outputs);
        const Clock::time_point after = Clock::now();
        const double ms = std::chrono::duration<double, std::milli>(after - before).count();
        const double since = std::chrono::duration<double>(after - start).count();
        mine.emplace_back(std::min(static_cast<size_t>(since / 60), latency_ms.size() - 1), ms);
        if (!status.ok()) {
          ++my_errors;
          if (my_error.empty()) my_error = status.message();
          continue;
        }
        if (outputs != expected[k]) ++my_mismatches;
      }
      std::lock_guard<std::mutex> lock(mutex);
      for (const auto& [minute, ms] : mine) latency_ms[minute].push_back(ms);
      runs += static_cast<int64_t>(mine.size());
      errors += my_errors;
      mismatches += my_mismatches;
      if (first_error.empty()) first_error = my_error;
    });
  }
  // The resident set every sample_seconds, from the start to the end.
  std::vector<RssSample> rss = {SampleRss(0)};
  for (int i = 1;; ++i) {
    const Clock::time_point at =
        start + std::chrono::duration_cast<Clock::duration>(
                    std::chrono::duration<double>(i * options.sample_seconds));
    if (at > end) break;
    std::this_thread::sleep_until(at);
    rss.push_back(SampleRss(i * options.sample_seconds));
  }
  for (std::thread& worker : workers) worker.join();
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();

  size_t first = 0;  // the first sample after the warm-up
  while (first < rss.size() && rss[first].t < options.warmup_seconds) ++first;
  const bool ok = errors == 0 && mismatches == 0 && runs > 0 && Trend(rss, first, true).flat;
  std::string json =
      "{\"mode\": \"run\", \"plan\": " + Quoted(options.plan) +
      ", \"device\": " + Quoted(session.device()) +
      ", \"threads\": " + std::to_string(options.threads) +
      ", \"inputs\": " + std::to_string(options.inputs) + ", \"seconds\": " + Number(elapsed) +
      ", \"warmup_seconds\": " + Number(options.warmup_seconds) +
      ", \"runs\": " + std::to_string(runs) + ", \"errors\": " + std::to_string(errors) +
      ", \"first_error\": " + Quoted(first_error) +
      ", \"mismatches\": " + std::to_string(mismatches) + ", " + RssJson(rss, first, "seconds") +
      ", \"minutes\": [";
  for (size_t m = 0; m < latency_ms.size(); ++m) {
    json += std::string(m ? ", " : "") + "{\"minute\": " + std::to_string(m + 1) +
            ", \"runs\": " + std::to_string(latency_ms[m].size()) +
            ", \"p50_ms\": " + Number(Percentile(latency_ms[m], 0.5)) +
            ", \"p99_ms\": " + Number(Percentile(latency_ms[m], 0.99)) + "}";
  }
  json += std::string("], \"ok\": ") + (ok ? "true" : "false") + "}";
  std::printf("%s\n", json.c_str());
  return ok ? 0 : 1;
}

// Sessions opened, run once and closed in a loop.
int SoakOpenClose(const Options& options) {
  Buffers inputs, expected;
  std::vector<RssSample> rss;
  int64_t errors = 0, mismatches = 0;
  std::string first_error, device;
  const Clock::time_point start = Clock::now();
  for (int s = 0; s < options.sessions; ++s) {
    {
      auto opened = Open(options);
      if (!opened.ok()) {
        if (s == 0) return Usage(opened.status().message());
        ++errors;
        if (first_error.empty()) first_error = opened.status().message();
        continue;
      }
      ios::Session& session = **opened;
      if (s == 0) {
        device = session.device();
        inputs = MakeInputs(session.inputs(), 1000);
      }
      Buffers outputs = MakeOutputs(session.outputs());
      ios::Status status = RunOnce(session, inputs, &outputs);
      if (!status.ok()) {
        ++errors;
        if (first_error.empty()) first_error = status.message();
      } else if (s == 0) {
        expected = std::move(outputs);
      } else if (outputs != expected) {
        ++mismatches;
      }
    }  // the session closes here
    rss.push_back(SampleRss(s + 1));
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  const size_t first = static_cast<size_t>(std::max(options.warmup_sessions, 0));
  const bool ok =
      errors == 0 && mismatches == 0 && !expected.empty() && Trend(rss, first, true).flat;
  std::string json =
      "{\"mode\": \"open-close\", \"plan\": " + Quoted(options.plan) +
      ", \"device\": " + Quoted(device) + ", \"sessions\": " + std::to_string(options.sessions) +
      ", \"warmup_sessions\": " + std::to_string(options.warmup_sessions) +
      ", \"seconds\": " + Number(elapsed) + ", \"errors\": " + std::to_string(errors) +
      ", \"first_error\": " + Quoted(first_error) +
      ", \"mismatches\": " + std::to_string(mismatches) + ", " + RssJson(rss, first, "session") +
      ", \"ok\": " + (ok ? "true" : "false") + "}";
  std::printf("%s\n", json.c_str());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (i + 1 >= argc) return Usage(flag + " needs a value");
    const std::string value = argv[++i];
    char* rest = nullptr;
    const double number = std::strtod(value.c_str(), &rest);
    const bool numeric = rest != value.c_str() && *rest == '\0' && number >= 0;
    if (flag == "--plan") {
      options.plan = value;
    } else if (flag == "--mode") {
      options.mode = value;
    } else if (flag == "--device") {
      options.device = value;
    } else if (!numeric) {
      return Usage(flag + " takes a non-negative number, not '" + value + "'");
    } else if (flag == "--threads") {
      options.threads = static_cast<int>(number);
    } else if (flag == "--seconds") {
      options.seconds = number;
    } else if (flag == "--sample-seconds") {
      options.sample_seconds = number;
    } else if (flag == "--warmup-seconds") {
      options.warmup_seconds = number;
    } else if (flag == "--inputs") {
      options.inputs = static_cast<int>(number);
    } else if (flag == "--sessions") {
      options.sessions = static_cast<int>(number);
    } else if (flag == "--warmup-sessions") {
      options.warmup_sessions = static_cast<int>(number);
    } else {
      return Usage("unknown option " + flag);
    }
  }
  if (options.plan.empty()) return Usage("--plan is required");
  if (options.threads < 1 || options.inputs < 1 || options.sessions < 1 ||
      options.sample_seconds <= 0)
    return Usage("--threads, --inputs, --sessions and --sample-seconds must be positive");
  if (options.mode == "run") return SoakRun(options);
  if (options.mode == "open-close") return SoakOpenClose(options);
  return Usage("--mode is run or open-close, not '" + options.mode + "'");
}
