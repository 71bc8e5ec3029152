/* CPU per access log line (http_log_write), written to /dev/null.  Not a
 * ctest test.  Built by hand against a build tree:
 *
 *   gcc -O2 -Ihost/http -Ihost/util -Isdk/include tests/bench/http/log_bench.c \
 *       build/host/libvthost_http.a build/host/libvthost_util.a -lcjson -lm -o /tmp/log_bench
 *   /tmp/log_bench
 */
#include <stdio.h>
#include <time.h>
#include "http_log.h"

int main(void)
{
    enum { LINES = 200000 };
    if (http_log_open("/dev/null") != 0)
        return 1;
    http_log_entry e = {.remote = "127.0.0.1",
                        .method = "POST",
                        .path = "/mcp",
                        .status = 200,
                        .session = "39d78c3c19c1a41e537e35ff7fa7874e",
                        .rpc = "tools/call",
                        .tool = "search_tools",
                        .decision = "allow",
                        .ms = 0.3};
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    for (int i = 0; i < LINES; i++)
        http_log_write(&e);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    printf("%.2f us CPU per access log line\n", ns / LINES / 1e3);
    http_log_close();
    return 0;
}
