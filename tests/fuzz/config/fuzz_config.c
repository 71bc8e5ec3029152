/* Fuzz target for the host's configuration readers.  The first byte
 * picks: even, the rest is a profile (INI, read with inih by
 * profile_parse); odd, the rest is vtcode.toml text, read by the TOML
 * reader and then by the [tools.spool] reader (on a workspace that does
 * not exist, so the age cleanup deletes nothing) and the
 * [tools.anti_blind_editing] reader (its command rules compiled).  Checked besides memory
 * safety: a profile is loaded with tools or refused with a message; the
 * spool reader accepts or names the key it refuses. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "profile.h"
#include "spool_dir.h"
#include "toml_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    char *err = NULL;
    if (!(data[0] & 1)) {
        profile p;
        int rc = profile_parse(text, "fuzz.ini", &p, &err);
        if (rc == 0) {
            if (err || p.ntools == 0 || !p.tools || !p.source)
                abort();
            for (size_t i = 0; i < p.ntools; i++)
                if (!p.tools[i] || !p.tools[i][0])
                    abort();
            for (size_t i = 0; i < p.nmodules; i++)
                if (!p.modules[i])
                    abort();
            profile_free(&p);
        } else if (err && strncmp(err, "fuzz.ini", 8)) {
            abort(); /* a refusal names the file */
        }
    } else {
        cJSON *root = NULL;
        if (toml_read_string(text, "fuzz.toml", &root, &err) == 0) {
            free(err);
            err = NULL;
            int rc = spool_configure("/nonexistent/fuzz-workspace", root, "fuzz.toml", &err);
            if (rc != 0 && (!err || !strstr(err, "tools.spool")))
                abort();
            free(err);
            err = NULL;
            rc = guard_init(root, "/nonexistent/fuzz-workspace", &err);
            if (rc != 0 && !err)
                abort();
            guard_fini();
        }
        cJSON_Delete(root);
    }
    free(err);
    free(text);
    return 0;
}
