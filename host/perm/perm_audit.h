/* The permission audit log: one JSON line per decision appended to
 * <workspace>/.vtcode/audit/permissions.jsonl when audit_enabled. */
#ifndef VTHOST_PERM_AUDIT_H
#define VTHOST_PERM_AUDIT_H

#include <cjson/cJSON.h>

/* Append `record` (a time stamp is added) as one line.  Concurrent
 * writers each append whole lines (one O_APPEND write per record).  A log
 * that is not a regular file beneath the workspace (a link, a FIFO, a
 * hard link) is never written: VT_ERR_IO, after a warning said once. */
int perm_audit_append(const char *workspace, cJSON *record);

#endif
