# What `tputrain version` reports: build type, compiler and library versions (configure time),
# and the git commit (each build).
set(TPUTRAIN_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated/tputrain)
configure_file(${CMAKE_SOURCE_DIR}/cmake/build_info.h.in ${TPUTRAIN_GENERATED_DIR}/build_info.h @ONLY)
add_custom_target(tputrain_git_commit
  COMMAND ${CMAKE_COMMAND} -DSOURCE_DIR=${CMAKE_SOURCE_DIR} -DOUTPUT=${TPUTRAIN_GENERATED_DIR}/git_commit.h
          -P ${CMAKE_SOURCE_DIR}/cmake/git_commit.cmake
  BYPRODUCTS ${TPUTRAIN_GENERATED_DIR}/git_commit.h
  COMMENT "Reading the git commit for tputrain version")
