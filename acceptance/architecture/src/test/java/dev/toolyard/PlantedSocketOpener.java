package dev.toolyard;

/** Planted: a core class that opens a socket. Only {@code ArchitectureTest} loads it, to see its rule fail. */
public final class PlantedSocketOpener {
    private PlantedSocketOpener() {}

    static java.net.Socket open() {
        return new java.net.Socket();
    }
}
