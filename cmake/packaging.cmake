# Installation and the Debian package. `cmake --install` puts the binaries in bin/ (tputrain and
# tputrain-emulator, which `tputrain emulator start` finds beside it), the example scripts and the
# templates' sources in share/doc/tputrain (tputrain has the templates compiled in and never reads
# these: they are a start for a --template-dir of one's own), and the man page and completion
# scripts, which the build generates by running the binary itself (`__man`, `completion SHELL`),
# in the standard places. `cpack -G DEB` packages the same tree; its Depends come from
# dpkg-shlibdeps, i.e. the Debian runtime libraries the binaries link.
set(TPUTRAIN_DOC_DIR ${CMAKE_BINARY_DIR}/generated/doc)
set(tputrain_generated
    ${TPUTRAIN_DOC_DIR}/tputrain.1 ${TPUTRAIN_DOC_DIR}/tputrain.bash ${TPUTRAIN_DOC_DIR}/_tputrain
    ${TPUTRAIN_DOC_DIR}/tputrain.fish)
add_custom_command(
  OUTPUT ${tputrain_generated}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${TPUTRAIN_DOC_DIR}
  COMMAND sh -c "\"$0\" __man > \"$1\"/tputrain.1" $<TARGET_FILE:tputrain> ${TPUTRAIN_DOC_DIR}
  COMMAND sh -c "for s in bash zsh fish; do \"$0\" completion $s > \"$1\"/completion.$s || exit 1; done" $<TARGET_FILE:tputrain> ${TPUTRAIN_DOC_DIR}
  COMMAND ${CMAKE_COMMAND} -E rename ${TPUTRAIN_DOC_DIR}/completion.bash ${TPUTRAIN_DOC_DIR}/tputrain.bash
  COMMAND ${CMAKE_COMMAND} -E rename ${TPUTRAIN_DOC_DIR}/completion.zsh ${TPUTRAIN_DOC_DIR}/_tputrain
  COMMAND ${CMAKE_COMMAND} -E rename ${TPUTRAIN_DOC_DIR}/completion.fish ${TPUTRAIN_DOC_DIR}/tputrain.fish
  DEPENDS tputrain
  COMMENT "Generating tputrain's man page and completion scripts from the command tree"
  VERBATIM)
add_custom_target(tputrain_docs ALL DEPENDS ${tputrain_generated})

install(TARGETS tputrain tputrain-emulator RUNTIME DESTINATION bin)
install(DIRECTORY templates/ DESTINATION share/doc/tputrain/templates)
install(DIRECTORY examples/ DESTINATION share/doc/tputrain/examples USE_SOURCE_PERMISSIONS)
install(FILES data/stack.schema.json DESTINATION share/tputrain)
install(FILES ${TPUTRAIN_DOC_DIR}/tputrain.1 DESTINATION share/man/man1)
install(FILES ${TPUTRAIN_DOC_DIR}/tputrain.bash DESTINATION share/bash-completion/completions RENAME tputrain)
install(FILES ${TPUTRAIN_DOC_DIR}/_tputrain DESTINATION share/zsh/vendor-completions)
install(FILES ${TPUTRAIN_DOC_DIR}/tputrain.fish DESTINATION share/fish/vendor_completions.d)

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tputrain)
set(CPACK_PACKAGE_VENDOR tputrain)
set(CPACK_PACKAGE_CONTACT "tputrain maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "From nothing to a trained or served LLM on Cloud TPUs, and back")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)  # the build's debug info would make the package ~50 MB
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# tputrain opens libcurl when it first sends and libarchive when it packs a build context
# (dlopen: src/http/curl_library.cc, src/archive/archive_library.cc): dpkg-shlibdeps cannot see
# them in the ELF header, so the package names them.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4 (>= 7.85.0), libarchive13 (>= 3.4)")
include(CPack)
