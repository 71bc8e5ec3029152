/* libFuzzer target: the apply_patch parser, and for inputs that parse,
 * the matcher, line-ending handling and diff rendering against a fixed
 * file (Update ops) or from scratch (Add ops). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "patch_apply.h"
#include "patch_parse.h"

static const char sample[] =
    "alpha\r\nbeta\n\xe2\x80\x9cgamma\xe2\x80\x9d \xe2\x80\x94 delta\n  indented  \n"
    "\n-x\n+y\n ctx\nend\rlast";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    patch p;
    char *err = NULL;
    if (patch_parse((const char *)data, size, &p, &err) != 0) {
        if (!err)
            abort(); /* every refusal must say why */
        free(err);
        return 0;
    }
    for (size_t i = 0; i < p.nops; i++) {
        file_result r;
        if (p.ops[i].kind == PATCH_UPDATE) {
            char *why = NULL;
            if (apply_update(&p, &p.ops[i], p.ops[i].path, sample, sizeof sample - 1, &r, &why) == 0) {
                /* The result always ends with a line ending. */
                if (file_result_flatten(&r) != 0)
                    abort();
                if (r.size && r.data[r.size - 1] != '\n' && r.data[r.size - 1] != '\r')
                    abort();
                file_result_free(&r);
            } else {
                free(why);
            }
        } else if (p.ops[i].kind == PATCH_ADD) {
            if (apply_add(&p, &p.ops[i], &r) == 0)
                file_result_free(&r);
        }
    }
    patch_free(&p);
    return 0;
}
