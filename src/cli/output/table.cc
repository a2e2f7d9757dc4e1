// Tables that fit a terminal: the widest columns give way first, their long cells shortened in
// the middle (a resource name's start and end say the most) or, with --format wide, wrapped
// within the column; the other columns keep their place on every line.
#include <algorithm>
#include <ostream>

#include "output/output.h"
#include "tputrain/core/text.h"

namespace tputrain::cli {
namespace {

constexpr std::size_t kGap = 2;
constexpr char kEllipsis[] = "\u2026";

bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The byte offset after the first `columns` code points of `text`.
std::size_t PrefixBytes(std::string_view text, std::size_t columns) {
  std::size_t at = 0;
  for (std::size_t seen = 0; at < text.size(); ++at) {
    if (!IsContinuation(text[at]) && seen++ == columns) break;
  }
  return at;
}

// `text` in at most `width` columns: its start and its end, an ellipsis between.
std::string Shorten(std::string_view text, std::size_t width) {
  const std::size_t total = DisplayWidth(text);
  if (total <= width) return std::string(text);
  if (width == 0) return "";
  const std::size_t keep = width - 1;
  const std::size_t head = keep / 2;
  const std::size_t tail = keep - head;
  return std::string(text.substr(0, PrefixBytes(text, head))) + kEllipsis +
         std::string(text.substr(PrefixBytes(text, total - tail)));
}

// `text` cut into pieces of at most `width` columns, each ending after a '/', ' ', '|', ',' or
// ':' where one falls in its second half, so that names break between their segments.
std::vector<std::string> Wrap(std::string_view text, std::size_t width) {
  std::vector<std::string> pieces;
  if (width == 0) width = 1;
  while (DisplayWidth(text) > width) {
    std::size_t cut = PrefixBytes(text, width);
    const std::size_t half = PrefixBytes(text, (width + 1) / 2);
    for (std::size_t at = cut; at > half; --at) {
      const char c = text[at - 1];
      if (c == '/' || c == ' ' || c == '|' || c == ',' || c == ':') {
        cut = at;
        break;
      }
    }
    pieces.emplace_back(text.substr(0, cut));
    text.remove_prefix(cut);
  }
  pieces.emplace_back(text);
  return pieces;
}

// The width of each column once the table fits `budget` (the line less its gaps): the widest
// columns are capped at one common width, no column below its header or its own width.
std::vector<std::size_t> FitWidths(const std::vector<std::size_t>& natural, const std::vector<std::size_t>& floors,
                                   std::size_t budget) {
  auto sum_at = [&](std::size_t cap) {
    std::size_t sum = 0;
    for (std::size_t i = 0; i < natural.size(); ++i) sum += std::min(natural[i], std::max(cap, floors[i]));
    return sum;
  };
  std::size_t cap = *std::max_element(natural.begin(), natural.end());
  while (cap > 0 && sum_at(cap) > budget) --cap;
  std::vector<std::size_t> widths(natural.size());
  for (std::size_t i = 0; i < natural.size(); ++i) widths[i] = std::min(natural[i], std::max(cap, floors[i]));
  // What the common cap leaves over goes to the capped columns, left to right.
  std::size_t used = sum_at(cap);
  for (std::size_t i = 0; i < widths.size() && used < budget; ++i) {
    if (widths[i] < natural[i]) {
      ++widths[i];
      ++used;
    }
  }
  return widths;
}

// Without the columns whose every cell is empty: they only take room.
void DropEmptyColumns(std::vector<std::string>& headers, std::vector<std::vector<std::string>>& rows) {
  for (std::size_t i = headers.size(); i-- > 0;) {
    const bool empty = std::all_of(rows.begin(), rows.end(), [i](const std::vector<std::string>& row) {
      return i >= row.size() || row[i].empty();
    });
    if (!empty || rows.empty()) continue;
    headers.erase(headers.begin() + static_cast<std::ptrdiff_t>(i));
    for (auto& row : rows) {
      if (i < row.size()) row.erase(row.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
}

std::size_t NaturalWidth(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  std::size_t total = 0;
  for (std::size_t i = 0; i < headers.size(); ++i) {
    std::size_t width = DisplayWidth(headers[i]);
    for (const auto& row : rows) {
      if (i < row.size()) width = std::max(width, DisplayWidth(row[i]));
    }
    total += width + (i + 1 < headers.size() ? kGap : 0);
  }
  return total;
}

}  // namespace

std::size_t DisplayWidth(std::string_view text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) { return !IsContinuation(c); }));
}

void PrintTable(std::ostream& out, const std::vector<std::string>& headers,
                const std::vector<std::vector<std::string>>& given_rows, const std::vector<std::string>& give_way) {
  // A cell is one line of text, whatever a server put in it (a newline, an escape sequence).
  std::vector<std::vector<std::string>> rows = given_rows;
  for (auto& row : rows) {
    for (auto& cell : row) cell = core::PrintableText(cell);
  }
  const TableLayout layout = TableLayoutOf(out);
  if (layout.width > 0 && NaturalWidth(headers, rows) > layout.width) {
    // A table that has to give way first loses the columns with nothing in them.
    std::vector<std::string> kept_headers = headers;
    std::vector<std::vector<std::string>> kept_rows = rows;
    DropEmptyColumns(kept_headers, kept_rows);
    if (kept_headers.size() < headers.size()) return PrintTable(out, kept_headers, kept_rows, give_way);
  }
  std::vector<std::string> upper;
  for (auto header : headers) {
    std::transform(header.begin(), header.end(), header.begin(), [](unsigned char c) { return std::toupper(c); });
    upper.push_back(header);
  }
  std::vector<std::size_t> widths(headers.size(), 0);
  std::vector<std::size_t> floors(headers.size(), 0);
  for (std::size_t i = 0; i < headers.size(); ++i) widths[i] = floors[i] = DisplayWidth(headers[i]);
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < row.size() && i < widths.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(row[i]));
    }
  }
  const std::size_t gaps = widths.empty() ? 0 : kGap * (widths.size() - 1);
  std::size_t natural = gaps;
  for (auto width : widths) natural += width;
  if (layout.width > 0 && natural > layout.width && !widths.empty()) {
    const std::size_t budget = layout.width > gaps ? layout.width - gaps : 0;
    // The columns that give way first alone, if that is enough.
    std::vector<std::size_t> firm = widths;
    std::size_t firm_sum = 0;
    for (std::size_t i = 0; i < headers.size(); ++i) {
      if (std::find(give_way.begin(), give_way.end(), headers[i]) != give_way.end()) firm[i] = floors[i];
      firm_sum += firm[i];
    }
    widths = FitWidths(widths, !give_way.empty() && firm_sum <= budget ? firm : floors, budget);
  }

  auto print_row = [&](const std::vector<std::string>& cells) {
    // Each cell's lines: one, unless --format wide wraps it.
    std::vector<std::vector<std::string>> lines(widths.size());
    std::size_t height = 1;
    for (std::size_t i = 0; i < widths.size(); ++i) {
      const std::string cell = i < cells.size() ? cells[i] : "";
      lines[i] = layout.wide ? Wrap(cell, widths[i]) : std::vector<std::string>{Shorten(cell, widths[i])};
      height = std::max(height, lines[i].size());
    }
    for (std::size_t n = 0; n < height; ++n) {
      std::string line;
      for (std::size_t i = 0; i < widths.size(); ++i) {
        const std::string& piece = n < lines[i].size() ? lines[i][n] : "";
        line += piece;
        if (i + 1 < widths.size())
          line += std::string(widths[i] - std::min(widths[i], DisplayWidth(piece)) + kGap, ' ');
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      out << line << "\n";
    }
  };
  print_row(upper);
  for (const auto& row : rows) print_row(row);
}

}  // namespace tputrain::cli
