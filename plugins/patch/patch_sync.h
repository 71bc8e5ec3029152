/* Making a patch's writes durable, and knowing when the filesystem does
 * it without being asked. */
#ifndef VTPATCH_SYNC_H
#define VTPATCH_SYNC_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

/* fsync each file or directory in rels (or, where fds is given and
 * fds[i] >= 0, that open descriptor), several at once so the filesystem
 * can commit them together.  Returns the first error. */
int fs_sync_paths(int root, char *const *rels, const int *fds, size_t n, char **err);

/* What is known of one filesystem (by device), filled on first use. */
typedef struct fs_order_cache {
    dev_t dev;
    int known;
    int need; /* fs_sync_need's answer */
} fs_order_cache;

/* What a crash can do to a file staged on fd's filesystem: */
enum {
    /* a file not synced can be found empty or torn: sync before rename */
    FS_SYNC_ALWAYS = 0,
    /* renaming over an existing file is committed only after the
     * renamed file's data is on disk, so a crash leaves the old content
     * or the new one even without an fsync: ext4 with a journal in
     * data=ordered or data=journal mode and auto_da_alloc (the
     * defaults).  A file under a new name still needs the sync. */
    FS_RENAME_ORDERED = 1,
    /* nothing outlives a crash (tmpfs, ramfs): no sync is of any use */
    FS_VOLATILE = 2,
};
/* One of the above for fd's filesystem; FS_SYNC_ALWAYS when it cannot
 * be told. */
int fs_sync_need(int fd, fs_order_cache *c);
/* Close what fs_sync_need keeps between patches (the judgement
 * of each filesystem, kept until the mount table changes). */
void fs_order_fini(void);

/* Whether a file staged on a filesystem of kind `need` (above) must
 * be synced before its rename; `replaces`: it goes over an existing file
 * of the same name (an update in place, not an added file or a move). */
int fs_sync_wanted(int need, int replaces);

/* A staged file that will be synced and is at least this large is
 * written in slices of FS_KICK_SLICE bytes, each handed to the disk as
 * soon as it is in the page cache: the sync before the rename then waits
 * for the last slice only, not for the whole file. */
#define FS_KICK_MIN (1u << 20)
#define FS_KICK_SLICE (1u << 20)

/* Write every piece to fd, in as few system calls as the kernel allows;
 * with slice > 0, at most `slice` bytes a call, each started on its way
 * to the disk (sync_file_range, no wait) once written.  0 or -1 with
 * errno. */
int fs_writev_all(int fd, const struct iovec *iov, size_t n, size_t slice);

/* The test behind FS_RENAME_ORDERED, on the text of a
 * /proc/self/mountinfo for the device maj:min: 1 when that device is
 * mounted as ext4 without data=writeback or noauto_da_alloc. */
int fs_mountinfo_ordered(const char *mountinfo, unsigned maj, unsigned min);

#endif
