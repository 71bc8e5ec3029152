/* Media types in Content-Type and Accept headers (RFC 9110 8.3.1,
 * 12.5.1): a type/subtype token compared whole and case-insensitively,
 * parameters after ';' allowed, q=0 meaning "not acceptable".
 * `application/jsonfoo` is not `application/json`. */
#ifndef VTHOST_HTTP_MEDIA_H
#define VTHOST_HTTP_MEDIA_H

/* Whether the Content-Type value `value` (may be NULL) names `type`
 * ("application/json"), parameters aside. */
int http_media_is(const char *value, const char *type);

/* Whether the Accept value `accept` (may be NULL) takes `type`: a range
 * naming it, its main type with a wildcard subtype, or the wildcard of
 * every type, with a q above zero. */
int http_media_accepts(const char *accept, const char *type);

#endif
