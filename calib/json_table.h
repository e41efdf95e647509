// The JSON range table: what `q8 quantize` reads. Per tensor amax, scale, method, bits, axis and
// the statistics behind them; per-channel weight amax; the model's SHA-256, q8's version, the
// dataset and preprocessing.
#pragma once

#include <string>

#include "calib/range_table.h"

namespace q8 {

std::string format_json_table(const RangeTable& table, const std::string& settings_json);
void write_json_table(const std::string& path, const RangeTable& table, const std::string& settings_json);
// An activation or weight amax read from a file or flag: finite, >= 0, amax / 127 a finite float32.
void check_amax(double amax, const std::string& what);
RangeTable read_json_table(const std::string& path);
// The table in text that format_json_table wrote; errors name `path` (what the text came from).
RangeTable parse_json_table(const std::string& text, const std::string& path);


}  // namespace q8
