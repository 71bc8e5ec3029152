/* Local file URIs as MCP clients send them in roots/list. */
#ifndef VTHOST_FILE_URI_H
#define VTHOST_FILE_URI_H

/* file:///a%20b -> "/a b" (also file://localhost/...); query and fragment
 * dropped, %XX decoded except %00.  NULL for anything but a local file
 * URI with an absolute path.  Caller frees the result. */
char *file_uri_path(const char *uri);

#endif
