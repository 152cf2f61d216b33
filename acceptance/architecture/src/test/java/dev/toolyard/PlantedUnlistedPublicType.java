package dev.toolyard;

/** Planted: a public type of an exported package that docs/public-api.md does not list. Only {@code PublicApiTest} loads it. */
public final class PlantedUnlistedPublicType {
    private PlantedUnlistedPublicType() {}
}
