# Run by cpack after the packages are built (CPACK_POST_BUILD_SCRIPTS),
# with VTHOST_DBGSYM only: CPack writes its -dbgsym packages (.ddeb) with
# md5sums that name build-tree paths, no copyright file or changelog, and
# executable .debug files, which lintian refuses.  Each .ddeb is unpacked
# (dpkg-deb -R), given /usr/share/doc/<package>-dbgsym as a link to its
# package's directory (copyright file and changelog), 0644 .debug files
# and md5sums of its own paths, and packed again.
# Input: CPACK_PACKAGE_FILES (from cpack).
find_program(_dpkg_deb dpkg-deb REQUIRED)
foreach(deb IN LISTS CPACK_PACKAGE_FILES)
  if(NOT deb MATCHES "\\.ddeb$")
    continue()
  endif()
  set(root "${deb}.tree")
  file(REMOVE_RECURSE "${root}")
  execute_process(COMMAND "${_dpkg_deb}" -R "${deb}" "${root}" COMMAND_ERROR_IS_FATAL ANY)
  file(STRINGS "${root}/DEBIAN/control" pkg REGEX "^Package: ")
  string(REGEX REPLACE "^Package: " "" pkg "${pkg}")
  # as dh_strip does: the documentation directory is a link to that of
  # the package it depends on (=), which holds the copyright file and
  # changelog; a debug package holds debug files only
  string(REGEX REPLACE "-dbgsym$" "" main "${pkg}")
  file(MAKE_DIRECTORY "${root}/usr/share/doc")
  file(CREATE_LINK "${main}" "${root}/usr/share/doc/${pkg}" SYMBOLIC)
  file(GLOB_RECURSE files LIST_DIRECTORIES false RELATIVE "${root}" "${root}/usr/*")
  list(SORT files)
  set(sums "")
  foreach(f IN LISTS files)
    if(IS_SYMLINK "${root}/${f}")
      continue()
    endif()
    if(f MATCHES "\\.debug$")
      file(CHMOD "${root}/${f}" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
    endif()
    file(MD5 "${root}/${f}" md5)
    string(APPEND sums "${md5}  ${f}\n")
  endforeach()
  file(WRITE "${root}/DEBIAN/md5sums" "${sums}")
  file(CHMOD "${root}/DEBIAN/md5sums" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  file(GLOB_RECURSE dirs LIST_DIRECTORIES true "${root}/usr/*")
  foreach(d IN LISTS dirs)
    if(IS_DIRECTORY "${d}")
      file(CHMOD "${d}" DIRECTORY_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE
           GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
    endif()
  endforeach()
  execute_process(COMMAND "${_dpkg_deb}" --root-owner-group -Zxz --build "${root}" "${deb}"
                  OUTPUT_QUIET COMMAND_ERROR_IS_FATAL ANY)
  file(REMOVE_RECURSE "${root}")
endforeach()
