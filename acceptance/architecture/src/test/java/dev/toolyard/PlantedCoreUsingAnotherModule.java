package dev.toolyard;

/** Planted: a core class that knows the sandbox module. Only {@code ArchitectureTest} loads it. */
public final class PlantedCoreUsingAnotherModule {
    private PlantedCoreUsingAnotherModule() {}

    static Object sandbox() {
        return dev.toolyard.sandbox.TieredSandbox.builder();
    }
}
