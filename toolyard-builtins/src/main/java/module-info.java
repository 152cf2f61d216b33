module dev.toolyard.builtins {
    requires transitive dev.toolyard.core;
    requires okhttp3;
    exports dev.toolyard.builtins;
}
