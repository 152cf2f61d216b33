/**
 * ToolYard's built-in tools: {@code read_file}, {@code write_file}, {@code list_dir},
 * {@code run_command} and {@code http_fetch}, each a spec and handler the application registers
 * explicitly through {@link dev.toolyard.builtins.BuiltinTools}. {@code http_fetch} reaches the network
 * through OkHttp only, and only to addresses its egress checks allowed. The implementation package
 * {@code dev.toolyard.builtins.internal} is not exported.
 */
module dev.toolyard.builtins {
    requires transitive dev.toolyard.core;
    requires okhttp3;

    exports dev.toolyard.builtins;
}
