#include "engine/io/log.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/spdlog.h>

#include <cstdarg>
#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/ir/error.h"

namespace q8::log {

namespace {

// info and debug as written on stdout; warnings and errors on stderr after "q8: warning: " or
// "q8: error: ". stdout is flushed before a stderr line so the two stay in order on a terminal.
class ConsoleSink : public spdlog::sinks::base_sink<std::mutex> {
 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    const std::string text(msg.payload.data(), msg.payload.size());
    if (msg.level >= spdlog::level::warn) {
      std::fflush(stdout);
      std::fprintf(stderr, "q8: %s: %s\n", msg.level == spdlog::level::warn ? "warning" : "error", text.c_str());
    } else {
      std::fprintf(stdout, "%s\n", text.c_str());
    }
  }
  void flush_() override {
    std::fflush(stdout);
    std::fflush(stderr);
  }
};

struct State {
  Level level = Level::Info;
  std::shared_ptr<spdlog::logger> logger;
  State() {
    logger = std::make_shared<spdlog::logger>("q8", std::make_shared<ConsoleSink>());
    logger->set_level(spdlog::level::info);
    logger->flush_on(spdlog::level::warn);
  }
};

State& state() {
  static State s;
  return s;
}

spdlog::level::level_enum spd(Level l) {
  return l == Level::Debug ? spdlog::level::debug : l == Level::Info ? spdlog::level::info : spdlog::level::warn;
}

// A warning or an error is one line a reader takes in at a glance: line breaks become "; ", and
// a word longer than kLongWord (a 255-character file name, echoed once or several times) keeps
// its two ends around "…".
constexpr size_t kLongWord = 72, kWordEnd = 32;

// The nearest UTF-8 character boundary at or before i.
size_t boundary(const std::string& s, size_t i) {
  while (i > 0 && i < s.size() && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

std::string one_readable_line(const std::string& text) {
  std::string line;
  for (size_t begin = 0; begin < text.size();) {
    const size_t end = std::min(text.find_first_of(" \n", begin), text.size());
    std::string word = text.substr(begin, end - begin);
    if (word.size() > kLongWord)
      word = word.substr(0, boundary(word, kWordEnd)) + "…" + word.substr(boundary(word, word.size() - kWordEnd));
    line += word;
    if (end < text.size()) line += text[end] == '\n' ? "; " : " ";
    begin = end + 1;
  }
  return line;
}

void emit(spdlog::level::level_enum level, const char* format, va_list args) {
  auto& logger = *state().logger;
  if (!logger.should_log(level)) return;
  va_list copy;
  va_copy(copy, args);
  const int n = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::vector<char> buf(size_t(n > 0 ? n : 0) + 1);
  std::vsnprintf(buf.data(), buf.size(), format, args);
  std::string text(buf.data());
  if (!text.empty() && text.back() == '\n') text.pop_back();
  if (level >= spdlog::level::warn) text = one_readable_line(text);
  for (size_t begin = 0;;) {
    const size_t end = text.find('\n', begin);
    logger.log(level, "{}", text.substr(begin, end == std::string::npos ? std::string::npos : end - begin));
    if (end == std::string::npos) break;
    begin = end + 1;
  }
}

}  // namespace

void set_level(Level level) {
  state().level = level;
  state().logger->set_level(spd(level));
}

void add_file(const std::string& file) {
  try {
    auto sink = std::make_shared<spdlog::sinks::basic_file_sink_mt>(file, false);
    sink->set_pattern("%Y-%m-%dT%H:%M:%S.%e [%l] %v");
    state().logger->sinks().push_back(sink);
  } catch (const spdlog::spdlog_ex& e) {
    throw Error("--log-file " + file + ": cannot be opened (" + e.what() + ")");
  }
}

Level level() { return state().level; }

#define Q8_LOG_FUNCTION(name, spd_level)   \
  void name(const char* format, ...) {     \
    va_list args;                          \
    va_start(args, format);                \
    emit(spd_level, format, args);         \
    va_end(args);                          \
  }
Q8_LOG_FUNCTION(debug, spdlog::level::debug)
Q8_LOG_FUNCTION(info, spdlog::level::info)
Q8_LOG_FUNCTION(warn, spdlog::level::warn)
Q8_LOG_FUNCTION(error, spdlog::level::err)
#undef Q8_LOG_FUNCTION

void flush() { state().logger->flush(); }

}  // namespace q8::log
