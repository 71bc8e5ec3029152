/* Workspace file access that cannot leave the workspace: every open goes
 * through openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS) from the root
 * directory descriptor (an O_NOFOLLOW walk where openat2 is missing), and
 * every change is made through the parent directory's descriptor. */
#ifndef VTPATCH_FS_H
#define VTPATCH_FS_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Check a patch path and normalise it to a workspace-relative path
 * ("a/./b" -> "a/b").  Refuses empty, absolute, '..' leaving the root,
 * control characters.  *err is malloc'd on refusal. */
int fs_path_check(const char *path, char **norm, char **err);

/* Refuse rel when an existing component of it is a symbolic link,
 * saying where the link leads (outside the workspace: VT_ERR_OUTSIDE;
 * inside: VT_ERR_DENIED) so the refusal comes before any approval is
 * asked.  root_path is the workspace's path (to resolve the link's
 * target).  Not race-free: the writes stay confined by fs_open_beneath;
 * this only refuses early what they would refuse anyway.  0 when no
 * symlink is on the way; *err is malloc'd on refusal. */
int fs_link_check(int root, const char *root_path, const char *rel, char **err);

/* Open `rel` beneath the directory `root` without following symlinks
 * anywhere.  Returns a descriptor or -1 with errno (ELOOP: a symlink). */
int fs_open_beneath(int root, const char *rel, int flags, mode_t mode);
/* Use the O_NOFOLLOW walk even where openat2 exists (for tests). */
void fs_force_walk(int on);

/* Read a regular file into *data (NUL-terminated; free it with
 * pbuf_free, patch_buf.h).  VT_ERR_NOT_FOUND when missing; other
 * refusals (symlink, directory, not regular) set *err. */
int fs_read(int root, const char *rel, char **data, size_t *len, mode_t *mode, char **err);

/* 0 when nothing exists at rel (and no symlink on the existing part of
 * the way); VT_ERR_EXISTS when something does; else an error in *err. */
int fs_absent(int root, const char *rel, char **err);

/* A directory created by fs_write (so a rollback can remove it). */
typedef struct fs_created_dirs {
    char **v;
    size_t n, cap;
} fs_created_dirs;

/* Write `data` to rel through a synced temporary file in the same
 * directory, renamed into place.  mode < 0 keeps the umask default.
 * With noreplace the rename fails if rel appeared meanwhile.  Missing
 * parent directories are created and recorded in `dirs` (may be NULL
 * when they must exist). */
int fs_write(int root, const char *rel, const char *data, size_t len, int mode, int noreplace,
             fs_created_dirs *dirs, char **err);
int fs_unlink(int root, const char *rel, char **err);

/* Parent directories opened during one commit, reused by later steps
 * (patches usually touch few directories).  Zero-initialise. */
typedef struct fs_dircache {
    char *dir[16];
    int fd[16];
    size_t n, next;
} fs_dircache;
void fs_dircache_free(fs_dircache *c);

/* Two-phase writing for a whole patch: stage every new content as a
 * temporary file beside its target (*tmp_rel, malloc'd), sync the ones
 * that need it together (patch_sync.h), then publish (rename) each into
 * place.  fs_discard removes
 * a staged file that will not be published.  `cache` may be NULL; with
 * keep_fd non-NULL the staged file stays open for fs_sync_paths.  The
 * content is the pieces of `iov` in order; `kick` as fs_writev_all's
 * `slice` (patch_sync.h): 0, or the file will be synced. */
int fs_stage(int root, const char *rel, const struct iovec *iov, size_t niov, int mode, size_t kick,
             fs_created_dirs *dirs, fs_dircache *cache, char **tmp_rel, int *keep_fd, char **err);
int fs_publish(int root, const char *tmp_rel, const char *rel, int noreplace, fs_dircache *cache,
               char **err);
void fs_discard(int root, const char *tmp_rel);
/* Remove the recorded directories, newest first (only if empty). */
void fs_remove_dirs(int root, fs_created_dirs *dirs);
void fs_created_dirs_free(fs_created_dirs *dirs);

#endif
