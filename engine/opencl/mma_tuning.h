// qgemm_mma's tile per device, CLBlast's pattern: q8's own entries (measured with `q8 tune` on
// the devices named), overridden by a tuning database that `q8 tune` writes on the machine, keyed
// by device name and driver version (docs/opencl.md, "Tuning").
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engine/opencl/device.h"
#include "engine/opencl/select.h"

namespace q8 {

// The database: $Q8_TUNING_DB, else tuning.json beside the program cache ($Q8_CACHE_DIR, else
// $XDG_CACHE_HOME/q8, else ~/.cache/q8); "" when none can be named.
std::string tuning_db_path();

// The tuning for caps' device: the database's entry for its name and driver, else q8's entry for
// its name, else kMmaTile and no classes. An unreadable database or an entry the device cannot
// take is an Error naming the file.
MmaTuning device_mma_tuning(const DeviceCaps& caps, const std::string& db_path);

// Writes tuning as the entry for caps' device (name and driver) into the database at db_path,
// keeping the other devices' entries; `measured` is kept beside it (JSON text). Atomic.
void record_mma_tuning(const std::string& db_path, const DeviceCaps& caps, const MmaTuning& tuning, const std::string& measured);

// A tuning as a plan's device section records it (docs/plan.md): the device's name and driver,
// the device tile and the class tiles, keys in a fixed order, so the same tuning gives the same
// bytes; and back, for caps' device: nullopt where the section is another device's or driver's,
// an Error naming `what` where it is not a section or holds a tile the device cannot take.
std::string mma_tuning_section(const DeviceCaps& caps, const MmaTuning& tuning);
std::optional<MmaTuning> parse_mma_tuning_section(const std::string& section, const DeviceCaps& caps, const std::string& what);

// The tiles `q8 tune` times: block tiles of 64 to 256, 4 or 8 warps, depth 32 or 64, 2 to 4
// stages, those the device can take.
std::vector<MmaTile> mma_candidates(const DeviceCaps& caps);

}  // namespace q8
