#include <dlfcn.h>
#include <stddef.h>
#include "opened_lib.h"
#include "strutil.h"

int opened_lib_bind(const char *soname, const opened_sym *syms, char **err)
{
    dlerror();
    void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    const char *missing = NULL;
    for (const opened_sym *s = syms; h && !missing && s->name; s++)
        if (!(*s->slot = dlsym(h, s->name)))
            missing = s->name;
    if (h && !missing)
        return 0;
    const char *why = dlerror();
    for (const opened_sym *s = syms; s->name; s++)
        *s->slot = NULL;
    if (h)
        dlclose(h);
    *err = missing ? str_printf("%s has no symbol %s", soname, missing)
                   : str_printf("cannot open %s: %s (install the package that ships it)", soname,
                                why ? why : "dlopen failed");
    return VT_ERR_UNSUPPORTED;
}
