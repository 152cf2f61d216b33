package dev.toolyard.builtins;

/** Planted: a built-in tool class reaching into the sandbox's internals. Only {@code ArchitectureTest} loads it. */
public final class PlantedUseOfSandboxInternals {
    private PlantedUseOfSandboxInternals() {}

    static Class<?> internals() {
        return dev.toolyard.sandbox.internal.BwrapCommand.class;
    }
}
