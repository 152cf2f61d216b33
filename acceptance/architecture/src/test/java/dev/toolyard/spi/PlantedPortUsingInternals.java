package dev.toolyard.spi;

/** Planted: a port that uses core's internals. Only {@code ArchitectureTest} loads it. */
public final class PlantedPortUsingInternals {
    private PlantedPortUsingInternals() {}

    static String digest(String s) {
        return dev.toolyard.internal.JsonValues.class.getName() + s;
    }
}
