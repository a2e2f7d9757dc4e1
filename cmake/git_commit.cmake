# Run at every build (target tputrain_git_commit): writes OUTPUT with the source tree's commit,
# "-dirty" when it has uncommitted changes, or "unknown" outside a git checkout. The header is
# rewritten only when that changes, so an unchanged tree recompiles nothing.
execute_process(COMMAND git -C ${SOURCE_DIR} rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE failed)
if(failed OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git -C ${SOURCE_DIR} diff --quiet HEAD -- RESULT_VARIABLE dirty ERROR_QUIET)
  if(dirty)
    string(APPEND commit "-dirty")
  endif()
endif()
file(WRITE ${OUTPUT}.tmp "#pragma once\nnamespace tputrain::build_info {\ninline constexpr const char* kGitCommit = \"${commit}\";\n}\n")
file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.tmp)
