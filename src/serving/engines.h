#pragma once

#include <memory>

#include "tputrain/serving/engine.h"

// The engines MakeEngine chooses from, each in its own file.
namespace tputrain::serving {

std::unique_ptr<Engine> MakeJetStream();
std::unique_ptr<Engine> MakeSaxml();
std::unique_ptr<Engine> MakeVllm();

}  // namespace tputrain::serving
