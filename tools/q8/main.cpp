// q8: post-training INT8 quantization of ONNX models.
#include <cstdio>
#include <exception>

#include "engine/ir/error.h"
#include "tools/q8/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"q8 " Q8_VERSION " — post-training INT8 quantization of ONNX models", "q8"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "q8 " Q8_VERSION);
  q8::cli::add_inspect_command(app);
  q8::cli::add_run_command(app);
  q8::cli::add_calibrate_command(app);
  q8::cli::add_quantize_command(app);
  q8::cli::add_compare_command(app);
  q8::cli::add_build_command(app);
  q8::cli::add_bench_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other error; --help says the rest.
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    std::fprintf(stderr, "q8: error: %s (q8 --help, or q8 COMMAND --help)\n", what.c_str());
    return e.get_exit_code() ? e.get_exit_code() : 2;
  } catch (const q8::Error& e) {
    std::fprintf(stderr, "q8: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "q8: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
