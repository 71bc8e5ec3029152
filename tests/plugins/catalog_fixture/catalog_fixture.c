/* A "third-party" plugin with a realistic catalog of deferred tools (issue
 * trackers, pull requests, databases, browsers, ...) for search_tools and
 * front-end tests.  Every tool echoes its call: {"ok":true,"tool","args"}.
 * The tool table is also linked directly into unit tests, hence extern. */
#include <vthost/plugin.h>

static VT_PLUGIN_API(g_api);

static int fixture_run(vt_call *call, const cJSON *args, cJSON **result)
{
    cJSON *r = cJSON_CreateObject();
    if (!r)
        return g_api->call_error(call, VT_ERR_NOMEM, "out of memory");
    cJSON_AddBoolToObject(r, "ok", 1);
    cJSON_AddStringToObject(r, "tool", g_api->call_tool(call));
    cJSON_AddItemToObject(r, "args", args ? cJSON_Duplicate(args, 1) : cJSON_CreateObject());
    *result = r;
    return 0;
}

#define RO (VT_EFFECT_READ_ONLY | VT_EFFECT_NETWORK)
#define RW (VT_EFFECT_NETWORK)
#define TOOL(n, d, eff, schema) \
    { .name = n, .description = d, .input_schema = schema, .effects = eff, \
      .flags = VT_TOOL_DEFERRED, .run = fixture_run }
#define OBJ(props, req) \
    "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req "]," \
    "\"additionalProperties\":false}"
#define P(name, type, desc) "\"" name "\":{\"type\":\"" type "\",\"description\":\"" desc "\"}"
#define REPO P("owner", "string", "Account or organisation that owns the repository.") "," \
             P("repo", "string", "Repository name.")

const vt_tool catalog_fixture_tools[] = {
    /* ---- issue trackers ---- */
    TOOL("github_create_issue",
         "Create a new issue in a GitHub repository with a title, body and labels.", RW,
         OBJ(REPO "," P("title", "string", "Issue title.") ","
             P("body", "string", "Issue text in Markdown.") ","
             "\"labels\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
             "\"description\":\"Labels to apply.\"}",
             "\"owner\",\"repo\",\"title\"")),
    TOOL("github_search_issues",
         "Search GitHub issues by keywords, state, label or assignee.", RO,
         OBJ(P("q", "string", "Search keywords and qualifiers.") ","
             P("state", "string", "open, closed or all."),
             "\"q\"")),
    TOOL("jira_create_ticket",
         "Create a Jira ticket (story, bug or task) in a project backlog.", RW,
         OBJ(P("project_key", "string", "Jira project key, e.g. OPS.") ","
             P("summary", "string", "One-line summary of the ticket.") ","
             P("issue_type", "string", "Story, Bug or Task."),
             "\"project_key\",\"summary\"")),
    TOOL("jira_transition_ticket",
         "Move a Jira ticket to another workflow status such as In Progress or Done.", RW,
         OBJ(P("ticket", "string", "Ticket key, e.g. OPS-123.") ","
             P("status", "string", "Target workflow status."),
             "\"ticket\",\"status\"")),
    TOOL("linear_list_issues",
         "List the issues of a Linear team, filtered by cycle, state or assignee.", RO,
         OBJ(P("team", "string", "Linear team key.") ","
             P("state", "string", "Workflow state name."),
             "\"team\"")),
    /* ---- pull requests / code review ---- */
    TOOL("github_create_pull_request",
         "Open a GitHub pull request from a head branch into a base branch.", RW,
         OBJ(REPO "," P("head", "string", "Branch with the changes.") ","
             P("base", "string", "Branch to merge into.") ","
             P("title", "string", "Pull request title."),
             "\"owner\",\"repo\",\"head\",\"base\",\"title\"")),
    TOOL("github_list_pull_requests",
         "List the open or closed pull requests of a GitHub repository.", RO,
         OBJ(REPO "," P("state", "string", "open, closed or all."),
             "\"owner\",\"repo\"")),
    TOOL("github_review_pull_request",
         "Submit a review on a GitHub pull request: approve it, request changes or comment on the diff.", RW,
         OBJ(REPO "," P("pull_number", "integer", "Number of the pull request.") ","
             P("event", "string", "APPROVE, REQUEST_CHANGES or COMMENT.") ","
             P("body", "string", "Review comment."),
             "\"owner\",\"repo\",\"pull_number\",\"event\"")),
    TOOL("github_merge_pull_request",
         "Merge a GitHub pull request with a merge commit, squash or rebase.", RW,
         OBJ(REPO "," P("pull_number", "integer", "Number of the pull request.") ","
             P("merge_method", "string", "merge, squash or rebase."),
             "\"owner\",\"repo\",\"pull_number\"")),
    TOOL("gitlab_comment_merge_request",
         "Add a comment to a GitLab merge request discussion.", RW,
         OBJ(P("project", "string", "GitLab project path.") ","
             P("merge_request_iid", "integer", "Merge request number within the project.") ","
             P("body", "string", "Comment text."),
             "\"project\",\"merge_request_iid\",\"body\"")),
    /* ---- databases ---- */
    TOOL("postgres_query",
         "Run a read-only SQL query against a PostgreSQL database and return the rows.", RO,
         OBJ(P("sql", "string", "SELECT statement to run.") ","
             P("database", "string", "Database name."),
             "\"sql\"")),
    TOOL("postgres_list_tables",
         "List the tables and views of a PostgreSQL schema.", RO,
         OBJ(P("schema", "string", "Schema name, default public."), "")),
    TOOL("mysql_describe_table",
         "Describe the columns, types and indexes of a MySQL table.", RO,
         OBJ(P("table", "string", "Table name.") "," P("database", "string", "Database name."),
             "\"table\"")),
    TOOL("sqlite_execute",
         "Execute an SQL statement on a local SQLite database file.", RW,
         OBJ(P("path", "string", "Path of the SQLite database file.") ","
             P("sql", "string", "SQL statement."),
             "\"path\",\"sql\"")),
    TOOL("redis_get_key",
         "Read the value stored under a key in a Redis cache.", RO,
         OBJ(P("key", "string", "Redis key."), "\"key\"")),
    TOOL("mongodb_find_documents",
         "Find documents in a MongoDB collection matching a filter.", RO,
         OBJ(P("collection", "string", "Collection name.") ","
             P("filter", "object", "MongoDB query filter document."),
             "\"collection\"")),
    /* ---- browsers ---- */
    TOOL("browser_navigate",
         "Open a URL in the headless browser tab and wait for the page to load.", RO,
         OBJ(P("url", "string", "Address of the web page."), "\"url\"")),
    TOOL("browser_screenshot",
         "Take a PNG screenshot of the current browser page or one element.", RO,
         OBJ(P("selector", "string", "CSS selector of the element; whole page when omitted."), "")),
    TOOL("browser_click",
         "Click an element of the current browser page by CSS selector.", RW,
         OBJ(P("selector", "string", "CSS selector of the element to click."), "\"selector\"")),
    TOOL("browser_fill_form",
         "Type values into the input fields of a web form and optionally submit it.", RW,
         OBJ("\"fields\":{\"type\":\"object\",\"description\":\"Map of CSS selector to value.\"},"
             P("submit", "boolean", "Submit the form afterwards."),
             "\"fields\"")),
    /* ---- chat, cloud, monitoring, calendars ---- */
    TOOL("slack_post_message",
         "Post a message to a Slack channel or thread.", RW,
         OBJ(P("channel", "string", "Channel name or id.") ","
             P("text", "string", "Message text.") ","
             P("thread_ts", "string", "Timestamp of the thread to reply in."),
             "\"channel\",\"text\"")),
    TOOL("docker_list_containers",
         "List Docker containers with their image, status and ports.", RO,
         OBJ(P("all", "boolean", "Include stopped containers."), "")),
    TOOL("kubernetes_get_pods",
         "Get the pods of a Kubernetes namespace with their phase and restarts.", RO,
         OBJ(P("namespace", "string", "Kubernetes namespace."), "")),
    TOOL("s3_upload_object",
         "Upload a workspace file to an Amazon S3 bucket.", RW,
         OBJ(P("bucket", "string", "Bucket name.") "," P("key", "string", "Object key.") ","
             P("path", "string", "Workspace file to upload."),
             "\"bucket\",\"key\",\"path\"")),
    TOOL("sentry_list_errors",
         "List recent error events and stack traces reported to Sentry for a project.", RO,
         OBJ(P("project", "string", "Sentry project slug.") ","
             P("since", "string", "ISO 8601 start time."),
             "\"project\"")),
    TOOL("calendar_create_event",
         "Create a calendar event with attendees, start and end time.", RW,
         OBJ(P("title", "string", "Event title.") "," P("start", "string", "ISO 8601 start.") ","
             P("end", "string", "ISO 8601 end."),
             "\"title\",\"start\",\"end\"")),
    {0},
};

static const vt_plugin fixture_plugin = {
    VT_PLUGIN_HEADER,
    .name = "catalog_fixture",
    .version = "1.0.0",
    .license = "MIT",
    .api_slot = &g_api,
    .tools = catalog_fixture_tools,
};

VT_PLUGIN_ENTRY(fixture_plugin)
