/* Runs a libFuzzer entry point without libFuzzer: each corpus file given
 * on the command line, then pseudo-random mutations of them (fixed seed,
 * so a failure reproduces).  Used when the compiler is not clang; the
 * sanitizer build turns any memory error into a failure. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    *len = b ? fread(b, 1, n > 0 ? (size_t)n : 0, f) : 0;
    fclose(f);
    return b;
}

int main(int argc, char **argv)
{
    int rounds = 2000;
    const char *env = getenv("VTHOST_FUZZ_ROUNDS");
    if (env)
        rounds = atoi(env);
    unsigned char buf[8192];
    for (int i = 1; i < argc; i++) {
        size_t len = 0;
        unsigned char *seed = slurp(argv[i], &len);
        if (!seed) {
            fprintf(stderr, "cannot read %s\n", argv[i]);
            return 1;
        }
        LLVMFuzzerTestOneInput(seed, len);
        for (int r = 0; r < rounds / (argc - 1); r++) {
            size_t n = len < sizeof buf ? len : sizeof buf;
            memcpy(buf, seed, n);
            int edits = 1 + (int)(next() % 8);
            for (int e = 0; e < edits; e++) {
                uint64_t x = next();
                switch (x % 4) {
                case 0: if (n) buf[(x >> 8) % n] = (unsigned char)(x >> 32); break;
                case 1: if (n) n = (size_t)((x >> 8) % n); break;            /* truncate */
                case 2: if (n < sizeof buf) buf[n++] = (unsigned char)(x >> 16); break;
                case 3: if (n > 1) { size_t a = (x >> 8) % n, b = (x >> 24) % n;
                                     unsigned char t = buf[a]; buf[a] = buf[b]; buf[b] = t; }
                        break;
                }
            }
            LLVMFuzzerTestOneInput(buf, n);
        }
        free(seed);
    }
    printf("ran %d inputs\n", rounds + argc - 1);
    return 0;
}
