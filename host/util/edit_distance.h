/* Edit distance for "did you mean" suggestions (tool names, config keys). */
#ifndef VTHOST_EDIT_DISTANCE_H
#define VTHOST_EDIT_DISTANCE_H

#include <stddef.h>

/* What each edit costs.  A substitution that only changes case costs
 * case_change; any other substitution, insertion or deletion costs edit;
 * with transpose, swapping two neighbours costs edit too. */
typedef struct edit_costs {
    size_t case_change;
    size_t edit;
    int transpose;
} edit_costs;

/* Weighted distance between a and b, or (size_t)-1 when either is longer
 * than EDIT_DISTANCE_MAX bytes (a suggestion for it would be noise). */
#define EDIT_DISTANCE_MAX 64
size_t edit_distance(const char *a, const char *b, const edit_costs *c);

#endif
