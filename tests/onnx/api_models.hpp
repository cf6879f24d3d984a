#pragma once

// Serialized models for api_test.cpp, built with protobuf in api_models.cpp: the test itself
// includes no protobuf header, so it sees what a user of tseq/onnx/executor.hpp alone sees
// (no namespace ::onnx).

#include <cstdint>
#include <string>
#include <vector>

namespace tseq_test::api {

// No inputs; y = Constant 7.f (a float scalar).
std::string constant_model();
// Input x (tensor(float)) with the initializer [1, 2]; y = Identity(x).
std::string defaulted_model();
// Inputs a and b (tensor(float)); c = Add(a, b).
std::string add_model();
// A Loop of 2^63 - 1 iterations over input x (tensor(float)): stopped only from outside.
std::string endless_model();
// y = Unsqueeze(x, axes), x a tensor(float).
std::string unsqueeze_model(const std::vector<std::int64_t>& axes);

}  // namespace tseq_test::api
