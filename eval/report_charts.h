// The report's charts as inline SVG (eval/report.h): an |x| histogram with threshold marks, and
// horizontal bars.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace q8 {

struct ThresholdMark {
  std::string method;
  double amax = 0;
  bool chosen = false;
};

// Counts of bins of `width` (the used ones), drawn as at most 240 bars of log10(1 + count), x
// from 0 to the last used bin's right edge; each mark a vertical line in its method's colour, the
// chosen one thick and labelled.
std::string histogram_svg(const std::vector<uint64_t>& counts, double width, const std::vector<ThresholdMark>& marks);

struct Bar {
  std::string label;
  double value = 0;
};

// One bar per item, longest first as given; `log` draws log10 of values > 0; `unit` follows each
// value's label.
std::string bars_svg(const std::vector<Bar>& bars, bool log, const std::string& unit);

// The colour each method's marks and legend use.
std::string method_colour(const std::string& method);

// v as printf's format prints it ("%.4g" by default).
std::string format_number(double v, const char* format = "%.4g");

// Text for HTML: & < > " ' escaped.
std::string html_escape(const std::string& text);

}  // namespace q8
