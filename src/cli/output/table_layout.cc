// Where a table's layout comes from (the terminal) and how it travels with the stream.
#include <sys/ioctl.h>

#include <ostream>

#include "output/output.h"

namespace tputrain::cli {
namespace {

// std::ios_base keeps these slots per stream; the indexes are allocated once per process.
int WidthSlot() {
  static const int slot = std::ios_base::xalloc();
  return slot;
}
int WideSlot() {
  static const int slot = std::ios_base::xalloc();
  return slot;
}

}  // namespace

int TerminalColumns(int fd) {
  winsize size{};
  if (ioctl(fd, TIOCGWINSZ, &size) != 0) return 0;
  return size.ws_col;
}

namespace {

std::size_t TerminalWidth(const core::Env& env, bool is_tty, int terminal_columns) {
  if (!is_tty) return 0;
  std::size_t width = terminal_columns > 0 ? static_cast<std::size_t>(terminal_columns) : 80;
  if (auto columns = env.Get("COLUMNS")) {
    try {
      const long value = std::stol(*columns);
      if (value > 0 && value < 100000) width = static_cast<std::size_t>(value);
    } catch (const std::exception&) {
      // Not a number: the terminal's own width stands.
    }
  }
  return width;
}

}  // namespace

std::size_t StdoutWidth(const Context& context) {
  return TerminalWidth(context.env, context.stdout_is_tty, context.stdout_columns);
}

std::size_t StderrWidth(const Context& context) {
  return TerminalWidth(context.env, context.stderr_is_tty, context.stderr_columns);
}

TableLayout TableLayoutFor(const Context& context) {
  TableLayout layout;
  layout.wide = context.global.wide();
  layout.width = StdoutWidth(context);
  return layout;
}

void SetTableLayout(std::ostream& out, const TableLayout& layout) {
  out.iword(WidthSlot()) = static_cast<long>(layout.width);
  out.iword(WideSlot()) = layout.wide ? 1 : 0;
}

TableLayout TableLayoutOf(std::ostream& out) {
  return {static_cast<std::size_t>(std::max(0L, out.iword(WidthSlot()))), out.iword(WideSlot()) != 0};
}

}  // namespace tputrain::cli
