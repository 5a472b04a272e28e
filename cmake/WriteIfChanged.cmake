# sc_write_if_changed(FILE CONTENT): FILE holds CONTENT, not rewritten when it does already: a
# reconfigure does not make the install rules copy it again (Package.cmake), and a build whose
# sources did not change relinks nothing (SourceDigestRun.cmake, which runs it in script mode).
function(sc_write_if_changed file content)
  set(old "")
  if(EXISTS ${file})
    file(READ ${file} old)
  endif()
  if(NOT old STREQUAL content)
    file(WRITE ${file} "${content}")
  endif()
endfunction()
