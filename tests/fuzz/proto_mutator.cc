#include "proto_mutator.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace ios::fuzz {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

struct Site {
  Message* message;
  const FieldDescriptor* field;
};

void CollectSites(Message* message, int depth, std::vector<Site>* sites,
                  std::vector<std::string>* strings) {
  const auto* descriptor = message->GetDescriptor();
  const Reflection* reflection = message->GetReflection();
  for (int f = 0; f < descriptor->field_count(); ++f) {
    const FieldDescriptor* field = descriptor->field(f);
    sites->push_back({message, field});
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_STRING) {
      if (field->is_repeated()) {
        for (int i = 0; i < reflection->FieldSize(*message, field) && i < 64; ++i)
          strings->push_back(reflection->GetRepeatedString(*message, field, i));
      } else if (reflection->HasField(*message, field) || field->containing_oneof() == nullptr) {
        strings->push_back(reflection->GetString(*message, field));
      }
    }
    if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE || depth >= 8) continue;
    if (field->is_repeated()) {
      for (int i = 0; i < reflection->FieldSize(*message, field); ++i)
        CollectSites(reflection->MutableRepeatedMessage(message, field, i), depth + 1, sites,
                     strings);
    } else if (reflection->HasField(*message, field)) {
      CollectSites(reflection->MutableMessage(message, field), depth + 1, sites, strings);
    }
  }
}

// Boundary values and neighbours of `value`; the arithmetic wraps (through the unsigned type).
template <typename T>
T Interesting(T value, std::mt19937_64& rng) {
  using U = std::make_unsigned_t<T>;
  const U v = static_cast<U>(value);
  const T choices[] = {T(0),
                       T(1),
                       static_cast<T>(U(0) - U(1)),
                       std::numeric_limits<T>::max(),
                       std::numeric_limits<T>::min(),
                       static_cast<T>(v + U(1)),
                       static_cast<T>(v - U(1)),
                       static_cast<T>(v * U(2)),
                       static_cast<T>(v / U(2)),
                       static_cast<T>(U(1) << (sizeof(T) * 8 - 2)),
                       static_cast<T>(rng() % 4096)};
  return choices[rng() % (sizeof(choices) / sizeof(choices[0]))];
}

template <typename T>
T InterestingFloat(T value, std::mt19937_64& rng) {
  const T choices[] = {T(0),
                       T(1),
                       T(-1),
                       std::numeric_limits<T>::quiet_NaN(),
                       std::numeric_limits<T>::infinity(),
                       -std::numeric_limits<T>::infinity(),
                       std::numeric_limits<T>::max(),
                       std::numeric_limits<T>::denorm_min(),
                       value * 2,
                       -value};
  return choices[rng() % (sizeof(choices) / sizeof(choices[0]))];
}

std::string MutateString(const std::string& value, const std::vector<std::string>& strings,
                         std::mt19937_64& rng) {
  switch (rng() % 5) {
    case 0:  // another string of the message: rewires names
    case 1:
      if (!strings.empty()) return strings[rng() % strings.size()];
      return value;
    case 2:
      return value.substr(0, value.empty() ? 0 : rng() % value.size());
    case 3:
      return value + value;
    default: {
      std::string changed = value.empty() ? std::string(1, '\0') : value;
      changed[rng() % changed.size()] = static_cast<char>(rng());
      return changed;
    }
  }
}

// Reads element `index` of a repeated field (or the singular field when index < 0), changes it
// with `mutate` and writes it back, through the Reflection accessors of its C++ type.
template <typename T, typename Mutate>
void Rewrite(Message* m, const FieldDescriptor* field, int index,
             T (Reflection::*get)(const Message&, const FieldDescriptor*) const,
             void (Reflection::*set)(Message*, const FieldDescriptor*, T) const,
             T (Reflection::*get_repeated)(const Message&, const FieldDescriptor*, int) const,
             void (Reflection::*set_repeated)(Message*, const FieldDescriptor*, int, T) const,
             Mutate mutate) {
  const Reflection* r = m->GetReflection();
  if (index >= 0) {
    (r->*set_repeated)(m, field, index, mutate((r->*get_repeated)(*m, field, index)));
  } else {
    (r->*set)(m, field, mutate((r->*get)(*m, field)));
  }
}

// Sets element `index` of a repeated field, or the singular field when index < 0.
void MutateScalar(Message* m, const FieldDescriptor* field, int index,
                  const std::vector<std::string>& strings, std::mt19937_64& rng) {
  const Reflection* r = m->GetReflection();
  const bool rep = index >= 0;
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return Rewrite<int32_t>(m, field, index, &Reflection::GetInt32, &Reflection::SetInt32,
                              &Reflection::GetRepeatedInt32, &Reflection::SetRepeatedInt32,
                              [&](int32_t v) { return Interesting(v, rng); });
    case FieldDescriptor::CPPTYPE_INT64:
      return Rewrite<int64_t>(m, field, index, &Reflection::GetInt64, &Reflection::SetInt64,
                              &Reflection::GetRepeatedInt64, &Reflection::SetRepeatedInt64,
                              [&](int64_t v) { return Interesting(v, rng); });
    case FieldDescriptor::CPPTYPE_UINT32:
      return Rewrite<uint32_t>(m, field, index, &Reflection::GetUInt32, &Reflection::SetUInt32,
                               &Reflection::GetRepeatedUInt32, &Reflection::SetRepeatedUInt32,
                               [&](uint32_t v) { return Interesting(v, rng); });
    case FieldDescriptor::CPPTYPE_UINT64:
      return Rewrite<uint64_t>(m, field, index, &Reflection::GetUInt64, &Reflection::SetUInt64,
                               &Reflection::GetRepeatedUInt64, &Reflection::SetRepeatedUInt64,
                               [&](uint64_t v) { return Interesting(v, rng); });
    case FieldDescriptor::CPPTYPE_FLOAT:
      return Rewrite<float>(m, field, index, &Reflection::GetFloat, &Reflection::SetFloat,
                            &Reflection::GetRepeatedFloat, &Reflection::SetRepeatedFloat,
                            [&](float v) { return InterestingFloat(v, rng); });
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return Rewrite<double>(m, field, index, &Reflection::GetDouble, &Reflection::SetDouble,
                             &Reflection::GetRepeatedDouble, &Reflection::SetRepeatedDouble,
                             [&](double v) { return InterestingFloat(v, rng); });
    case FieldDescriptor::CPPTYPE_BOOL: {
      if (rep) {
        r->SetRepeatedBool(m, field, index, !r->GetRepeatedBool(*m, field, index));
      } else {
        r->SetBool(m, field, !r->GetBool(*m, field));
      }
      return;
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      const int count = field->enum_type()->value_count();
      // Mostly a declared value; sometimes an undeclared number (proto3 enums stay open).
      const int number = rng() % 4 == 0 ? static_cast<int>(rng() % 1000) - 500
                                        : field->enum_type()->value(rng() % count)->number();
      const bool open = field->file()->syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO3;
      const int value = open ? number : field->enum_type()->value(rng() % count)->number();
      if (rep) {
        r->SetRepeatedEnumValue(m, field, index, value);
      } else {
        r->SetEnumValue(m, field, value);
      }
      return;
    }
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string v = rep ? r->GetRepeatedString(*m, field, index) : r->GetString(*m, field);
      v = MutateString(v, strings, rng);
      if (rep) {
        r->SetRepeatedString(m, field, index, v);
      } else {
        r->SetString(m, field, v);
      }
      return;
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return;
  }
}

}  // namespace

bool MutateProto(Message* message, std::mt19937_64& rng) {
  std::vector<Site> sites;
  std::vector<std::string> strings;
  CollectSites(message, 0, &sites, &strings);
  if (sites.empty()) return false;
  const Site site = sites[rng() % sites.size()];
  Message* m = site.message;
  const FieldDescriptor* field = site.field;
  const Reflection* r = m->GetReflection();
  if (field->is_repeated()) {
    const int size = r->FieldSize(*m, field);
    const int choice = static_cast<int>(rng() % 5);
    if (size == 0 || choice == 0) {  // add an element (a copy of one, or a default)
      if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
        Message* added = r->AddMessage(m, field);
        if (size > 0)
          added->CopyFrom(r->GetRepeatedMessage(*m, field, static_cast<int>(rng() % size)));
      } else {
        switch (field->cpp_type()) {
          case FieldDescriptor::CPPTYPE_INT32:
            r->AddInt32(m, field, 1);
            break;
          case FieldDescriptor::CPPTYPE_INT64:
            r->AddInt64(m, field, 1);
            break;
          case FieldDescriptor::CPPTYPE_UINT32:
            r->AddUInt32(m, field, 1);
            break;
          case FieldDescriptor::CPPTYPE_UINT64:
            r->AddUInt64(m, field, 1);
            break;
          case FieldDescriptor::CPPTYPE_FLOAT:
            r->AddFloat(m, field, 1);
            break;
          case FieldDescriptor::CPPTYPE_DOUBLE:
            r->AddDouble(m, field, 1);
            break;
          case FieldDescriptor::CPPTYPE_BOOL:
            r->AddBool(m, field, true);
            break;
          case FieldDescriptor::CPPTYPE_ENUM:
            r->AddEnumValue(m, field, 0);
            break;
          case FieldDescriptor::CPPTYPE_STRING:
            r->AddString(m, field, strings.empty() ? "" : strings[rng() % strings.size()]);
            break;
          case FieldDescriptor::CPPTYPE_MESSAGE:
            break;
        }
      }
      return true;
    }
    const int index = static_cast<int>(rng() % size);
    if (choice == 1) {  // remove one (swap it to the end first)
      r->SwapElements(m, field, index, size - 1);
      r->RemoveLast(m, field);
    } else if (choice == 2) {
      r->SwapElements(m, field, index, static_cast<int>(rng() % size));
    } else if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) {
      MutateScalar(m, field, index, strings, rng);
    } else {
      r->MutableRepeatedMessage(m, field, index)->Clear();
    }
    return true;
  }
  if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
    if (rng() % 2 == 0) {
      r->ClearField(m, field);
    } else {
      r->MutableMessage(m, field);  // sets an absent sub-message
    }
    return true;
  }
  MutateScalar(m, field, -1, strings, rng);
  return true;
}

}  // namespace ios::fuzz
