/* MCP round-trip benchmark: spawns `vthost serve`, initializes, then
 * times N sequential tools/call requests of a cheap read-only call
 * (search_tools on the catalog fixture's 26 tools) and, as the floor of
 * the transport itself, N sequential pings.  Prints calls per second,
 * median and p99 microseconds, and the ratio of a tool call to a ping.
 *
 *   mcp_bench VTHOST CATALOG_DIR [N]          (N defaults to 10000) */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int to_srv, from_srv;
static pid_t server_pid;
static char buf[1 << 20];
static size_t have;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void send_all(const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(to_srv, s, n);
        if (w <= 0) {
            perror("write");
            exit(1);
        }
        s += w;
        n -= (size_t)w;
    }
}

/* Read lines until the response carrying `"id":ID,` arrives
 * (notifications in between are skipped). */
static void await_id(long id)
{
    char want[48];
    int wl = snprintf(want, sizeof want, "{\"jsonrpc\":\"2.0\",\"id\":%ld,", id);
    for (;;) {
        char *nl;
        while ((nl = memchr(buf, '\n', have))) {
            size_t used = (size_t)(nl - buf) + 1;
            int hit = used > (size_t)wl && memcmp(buf, want, (size_t)wl) == 0;
            if (hit && strstr(buf, "\"error\"") && (size_t)(strstr(buf, "\"error\"") - buf) < used) {
                fprintf(stderr, "error response: %.*s\n", (int)used, buf);
                exit(1);
            }
            memmove(buf, nl + 1, have - used);
            have -= used;
            if (hit)
                return;
        }
        if (have == sizeof buf) {
            fprintf(stderr, "response too long\n");
            exit(1);
        }
        ssize_t r = read(from_srv, buf + have, sizeof buf - have);
        if (r <= 0) {
            fprintf(stderr, "server closed the connection\n");
            exit(1);
        }
        have += (size_t)r;
    }
}

/* The server's CPU time so far (user + system, microseconds): a figure
 * that, unlike wall time, a busy machine does not inflate much. */
static double server_cpu_us(void)
{
    char path[64], text[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)server_pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char *p = strrchr(text, ')');
    unsigned long ut = 0, st = 0;
    /* fields after the command name: state is field 3; utime 14, stime 15 */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return 0;
    return (double)(ut + st) * 1e6 / (double)sysconf(_SC_CLK_TCK);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Time n round trips of `fmt` (with one %ld for the id). */
static void run(const char *label, const char *fmt, long *id, int n, double *median_out)
{
    double *lat = malloc(sizeof(double) * (size_t)n);
    char line[512];
    double cpu0 = server_cpu_us();
    double t0 = now_us();
    for (int i = 0; i < n; i++) {
        long my = ++*id;
        /* the id goes where fmt says %ld (fmt itself is no format string to printf) */
        const char *at = strstr(fmt, "%ld");
        int len = at ? snprintf(line, sizeof line, "%.*s%ld%s", (int)(at - fmt), fmt, my, at + 3)
                     : snprintf(line, sizeof line, "%s", fmt);
        double a = now_us();
        send_all(line, (size_t)len);
        await_id(my);
        lat[i] = now_us() - a;
    }
    double total = now_us() - t0;
    double cpu = server_cpu_us() - cpu0;
    qsort(lat, (size_t)n, sizeof *lat, cmp);
    double median = lat[n / 2], p99 = lat[(size_t)n * 99 / 100];
    printf("%-26s %6d round trips: %7.0f calls/s, median %6.1f us, p99 %7.1f us, "
           "server CPU %5.1f us/call\n",
           label, n, n / (total / 1e6), median, p99, cpu / n);
    *median_out = median;
    free(lat);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s VTHOST CATALOG_DIR [N]\n", argv[0]);
        return 2;
    }
    int n = argc > 3 ? atoi(argv[3]) : 10000;
    char ws[] = "/tmp/vthost-bench-XXXXXX";
    if (!mkdtemp(ws)) {
        perror("mkdtemp");
        return 1;
    }
    int in[2], out[2];
    if (pipe(in) || pipe(out))
        return 1;
    pid_t pid = fork();
    server_pid = pid;
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        execl(argv[1], argv[1], "--workspace", ws, "--plugin-dir", argv[2], "serve", (char *)NULL);
        perror("exec vthost");
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    to_srv = in[1];
    from_srv = out[0];

    long id = 0;
    const char *init =
        "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"initialize\",\"params\":"
        "{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{},"
        "\"clientInfo\":{\"name\":\"mcp_bench\",\"version\":\"1\"}}}\n";
    double ignored;
    run("initialize", init, &id, 1, &ignored);
    const char *inited = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n";
    send_all(inited, strlen(inited));

    const char *call =
        "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"tools/call\",\"params\":"
        "{\"name\":\"search_tools\",\"arguments\":{\"query\":\"github pull request\","
        "\"limit\":3,\"detail_level\":\"name\"}}}\n";
    const char *ping = "{\"jsonrpc\":\"2.0\",\"id\":%ld,\"method\":\"ping\"}\n";
    double m_call, m_ping;
    run("warm-up tools/call", call, &id, n / 10 > 0 ? n / 10 : 1, &ignored);
    run("tools/call search_tools", call, &id, n, &m_call);
    run("ping (transport floor)", ping, &id, n, &m_ping);
    printf("tools/call / ping median ratio: %.2fx\n", m_call / m_ping);

    close(to_srv);
    int status = 0;
    waitpid(pid, &status, 0);
    char rm[64];
    snprintf(rm, sizeof rm, "rm -rf %s", ws);
    if (system(rm) != 0)
        return 1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
