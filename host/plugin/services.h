/* Named services plugins publish for each other. */
#ifndef VTHOST_SERVICES_H
#define VTHOST_SERVICES_H

int services_publish(const char *name, void *iface);
void *services_lookup(const char *name);
void services_clear(void);

#endif
