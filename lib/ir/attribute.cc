#include "ir/attribute.h"

namespace ios {
namespace {

template <typename T>
StatusOr<T> GetTyped(const std::map<std::string, AttributeValue>& values, const std::string& name,
                     const T& fallback, const char* type_name) {
  auto it = values.find(name);
  if (it == values.end()) return fallback;
  if (const T* value = std::get_if<T>(&it->second)) return *value;
  return InvalidInput("attribute '" + name + "' must be of type " + type_name);
}

}  // namespace

StatusOr<int64_t> AttributeMap::GetInt(const std::string& name, int64_t fallback) const {
  return GetTyped<int64_t>(values_, name, fallback, "int");
}
StatusOr<float> AttributeMap::GetFloat(const std::string& name, float fallback) const {
  return GetTyped<float>(values_, name, fallback, "float");
}
StatusOr<std::string> AttributeMap::GetString(const std::string& name,
                                              const std::string& fallback) const {
  return GetTyped<std::string>(values_, name, fallback, "string");
}
StatusOr<std::vector<int64_t>> AttributeMap::GetInts(const std::string& name,
                                                     const std::vector<int64_t>& fallback) const {
  return GetTyped<std::vector<int64_t>>(values_, name, fallback, "ints");
}
StatusOr<std::vector<float>> AttributeMap::GetFloats(const std::string& name,
                                                     const std::vector<float>& fallback) const {
  return GetTyped<std::vector<float>>(values_, name, fallback, "floats");
}
const Tensor* AttributeMap::GetTensor(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) return nullptr;
  return std::get_if<Tensor>(&it->second);
}

}  // namespace ios
