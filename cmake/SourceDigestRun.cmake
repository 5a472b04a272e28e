# Run by sc_source_digest()'s target (SourceDigest.cmake) at build time:
#   cmake -DOUT=<file.c> -DROOT=<source tree> -DFILES=<a|b|...> -DCOMPILER=<path> -P <this>
# Writes OUT only when its text changes.
string(REPLACE "|" ";" files "${FILES}")
set(manifest "")
set(count 0)
foreach(f IN LISTS files)
  file(SHA256 ${f} sha)
  file(RELATIVE_PATH rel ${ROOT} ${f})
  string(APPEND manifest "${sha}  ${rel}\n")
  math(EXPR count "${count} + 1")
endforeach()
string(SHA256 source_sha ${manifest})

set(commit "none")
set(dirty "unknown")
find_program(_sc_git git)
if(_sc_git)
  execute_process(COMMAND ${_sc_git} -C ${ROOT} rev-parse --verify HEAD
                  OUTPUT_VARIABLE head RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_QUIET)
  if(rc EQUAL 0 AND head MATCHES "^[0-9a-f]+$")
    set(commit ${head})
    execute_process(COMMAND ${_sc_git} -C ${ROOT} status --porcelain --untracked-files=no
                    OUTPUT_VARIABLE changes RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND changes STREQUAL "")
      set(dirty "no")
    elseif(rc EQUAL 0)
      set(dirty "yes")
    endif()
  endif()
endif()
set(compiler_sha "unavailable")
if(EXISTS ${COMPILER})
  file(SHA256 ${COMPILER} compiler_sha)
endif()
string(REPLACE "\\" "\\\\" compiler_c "${COMPILER}")
string(REPLACE "\"" "\\\"" compiler_c "${compiler_c}")

set(text "/* Generated at build time by cmake/SourceDigestRun.cmake: do not edit. */
const char sct_build_source_sha256[] = \"${source_sha}\";
const char sct_build_source_files[] = \"${count}\";
const char sct_build_source_git_commit[] = \"${commit}\";
const char sct_build_source_git_dirty[] = \"${dirty}\";
const char sct_build_compiler_path[] = \"${compiler_c}\";
const char sct_build_compiler_sha256[] = \"${compiler_sha}\";
")
include(${CMAKE_CURRENT_LIST_DIR}/WriteIfChanged.cmake)
sc_write_if_changed(${OUT} "${text}")
