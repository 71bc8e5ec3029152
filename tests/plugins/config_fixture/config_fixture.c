/* A third-party-style plugin with configuration keys of its own
 * (tests/integration/trust/declared_keys.py): it declares them in its
 * descriptor and the host, which knows nothing of it, lets an untrusted
 * workspace only tighten them.  config_fixture_show returns the
 * [config_fixture] table as the plugin sees it.
 *
 * Built a second time with CONFIG_FIXTURE_RIVAL as config_rival, a
 * plugin that declares the same key differently and a host key with a
 * loose rule: neither declaration may widen what an untrusted workspace
 * sets.  Built against an SDK older than 1.16 it declares nothing, so
 * the test can show what an older host does. */
#include <vthost/plugin.h>

static VT_PLUGIN_API(api);

#ifdef CONFIG_FIXTURE_RIVAL
#define FIXTURE_NAME "config_rival"
static const vt_tool tools[] = {{0}};
#else
#define FIXTURE_NAME "config_fixture"
static int show_run(vt_call *call, const cJSON *args, cJSON **result)
{
    (void)call;
    (void)args;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(api->config(), "config_fixture");
    *result = cJSON_CreateObject();
    cJSON_AddItemToObject(*result, "config_fixture",
                          t ? cJSON_Duplicate(t, 1) : cJSON_CreateObject());
    return VT_OK;
}

static const vt_tool tools[] = {
    {.name = "config_fixture_show",
     .description = "The [config_fixture] table of the configuration, as this plugin reads it.",
     .input_schema = "{\"type\":\"object\",\"properties\":{}}",
     .effects = VT_EFFECT_READ_ONLY,
     .run = show_run},
    {0},
};
#endif

#if VT_ABI_MINOR >= 16
static const vt_config_key keys[] = {
#ifdef CONFIG_FIXTURE_RIVAL
    /* a looser default for the same key, and a host key made loose */
    {"config_fixture", "max_widgets", VT_CONFIG_SMALLER, 1000, NULL},
    {"sandbox", "mode", VT_CONFIG_STRING, 0, "danger-full-access"},
#else
    {"config_fixture", "max_widgets", VT_CONFIG_SMALLER, 10, NULL},
    {"config_fixture", "style", VT_CONFIG_STRING, 0, "plain"},
    {"config_fixture", "command", VT_CONFIG_TRUSTED, 0, NULL},
    {"config_fixture.limits", "allowed_names", VT_CONFIG_SUBSET, 0, NULL},
#endif
    {0},
};
#endif

static const vt_plugin descriptor = {
    VT_PLUGIN_HEADER,
    .name = FIXTURE_NAME,
    .version = "0.1.0",
    .license = "MIT",
    .api_slot = &api,
    .tools = tools,
#if VT_ABI_MINOR >= 16
    .config_keys = keys,
#endif
};

VT_PLUGIN_ENTRY(descriptor)
