/* The subject list a tool's permission hook fills. */
#ifndef VTHOST_SUBJECTS_H
#define VTHOST_SUBJECTS_H

#include <stddef.h>
#include <vthost/plugin.h>

typedef struct subject {
    vt_subject_kind kind;
    char *value;
} subject;

struct vt_subjects {
    subject *items;
    size_t count, cap;
};

void subjects_init(vt_subjects *s);
int subjects_add(vt_subjects *s, vt_subject_kind kind, const char *value);
void subjects_free(vt_subjects *s);
const char *subject_kind_name(vt_subject_kind kind);

#endif
