/* Libraries opened by soname on first use instead of linked: libffi
 * (typed tools only) and libyaml (agent files only) in the host, and for
 * plugins through api->open_library.  Mapping a shared
 * library costs a start a few hundred microseconds whether or not it is
 * used; most starts use neither.  The build records each soname
 * (vthost_opened_library in CMakeLists.txt) and the package depends on
 * the library by name. */
#ifndef VTHOST_OPENED_LIB_H
#define VTHOST_OPENED_LIB_H

#include <vthost/plugin.h>

typedef vt_library_symbol opened_sym;

/* Open `soname` (never closed) and fill every slot of `syms` (ended by a
 * NULL name).  Returns 0, or VT_ERR_UNSUPPORTED with every slot NULL and
 * *err (malloc'd) naming the library and what failed.  Not thread-safe:
 * call it under pthread_once.  Also api->open_library. */
int opened_lib_bind(const char *soname, const opened_sym *syms, char **err);

#endif
