#include "eval/report.h"

#include <algorithm>
#include <cstdio>

#include "calib/clipping.h"
#include "eval/report_charts.h"

namespace q8 {

namespace {

// Displayed figures; data-* attributes carry "%.17g".
std::string num(double v, const char* format = "%.6g") { return format_number(v, format); }
std::string exact(double v) { return num(v, "%.17g"); }
std::string attr(const std::string& name, const std::string& value) { return " " + name + "=\"" + html_escape(value) + "\""; }

const char* kStyle = R"(<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; max-width: 1100px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 8px 0; } td, th { padding: 2px 8px; text-align: left; border-bottom: 1px solid #eee; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.tensor { margin: 18px 0; padding-top: 6px; border-top: 1px solid #eee; } .tensor h3 { font-size: 14px; margin: 4px 0; }
.legend span { display: inline-block; margin-right: 14px; } .chosen { font-weight: bold; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; font-size: 12px; }
</style>)";

// Filters the tensor sections by name as one types.
const char* kScript = R"(<script>
document.getElementById('filter').addEventListener('input', function (e) {
  var text = e.target.value.toLowerCase();
  document.querySelectorAll('section.tensor').forEach(function (s) {
    s.style.display = s.dataset.tensor.toLowerCase().indexOf(text) >= 0 ? '' : 'none';
  });
});
</script>)";

std::string accuracy_section(const nlohmann::json& c) {
  std::string s = "<h2>Accuracy: FP32 against INT8</h2><p>" + html_escape(c.value("qdq_model", "")) + " against " +
                  html_escape(c.value("fp32_model", "")) + ", on " + std::to_string(c.value("samples", 0)) + " samples of " +
                  html_escape(c.value("dataset", "")) + "; output '" + html_escape(c.value("output", "")) + "' read as a " +
                  html_escape(c.value("kind", "")) + ".</p><table id=\"accuracy\"><tr><th>metric</th><th>value</th></tr>";
  if (c.contains("fp32_top1") && c["fp32_top1"].is_number()) {
    for (const char* key : {"fp32_top1", "int8_top1"})
      s += "<tr class=\"metric\"" + attr("data-metric", key) + attr("data-value", exact(c[key].get<double>())) + "><td>" + key +
           "</td><td class=\"n\">" + num(100 * c[key].get<double>(), "%.2f") + " %</td></tr>";
  }
  if (c.contains("metrics"))
    for (const auto& [name, v] : c["metrics"].items())
      if (v.is_number())
        s += "<tr class=\"metric\"" + attr("data-metric", name) + attr("data-value", exact(v.get<double>())) + "><td>" +
             html_escape(name) + "</td><td class=\"n\">" + num(v.get<double>()) + "</td></tr>";
  s += "</table>";
  if (c.contains("outputs")) {
    s += "<table><tr><th>output</th><th>cosine</th><th>max abs error</th><th>max rel error</th></tr>";
    for (const auto& o : c["outputs"])
      s += "<tr><td>" + html_escape(o.value("name", "")) + "</td><td class=\"n\">" + num(o.value("cosine", 0.0), "%.6f") +
           "</td><td class=\"n\">" + num(o.value("max_abs_error", 0.0)) + "</td><td class=\"n\">" + num(o.value("max_rel_error", 0.0)) +
           "</td></tr>";
    s += "</table>";
  }
  return s;
}

std::string sqnr_section(const nlohmann::json& layers) {
  std::vector<Bar> bars;
  std::string rows;
  for (const auto& l : layers) {
    const std::string t = l.value("tensor", "");
    const double db = l.value("sqnr_db", 0.0);
    bars.push_back({t, db});
    rows += "<tr class=\"sqnr\"" + attr("data-tensor", t) + attr("data-value", exact(db)) + "><td>" + html_escape(t) +
            "</td><td class=\"n\">" + num(db, "%.2f") + "</td></tr>";
  }
  return "<h2>Per-layer SQNR (worst first)</h2><p>Signal-to-quantization-noise ratio of each quantized activation, in dB: "
         "higher is better.</p>" + bars_svg(bars, false, "dB") + "<table id=\"sqnr\"><tr><th>tensor</th><th>SQNR (dB)</th></tr>" + rows +
         "</table>";
}

std::string blame_section(const nlohmann::json& blame) {
  std::vector<Bar> bars;
  std::string rows;
  for (const auto& b : blame["tensors"]) {
    const std::string t = b.value("tensor", "");
    const double loss = b.value("cosine_loss", 0.0), dis = b.value("disagreement", 0.0);
    bars.push_back({t, loss});
    rows += "<tr class=\"blame\"" + attr("data-tensor", t) + attr("data-value", exact(loss)) + attr("data-disagreement", exact(dis)) +
            "><td>" + html_escape(t) + "</td><td class=\"n\">" + num(loss, "%.3e") + "</td><td class=\"n\">" + num(100 * dis, "%.2f") +
            " %</td></tr>";
  }
  return "<h2>Isolated blame (worst first)</h2><p>Each activation quantized alone (weights as in the QDQ model), on " +
         std::to_string(blame.value("samples", 0)) + " samples: the output's cosine loss (log scale) and top-1 disagreement.</p>" +
         bars_svg(bars, true, "") + "<table id=\"blame\"><tr><th>tensor</th><th>cosine loss</th><th>disagreement</th></tr>" + rows +
         "</table>";
}

std::string tensors_section(const HistogramFile& h, const RangeTable* table, const MethodOptions& options) {
  std::string s = "<h2>Tensors: |x| histograms and thresholds</h2><p>" + std::to_string(h.observers.size()) +
                  " activations over " + std::to_string(h.samples) + " samples of " + html_escape(h.dataset) + "; " +
                  std::to_string(h.bins) + " bins. Counts on a log scale; each method's threshold is a line";
  s += table ? ", the chosen one thick and labelled." : " (no range table given: none is marked as chosen).";
  s += "</p><p class=\"legend\">";
  for (const CalibrationMethod* m : calibration_methods())
    s += "<span style=\"color:" + method_colour(std::string(m->name())) + "\">&#9646; " + std::string(m->name()) + "</span>";
  s += "</p><p>Filter: <input id=\"filter\" type=\"search\" placeholder=\"tensor name\"></p>";
  for (const auto& [name, obs] : h.observers) {
    const TensorStats& stats = obs.stats();
    const TensorRange* chosen = nullptr;
    if (table) {
      const auto it = table->activations.find(name);
      if (it != table->activations.end()) chosen = &it->second;
    }
    std::vector<ThresholdMark> marks;
    std::string rows;
    for (const CalibrationMethod* m : calibration_methods()) {
      const std::string method(m->name());
      const double amax = observer_amax(*m, obs, options), clipped = clipped_fraction(obs.histogram(), stats, amax);
      const bool is_chosen = chosen && chosen->descriptor.method == method;
      marks.push_back({method, amax, is_chosen});
      rows += "<tr class=\"threshold" + std::string(is_chosen ? " chosen" : "") + "\"" + attr("data-method", method) +
              attr("data-amax", exact(amax)) + attr("data-clipped", exact(clipped)) + "><td>" + method + "</td><td class=\"n\">" +
              num(amax) + "</td><td class=\"n\">" + num(100 * clipped, "%.4g") + " %</td></tr>";
    }
    std::string head = "<section class=\"tensor\"" + attr("data-tensor", name) + attr("data-max-abs", exact(stats.max_abs));
    if (chosen && !chosen->descriptor.amax.empty())
      head += attr("data-chosen-method", chosen->descriptor.method) + attr("data-chosen-amax", exact(chosen->descriptor.amax[0])) +
              attr("data-chosen-clipped", exact(chosen->clipped));
    s += head + "><h3>" + html_escape(name) + "</h3><p>" + std::to_string(stats.elements) + " values, min " + num(stats.min) + ", max " +
         num(stats.max) + ", " + std::to_string(stats.zeros) + " zeros";
    if (chosen && !chosen->descriptor.amax.empty())
      s += "; <span class=\"chosen\">chosen: " + html_escape(chosen->descriptor.method) + " amax " + num(chosen->descriptor.amax[0]) +
           ", clips " + num(100 * chosen->clipped, "%.4g") + " % of the non-zero values</span>";
    s += "</p>";
    const AbsHistogram& hist = obs.histogram();
    s += histogram_svg(hist.empty() ? std::vector<uint64_t>{} : hist.counts(), hist.empty() ? 0.0 : hist.width(), marks);
    s += "<table><tr><th>method</th><th>amax</th><th>clips</th></tr>" + rows + "</table></section>";
  }
  return s;
}

std::string plan_section(const std::string& lowering, const std::string& placement) {
  return "<h2>INT8 plan: lowering and placement</h2><h3>Lowering</h3><pre id=\"lowering\">" + html_escape(lowering) +
         "</pre><h3>Placement</h3><pre id=\"placement\">" + html_escape(placement) + "</pre>";
}

}  // namespace

std::string render_report(const ReportInputs& in) {
  std::string page = "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>q8 report: " + html_escape(in.title) +
                     "</title>" + kStyle + "</head><body><h1>q8 report: " + html_escape(in.title) + "</h1><p>q8 " Q8_VERSION;
  if (in.histograms) page += "; model sha256 " + html_escape(in.histograms->model_sha256.substr(0, 16)) + "…";
  page += "</p>";
  if (in.compare) {
    page += accuracy_section(*in.compare);
    if (in.compare->contains("layers")) page += sqnr_section((*in.compare)["layers"]);
    if (in.compare->contains("blame") && (*in.compare)["blame"].contains("tensors")) page += blame_section((*in.compare)["blame"]);
  }
  if (!in.lowering.empty() || !in.placement.empty()) page += plan_section(in.lowering, in.placement);
  if (in.histograms) page += tensors_section(*in.histograms, in.table, in.method_options);
  if (in.histograms) page += kScript;
  return page + "</body></html>\n";
}

}  // namespace q8
