package dev.toolyard;

/** Planted: a core class that starts a process. Only {@code ArchitectureTest} loads it, to see its rule fail. */
public final class PlantedProcessStarter {
    private PlantedProcessStarter() {}

    static ProcessBuilder start() {
        return new ProcessBuilder("/bin/true");
    }
}
