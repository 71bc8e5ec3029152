/* The exec plugin's command splitter as a service (splitter_service.c). */
#ifndef VTHOST_EXEC_SPLITTER_SERVICE_H
#define VTHOST_EXEC_SPLITTER_SERVICE_H

#include <vthost/plugin.h>

/* The contract to publish as VT_SPLITTER_SERVICE: static, never freed. */
const vt_splitter_v1 *splitter_service(void);

#endif
