/* ECMA-48 sequences (CSI, OSC, DCS/SOS/PM/APC strings, two- and
 * three-byte ESC sequences) are dropped whole.  8-bit C1 introducers are
 * left alone: in UTF-8 output those bytes are continuation bytes. */
#include "termfilter.h"

enum {
    TF_TEXT = 0,
    TF_CR,      /* after CR: LF follows (CRLF) or the line was redrawn */
    TF_ESC,     /* after ESC */
    TF_ESC_INT, /* ESC + intermediate bytes, waiting for the final byte */
    TF_CSI,     /* ESC [ ... final byte 0x40-0x7E */
    TF_OSC,     /* ESC ] ... BEL or ST */
    TF_STR,     /* ESC P / X / ^ / _ ... ST */
    TF_STR_ESC  /* ESC inside an OSC or string: ST when '\' follows */
};

size_t term_filter_run(term_filter *f, const char *in, size_t len, char *out)
{
    size_t o = 0;
    int st = f->state;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)in[i];
        switch (st) {
        case TF_CR:
            if (c == '\r')
                continue; /* CR CR LF is still one line end */
            out[o++] = '\n';
            st = TF_TEXT;
            if (c == '\n')
                continue;
            /* c starts the next line */
            __attribute__((fallthrough));
        case TF_TEXT:
            if (c == 0x1b)
                st = TF_ESC;
            else if (c == '\r')
                st = TF_CR;
            else if (c != 0x07 && c != 0)
                out[o++] = (char)c;
            break;
        case TF_ESC:
            if (c == '[')
                st = TF_CSI;
            else if (c == ']')
                st = TF_OSC;
            else if (c == 'P' || c == 'X' || c == '^' || c == '_')
                st = TF_STR;
            else if (c >= 0x20 && c <= 0x2f)
                st = TF_ESC_INT;
            else if (c == 0x1b)
                st = TF_ESC;
            else
                st = TF_TEXT;
            break;
        case TF_ESC_INT:
            if (c < 0x20 || c > 0x2f)
                st = TF_TEXT;
            break;
        case TF_CSI:
            if (c >= 0x40 && c <= 0x7e)
                st = TF_TEXT;
            else if (c == 0x1b)
                st = TF_ESC;
            break;
        case TF_OSC:
        case TF_STR:
            if (c == 0x07 && st == TF_OSC)
                st = TF_TEXT;
            else if (c == 0x1b)
                st = TF_STR_ESC;
            break;
        case TF_STR_ESC:
            if (c == '\\')
                st = TF_TEXT;
            else if (c == '[')
                st = TF_CSI; /* an unterminated string cut by a new CSI */
            else if (c != 0x1b)
                st = TF_OSC;
            break;
        }
    }
    f->state = st;
    return o;
}

size_t term_filter_flush(term_filter *f, char *out)
{
    int st = f->state;
    f->state = TF_TEXT;
    if (st == TF_CR) {
        out[0] = '\n';
        return 1;
    }
    return 0;
}
