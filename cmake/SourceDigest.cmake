# sc_source_digest(TARGET): what a workload was built from, compiled into it and answered by
# its --build-info (kernels/buildinfo.c; doc/contracts/results.md, build.json):
#   source_sha256      the SHA-256 of a manifest of "<sha256>  <path>" lines, one per file the
#                      binary is built from (its own sources, those of this project's static
#                      libraries it links, and every header of their folders and of the
#                      header-only libraries, common/'s trace protocol), paths relative
#                      to the source tree, sorted: what `sha256sum` would print over them
#   source_files       how many files the manifest lists
#   source_git_commit  the tree's commit, when it is a git checkout (else "none")
#   source_git_dirty   "yes" when tracked files differ from that commit, "no", or "unknown"
#   compiler_path      the C compiler that ran, symlinks resolved
#   compiler_sha256    its SHA-256
# Computed at build time, every build (a custom target that rewrites the generated file only
# when its text changes, so an unchanged tree relinks nothing): an edited source, a new
# commit or a changed compiler is in the next binary.
set(_SC_DIGEST_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/SourceDigestRun.cmake)

# The project's static and header-only libraries target links, and theirs: into out.
function(_sc_digest_libraries target out)
  set(seen ${${out}})
  get_target_property(libs ${target} LINK_LIBRARIES)
  foreach(lib IN LISTS libs)
    if(TARGET ${lib} AND NOT lib IN_LIST seen)
      get_target_property(type ${lib} TYPE)
      get_target_property(imported ${lib} IMPORTED)
      if(type MATCHES "^(STATIC|INTERFACE)_LIBRARY$" AND NOT imported)
        list(APPEND seen ${lib})
        set(${out} ${seen})
        _sc_digest_libraries(${lib} ${out})
        set(seen ${${out}})
      endif()
    endif()
  endforeach()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

function(sc_source_digest target)
  set(libs "")
  _sc_digest_libraries(${target} libs)
  set(files "")
  foreach(t IN LISTS target libs)
    get_target_property(dir ${t} SOURCE_DIR)
    get_target_property(type ${t} TYPE)
    set(srcs "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY") # a header-only library: its headers below
      get_target_property(srcs ${t} SOURCES)
    endif()
    foreach(src IN LISTS srcs)
      get_filename_component(abs ${src} ABSOLUTE BASE_DIR ${dir})
      if(abs MATCHES "^${PROJECT_SOURCE_DIR}/" AND NOT abs MATCHES "^${PROJECT_BINARY_DIR}/")
        list(APPEND files ${abs})
      endif()
    endforeach()
    file(GLOB headers ${dir}/*.h)
    list(APPEND files ${headers})
  endforeach()
  list(REMOVE_DUPLICATES files)
  list(SORT files)
  get_filename_component(compiler ${CMAKE_C_COMPILER} REALPATH)
  set(out ${CMAKE_CURRENT_BINARY_DIR}/${target}_source.c)
  string(REPLACE ";" "|" files_arg "${files}")
  add_custom_target(${target}_source_digest
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DROOT=${PROJECT_SOURCE_DIR} "-DFILES=${files_arg}"
            -DCOMPILER=${compiler} -P ${_SC_DIGEST_SCRIPT}
    BYPRODUCTS ${out}
    COMMENT "The source digest of ${target}"
    VERBATIM)
  set_source_files_properties(${out} PROPERTIES GENERATED TRUE)
  target_sources(${target} PRIVATE ${out})
  add_dependencies(${target} ${target}_source_digest)
endfunction()
