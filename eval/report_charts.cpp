#include "eval/report_charts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace q8 {

namespace {

std::string num(double v, const char* format = "%.4g") { return format_number(v, format); }

}  // namespace

std::string format_number(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string method_colour(const std::string& method) {
  if (method == "max") return "#7a7a7a";
  if (method == "percentile") return "#2a9d8f";
  if (method == "entropy") return "#e76f51";
  if (method == "mse") return "#6a4c93";
  return "#000000";
}

std::string histogram_svg(const std::vector<uint64_t>& counts, double width, const std::vector<ThresholdMark>& marks) {
  constexpr double W = 640, H = 170, left = 44, right = 12, top = 18, bottom = 24;
  const double plot_w = W - left - right, plot_h = H - top - bottom;
  int64_t used = 0;
  for (int64_t i = int64_t(counts.size()) - 1; i >= 0; --i)
    if (counts[size_t(i)]) {
      used = i + 1;
      break;
    }
  std::string s = "<svg class=\"hist\" viewBox=\"0 0 640 170\" width=\"640\" height=\"170\" role=\"img\">";
  s += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(plot_w) + "\" height=\"" + num(plot_h) +
       "\" fill=\"#fafafa\" stroke=\"#ccc\"/>";
  if (used == 0) return s + "<text x=\"60\" y=\"90\">all values are zero</text></svg>";
  const int64_t group = (used + 239) / 240;
  const int64_t bars = (used + group - 1) / group;
  std::vector<double> heights(size_t(bars), 0);
  for (int64_t i = 0; i < used; ++i) heights[size_t(i / group)] += double(counts[size_t(i)]);
  double top_log = 0;
  for (double& h : heights) top_log = std::max(top_log, h = std::log10(1 + h));
  const double span = double(used) * width;  // x range: 0 .. the last used bin's right edge
  const double bar_w = plot_w / double(bars);
  for (int64_t b = 0; b < bars; ++b) {
    const double h = top_log > 0 ? plot_h * heights[size_t(b)] / top_log : 0;
    if (h <= 0) continue;
    s += "<rect x=\"" + num(left + bar_w * double(b), "%.2f") + "\" y=\"" + num(top + plot_h - h, "%.2f") + "\" width=\"" +
         num(std::max(bar_w - 0.2, 0.6), "%.2f") + "\" height=\"" + num(h, "%.2f") + "\" fill=\"#4a7fb5\"/>";
  }
  // Axes: 0 and the span under the plot, the log scale's top at the left.
  s += "<text x=\"" + num(left) + "\" y=\"" + num(H - 6) + "\" font-size=\"11\">0</text>";
  s += "<text x=\"" + num(left + plot_w) + "\" y=\"" + num(H - 6) + "\" font-size=\"11\" text-anchor=\"end\">" + num(span) + "</text>";
  s += "<text x=\"" + num(left - 4) + "\" y=\"" + num(top + 10) + "\" font-size=\"10\" text-anchor=\"end\">1e" + num(top_log, "%.1f") +
       "</text><text x=\"" + num(left - 4) + "\" y=\"" + num(top + plot_h) + "\" font-size=\"10\" text-anchor=\"end\">1</text>";
  for (const ThresholdMark& m : marks) {
    const double x = left + plot_w * std::min(m.amax / span, 1.0);
    s += "<line x1=\"" + num(x, "%.2f") + "\" x2=\"" + num(x, "%.2f") + "\" y1=\"" + num(top) + "\" y2=\"" + num(top + plot_h) +
         "\" stroke=\"" + method_colour(m.method) + "\" stroke-width=\"" + (m.chosen ? "3" : "1.2") + "\"" +
         (m.chosen ? "" : " stroke-dasharray=\"4 3\"") + "><title>" + html_escape(m.method) + " " + num(m.amax, "%.6g") +
         "</title></line>";
    if (m.chosen)
      s += "<text x=\"" + num(std::min(x + 3, W - 90), "%.2f") + "\" y=\"" + num(top - 5) + "\" font-size=\"11\" fill=\"" +
           method_colour(m.method) + "\">chosen: " + html_escape(m.method) + "</text>";
  }
  return s + "</svg>";
}

std::string bars_svg(const std::vector<Bar>& bars, bool log, const std::string& unit) {
  constexpr double label_w = 300, plot_w = 300, row = 16;
  const double H = row * double(bars.size()) + 8;
  double top = 0, bottom = 0;
  std::vector<double> v;
  for (const Bar& b : bars) v.push_back(log ? (b.value > 0 ? std::log10(b.value) : -12.0) : b.value);
  if (!v.empty()) top = *std::max_element(v.begin(), v.end()), bottom = std::min(0.0, *std::min_element(v.begin(), v.end()));
  if (log && !v.empty()) bottom = *std::min_element(v.begin(), v.end()) - 1;
  const double range = top - bottom > 0 ? top - bottom : 1;
  std::string s = "<svg class=\"bars\" viewBox=\"0 0 720 " + num(H, "%.0f") + "\" width=\"720\" height=\"" + num(H, "%.0f") + "\" role=\"img\">";
  for (size_t i = 0; i < bars.size(); ++i) {
    const double y = 4 + row * double(i);
    const double w = std::max(plot_w * (v[i] - bottom) / range, 1.0);
    s += "<text x=\"" + num(label_w - 6) + "\" y=\"" + num(y + 12, "%.1f") + "\" font-size=\"11\" text-anchor=\"end\">" +
         html_escape(bars[i].label.size() > 44 ? "…" + bars[i].label.substr(bars[i].label.size() - 43) : bars[i].label) + "</text>";
    s += "<rect x=\"" + num(label_w) + "\" y=\"" + num(y + 2, "%.1f") + "\" width=\"" + num(w, "%.2f") + "\" height=\"" + num(row - 4) +
         "\" fill=\"#4a7fb5\"/>";
    s += "<text x=\"" + num(label_w + w + 4, "%.2f") + "\" y=\"" + num(y + 12, "%.1f") + "\" font-size=\"11\">" + num(bars[i].value) +
         (unit.empty() ? "" : " " + unit) + "</text>";
  }
  return s + "</svg>";
}

}  // namespace q8
