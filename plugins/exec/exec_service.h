/* Former names of the service contracts now in <vthost/services.h>, kept
 * only for code not yet moved to the SDK names (remove with the last
 * user). */
#ifndef VTHOST_EXEC_SERVICE_H
#define VTHOST_EXEC_SERVICE_H

#include <vthost/services.h>

#define EXEC_SPLITTER_SERVICE VT_SPLITTER_SERVICE
#define EXEC_SESSIONS_SERVICE VT_SESSIONS_SERVICE
typedef vt_splitter_v1 exec_splitter_v1;
typedef vt_sessions_v1 exec_sessions_v1;

#endif
