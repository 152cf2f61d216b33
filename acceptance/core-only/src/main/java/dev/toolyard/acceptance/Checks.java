package dev.toolyard.acceptance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Counts claims, prints each, and exits non-zero when any failed. */
final class Checks {
    private final String name;
    private int passed;
    private int failed;

    Checks(String name) {
        this.name = name;
    }

    void that(boolean holds, String claim) {
        if (holds) {
            passed++;
            System.out.println("  ok    " + claim);
        } else {
            failed++;
            System.out.println("  FAIL  " + claim);
        }
    }

    /** @return a new temporary directory, removed with everything in it when this JVM exits */
    static Path tempDirectory(String prefix) throws IOException {
        Path dir = Files.createTempDirectory(prefix);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException | RuntimeException e) {
                System.err.println("could not remove " + dir + ": " + e);
            }
        }));
        return dir;
    }

    void exit() {
        System.out.println("acceptance check " + name + " - claims held: " + passed + ", claims broken: " + failed);
        System.exit(failed == 0 ? 0 : 1);
    }
}
