/* Placeholder renderer: pretty JSON.  Replaced by the diff renderer. */
#include <stdlib.h>
#include "render.h"

void render_normalize_diff(cJSON *response) { (void)response; }

char *render_text(const char *tool, const cJSON *response)
{
    (void)tool;
    return cJSON_Print(response);
}
