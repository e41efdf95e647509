#include "engine/plan/plan_file.h"

#include <cstring>
#include <map>
#include <sstream>

#include "engine/io/numbers.h"
#include "engine/io/sha256.h"
#include "engine/ir/error.h"
#include "engine/onnx/export.h"
#include "engine/onnx/import.h"

namespace q8 {

namespace {

// docs/plan.md: header 48 bytes (magic, version, section count, whole-file SHA-256 computed with
// this field zeroed), then 64 bytes per section (name, offset, size, SHA-256), then payloads.
constexpr size_t kHeaderBytes = 48, kEntryBytes = 64, kNameBytes = 16, kHashOffset = 16, kMaxSections = 64;

void put_u32(std::string& s, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
}
void put_u64(std::string& s, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) s[at + size_t(i)] = char((v >> (8 * i)) & 0xff);
}
uint64_t get(const std::string& s, size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t(uint8_t(s[at + size_t(i)])) << (8 * i);
  return v;
}

std::string raw_sha256(const std::string& bytes) {
  const std::string hex = sha256_hex(bytes);
  std::string raw(32, '\0');
  for (size_t i = 0; i < 32; ++i) raw[i] = char(std::stoi(hex.substr(2 * i, 2), nullptr, 16));
  return raw;
}

std::string whole_file_hash(std::string bytes) {
  std::memset(bytes.data() + kHashOffset, 0, 32);
  return raw_sha256(bytes);
}

}  // namespace

bool is_plan(const std::string& bytes) { return bytes.size() >= 8 && std::memcmp(bytes.data(), kPlanMagic, 8) == 0; }

std::string write_plan_container(const std::vector<PlanSection>& sections) {
  check(sections.size() <= kMaxSections, "a plan holds at most 64 sections");
  std::string out(kHeaderBytes + kEntryBytes * sections.size(), '\0');
  std::memcpy(out.data(), kPlanMagic, 8);
  put_u32(out, 8, kPlanVersion);
  put_u32(out, 12, uint32_t(sections.size()));
  for (size_t i = 0; i < sections.size(); ++i) {
    const PlanSection& s = sections[i];
    check(!s.name.empty() && s.name.size() < kNameBytes, "plan section name '" + s.name + "' is not 1 to 15 characters");
    const size_t entry = kHeaderBytes + kEntryBytes * i;
    std::memcpy(out.data() + entry, s.name.data(), s.name.size());
    put_u64(out, entry + 16, out.size());
    put_u64(out, entry + 24, s.bytes.size());
    const std::string hash = raw_sha256(s.bytes);
    std::memcpy(out.data() + entry + 32, hash.data(), 32);
    out += s.bytes;
  }
  const std::string hash = whole_file_hash(out);
  std::memcpy(out.data() + kHashOffset, hash.data(), 32);
  return out;
}

std::vector<PlanSection> read_plan_container(const std::string& bytes) {
  check(bytes.size() >= kHeaderBytes, "truncated: " + std::to_string(bytes.size()) + " bytes, a plan header has 48");
  check(is_plan(bytes), "not a q8 plan (no Q8PLAN magic)");
  const uint64_t version = get(bytes, 8, 4), count = get(bytes, 12, 4);
  check(version != 0 && version <= kPlanVersion, "plan version " + std::to_string(version) + " is not one this q8 reads (" +
                                                     std::to_string(kPlanVersion) + "); rebuild the plan with this q8");
  check(count <= kMaxSections, "section count " + std::to_string(count) + " exceeds 64");
  const size_t table_end = kHeaderBytes + kEntryBytes * size_t(count);
  check(bytes.size() >= table_end, "truncated: the section table ends at byte " + std::to_string(table_end) + ", the file has " +
                                       std::to_string(bytes.size()));
  check(whole_file_hash(bytes) == bytes.substr(kHashOffset, 32), "the file's SHA-256 does not match: the plan is corrupt");
  std::vector<PlanSection> sections;
  for (size_t i = 0; i < count; ++i) {
    const size_t entry = kHeaderBytes + kEntryBytes * i;
    const std::string field = bytes.substr(entry, kNameBytes);
    const std::string name = field.substr(0, field.find('\0'));
    check(!name.empty() && field.find_first_not_of('\0', name.size()) == std::string::npos,
          "section " + std::to_string(i) + ": malformed name");
    const uint64_t offset = get(bytes, entry + 16, 8), size = get(bytes, entry + 24, 8);
    check(offset >= table_end && offset <= bytes.size() && size <= bytes.size() - offset,
          "section '" + name + "': bytes [" + std::to_string(offset) + ", +" + std::to_string(size) + ") lie outside the file (" +
              std::to_string(bytes.size()) + " bytes)");
    PlanSection s{name, bytes.substr(size_t(offset), size_t(size))};
    check(raw_sha256(s.bytes) == bytes.substr(entry + 32, 32), "section '" + name + "': SHA-256 does not match");
    for (const PlanSection& other : sections) check(other.name != name, "section '" + name + "' appears twice");
    sections.push_back(std::move(s));
  }
  return sections;
}

std::string serialize_plan(const Plan& plan) {
  std::ostringstream memory;
  memory << "shapes " << plan.shapes << "\narena_bytes " << plan.memory.arena_bytes << "\ntotal_bytes " << plan.memory.total_bytes
         << "\n";
  for (size_t i = 0; i < plan.buffers.size(); ++i) {
    const BufferLifetime& b = plan.buffers[i];
    memory << "buffer " << plan.memory.offsets[i] << " " << b.bytes << " " << b.first << " " << b.last << " " << b.value << "\n";
  }
  std::string graph;
  check(to_model_proto(plan.graph).SerializeToString(&graph), "cannot serialize the lowered graph");
  std::vector<PlanSection> sections = {{"graph", graph}, {"source", plan.source_sha256}, {"lowering", plan.lowering_report}, {"memory", memory.str()}};
  if (!plan.device.empty()) sections.push_back({"device", plan.device});
  return write_plan_container(sections);
}

namespace {
// The memory section's lines, checked.
void parse_memory(const std::string& text, Plan& plan) {
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = "memory section, line " + std::to_string(number);
    const size_t space = line.find(' ');
    const std::string key = line.substr(0, space), rest = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "shapes") {
      plan.shapes = rest;
    } else if (key == "arena_bytes") {
      plan.memory.arena_bytes = parse_int(rest, where);
    } else if (key == "total_bytes") {
      plan.memory.total_bytes = parse_int(rest, where);
    } else if (key == "buffer") {
      std::istringstream f(rest);
      std::string offset, bytes, first, last;
      f >> offset >> bytes >> first >> last;
      std::string value;
      std::getline(f >> std::ws, value);
      BufferLifetime b{value, parse_int(bytes, where), int(parse_int(first, where)), int(parse_int(last, where))};
      const int64_t at = parse_int(offset, where);
      check(b.bytes >= 0 && at >= 0 && at + b.bytes <= plan.memory.arena_bytes && b.first <= b.last,
            where + ": buffer '" + value + "' does not fit the arena");
      plan.buffers.push_back(b);
      plan.memory.offsets.push_back(at);
    } else {
      throw Error(where + ": unknown entry '" + key + "'");
    }
  }
}
}  // namespace

Plan parse_plan(const std::string& bytes, const std::string& what) {
  try {
    std::map<std::string, std::string> sections;
    for (PlanSection& s : read_plan_container(bytes)) sections[s.name] = std::move(s.bytes);
    for (const char* required : {"graph", "source", "lowering", "memory"})
      check(sections.count(required) > 0, std::string("section '") + required + "' is missing");
    Plan plan;
    plan.graph = parse_model(sections["graph"], "", "section 'graph'");
    plan.source_sha256 = sections["source"];
    plan.lowering_report = sections["lowering"];
    parse_memory(sections["memory"], plan);
    if (sections.count("device")) plan.device = sections["device"];
    return plan;
  } catch (const Error& e) {
    throw e.with_context(what);
  }
}

}  // namespace q8
