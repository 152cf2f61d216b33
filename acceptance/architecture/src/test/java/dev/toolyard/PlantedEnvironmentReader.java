package dev.toolyard;

/** Planted: a core class that reads the environment. Only {@code ArchitectureTest} loads it, to see its rule fail. */
public final class PlantedEnvironmentReader {
    private PlantedEnvironmentReader() {}

    static String home() {
        return System.getenv("HOME");
    }
}
