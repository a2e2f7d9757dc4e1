#include "man_page.h"

#include <sstream>

namespace tputrain::cli {
namespace {

// Text as roff reads it: a backslash is \e, a leading '.' or '\'' would start a request, and
// "-" is \- so that flags copy and paste as ASCII hyphens.
std::string Roff(const std::string& text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string FlagNames(const CLI::Option& option) {
  std::string names;
  for (const auto& name : option.get_snames()) names += (names.empty() ? "" : ", ") + std::string("-") + name;
  for (const auto& name : option.get_lnames()) names += (names.empty() ? "" : ", ") + std::string("--") + name;
  return names;
}

void Options(std::ostringstream& out, const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_lnames().empty() && option->get_snames().empty() && option->nonpositional()) continue;
    if (option->check_name("--help")) continue;
    out << ".TP\n";
    if (option->nonpositional()) {
      out << "\\fB" << Roff(FlagNames(*option)) << "\\fR";
    } else {
      out << "\\fI" << Roff(option->get_name()) << "\\fR";
    }
    if (option->get_type_size() != 0 && option->nonpositional())
      out << " \\fI" << Roff(option->get_type_name()) << "\\fR";
    out << "\n" << Roff(option->get_description()) << "\n";
  }
}

// A footer's examples and notes, verbatim.
void Footer(std::ostringstream& out, const std::string& footer) {
  if (footer.empty()) return;
  out << ".PP\n.nf\n" << Roff(footer) << "\n.fi\n";
}

void Commands(std::ostringstream& out, const CLI::App& app, const std::string& path) {
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* candidate) {
         return !candidate->get_name().empty() && !candidate->get_group().empty();
       })) {
    const std::string name = path + " " + sub->get_name();
    out << ".SS \"" << Roff(name) << "\"\n" << Roff(sub->get_description()) << "\n";
    Options(out, *sub);
    if (sub->get_footer() != app.get_footer()) Footer(out, sub->get_footer());
    Commands(out, *sub, name);
  }
}

}  // namespace

std::string ManPage(const CLI::App& root, const std::string& version) {
  std::ostringstream out;
  out << ".TH TPUTRAIN 1 \"\" \"tputrain " << Roff(version) << "\" \"User Commands\"\n"
      << ".SH NAME\ntputrain \\- " << Roff(root.get_description()) << "\n"
      << ".SH SYNOPSIS\n\\fBtputrain\\fR [\\fIGLOBAL FLAGS\\fR] \\fICOMMAND\\fR [\\fIFLAGS\\fR] [\\fIARGS\\fR]\n"
      << ".SH DESCRIPTION\n"
      << "tputrain provisions GKE clusters with TPU slice node pools and Cloud TPU VMs, trains models with\n"
         "MaxText as Ray jobs, serves them, and deletes everything a run created. It calls the Google\n"
         "Cloud REST APIs, the Kubernetes API and the Ray dashboard itself. Every command works\n"
         "without a terminal, prints its result on stdout (\\fB\\-\\-format json\\fR for scripts) and\n"
         "progress on stderr.\n"
      << ".SH GLOBAL FLAGS\nAccepted before or after the command name.\n";
  Options(out, root);
  out << ".SH COMMANDS\n";
  Commands(out, root, "tputrain");
  out << ".SH EXAMPLES\n";
  Footer(out, root.get_footer());
  out << ".SH SEE ALSO\n\\fBgcloud\\fR(1), \\fBkubectl\\fR(1), \\fBray\\fR(1)\n";
  return out.str();
}

}  // namespace tputrain::cli
