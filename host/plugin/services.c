/* Named-service registry: a short list, looked up by name. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <vthost/grow.h>
#include <vthost/plugin.h>
#include "services.h"

typedef struct service {
    char *name;
    void *iface;
} service;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static service *items;
static size_t count, cap;

int services_publish(const char *name, void *iface)
{
    if (!name || !*name || !iface)
        return VT_ERR_INVALID;
    pthread_mutex_lock(&lock);
    int rc = VT_OK;
    for (size_t i = 0; i < count; i++)
        if (strcmp(items[i].name, name) == 0)
            rc = VT_ERR_EXISTS;
    if (rc == VT_OK) {
        char *copy = strdup(name);
        if (VT_GROW(&items, &cap, count + 1) != 0 || !copy) {
            free(copy);
            rc = VT_ERR_NOMEM;
        } else {
            items[count].name = copy;
            items[count].iface = iface;
            count++;
        }
    }
    pthread_mutex_unlock(&lock);
    return rc;
}

void *services_lookup(const char *name)
{
    void *r = NULL;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; name && i < count; i++)
        if (strcmp(items[i].name, name) == 0)
            r = items[i].iface;
    pthread_mutex_unlock(&lock);
    return r;
}

void services_clear(void)
{
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < count; i++)
        free(items[i].name);
    free(items);
    items = NULL;
    count = cap = 0;
    pthread_mutex_unlock(&lock);
}
