/* Of the files a verification run changed, which are the project's
 * sources rather than its build output (guard_output.c). */
#ifndef VTHOST_GUARD_OUTPUT_H
#define VTHOST_GUARD_OUTPUT_H

#include <stddef.h>

/* `paths` (n workspace-relative paths, borrowed) are what a run changed
 * outside the tools' and build directories.  Returns how many are
 * sources: not a directory, not build output by name (.o, .a, .so, ...)
 * or by content (ELF, ar), not ignored by the .gitignore files of their
 * directories; a changed .gitignore always counts.  Up to `max_sources`
 * of them are put in sources[] (pointers into `paths`).  A NULL
 * `workspace` counts every path. */
size_t guard_output_sources(const char *workspace, char *const *paths, size_t n,
                            const char **sources, size_t max_sources);

#endif
