package dev.toolyard.acceptance;

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

    void exit() {
        System.out.println("acceptance check " + name + " - claims held: " + passed + ", claims broken: " + failed);
        System.exit(failed == 0 ? 0 : 1);
    }
}
