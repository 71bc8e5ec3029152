/* Identity, not spelling: a program file the command could have put
 * where it runs (a copy or a hard link of a denied program, under any
 * name) is recognised by what it is.  Same file: device and inode; a
 * copy: same size and the same bytes.  Results are cached per file
 * version (device, inode, size, modification time). */
#ifndef VTHOST_EXEC_EXECWATCH_IDENT_H
#define VTHOST_EXEC_EXECWATCH_IDENT_H

typedef struct ew_ident ew_ident;

/* The files of `names` (NULL-terminated base names of the programs denied
 * whatever their arguments, or NULL) in the directories of `path_env`
 * and the system's program directories.  *out NULL when there are none.
 * 0 or VT_ERR_NOMEM. */
int ew_ident_new(const char *const *names, const char *path_env, ew_ident **out);
void ew_ident_free(ew_ident *id);

/* The denied name the open file `fd` is (borrowed from id), or NULL.
 * Thread-safe. */
const char *ew_ident_match(ew_ident *id, int fd);

#endif
