#include "common/help_json.h"

#include <google/protobuf/struct.pb.h>

#include <cstdio>
#include <string>

#include "util/json_print.h"

namespace ios {
namespace {

google::protobuf::Struct OptionJson(const CLI::Option& option) {
  google::protobuf::Struct entry;
  auto& fields = *entry.mutable_fields();
  auto* names = fields["names"].mutable_list_value();
  for (const std::string& name : option.get_snames())
    names->add_values()->set_string_value("-" + name);
  for (const std::string& name : option.get_lnames())
    names->add_values()->set_string_value("--" + name);
  if (option.get_positional()) names->add_values()->set_string_value(option.get_name(true));
  fields["positional"].set_bool_value(!option.nonpositional());
  // A flag takes no value; an option's type carries its validators' text (TEXT:{on,off}).
  fields["value"].set_string_value(option.get_type_size() == 0 ? "" : option.get_type_name());
  fields["default"].set_string_value(option.get_default_str());
  fields["description"].set_string_value(option.get_description());
  fields["group"].set_string_value(option.get_group());
  fields["required"].set_bool_value(option.get_required());
  fields["repeatable"].set_bool_value(option.get_expected_max() > 1);
  return entry;
}

}  // namespace

void AddHelpJsonFlag(CLI::App* app) {
  app->add_flag_callback(
         "--help-json",
         [app] {
           google::protobuf::Struct root;
           auto& fields = *root.mutable_fields();
           fields["description"].set_string_value(app->get_description());
           auto* options = fields["options"].mutable_list_value();
           for (const CLI::Option* option : app->get_options()) {
             if (option->get_group().empty()) continue;  // hidden, as in --help
             *options->add_values()->mutable_struct_value() = OptionJson(*option);
           }
           StatusOr<std::string> json = MessageToJson(root);
           if (!json.ok()) throw CLI::RuntimeError(json.status().message(), 1);
           std::fputs(json->c_str(), stdout);
           throw CLI::Success();
         },
         "Print the options as JSON, then exit")
      ->group("");
}

}  // namespace ios
