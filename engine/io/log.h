// q8's log, through spdlog. Settings, progress notes and results go to stdout at `info`;
// warnings and errors to stderr in q8's one-line form ("q8: warning: …", "q8: error: …");
// `debug` lines appear with --verbose; --quiet keeps warnings and errors only. A log file, when
// set, gets every line at the chosen level with a timestamp and its level.
#pragma once

#include <string>

namespace q8::log {

enum class Level { Debug, Info, Warn };  // --verbose, the default, --quiet

// The level is Info until set.
void set_level(Level level);
Level level();
// Appends every later line to `file` as well; Error when it cannot be opened.
void add_file(const std::string& file);
// True at Warn: progress bars and notes stay off.
inline bool quiet() { return level() == Level::Warn; }

// printf-style; a message of several lines logs each line (a trailing newline ends the last).
void debug(const char* format, ...) __attribute__((format(printf, 1, 2)));
void info(const char* format, ...) __attribute__((format(printf, 1, 2)));
void warn(const char* format, ...) __attribute__((format(printf, 1, 2)));
void error(const char* format, ...) __attribute__((format(printf, 1, 2)));

// Flushes every sink (before the process exits).
void flush();

}  // namespace q8::log
