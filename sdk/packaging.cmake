# Debian packages (cpack -G DEB in the build directory), one per install
# component:
#   vthost                    bin/vthost, profiles, man page, docs
#   vthost-dev                plugin.h, pkg-config and CMake files, examples
#   vthost-plugin-<name>      one per plugin module that was built
# A plugin needs a host that speaks its ABI: the host Provides
# vthost-abi-<major> (= <major>.<minor>) and each plugin Depends on
# vthost-abi-<major> (>= <major>.<minor>), since a host accepts plugins
# built against its own or an older minor of the same major.
# Included from the top-level CMakeLists.txt: CPack must be set up there.

file(STRINGS "${CMAKE_SOURCE_DIR}/sdk/include/vthost/plugin.h" _vt_abi
     REGEX "^#define VT_ABI_(MAJOR|MINOR) +[0-9]+")
string(REGEX REPLACE ".*VT_ABI_MAJOR +([0-9]+).*" "\\1" _vt_abi_major "${_vt_abi}")
string(REGEX REPLACE ".*VT_ABI_MINOR +([0-9]+).*" "\\1" _vt_abi_minor "${_vt_abi}")
set(_vt_abi_pkg "vthost-abi-${_vt_abi_major}")
set(_vt_ver "${PROJECT_VERSION}")

set(CPACK_PACKAGE_NAME "vthost")
set(CPACK_PACKAGE_VERSION "${_vt_ver}")
# No CPACK_PACKAGE_DESCRIPTION_SUMMARY: CPack would prefix it to every
# package's description.  Each description below is plain text, first
# line the synopsis, an empty line between paragraphs; CPack indents it
# into Debian control form.
# The Maintainer field and the changelog's trailer (VTHOST_MAINTAINER is
# defined in sdk/CMakeLists.txt; a distribution sets its own).
set(CPACK_PACKAGE_CONTACT "${VTHOST_MAINTAINER}")
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
# One source for all of them (the Source field), so that tools such as
# lintian see them as one build: a -dbgsym package's documentation link
# points into a package of the same source.
set(CPACK_DEBIAN_PACKAGE_SOURCE vthost)
# Stripped binaries.  Their debug symbols go to <package>-dbgsym (.ddeb)
# only on request; CPack writes those without a documentation directory
# and with md5sums of build-tree paths, which debian/dbgsym_fixup.cmake
# mends after the build so that lintian passes them like the others.
option(VTHOST_DBGSYM "also build <package>-dbgsym packages with the debug symbols" OFF)
if(VTHOST_DBGSYM)
  set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
  set(CPACK_POST_BUILD_SCRIPTS "${CMAKE_SOURCE_DIR}/sdk/debian/dbgsym_fixup.cmake")
else()
  set(CPACK_STRIP_FILES ON)
endif()
# 0755 directories whatever the builder's umask: the host refuses plugin
# directories that others can write.
set(CPACK_INSTALL_DEFAULT_DIRECTORY_PERMISSIONS
    OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
    WORLD_READ WORLD_EXECUTE)
# Library dependencies (libcjson1, libpcre2-8-0, ...) come from the
# binaries themselves when dpkg-shlibdeps is available.
find_program(VTHOST_DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(VTHOST_FILE_PROGRAM file)
if(VTHOST_DPKG_SHLIBDEPS AND VTHOST_FILE_PROGRAM)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
endif()

# Only what was built is packaged; a build with plugins switched off
# simply has fewer packages.
set(_vt_components host dev)
foreach(p IN LISTS VTHOST_ALL_PLUGINS)
  if(TARGET vtplugin_${p})
    string(REPLACE "_" "-" _dash "${p}")
    list(APPEND _vt_components "plugin-${_dash}")
  endif()
endforeach()
set(CPACK_COMPONENTS_ALL ${_vt_components})

# ---- vthost ---------------------------------------------------------------
set(CPACK_DEBIAN_HOST_PACKAGE_NAME "vthost")
set(CPACK_DEBIAN_HOST_PACKAGE_PROVIDES "${_vt_abi_pkg} (= ${_vt_abi_major}.${_vt_abi_minor})")
# The default profile's modules: apt installs them with the host unless
# told not to; without them the default profile says which are missing.
set(CPACK_DEBIAN_HOST_PACKAGE_RECOMMENDS
    "vthost-plugin-exec, vthost-plugin-stdin, vthost-plugin-patch, vthost-plugin-search-tools, vthost-plugin-mcp-providers")
set(CPACK_DEBIAN_HOST_PACKAGE_SUGGESTS "vthost-plugin-code-search, vthost-dev")
set(CPACK_COMPONENT_HOST_DESCRIPTION
"tool host for coding agents
vthost gives a coding agent its model-facing tools (exec_command,
write_stdin, apply_patch, search_tools, code_search) as plugin modules,
chosen by a profile and guarded by a permission engine, over the Model
Context Protocol (stdio) or from the command line.

This package holds the host, its profiles and documentation. The tools
themselves are in the vthost-plugin-* packages.")

# ---- vthost-dev -----------------------------------------------------------
set(CPACK_DEBIAN_DEV_PACKAGE_NAME "vthost-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
# Headers, pkg-config and CMake files only: the same on every architecture.
set(CPACK_DEBIAN_DEV_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_DEV_DEBUGINFO_PACKAGE OFF)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libcjson-dev")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "pkg-config")
set(CPACK_DEBIAN_DEV_PACKAGE_SUGGESTS "vthost (>= ${_vt_ver})")
set(CPACK_COMPONENT_DEV_DESCRIPTION
"SDK for vthost tool plugins
The plugin header vthost/plugin.h (plugin ABI ${_vt_abi_major}.${_vt_abi_minor}), the
pkg-config module vthost-plugin, the CMake package vthost-plugin and an
example plugin with a typed tool and a full tool.")

# ---- vthost-plugin-* ------------------------------------------------------
set(_vt_plugin_depends "vthost (>= ${_vt_ver}), ${_vt_abi_pkg} (>= ${_vt_abi_major}.${_vt_abi_minor})")
set(_vt_desc_exec "run commands and interactive sessions (exec_command)")
set(_vt_desc_stdin "write to sessions of exec_command (write_stdin)")
set(_vt_desc_patch "apply patches to workspace files (apply_patch)")
set(_vt_desc_search_tools "find the deferred tools of other plugins (search_tools)")
set(_vt_desc_code_search "bounded search for definitions, usages, text (code_search)")
set(_vt_desc_mcp_providers "other MCP servers' tools as deferred mcp__server__tool tools")
foreach(p IN LISTS VTHOST_ALL_PLUGINS)
  string(REPLACE "_" "-" _dash "${p}")
  string(TOUPPER "PLUGIN-${_dash}" _C)
  set(CPACK_DEBIAN_${_C}_PACKAGE_NAME "vthost-plugin-${_dash}")
  set(CPACK_DEBIAN_${_C}_PACKAGE_DEPENDS "${_vt_plugin_depends}")
  set(CPACK_COMPONENT_${_C}_DESCRIPTION
"vthost plugin: ${_vt_desc_${p}}
The ${p}.so module for vthost, the tool host for coding agents. The
host loads it when the active profile names it; otherwise its tools are
deferred, found through search_tools.")
endforeach()
# write_stdin drives the sessions exec publishes (service exec.sessions),
# so it needs the exec module of the same build.
string(APPEND CPACK_DEBIAN_PLUGIN-STDIN_PACKAGE_DEPENDS ", vthost-plugin-exec (= ${_vt_ver})")
# Libraries opened by soname on first use are not linked, so
# dpkg-shlibdeps cannot see them: name their packages here.
string(APPEND CPACK_DEBIAN_PLUGIN-SEARCH-TOOLS_PACKAGE_DEPENDS ", ${VTHOST_STEMMER_DEB_PACKAGE}")
string(APPEND CPACK_DEBIAN_PLUGIN-EXEC_PACKAGE_DEPENDS ", ${VTHOST_SECCOMP_DEB_PACKAGE}")
# One string: two arguments would make a CMake list, whose ';' breaks the
# control file.
set(CPACK_DEBIAN_HOST_PACKAGE_DEPENDS "${VTHOST_FFI_DEB_PACKAGE}, ${VTHOST_YAML_DEB_PACKAGE}, \
${VTHOST_PCRE2_DEB_PACKAGE}, ${VTHOST_MHD_DEB_PACKAGE}, ${VTHOST_CRYPTO_DEB_PACKAGE}, \
${VTHOST_CURL_DEB_PACKAGE}, ${VTHOST_INIH_DEB_PACKAGE}")

# Stripped as Debian's dh_strip does: strip(1) leaves the compiler's
# .comment section (from the C runtime's start files too, so -fno-ident
# cannot avoid it), which lintian reports as binary-has-unneeded-section.
# Runs last in every component's install (CMP0082: in declaration order),
# on the files that install wrote (the manifest names them without
# DESTDIR), only when stripping (cpack with
# CPACK_STRIP_FILES, cmake --install --strip) or for -dbgsym packages.
find_program(VTHOST_OBJCOPY NAMES ${CMAKE_OBJCOPY} objcopy)
if(VTHOST_OBJCOPY)
  install(CODE "
    set(_vt_dbgsym ${VTHOST_DBGSYM})
    if(CMAKE_INSTALL_DO_STRIP OR _vt_dbgsym)
      foreach(_m IN LISTS CMAKE_INSTALL_MANIFEST_FILES)
        set(_f \"\$ENV{DESTDIR}\${_m}\")
        if(EXISTS \"\${_f}\" AND NOT IS_SYMLINK \"\${_f}\" AND NOT IS_DIRECTORY \"\${_f}\")
          file(READ \"\${_f}\" _magic LIMIT 4 HEX)
          if(_magic STREQUAL \"7f454c46\")
            execute_process(COMMAND \"${VTHOST_OBJCOPY}\" --remove-section=.comment
                                    \"\${_f}\" RESULT_VARIABLE _rc)
            if(NOT _rc EQUAL 0)
              message(FATAL_ERROR \"objcopy --remove-section=.comment \${_f} failed\")
            endif()
          endif()
        endif()
      endforeach()
    endif()" ALL_COMPONENTS)
endif()

include(CPack)
