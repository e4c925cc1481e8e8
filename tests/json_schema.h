// A validator for the subset of JSON Schema (draft-07) that data/*.schema.json use: type, enum,
// minimum, maximum, minItems, maxItems, pattern, required, properties, additionalProperties
// (false), items (one schema) and $ref to "#/definitions/NAME". Any other keyword fails the
// validation (so a schema cannot silently use what this does not check).
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace edgeq::test {

// Every violation as "PATH: what" (empty when `doc` conforms).
std::vector<std::string> validate_json_schema(const nlohmann::json& schema,
                                              const nlohmann::json& doc);

}  // namespace edgeq::test
