/* Runs a shell command the ws tests build their trees with; the test
 * fails when it does not exit 0. */
#ifndef VTHOST_WS_TEST_SH_H
#define VTHOST_WS_TEST_SH_H

void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
