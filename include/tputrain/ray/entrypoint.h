#pragma once

#include <string>
#include <vector>

namespace tputrain::ray {

// shlex.join: the Jobs API runs the entrypoint through a shell, and the Ray CLI builds it this
// way from its arguments.
std::string ShellJoin(const std::vector<std::string>& argv);

}  // namespace tputrain::ray
