/* Text shown to a person (a terminal prompt, an MCP elicitation, a log
 * line, a listing): what is shown must be what the bytes are, so nothing
 * in a command or a file name can move the cursor, erase a line, reorder
 * the text or hide itself. */
#ifndef VTHOST_TEXT_ESCAPE_H
#define VTHOST_TEXT_ESCAPE_H

enum text_escape_flag {
    /* keep '\n' as a line break (text whose lines are its structure);
     * without it a newline is written \n, so one subject stays one line */
    TEXT_KEEP_NEWLINES = 1u,
    /* with TEXT_KEEP_NEWLINES: two spaces after each kept newline, so no
     * line after the first can pass for a line of its own (a message that
     * quotes a name holding "\nvthost: ..." on standard error) */
    TEXT_INDENT_LINES = 2u,
};

/* `s` with C0 controls (tab included; newline too unless
 * TEXT_KEEP_NEWLINES), ESC, CR, DEL, C1 controls, bytes that are not
 * UTF-8, and invisible or bidirectional format characters
 * (Unicode categories Cc, Cf, Zl, Zp: U+200B-U+200F, U+202A-U+202E,
 * U+2066-U+2069, U+FEFF, ...) written as visible escapes: \t \r \n,
 * \x1b (a byte), \u202E (a code point).  A backslash stays as it is.
 * Returns a malloc'd string (the caller frees it), or NULL when `s` is
 * NULL or memory runs out. */
char *text_escape(const char *s, unsigned flags);

/* 1 when text_escape would change `s`. */
int text_needs_escape(const char *s, unsigned flags);

#endif
