/**
 * ToolYard's isolation ladder: {@code TieredSandbox} runs commands in a container (podman, then
 * docker), else under bubblewrap, else refuses. Implementation details live in
 * {@code dev.toolyard.sandbox.internal}, which is not exported.
 */
module dev.toolyard.sandbox {
    requires transitive dev.toolyard.core;

    exports dev.toolyard.sandbox;
}
