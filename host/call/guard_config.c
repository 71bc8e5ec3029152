/* [tools.anti_blind_editing] of vtcode.toml, read and checked, and the
 * verification commands that apply when it names none. */
#include "guard_config.h"

#include <stdarg.h>
#include <vthost/plugin.h>
#include "strutil.h"

#define GUARD_DEFAULT_THRESHOLD 4
#define GUARD_DEFAULT_MAX_ENTRIES 100000

static const char *const default_rules[] = {"make",
                                            "gmake",
                                            "ninja",
                                            "ctest",
                                            "cmake --build",
                                            "meson test",
                                            "meson compile",
                                            "cargo check",
                                            "cargo build",
                                            "cargo test",
                                            "cargo clippy",
                                            "cargo nextest",
                                            "go build",
                                            "go test",
                                            "go vet",
                                            "npm test",
                                            "npm run test",
                                            "npm run lint",
                                            "npm run build",
                                            "npm run check",
                                            "pnpm test",
                                            "pnpm run test",
                                            "pnpm lint",
                                            "pnpm run lint",
                                            "pnpm build",
                                            "pnpm run build",
                                            "yarn test",
                                            "yarn run test",
                                            "yarn lint",
                                            "yarn run lint",
                                            "yarn build",
                                            "yarn run build",
                                            "npx tsc",
                                            "npx eslint",
                                            "npx jest",
                                            "npx vitest",
                                            "tsc",
                                            "eslint",
                                            "jest",
                                            "vitest",
                                            "pytest",
                                            "py.test",
                                            "python -m pytest",
                                            "python3 -m pytest",
                                            "python -m unittest",
                                            "python3 -m unittest",
                                            "ruff check",
                                            "mypy",
                                            "tox",
                                            "nox",
                                            "mvn test",
                                            "mvn verify",
                                            "mvn package",
                                            "mvn compile",
                                            "mvn install",
                                            "mvnw test",
                                            "mvnw verify",
                                            "mvnw package",
                                            "mvnw compile",
                                            "mvnw install",
                                            "gradle test",
                                            "gradle build",
                                            "gradle check",
                                            "gradlew test",
                                            "gradlew build",
                                            "gradlew check",
                                            "dotnet test",
                                            "dotnet build",
                                            "swift test",
                                            "swift build",
                                            "zig build",
                                            "deno test",
                                            "bun test",
                                            "mix test",
                                            "rspec",
                                            "bundle exec rspec",
                                            "rake test",
                                            "phpunit",
                                            NULL};

static int failf(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int failf(char **err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    *err = str_vprintf(fmt, ap);
    va_end(ap);
    return VT_ERR_INVALID;
}

static int add_rule_array(guard_rules *rules, const cJSON *arr, const char *key, char **err)
{
    if (!cJSON_IsArray(arr))
        return failf(err, "[tools.anti_blind_editing] %s must be an array of strings", key);
    const cJSON *it;
    cJSON_ArrayForEach(it, arr)
    {
        if (!cJSON_IsString(it))
            return failf(err, "[tools.anti_blind_editing] %s must be an array of strings", key);
        int rc = guard_rules_add(rules, it->valuestring, err);
        if (rc)
            return rc;
    }
    return 0;
}

static int read_bool(const cJSON *sec, const char *key, int *out, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sec, key);
    if (!v)
        return 0;
    if (!cJSON_IsBool(v))
        return failf(err, "[tools.anti_blind_editing] %s must be true or false", key);
    *out = cJSON_IsTrue(v);
    return 0;
}

static int read_count(const cJSON *sec, const char *key, double max, double *out, char **err)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sec, key);
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 1 && v->valuedouble <= max) ||
        v->valuedouble != (double)(long)v->valuedouble)
        return failf(err, "[tools.anti_blind_editing] %s must be an integer of at least 1", key);
    *out = v->valuedouble;
    return 0;
}

int guard_settings_read(const cJSON *config, guard_settings *s, char **err)
{
    const cJSON *tools = cJSON_GetObjectItemCaseSensitive(config, "tools");
    const cJSON *sec = cJSON_GetObjectItemCaseSensitive(tools, "anti_blind_editing");
    if (sec && !cJSON_IsObject(sec))
        return failf(err, "[tools.anti_blind_editing] must be a table");
    s->enabled = 1;
    s->detect = 1;
    s->require_success = 0;
    double threshold = GUARD_DEFAULT_THRESHOLD, entries = GUARD_DEFAULT_MAX_ENTRIES;
    int rc = read_bool(sec, "enabled", &s->enabled, err);
    if (!rc)
        rc = read_bool(sec, "require_success", &s->require_success, err);
    if (!rc)
        rc = read_bool(sec, "detect_shell_edits", &s->detect, err);
    if (!rc)
        rc = read_count(sec, "max_unverified_mutations", 1e9, &threshold, err);
    if (!rc)
        rc = read_count(sec, "max_snapshot_entries", 1e8, &entries, err);
    s->threshold = (long)threshold;
    s->max_entries = (size_t)entries;
    if (!rc)
        rc = guard_rules_new(&s->rules);
    const cJSON *rules = cJSON_GetObjectItemCaseSensitive(sec, "verification_commands");
    if (!rc && rules)
        rc = add_rule_array(s->rules, rules, "verification_commands", err);
    for (size_t i = 0; !rc && !rules && default_rules[i]; i++)
        rc = guard_rules_add(s->rules, default_rules[i], err);
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(sec, "additional_verification_commands");
    if (!rc && extra)
        rc = add_rule_array(s->rules, extra, "additional_verification_commands", err);
    return rc;
}
