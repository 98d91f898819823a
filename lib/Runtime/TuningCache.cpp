//===- TuningCache.cpp - library choices kept on disk ---------------------===//

#include "TuningCache.h"

#include "tgc/Runtime/Checksum.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <sys/stat.h>

using namespace tgc::runtime;

namespace {

std::mutex mutex;
std::string folder;
/// Per (kind, device): the choices read from its file (loaded once).
std::map<std::pair<std::string, std::string>,
         std::map<std::vector<int64_t>, int>>
    loaded;

std::string hex(uint64_t v) {
  char buffer[17];
  std::snprintf(buffer, sizeof(buffer), "%016llx",
                static_cast<unsigned long long>(v));
  return buffer;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string text;
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? "," : "") + std::to_string(shape[i]);
  return text;
}

/// "shape index checksum" -> the choice, if the line checks.
bool parseLine(const std::string &line, std::vector<int64_t> &shape,
               int &index) {
  size_t a = line.find(' '), b = line.rfind(' ');
  if (a == std::string::npos || b == a)
    return false;
  std::string body = line.substr(0, b), sum = line.substr(b + 1);
  if (hex(fnv1a64(body.data(), body.size())) != sum)
    return false;
  shape.clear();
  const char *p = body.c_str();
  char *end = nullptr;
  while (*p && *p != ' ') {
    errno = 0;
    long long v = std::strtoll(p, &end, 10);
    if (end == p || errno)
      return false;
    shape.push_back(v);
    p = *end == ',' ? end + 1 : end;
  }
  errno = 0;
  long idx = std::strtol(body.c_str() + a + 1, &end, 10);
  if (*end || errno || idx < 0 || idx > 1024)
    return false;
  index = int(idx);
  return true;
}

void makeDirectories(const std::string &path) {
  for (size_t i = 1; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '/')
      ::mkdir(path.substr(0, i).c_str(), 0755);
}

std::map<std::vector<int64_t>, int> &choices(const std::string &kind,
                                             const std::string &device) {
  auto it = loaded.find({kind, device});
  if (it != loaded.end())
    return it->second;
  std::map<std::vector<int64_t>, int> &out = loaded[{kind, device}];
  if (FILE *f = std::fopen(tuningFile(kind, device).c_str(), "r")) {
    char buffer[4096];
    while (std::fgets(buffer, sizeof(buffer), f)) {
      std::string line(buffer);
      while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
        line.pop_back();
      std::vector<int64_t> shape;
      int index = -1;
      if (parseLine(line, shape, index)) // a torn or damaged line: skipped
        out[shape] = index;
    }
    std::fclose(f);
  }
  return out;
}

} // namespace

void tgc::runtime::setTuningCacheDir(const std::string &dir) {
  std::lock_guard<std::mutex> lock(mutex);
  if (dir != folder)
    loaded.clear();
  folder = dir;
}

std::string tgc::runtime::tuningFile(const std::string &kind,
                                     const std::string &device) {
  return folder + "/" + kind + "-tuning/" +
         hex(fnv1a64(device.data(), device.size())) + ".txt";
}

int tgc::runtime::lookupTuning(const std::string &kind,
                               const std::string &device,
                               const std::vector<int64_t> &shape) {
  std::lock_guard<std::mutex> lock(mutex);
  if (folder.empty())
    return -1;
  auto &map = choices(kind, device);
  auto it = map.find(shape);
  return it == map.end() ? -1 : it->second;
}

void tgc::runtime::recordTuning(const std::string &kind,
                                const std::string &device,
                                const std::vector<int64_t> &shape, int index) {
  std::lock_guard<std::mutex> lock(mutex);
  if (folder.empty())
    return;
  choices(kind, device)[shape] = index;
  makeDirectories(folder + "/" + kind + "-tuning");
  std::string body = shapeText(shape) + " " + std::to_string(index);
  // A leading newline too: a line an earlier writer left torn (no newline)
  // stays its own line, skipped, and does not make this one unreadable.
  std::string line =
      "\n" + body + " " + hex(fnv1a64(body.data(), body.size())) + "\n";
  // One write of one short line in append mode: lines of concurrent
  // writers do not interleave.
  if (FILE *f = std::fopen(tuningFile(kind, device).c_str(), "a")) {
    std::fwrite(line.data(), 1, line.size(), f);
    std::fclose(f);
  }
}
