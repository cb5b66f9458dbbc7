// Node attributes, as ONNX defines them, with typed accessors that report the node on error.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/tensor.h"
#include "util/status.h"

namespace ios {

using AttributeValue = std::variant<int64_t, float, std::string, std::vector<int64_t>,
                                    std::vector<float>, std::vector<std::string>, Tensor>;

class AttributeMap {
 public:
  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  void Set(const std::string& name, AttributeValue value) { values_[name] = std::move(value); }
  void Erase(const std::string& name) { values_.erase(name); }
  const std::map<std::string, AttributeValue>& all() const { return values_; }

  // Typed getters: the default when absent, an error when present with another type.
  StatusOr<int64_t> GetInt(const std::string& name, int64_t fallback) const;
  StatusOr<float> GetFloat(const std::string& name, float fallback) const;
  StatusOr<std::string> GetString(const std::string& name, const std::string& fallback) const;
  StatusOr<std::vector<int64_t>> GetInts(const std::string& name,
                                         const std::vector<int64_t>& fallback) const;
  StatusOr<std::vector<float>> GetFloats(const std::string& name,
                                         const std::vector<float>& fallback) const;
  // The tensor attribute, or null when absent or of another type.
  const Tensor* GetTensor(const std::string& name) const;

 private:
  std::map<std::string, AttributeValue> values_;
};

}  // namespace ios
