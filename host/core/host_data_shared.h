/* The front ends' files that every vthost process of the user masks, not
 * only the one that serves them: a `serve --http` token file given with
 * --token-file is unknown to a stdio `vthost serve` started elsewhere,
 * whose commands could otherwise read it and reach the HTTP server.  Kept
 * in $XDG_STATE_HOME/vthost/front-files (the host's state, itself masked
 * in every sandbox), one absolute path a line, the newest last. */
#ifndef VTHOST_HOST_DATA_SHARED_H
#define VTHOST_HOST_DATA_SHARED_H

/* Remember the absolute `path`.  0, or a negative vt_status (the state
 * directory cannot be written: the path is then masked by this process
 * only). */
int host_data_shared_add(const char *path);

/* Call `each` with every remembered path (absolute). */
void host_data_shared_each(void (*each)(void *ud, const char *path), void *ud);

#endif
