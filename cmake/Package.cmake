# Package.cmake (included by the top-level CMakeLists.txt): what `cmake --install` puts
# beside the programs for the admin, and the Debian package made from the same install
# rules by CPack (`cpack -G DEB`, or the package target, in a build configured with
# contrib/package/deb.cmake: prefix /usr and Debian's Slurm plugin directory).
#
#   <prefix>/bin/streamcard                          the command      (wrapper/)
#   <prefix>/libexec/streamcard/streamcard-*         the kernels      (kernels/, mpi/)
#   STREAMCARD_SLURM_PLUGINDIR/spank_streamcard*.so  the plugins      (spank/)
#   <prefix>/share/man/man{1,5,8}/                   the man pages    (contrib/man/)
#   <prefix>/share/streamcard/                       cli_filter.lua, streamcard.nhc,
#                                                    streamcard.rules.yml (Prometheus alerts),
#                                                    plugstack.conf (disabled), cards/
#   <prefix>/share/doc/streamcard/                   copyright, changelog.gz

set(_sc_share ${CMAKE_INSTALL_DATADIR}/streamcard)
set(_sc_gen ${PROJECT_BINARY_DIR}/package)
file(MAKE_DIRECTORY ${_sc_gen})
if(IS_ABSOLUTE "${STREAMCARD_SLURM_PLUGINDIR}")
  set(STREAMCARD_FULL_SLURM_PLUGINDIR "${STREAMCARD_SLURM_PLUGINDIR}")
else()
  set(STREAMCARD_FULL_SLURM_PLUGINDIR "${CMAKE_INSTALL_PREFIX}/${STREAMCARD_SLURM_PLUGINDIR}")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/WriteIfChanged.cmake)

# The files below are made from these sources at configure time: an edit reconfigures.
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
  ${PROJECT_SOURCE_DIR}/contrib/slurm/cli_filter.lua ${PROJECT_SOURCE_DIR}/LICENSE
  ${PROJECT_SOURCE_DIR}/contrib/package/plugstack.conf.in)

# The cli_filter calls the installed command unless the admin's copy says otherwise.
file(READ ${PROJECT_SOURCE_DIR}/contrib/slurm/cli_filter.lua _sc_lua)
set(_sc_bin_re "STREAMCARD_BIN_DEFAULT = STREAMCARD_BIN_DEFAULT or \"[^\"\n]*\"")
if(NOT _sc_lua MATCHES "${_sc_bin_re}")
  message(FATAL_ERROR "contrib/slurm/cli_filter.lua: no line "
                      "'STREAMCARD_BIN_DEFAULT = STREAMCARD_BIN_DEFAULT or \"PATH\"' to set")
endif()
string(REGEX REPLACE "${_sc_bin_re}"
       "STREAMCARD_BIN_DEFAULT = STREAMCARD_BIN_DEFAULT or \"${CMAKE_INSTALL_FULL_BINDIR}/streamcard\""
       _sc_lua "${_sc_lua}")
sc_write_if_changed(${_sc_gen}/cli_filter.lua "${_sc_lua}")

# plugstack.conf example naming the installed plugins, every line commented out.
configure_file(${PROJECT_SOURCE_DIR}/contrib/package/plugstack.conf.in
               ${_sc_gen}/plugstack.conf @ONLY)

# /usr/share/doc/streamcard/copyright in Debian's machine-readable format, from LICENSE.
# The license text is LICENSE from its "Permission" paragraph on; blank lines become " .".
file(READ ${PROJECT_SOURCE_DIR}/LICENSE _sc_license)
if(NOT _sc_license MATCHES "Copyright \\(c\\) ([^\n]+)\n")
  message(FATAL_ERROR "LICENSE: no line 'Copyright (c) YEAR HOLDER'")
endif()
set(_sc_holder "${CMAKE_MATCH_1}")
string(FIND "${_sc_license}" "Permission" _sc_at)
string(SUBSTRING "${_sc_license}" ${_sc_at} -1 _sc_license)
string(STRIP "${_sc_license}" _sc_license)
string(REGEX REPLACE "\n\n" "\n.\n" _sc_license "${_sc_license}")
string(REGEX REPLACE "\n" "\n " _sc_license "${_sc_license}")
string(CONCAT _sc_copyright
  "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
  "Upstream-Name: streamcard\n\nFiles: *\nCopyright: ${_sc_holder}\n"
  "License: Expat\n ${_sc_license}\n")
sc_write_if_changed(${_sc_gen}/copyright "${_sc_copyright}")

# The man pages in their sections (component "man": `cmake --install build --component man`
# installs only them) and changelog.gz, compressed as Debian wants them (gzip -9n: no
# name, no time stamp).
find_program(STREAMCARD_GZIP gzip REQUIRED)
set(_sc_gz "")
foreach(_sc_src contrib/man/streamcard.1 contrib/man/streamcard-card.5
                contrib/man/spank_streamcard.8 contrib/man/streamcard-node.8
                contrib/package/changelog)
  get_filename_component(_sc_name ${_sc_src} NAME)
  add_custom_command(OUTPUT ${_sc_gen}/${_sc_name}.gz
    COMMAND ${CMAKE_COMMAND} -E copy ${PROJECT_SOURCE_DIR}/${_sc_src} ${_sc_gen}/${_sc_name}
    COMMAND ${STREAMCARD_GZIP} -9nf ${_sc_gen}/${_sc_name}
    DEPENDS ${PROJECT_SOURCE_DIR}/${_sc_src} VERBATIM)
  list(APPEND _sc_gz ${_sc_gen}/${_sc_name}.gz)
  if(_sc_name MATCHES "\\.([0-9])$")
    install(FILES ${_sc_gen}/${_sc_name}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man${CMAKE_MATCH_1}
            COMPONENT man)
  endif()
endforeach()
add_custom_target(streamcard_compressed_docs ALL DEPENDS ${_sc_gz})

install(FILES ${_sc_gen}/cli_filter.lua ${_sc_gen}/plugstack.conf
              ${PROJECT_SOURCE_DIR}/contrib/nhc/streamcard.nhc
              ${PROJECT_SOURCE_DIR}/contrib/prometheus/streamcard.rules.yml
        DESTINATION ${_sc_share})
file(GLOB _sc_cards ${PROJECT_SOURCE_DIR}/contrib/cards/*.yaml)
install(FILES ${_sc_cards} DESTINATION ${_sc_share}/cards)
install(FILES ${_sc_gen}/copyright ${_sc_gen}/changelog.gz DESTINATION ${CMAKE_INSTALL_DOCDIR})

# --------------------------------------------------------------------- the .deb (CPack)
set(STREAMCARD_PACKAGE_MAINTAINER
    "streamcard maintainers <maintainers@users.noreply.a-seed-8c9670f0.example>"
    CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME streamcard)
set(CPACK_PACKAGE_VENDOR "The streamcard authors")
set(CPACK_PACKAGE_CONTACT "${STREAMCARD_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "reviewable benchmark runs for Slurm clusters")
# The extended description: lines under 80 characters, as Debian's tools show it.
string(CONCAT CPACK_PACKAGE_DESCRIPTION
  "A user writes an experiment card (YAML: workload, CPUs, threads, NUMA node,\n"
  "prefetch, governor, sizes) and submits it with sbatch --stream-card=card.yaml.\n"
  "The SPANK plugin checks the card, binds the job, sets the hardware prefetchers\n"
  "and the cpufreq governor when the site's policy allows it, reads them back and\n"
  "restores them. The streamcard command runs the workload (STREAM, an\n"
  "inner-product search on OpenBLAS, an MPI ping-pong), checks its acceptance\n"
  "gates and seals an evidence bundle; its analysis commands verify, compare,\n"
  "classify, report and export bundles.\n"
  "\n"
  "The package holds the plugin (disabled until the admin adds it to\n"
  "plugstack.conf), the command and its kernels, the man pages, a cli_filter and\n"
  "a Node Health Check under /usr/share/streamcard.")
# Installed where this build was configured to install (the package: /usr).
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # streamcard_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends: the libraries the installed files link (dpkg-shlibdeps: libseccomp2 among them),
# libssl3 (below), man-db (the man pages), adduser (postinst makes the card check's account)
# and, for the plugin, the Slurm series it was built against: a SPANK plugin must match
# the slurmd that loads it (Slurm checks the plugin's major.minor at load time).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libssl3: core/trust/libcrypto.c dlopen's libcrypto.so.3 for signatures, which dpkg-shlibdeps
# does not see; it sees streamcard-pingpong link libcrypto and then names libssl3 itself,
# with its version. So it is named here only when the pingpong is not built: once, never
# "libssl3, libssl3 (>= 3.0.x)" (static.lintian checks Depends for a package named twice).
# libsqlite3-0: wrapper/history_sqlite.c dlopen's libsqlite3.so.0 for the history store, which
# dpkg-shlibdeps does not see either (nothing links it).
set(_sc_depends "man-db, adduser, libsqlite3-0")
if(NOT TARGET streamcard-pingpong)
  string(APPEND _sc_depends ", libssl3")
endif()
if(STREAMCARD_BUILD_PLUGIN AND SLURM_INCLUDE_DIR)
  file(STRINGS ${SLURM_INCLUDE_DIR}/slurm/slurm_version.h _sc_slurm_version
       REGEX "^#define[ \t]+SLURM_VERSION_NUMBER[ \t]+0x[0-9a-fA-F]+")
  if(NOT _sc_slurm_version MATCHES "0x([0-9a-fA-F]+)")
    message(FATAL_ERROR "no SLURM_VERSION_NUMBER in ${SLURM_INCLUDE_DIR}/slurm/slurm_version.h")
  endif()
  math(EXPR _sc_slurm_major "(0x${CMAKE_MATCH_1} >> 16) & 0xff")
  math(EXPR _sc_slurm_minor "(0x${CMAKE_MATCH_1} >> 8) & 0xff")
  math(EXPR _sc_slurm_next "${_sc_slurm_minor} + 1")
  foreach(_sc_v _sc_slurm_minor _sc_slurm_next)
    if(${_sc_v} LESS 10)
      set(${_sc_v} "0${${_sc_v}}")
    endif()
  endforeach()
  string(APPEND _sc_depends ", slurmd (>= ${_sc_slurm_major}.${_sc_slurm_minor})"
                            ", slurmd (<< ${_sc_slurm_major}.${_sc_slurm_next})")
endif()
set(CPACK_DEBIAN_PACKAGE_DEPENDS "${_sc_depends}")
# postinst: the card check's system account streamcard-check (contrib/package/postinst; not
# executable in the tree, where nothing runs it: the strict permission makes it 0755 in the
# package, as Debian's policy wants maintainer scripts).
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/contrib/package/postinst)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
