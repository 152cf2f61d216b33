/**
 * ToolYard's built-in tools. {@code http_fetch} reaches the network through OkHttp only, and only to
 * addresses its egress checks allowed; the implementation lives in {@code dev.toolyard.builtins.internal},
 * which is not exported.
 */
module dev.toolyard.builtins {
    requires transitive dev.toolyard.core;
    requires okhttp3;

    exports dev.toolyard.builtins;
}
