/**
 * ToolClad manifests ({@code .clad.toml}) as typed ToolYard tools: the model fills typed parameters,
 * each is validated and normalised, and the argv (or HTTP request) is built from the manifest's
 * template, so the dangerous action cannot be expressed. Commands run on the sandbox's isolation
 * ladder, requests go through {@code http_fetch}'s egress checks. The implementation package
 * {@code dev.toolyard.contracts.internal} is not exported.
 */
module dev.toolyard.contracts {
    requires transitive dev.toolyard.core;
    requires transitive dev.toolyard.builtins;
    requires tools.jackson.dataformat.toml;
    requires com.networknt.schema;
    requires java.xml;
    requires okhttp3;

    exports dev.toolyard.contracts;
}
