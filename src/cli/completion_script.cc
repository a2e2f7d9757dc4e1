// The shell scripts `tputrain completion SHELL` prints: each asks `tputrain __complete` for the
// candidates and a directive (:files, :dirs, :none), so the shells share one completer.
#include "completion.h"

namespace tputrain::cli {

std::string CompletionScript(const std::string& shell) {
  if (shell == "bash") {
    return R"(# bash completion for tputrain: source <(tputrain completion bash)
_tputrain() {
  local cur=${COMP_WORDS[COMP_CWORD]} line directive=":none"
  local -a out=()
  while IFS= read -r line; do
    if [[ $line == :* ]]; then directive=$line; else out+=("$line"); fi
  done < <("${COMP_WORDS[0]}" __complete "$cur" "${COMP_WORDS[@]:1:COMP_CWORD-1}" 2>/dev/null)
  COMPREPLY=()
  case $directive in
    :files) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null ;;
    :dirs) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null ;;
    *) COMPREPLY=("${out[@]}") ;;
  esac
}
complete -F _tputrain tputrain
)";
  }
  if (shell == "zsh") {
    return R"(#compdef tputrain
# zsh completion for tputrain: source <(tputrain completion zsh), or save it as _tputrain in $fpath
_tputrain() {
  local -a lines candidates
  lines=("${(@f)$(${words[1]} __complete "${words[CURRENT]}" "${(@)words[2,CURRENT-1]}" 2>/dev/null)}")
  local directive=${lines[-1]}
  candidates=("${(@)lines[1,-2]}")
  case $directive in
    :files) _files ;;
    :dirs) _files -/ ;;
    *) compadd -- "${candidates[@]}" ;;
  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _tputrain "$@"; else compdef _tputrain tputrain; fi
)";
  }
  if (shell == "fish") {
    return R"(# fish completion for tputrain: tputrain completion fish | source
function __tputrain_complete
  set -l words (commandline -opc)
  set -l out (tputrain __complete (commandline -ct) $words[2..-1] 2>/dev/null)
  switch $out[-1]
    case :files
      __fish_complete_path (commandline -ct)
    case :dirs
      __fish_complete_directories (commandline -ct)
    case '*'
      printf '%s\n' $out[1..-2]
  end
end
complete -c tputrain -f -a '(__tputrain_complete)'
)";
  }
  return "";
}

}  // namespace tputrain::cli
