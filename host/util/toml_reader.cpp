/* vtcode.toml -> cJSON, through toml++.
 *
 * The one C++ file of the host: everything else reads configuration from
 * the cJSON tree built here, in C.  No exception may leave this file, so
 * each entry point catches everything at the boundary. */
#include "toml_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <toml++/toml.h>
#include <vthost/plugin.h>
#include "strutil.h"

namespace {

struct failure {
    int status;
    std::string message;
};

char *dup_c(const std::string &s)
{
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p)
        std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

std::string where(const std::string &name, const toml::source_region &r)
{
    return name + ":" + std::to_string(r.begin.line) + ":" + std::to_string(r.begin.column);
}

/* Read the whole file; distinguishes "missing" from "unreadable" so callers
 * can fall back to the next configuration location only for the former. */
std::optional<failure> slurp(const char *path, std::string &text)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return failure{VT_ERR_NOT_FOUND, std::string(path) + ": no such file"};
        return failure{VT_ERR_IO, std::string(path) + ": " + std::strerror(e)};
    }
    /* Straight into the string, sized by the file (+1 to see the end in
     * one read); not file_read_all, which would stop at a NUL byte that
     * toml++ must see and report. */
    size_t chunk = file_size_hint(f, 4095) + 1;
    size_t n;
    do {
        size_t len = text.size();
        text.resize(len + chunk);
        n = std::fread(&text[len], 1, chunk, f);
        text.resize(len + n);
    } while (n == chunk);
    int bad = std::ferror(f);
    int e = errno;
    std::fclose(f);
    if (bad)
        return failure{VT_ERR_IO, std::string(path) + ": " + std::strerror(e)};
    return std::nullopt;
}

/* Parse `text`; on a syntax error fill `fail` with "NAME:LINE:COL: what". */
std::optional<toml::table> parse(std::string_view text, const std::string &name, failure &fail)
{
#if TOML_EXCEPTIONS
    try {
        return toml::parse(text, name);
    } catch (const toml::parse_error &e) {
        fail = {VT_ERR_INVALID, where(name, e.source()) + ": " + std::string(e.description())};
        return std::nullopt;
    }
#else
    toml::parse_result r = toml::parse(text, name);
    if (!r) {
        const toml::parse_error &e = r.error();
        fail = {VT_ERR_INVALID, where(name, e.source()) + ": " + std::string(e.description())};
        return std::nullopt;
    }
    return std::move(r).table();
#endif
}

cJSON *convert(const toml::node &n, const std::string &name);

/* A string for cJSON: rejected when it holds U+0000, which a C string
 * would silently cut (a shortened permission rule changes its meaning). */
std::string checked(const std::string &s, const toml::source_region &r, const std::string &name)
{
    if (s.find('\0') != std::string::npos)
        throw failure{VT_ERR_INVALID,
                      where(name, r) + ": strings containing U+0000 are not supported"};
    return s;
}

/* Dates and times as toml++ prints them (RFC 3339: fractions without
 * trailing zeros, "Z" for a zero offset), written with snprintf: toml++'s
 * printer takes the whole iostream machinery into the reader module,
 * which would then be most of its size (the cases are in
 * tests/unit/util/test_toml_reader.c, checked against toml++'s printer). */
std::string iso(const toml::date &d)
{
    char b[24];
    std::snprintf(b, sizeof b, "%04u-%02u-%02u", unsigned{d.year}, unsigned{d.month},
                  unsigned{d.day});
    return b;
}

std::string iso(const toml::time &t)
{
    char b[40];
    int n = std::snprintf(b, sizeof b, "%02u:%02u:%02u", unsigned{t.hour}, unsigned{t.minute},
                          unsigned{t.second});
    if (t.nanosecond && t.nanosecond <= 999999999u) {
        unsigned ns = t.nanosecond;
        int digits = 9;
        while (ns % 10u == 0u) {
            ns /= 10u;
            digits--;
        }
        std::snprintf(b + n, sizeof b - static_cast<size_t>(n), ".%0*u", digits, ns);
    }
    return b;
}

std::string iso(const toml::time_offset &o)
{
    if (!o.minutes)
        return "Z";
    int mins = o.minutes;
    char b[16];
    std::snprintf(b, sizeof b, "%c%02d:%02d", mins < 0 ? '-' : '+', std::abs(mins) / 60,
                  std::abs(mins) % 60);
    return b;
}

std::string iso(const toml::date_time &dt)
{
    std::string s = iso(dt.date) + "T" + iso(dt.time);
    if (dt.offset)
        s += iso(*dt.offset);
    return s;
}

cJSON *convert_table(const toml::table &t, const std::string &name)
{
    /* toml++ keeps keys sorted; show members in the order the file has them */
    std::vector<std::pair<const toml::key *, const toml::node *>> members;
    for (auto &&[k, v] : t)
        members.emplace_back(&k, &v);
    std::stable_sort(members.begin(), members.end(), [](const auto &a, const auto &b) {
        const auto &ra = a.first->source().begin, &rb = b.first->source().begin;
        return ra.line != rb.line ? ra.line < rb.line : ra.column < rb.column;
    });
    cJSON *obj = cJSON_CreateObject();
    if (!obj)
        throw std::bad_alloc();
    for (auto &[k, v] : members) {
        std::string key;
        try {
            key = checked(std::string(k->str()), k->source(), name);
        } catch (...) {
            cJSON_Delete(obj);
            throw;
        }
        cJSON *child = nullptr;
        try {
            child = convert(*v, name);
        } catch (...) {
            cJSON_Delete(obj);
            throw;
        }
        if (!cJSON_AddItemToObject(obj, key.c_str(), child)) {
            cJSON_Delete(child);
            cJSON_Delete(obj);
            throw std::bad_alloc();
        }
    }
    return obj;
}

cJSON *convert_array(const toml::array &a, const std::string &name)
{
    cJSON *arr = cJSON_CreateArray();
    if (!arr)
        throw std::bad_alloc();
    for (const toml::node &e : a) {
        cJSON *child = nullptr;
        try {
            child = convert(e, name);
        } catch (...) {
            cJSON_Delete(arr);
            throw;
        }
        if (!cJSON_AddItemToArray(arr, child)) {
            cJSON_Delete(child);
            cJSON_Delete(arr);
            throw std::bad_alloc();
        }
    }
    return arr;
}

cJSON *convert(const toml::node &n, const std::string &name)
{
    cJSON *out = nullptr;
    if (const toml::table *t = n.as_table())
        return convert_table(*t, name);
    if (const toml::array *a = n.as_array())
        return convert_array(*a, name);
    if (auto s = n.as_string())
        out = cJSON_CreateString(checked(s->get(), n.source(), name).c_str());
    else if (auto i = n.as_integer())
        /* integers beyond 2^53 lose precision as JSON numbers; no setting
         * this host reads needs them */
        out = cJSON_CreateNumber(static_cast<double>(i->get()));
    else if (auto f = n.as_floating_point())
        out = cJSON_CreateNumber(f->get());
    else if (auto b = n.as_boolean())
        out = cJSON_CreateBool(b->get());
    else if (auto d = n.as_date())
        out = cJSON_CreateString(iso(d->get()).c_str());
    else if (auto tm = n.as_time())
        out = cJSON_CreateString(iso(tm->get()).c_str());
    else if (auto dt = n.as_date_time())
        out = cJSON_CreateString(iso(dt->get()).c_str());
    else
        out = cJSON_CreateNull();
    if (!out)
        throw std::bad_alloc();
    return out;
}

int report(const failure &f, char **err)
{
    if (err)
        *err = dup_c(f.message);
    return f.status;
}

int read_text(std::string_view text, const std::string &name, cJSON **out, char **err)
{
    failure fail{0, {}};
    std::optional<toml::table> t = parse(text, name, fail);
    if (!t)
        return report(fail, err);
    *out = convert_table(*t, name);
    return 0;
}

/* The parsed file at `path`, or a status. */
int load(const char *path, std::optional<toml::table> &t)
{
    std::string text;
    if (auto f = slurp(path, text))
        return f->status;
    failure fail{0, {}};
    t = parse(text, path, fail);
    return t ? 0 : fail.status;
}

/* Runs `body` with every exception turned into a status (and message). */
template <typename F> int guarded(char **err, F &&body)
{
    try {
        return body();
    } catch (const failure &f) {
        return report(f, err);
    } catch (const std::bad_alloc &) {
        return report({VT_ERR_NOMEM, "out of memory reading TOML"}, err);
    } catch (const std::exception &e) {
        return report({VT_ERR_INTERNAL, std::string("TOML reader: ") + e.what()}, err);
    } catch (...) {
        return report({VT_ERR_INTERNAL, "TOML reader: unexpected failure"}, err);
    }
}

} // namespace

extern "C" int toml_read_string(const char *text, const char *name, cJSON **out, char **err)
{
    if (out)
        *out = nullptr;
    if (err)
        *err = nullptr;
    if (!text || !out)
        return VT_ERR_INVALID;
    return guarded(err, [&] { return read_text(text, name ? name : "<string>", out, err); });
}

extern "C" int toml_read_file(const char *path, cJSON **out, char **err)
{
    if (out)
        *out = nullptr;
    if (err)
        *err = nullptr;
    if (!path || !out)
        return VT_ERR_INVALID;
    return guarded(err, [&] {
        std::string text;
        if (auto f = slurp(path, text))
            return report(*f, err);
        return read_text(text, path, out, err);
    });
}

extern "C" int toml_key_line(const char *path, const char *dotted_key, int *line)
{
    int column;
    return line ? toml_key_position(path, dotted_key, line, &column) : VT_ERR_INVALID;
}

extern "C" int toml_array_item_line(const char *path, const char *dotted_key, int index, int *line)
{
    if (!path || !dotted_key || !line || index < 0)
        return VT_ERR_INVALID;
    return guarded(nullptr, [&] {
        std::optional<toml::table> t;
        if (int rc = load(path, t))
            return rc;
        const toml::array *a = toml::at_path(std::as_const(*t), dotted_key).as_array();
        if (!a || static_cast<size_t>(index) >= a->size())
            return static_cast<int>(VT_ERR_NOT_FOUND);
        *line = static_cast<int>((*a)[static_cast<size_t>(index)].source().begin.line);
        return 0;
    });
}

extern "C" int toml_key_position(const char *path, const char *dotted_key, int *line, int *column)
{
    if (!path || !dotted_key || !line || !column)
        return VT_ERR_INVALID;
    return guarded(nullptr, [&] {
        std::optional<toml::table> t;
        if (int rc = load(path, t))
            return rc;
        toml::node_view<const toml::node> v = toml::at_path(std::as_const(*t), dotted_key);
        if (!v)
            return static_cast<int>(VT_ERR_NOT_FOUND);
        *line = static_cast<int>(v.node()->source().begin.line);
        *column = static_cast<int>(v.node()->source().begin.column);
        return 0;
    });
}
