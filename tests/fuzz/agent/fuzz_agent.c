/* libFuzzer target: the agent spec reader (markdown with YAML front
 * matter, perm_agent.c over libyaml).  The input is the YAML between the
 * fences; half the time it is used as the whole file instead, so the
 * fence detection is fuzzed too.  Checked besides memory safety: a spec
 * is either loaded or refused with a message. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "perm_agent.h"
#include "perm_config.h"
#include "../../support/perm_tools.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int whole = data[0] & 1;
    data++;
    size--;
    char *text = malloc(size + 32);
    if (!text)
        return 0;
    size_t n = 0;
    if (!whole) {
        memcpy(text, "---\n", 4);
        n = 4;
    }
    memcpy(text + n, data, size);
    n += size;
    if (!whole) {
        memcpy(text + n, "\n---\nbody\n", 10);
        n += 10;
    }
    text[n] = '\0';

    perm_settings st;
    memset(&st, 0, sizeof st);
    perm_settings_defaults(&st);
    st.workspace = strdup("/tmp");
    st.home = strdup("/root");
    TEST_DECLARE(&st);
    perm_agent *a = NULL;
    char *err = NULL;
    int rc = perm_agent_parse_text("fuzz.md", text, &st, &a, &err);
    if (rc == 0 && !a)
        abort();
    if (rc != 0 && !err)
        abort();  /* every refusal says why */
    perm_agent_free(a);
    free(err);
    perm_settings_free(&st);
    free(text);
    return 0;
}
