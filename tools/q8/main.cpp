// q8: post-training INT8 quantization of ONNX models.
// Exit codes: 0 success, 2 a bad command line (CLI11's checks and q8's ArgumentError), 1 any other
// error; every error is one line, "q8: error: …".
#include <exception>

#include "engine/io/log.h"
#include "engine/ir/error.h"
#include "tools/q8/commands.h"
#include "tools/q8/validators.h"
#include "tools/q8/version.h"

namespace {

// --verbose, --quiet and --log-file, taken before or after the command (fallthrough); they apply
// before the command runs (option callbacks run before a command's own).
void add_logging_options(CLI::App& app) {
  auto* verbose = app.add_flag_callback("--verbose", [] { q8::log::set_level(q8::log::Level::Debug); },
                                        "more detail: every node's lowering and placement, per-batch notes");
  auto* quiet = app.add_flag_callback("--quiet", [] { q8::log::set_level(q8::log::Level::Warn); },
                                      "warnings and errors only: no settings, progress or results");
  verbose->excludes(quiet);
  app.add_option_function<std::string>("--log-file", [](const std::string& file) { q8::log::add_file(file); },
                                       "also append every log line, with a timestamp, to this file");
  app.add_flag_callback("--version", [] {
    q8::cli::print_version();
    throw CLI::Success();
  }, "print q8's version, its libraries' versions and the OpenCL devices found");
}

int fail(int code, const std::string& message) {
  q8::log::error("%s", message.c_str());
  q8::log::flush();
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"q8 " Q8_VERSION " — post-training INT8 quantization of ONNX models", "q8"};
  app.require_subcommand(1);
  app.fallthrough();
  add_logging_options(app);
  q8::cli::add_inspect_command(app);
  q8::cli::add_run_command(app);
  q8::cli::add_calibrate_command(app);
  q8::cli::add_quantize_command(app);
  q8::cli::add_compare_command(app);
  q8::cli::add_build_command(app);
  q8::cli::add_bench_command(app);
  q8::cli::add_report_command(app);
  q8::cli::add_tune_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --help-all, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error; --help says the rest.
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    return fail(2, what + " (q8 --help, or q8 COMMAND --help)");
  } catch (const q8::ArgumentError& e) {
    return fail(2, e.what());
  } catch (const std::exception& e) {
    return fail(1, e.what());
  }
  q8::log::flush();
  return 0;
}
