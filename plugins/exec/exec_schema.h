/* The exec_command tool's texts for its descriptor. */
#ifndef VTHOST_EXEC_SCHEMA_H
#define VTHOST_EXEC_SCHEMA_H

extern const char EXEC_DESC_UNIX[]; /* the unix_like profile's description */
extern const char EXEC_DESC_PWSH[]; /* the powershell profile's */
extern const char EXEC_SCHEMA[];    /* the input schema (JSON) */

#endif
